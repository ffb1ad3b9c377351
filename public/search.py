"""One search over documents, decision records and topics.

A query is read once, in web-search syntax (``"exact phrase"``, ``-word``,
``or``), into terms; each database then searches its own full-text index
with them, stemming words (``pipelines`` finds ``pipeline``) and ranking
results by relevance: title and identifier first, then the citation with
every author of the full list, the venue and the DOI, then the summary:

- PostgreSQL: the ``search_vector`` columns its triggers keep (migrations
  0004 and 0015), ranked by ``ts_rank``, passages by ``ts_headline``;
  documents whose title (or identifier) matches the query come first, each
  part in ``ts_rank`` order: a page is read from ``document_search``, the
  narrow copy of the public documents' vectors its triggers keep (migration
  0029), ranking the title matches alone until a page goes past them;
- SQLite: FTS5 tables with the Porter stemmer that its triggers keep
  (migrations 0009 and 0015), ranked by ``bm25``, passages by ``snippet``.

An identifier typed (``LIT-325``) or a work's address pasted (an arXiv or
doi.org address, ``arXiv:…``, ``doi:…``) goes straight to its document. A
query that finds nothing is offered "Did you mean …?", each unknown word
replaced by the record's own word most alike by trigram similarity (pg_trgm's
on PostgreSQL, the same measure computed on SQLite: ``catalogue.trigrams``),
read from the public record's stored vocabulary (``catalogue.Word``): through
its trigram index on PostgreSQL, from a bounded range of it on SQLite.
"""

import re
from dataclasses import dataclass, field
from html import escape

from django.contrib.postgres.search import (
    SearchQuery,
    SearchRank,
    SearchVectorExact,
    SearchVectorField,
)
from django.core.paginator import Page, Paginator
from django.db import connection
from django.db.models import F, Func, Q
from django.db.models.expressions import RawSQL
from django.http import Http404
from django.utils.safestring import mark_safe
from django.utils.text import Truncator

from catalogue.citations import Citation, source_key
from catalogue.filters import DocumentFilter
from catalogue.identifiers import Identifier
from catalogue.models import (
    PUBLIC_STATUSES,
    Authorship,
    DecisionLog,
    DecisionRecord,
    Document,
    Person,
    Registry,
    Topic,
    Word,
)
from catalogue.models.vocabulary import MAX_WORD_LENGTH
from catalogue.names import fold
from catalogue.trigrams import WORD_RE as TRIGRAM_WORD_RE
from catalogue.trigrams import similarity
from public.rows import search_results

MAX_QUERY_LENGTH = 200
# Words and phrases a search takes: a title pasted whole is about fifteen.
MAX_TERMS = 32
RESULTS_PER_PAGE = 50
# How many matches past a page's start a search counts (PostgreSQL): beyond
# that, the page says "more than" and offers the next page.
COUNTED = 1000
# Past any page a record can have; an offset beyond it is one neither database
# takes (64 bits).
MAX_OFFSET = 2**62
PASSAGE_WORDS = 40
CONFIG = "english"
# Private-use characters mark the highlights, so the text around them can be
# escaped before they become <mark> elements; angle brackets stand in for
# themselves while PostgreSQL picks the passage, or it would drop anything
# that looks like a tag from the text.
START, STOP, LT, GT = "\ue000", "\ue001", "\ue002", "\ue003"

TERM_RE = re.compile(r'(-?)"([^"]*)"|(-?)(\S+)')
WORD_RE = re.compile(r"\w")


@dataclass
class Terms:
    """A query's terms: ``groups`` are alternatives (``or``), each a list of
    words and phrases that must all match; ``excluded`` must not match.

    Terms without a letter or digit are dropped, and a term is negated at
    most once, so no input makes a query the databases refuse.
    """

    groups: list = field(default_factory=list)
    excluded: list = field(default_factory=list)

    @classmethod
    def parse(cls, query):
        groups, excluded = [[]], []
        for match in TERM_RE.finditer(query):
            is_phrase = match[2] is not None
            negated = bool(match[1] or match[3])
            term = match[2] if is_phrase else match[4].strip('"-')
            if not is_phrase and term.lower() == "or" and not negated:
                groups.append([])
            elif WORD_RE.search(term):
                (excluded if negated else groups[-1]).append(" ".join(term.split()))
        return cls([group for group in groups if group], excluded)

    def __bool__(self):
        return bool(self.groups or self.excluded)

    def websearch(self):
        """The terms in PostgreSQL's web-search syntax."""
        alternatives = " or ".join(" ".join(map(_quoted, g)) for g in self.groups)
        return " ".join([alternatives, *(f"-{_quoted(t)}" for t in self.excluded)])

    def fts5(self):
        """The terms as an FTS5 query, or None when no term must match."""
        if not self.groups:
            return None
        alternatives = " OR ".join(
            "(" + " AND ".join(map(_fts5_string, group)) + ")" for group in self.groups
        )
        if self.excluded:
            return f"({alternatives}) NOT ({self.fts5_excluded()})"
        return alternatives

    def fts5_excluded(self):
        return " OR ".join(map(_fts5_string, self.excluded))


def term_count(query):
    """How many words and quoted phrases ``query`` has that hold a letter or
    a digit (``or`` and bare operators are not terms)."""
    return sum(1 for match in TERM_RE.finditer(query) if WORD_RE.search(match[0]))


def _quoted(term):
    return f'"{term}"' if " " in term else term


def _fts5_string(term):
    # An FTS5 string: the tokenizer reads it, so it stems and phrases as the
    # indexed text does; a double quote inside is doubled.
    return '"' + term.replace('"', '""') + '"'


def entry_named(query):
    """The public document or decision record a query names by identifier
    (LIT-325, lit 4, ADR-59), or the one public document whose source a
    pasted address names; or None."""
    identifier = Identifier.parse_typed(query)
    if identifier is None:
        return source_named(query)
    if identifier.prefix == DecisionRecord.PREFIX:
        # ADR-026 typed is the record's own, as the preface's is.
        return (
            DecisionRecord.objects.public()
            .filter(log__is_own=True, number=identifier.number, twin=1)
            .first()
        )
    return (
        Document.objects.public()
        .select_related("registry")
        .filter(registry__prefix=identifier.prefix, number=identifier.number)
        .first()
    )


def source_named(query):
    """The one public document whose work ``query`` names as an arXiv or
    doi.org address, ``arXiv:…`` or ``doi:…``, or None (none, or several)."""
    key = source_key(query.strip()) if ADDRESS_RE.match(query.strip()) else ""
    if not key:
        return None
    documents = Document.objects.public().select_related("registry")
    doi = key.removeprefix("doi:") if key.startswith("doi:") else None
    condition = Q(source_key=key) | (Q(doi__iexact=doi) if doi else Q(pk=None))
    found = list(documents.filter(condition).order_by("registry__prefix", "number")[:2])
    return found[0] if len(found) == 1 else None


# What a pasted work's address or scheme-prefixed identifier starts with.
ADDRESS_RE = re.compile(
    r"(https?://|(www\.)?(arxiv|doi|dx\.doi)\.org/|arxiv:|doi:)", re.I
)


def identifier_notice(query):
    """Why a query that reads as an identifier opened no record, or ""."""
    identifier = Identifier.parse_typed(query)
    if identifier is None:
        return ""
    if identifier.prefix == DecisionRecord.PREFIX:
        return f"No published decision record is numbered {identifier}."
    prefixes = list(
        Registry.objects.public().order_by("prefix").values_list("prefix", flat=True)
    )
    if identifier.prefix in prefixes:
        return f"No published document is numbered {identifier}."
    kinds = ", ".join(f"{prefix}-…" for prefix in [*prefixes, DecisionRecord.PREFIX])
    return (
        f"The record holds no {identifier.prefix} documents: its identifiers "
        f"are {kinds}."
    )


@dataclass
class PeopleFound:
    """The public people a query names: ``exact`` those whose display name
    it is (folded: case, accents and punctuation aside), ``listed`` up to
    ``PEOPLE_SHOWN`` whose name holds it, those first; ``more`` when there
    are others."""

    exact: list = field(default_factory=list)
    listed: list = field(default_factory=list)
    more: bool = False

    @property
    def person(self):
        """The one person the query is the name of, or None (none, or
        namesakes to choose between)."""
        return self.exact[0] if len(self.exact) == 1 else None


PEOPLE_SHOWN = 10


def people_named(query):
    """The ``PeopleFound`` for ``query``: one query, none for a query with no
    letter or digit or one that reads as an identifier.

    A name holds the query as written (``Rajb`` in ``Rajbhandari``), or its
    family name is the query's last words folded (``muller`` finds Müller);
    the query's own name, then the shortest names, come first.
    """
    folded = fold(query)
    if not folded or Identifier.parse_typed(query) is not None:
        return PeopleFound()
    words = folded.split()
    families = sorted({" ".join(words[start:]) for start in range(len(words))})
    found = list(Person.objects.raw(*_people_sql(query.strip(), families)))
    return PeopleFound(
        exact=[person for person in found if fold(person.display_name) == folded],
        listed=found[:PEOPLE_SHOWN],
        more=len(found) > PEOPLE_SHOWN,
    )


def _people_sql(name, families):
    """``(sql, params)`` of ``people_named``'s query, written out as a search
    runs it for every query: ``public_people()`` (``Person.objects.public()``
    with ``document_count``) whose display name holds ``name`` (as
    ``icontains``) or who have a position under one of ``families`` (read
    from its index, authorship_family), ``name``'s own (``iexact``) first,
    then the shortest names, at most ``PEOPLE_SHOWN`` and one more.

    The people whose names match are found and put in order first; whether
    each is public is then asked of their own positions, one at a time in
    that order, until enough are found. Asked as a join (as ``EXISTS``
    becomes), PostgreSQL would read every public position of the record to
    keep a few hundred namesakes.
    """
    ops = connection.ops
    holds = connection.operators["icontains"] % "%s"
    named = connection.operators["iexact"] % "%s"
    display = "p.display_name"
    people, positions = Person._meta.db_table, Authorship._meta.db_table
    statuses = ", ".join(["%s"] * len(PUBLIC_STATUSES))
    public_positions = (
        f"FROM {positions} a JOIN {Document._meta.db_table} d "
        "ON d.id = a.document_id WHERE a.person_id = n.id "
        f"AND a.version_id IS NULL AND d.status IN ({statuses})"
    )
    sql = f"""
        WITH named AS MATERIALIZED (
            SELECT p.id, p.display_name, p.affiliation, p.slug,
                CASE WHEN {ops.lookup_cast("iexact", "CharField") % display}
                    {named} THEN 0 ELSE 1 END AS is_named,
                LENGTH(p.display_name) AS length, p.sort_key
            FROM {people} p
            WHERE {ops.lookup_cast("icontains", "CharField") % display} {holds}
                OR p.id IN (SELECT person_id FROM {positions}
                    WHERE family IN ({", ".join(["%s"] * len(families))}))
            ORDER BY is_named, length, p.sort_key, p.slug
        )
        SELECT n.id, n.display_name, n.affiliation, n.slug,
            COALESCE((SELECT COUNT(DISTINCT a.document_id) {public_positions}), 0)
                AS document_count
        FROM named n
        WHERE (SELECT 1 {public_positions} LIMIT 1) IS NOT NULL
        ORDER BY n.is_named, n.length, n.sort_key, n.slug
        LIMIT {PEOPLE_SHOWN + 1}
    """
    return sql, [
        ops.prep_for_iexact_query(name),
        f"%{ops.prep_for_like_query(name)}%",
        *families,
        *PUBLIC_STATUSES,
        *PUBLIC_STATUSES,
    ]


def is_full_text():
    return connection.vendor == "postgresql"


class SearchResults:
    """The documents, decision records and topics that match a query."""

    def __init__(self, query, data):
        self.query = query
        self.terms = Terms.parse(query)
        self.data = data
        documents = Document.objects.public().select_related("registry", "topic")
        if query:
            documents = self._match_documents(documents)
        else:
            documents = documents.order_by("registry__prefix", "number")
        self.filter = DocumentFilter(data, queryset=documents)

    def context(self, request):
        is_filtered = any(request.GET.get(name) for name in self.filter.filters)
        searched = bool(self.query) or is_filtered
        page = self._page(request.GET.get("page") or 1, searched)
        documents = page.object_list
        decisions = self._match_decisions() if self.query else []
        topics = self._match_topics() if self.query else []
        found = documents or decisions or topics
        return {
            "query": self.query,
            "searched": searched,
            "is_filtered": is_filtered,
            "filter": self.filter,
            "page_obj": page,
            "paginator": page.paginator,
            "count_is_partial": page.paginator.count
            > getattr(page.paginator, "counted_to", page.paginator.count),
            "documents": documents,
            "results": search_results(documents),
            "decisions": decisions,
            "topics": topics,
            "identifier_notice": identifier_notice(self.query),
            "suggestion": "" if found or not self.query else suggestion(self.query),
        }

    # Documents

    def _page(self, number, searched):
        """Page ``number`` of the matching documents, in two queries at any
        number of matches: the page's ids in order with how many match (the
        matches are ranked and counted in one pass, and only their ids are
        sorted), then the page's documents with their passages, which are
        worked out for the shown rows only (``page_documents``)."""
        paginator = Paginator(Document.objects.none(), RESULTS_PER_PAGE)
        try:
            number = int(number)
        except (TypeError, ValueError):
            raise Http404(paginator.error_messages["invalid_page"]) from None
        if number < 1:
            raise Http404(paginator.error_messages["min_page"])
        start = (number - 1) * RESULTS_PER_PAGE
        if start > MAX_OFFSET:
            raise Http404(paginator.error_messages["no_results"])
        if not searched:
            ids, count = [], 0
        elif self.query and self.terms and is_full_text():
            ids, count = self._ranked_matches(start)
            # Matches are counted up to COUNTED past the page's start: one
            # more than that says "more than" (count_is_partial).
            paginator.counted_to = start + COUNTED
        else:
            ids, count = _ranked_ids(self.filter.qs, start)
        if not ids and number > 1:
            raise Http404(paginator.error_messages["no_results"])
        # Paginator counts lazily: the count read with the ids is its count.
        paginator.count = count
        marked = self.terms if self.query and self.terms else None
        return Page(page_documents(ids, marked), number, paginator)

    def _match_documents(self, documents):
        """The matching documents in the search's order (PostgreSQL: those
        whose title matches first, each part best first by ``ts_rank``, ties
        in identifier order), as feeds and downloads read them; a page reads
        the same order from ``document_search`` (``_ranked_matches``)."""
        if not self.terms:
            return documents.none()
        if is_full_text():
            query = self._search_query()
            # Matched through document_search's index, which holds the public
            # documents' vectors; the document table's own vectors are read
            # for the matches' order alone, and carry no index of their own.
            matches = RawSQL(
                f"SELECT s.document_id {MATCHES}", [self.terms.websearch()]
            )
            return (
                documents.filter(pk__in=matches)
                .annotate(
                    title_matches=SearchVectorExact(
                        TitleVector("search_vector"), query
                    ),
                    rank=SearchRank(F("search_vector"), query),
                )
                .order_by("-title_matches", "-rank", "registry__prefix", "number")
            )
        return _fts5_match(
            documents,
            "document_fts",
            self.terms,
            weights=[10, 10, 4, 1],
            order=["registry__prefix", "number"],
        )

    def _ranked_matches(self, start):
        """``(ids, how many match)`` for the page from ``start`` of this
        search's matches on PostgreSQL, in ``_match_documents``' order, read
        from ``document_search``.

        The title matches are found through their own index and ranked
        alone; the other matches are ranked only for a page that goes past
        the title matches. Matches are counted up to ``COUNTED`` past the
        page's start (not at all when the title matches alone are more):
        a count of one more than that means "more than". So a page costs
        what its part of the ranking costs, whatever the number of matches.
        """
        narrowed, narrowing = "", []
        if any(self.data.get(name) for name in self.filter.filters):
            # The search's own filters (validated by now) on the public
            # documents, without their order.
            filtered = self.filter.filter_queryset(Document.objects.public())
            sql, params = filtered.order_by().values("pk").query.sql_with_params()
            narrowed, narrowing = f"AND s.document_id IN ({sql})", list(params)
        params = [self.terms.websearch(), *narrowing]
        bound = start + COUNTED
        with connection.cursor() as cursor:
            cursor.execute(
                f"""
                WITH titled AS MATERIALIZED ({_matches_sql(TITLE_MATCHES, narrowed)})
                SELECT
                    (SELECT count(*) FROM titled),
                    CASE WHEN (SELECT count(*) FROM titled) > %s THEN %s
                    ELSE (SELECT count(*) FROM (
                        SELECT 1 {MATCHES} {narrowed} LIMIT %s
                    ) AS counted) END,
                    ARRAY({_page_sql("titled")})
                """,
                [
                    *params,
                    bound,
                    bound + 1,
                    *params,
                    bound + 1,
                    RESULTS_PER_PAGE,
                    start,
                ],
            )
            titled, count, ids = cursor.fetchone()
            if len(ids) < RESULTS_PER_PAGE and start + len(ids) < count:
                cursor.execute(
                    f"WITH rest AS MATERIALIZED "
                    f"({_matches_sql(OTHER_MATCHES, narrowed)}) "
                    f"SELECT ARRAY({_page_sql('rest')})",
                    [*params, RESULTS_PER_PAGE - len(ids), max(0, start - titled)],
                )
                ids += cursor.fetchone()[0]
        return ids, count

    # Decision records and topics: few rows, listed whole.

    def _match_decisions(self):
        decisions = DecisionRecord.objects.public()
        if not self.terms:
            return []
        if is_full_text():
            return ranked_decisions(self.terms)
        return list(
            _fts5_match(
                decisions, "decision_fts", self.terms, [10, 10, 1], order=["number"]
            )
        )

    def _match_topics(self):
        if not self.terms:
            return []
        if is_full_text():
            return list(
                Topic.objects.raw(
                    f"SELECT t.id, t.name, t.slug, t.scope "
                    f"FROM {Topic._meta.db_table} t, {TSQUERY} "
                    "WHERE t.search_vector @@ q "
                    "ORDER BY ts_rank(t.search_vector, q) DESC, t.position",
                    [self.terms.websearch()],
                )
            )
        return list(
            _fts5_match(
                Topic.objects.all(), "topic_fts", self.terms, [10, 4], ["position"]
            )
        )

    def _search_query(self):
        return SearchQuery(
            self.terms.websearch(), search_type="websearch", config=CONFIG
        )


# The query's terms as a tsquery (q); its one parameter is their web-search
# syntax (``Terms.websearch``).
TSQUERY = f"websearch_to_tsquery('{CONFIG}', %s) q"


def ranked_decisions(terms):
    """The published decision records (``DecisionRecord.objects.public()``)
    that match ``terms`` (PostgreSQL), best first by ``ts_rank``, ties in
    number order, each with its log: one query, written out, reading only
    what a search lists of them (label, address, title, status), as every
    search runs it."""
    log_fields = [field.attname for field in DecisionLog._meta.concrete_fields]
    found = DecisionRecord.objects.raw(
        "SELECT r.id, r.log_id, r.number, r.twin, r.title, r.status, "
        + ", ".join(f"l.{name} AS log_{name}" for name in log_fields)
        + f" FROM {DecisionRecord._meta.db_table} r "
        f"JOIN {DecisionLog._meta.db_table} l ON l.id = r.log_id, {TSQUERY} "
        "WHERE r.published_at IS NOT NULL AND r.search_vector @@ q "
        "ORDER BY ts_rank(r.search_vector, q) DESC, r.number",
        [terms.websearch()],
    )
    decisions = list(found)
    for decision in decisions:
        decision.log = DecisionLog.from_db(
            connection.alias,
            log_fields,
            [getattr(decision, f"log_{name}") for name in log_fields],
        )
    return decisions


class TitleVector(Func):
    """The A-weighted part of a search vector: the identifier and the title."""

    function = "ts_filter"
    template = "%(function)s(%(expressions)s, '{a}')"
    output_field = SearchVectorField()


# The public documents that match the query (q) in document_search (s), to be
# narrowed by more conditions on s; the one parameter is the query's terms.
MATCHES = (
    f"FROM document_search s, websearch_to_tsquery('{CONFIG}', %s) q "
    "WHERE s.search_vector @@ q"
)
# Those whose title matches, found through the title's own index (the whole
# vector's is not read: a match of the title alone is checked on its row),
# and the others.
TITLE_MATCHES = (
    f"FROM document_search s, websearch_to_tsquery('{CONFIG}', %s) q "
    "WHERE ts_filter(s.search_vector, '{a}') @@ q AND (s.search_vector @@ q) IS TRUE"
)
OTHER_MATCHES = f"{MATCHES} AND NOT ts_filter(s.search_vector, '{{a}}') @@ q"


def _matches_sql(matches, conditions):
    """The id, rank and identifier of the ``matches`` that meet ``conditions``."""
    return (
        "SELECT s.document_id, ts_rank(s.search_vector, q) AS rank, s.registry_id, "
        f"s.number {matches} {conditions}"
    )


def _page_sql(ranked):
    """The ids of a page of the ``ranked`` matches (a table of
    ``_matches_sql``), best first, ties in identifier order; its two
    parameters are the page's size and offset."""
    return (
        f"SELECT m.document_id FROM {ranked} m "
        "JOIN catalogue_registry r ON r.id = m.registry_id "
        "ORDER BY m.rank DESC, r.prefix, m.number LIMIT %s OFFSET %s"
    )


def _ranked_ids(documents, start):
    """``([id], how many match)`` for a page of ``documents`` (an ordered
    query set) from ``start``.

    The matches are counted and ranked in one pass, over narrow rows: the id
    and the order's keys are read first (a materialised query), then counted
    and sorted. Counted in the same query as the rest, PostgreSQL would hold
    every match's whole row, search vector included, for the count, and work
    out the rank after it.
    """
    if documents.query.is_empty():
        return [], 0
    order = documents.query.order_by
    keys = [f"key{n}" for n in range(len(order))]
    sql, params = (
        documents.order_by()
        .values_list("pk", *(name.removeprefix("-") for name in order))
        .query.sql_with_params()
    )
    materialized = "MATERIALIZED" if connection.vendor == "postgresql" else ""
    by = ", ".join(
        f"{key} {'DESC' if name.startswith('-') else 'ASC'}"
        for key, name in zip(keys, order, strict=True)
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH matched (id, {', '.join(keys)}) AS {materialized} ({sql}) "
            f"SELECT id, count(*) OVER () FROM matched ORDER BY {by} "
            "LIMIT %s OFFSET %s",
            [*params, RESULTS_PER_PAGE, start],
        )
        rows = cursor.fetchall()
    return [pk for pk, _ in rows], rows[0][1] if rows else 0


class FoundDocument:
    """A document of a search's page as its result item shows it, made from
    plain values (``page_documents``): its identifier, label, status, topic,
    citation, marked title and passage."""

    __slots__ = [
        "citation",
        "identifier",
        "label",
        "passage",
        "pk",
        "status",
        "title_html",
        "topic_name",
    ]

    def __init__(self, values, headline, title_headline):
        (pk, prefix, number, version, status, topic_name, title) = values[:7]
        authors, year, source_identifier, citation_note, summary = values[7:12]
        self.pk = pk
        self.identifier = Identifier(prefix, number)
        self.label = self.identifier.label(version)
        self.status = status
        self.topic_name = topic_name
        self.citation = Citation(authors, year, source_identifier, citation_note)
        self.passage = _passage(summary, headline)
        self.title_html = _marked(title_headline or title)


# What a result item shows of a document, in ``FoundDocument``'s order.
FOUND_COLUMNS = (
    "d.id, r.prefix, d.number, d.version, d.status, t.name, d.title, d.authors, "
    "d.year, d.source_identifier, d.citation_note, d.summary"
)
FOUND_WIDTH = FOUND_COLUMNS.count(",") + 1


def page_documents(ids, terms=None):
    """The public documents among ``ids``, in that order, as
    ``FoundDocument``s, with the summary's passage and the title marked for
    ``terms`` (when given) for these rows only: one query, written out, as a
    page of a search runs it for every search and its 50 rows are read as
    plain values.

    PostgreSQL marks them with ``ts_headline``; SQLite with FTS5's
    ``snippet`` and ``highlight``, which mark only the terms of a MATCH, so a
    search that only leaves words out has none there.
    """
    if not ids:
        return []
    table = Document._meta.db_table
    passages, tables, where = "", "", ""
    before, after = [], []
    if terms and is_full_text():
        passages = (
            f", ts_headline('{CONFIG}', replace(replace(d.summary, '<', %s), "
            "'>', %s), q, %s), "
            f"ts_headline('{CONFIG}', replace(replace(d.title, '<', %s), "
            "'>', %s), q, %s)"
        )
        before = [LT, GT, SUMMARY_HEADLINE, LT, GT, TITLE_HEADLINE]
        tables = f", {TSQUERY}"
        before.append(terms.websearch())
    elif terms and terms.groups:
        passages = ", " + ", ".join(sql for sql, _ in FTS5_PASSAGES.values())
        before = [p for _, params in FTS5_PASSAGES.values() for p in params]
        tables = ", document_fts"
        where = " AND document_fts.rowid = d.id AND document_fts MATCH %s"
        after = [terms.fts5()]
    marks = ", ".join(["%s"] * len(ids))
    statuses = ", ".join(["%s"] * len(PUBLIC_STATUSES))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {FOUND_COLUMNS}{passages} FROM {table} d "
            f"JOIN {Registry._meta.db_table} r ON r.id = d.registry_id "
            f"LEFT JOIN {Topic._meta.db_table} t ON t.id = d.topic_id{tables} "
            f"WHERE d.id IN ({marks}) AND d.status IN ({statuses}){where}",
            [*before, *ids, *PUBLIC_STATUSES, *after],
        )
        rows = cursor.fetchall()
    found = {
        row[0]: FoundDocument(row, *(row[FOUND_WIDTH:] or (None, None))) for row in rows
    }
    return [found[pk] for pk in ids if pk in found]


# ts_headline's options (PostgreSQL) for the summary's passage and the title.
SUMMARY_HEADLINE = (
    f"StartSel='{START}', StopSel='{STOP}', "
    f"MaxWords={PASSAGE_WORDS}, MinWords={PASSAGE_WORDS // 2}"
)
TITLE_HEADLINE = f"StartSel='{START}', StopSel='{STOP}', HighlightAll=true"


# The summary's matching passage and the title, marked, from document_fts.
FTS5_PASSAGES = {
    "headline": (
        f"snippet(document_fts, 3, %s, %s, '', {PASSAGE_WORDS})",
        [START, STOP],
    ),
    "title_headline": ("highlight(document_fts, 1, %s, %s)", [START, STOP]),
}


def _fts5_match(queryset, fts, terms, weights, order):
    """``queryset`` narrowed to the rows of FTS5 table ``fts`` that match
    ``terms``, best first.

    FTS5's rank exists only in a query that joins its table with MATCH, and
    the ORM has no join to a virtual table: ``extra()`` adds it.
    """
    table = queryset.model._meta.db_table
    match = terms.fts5()
    if match is None:
        excluded = RawSQL(
            f"SELECT rowid FROM {fts} WHERE {fts} MATCH %s", [terms.fts5_excluded()]
        )
        return queryset.exclude(pk__in=excluded).order_by(*order)
    return queryset.extra(
        tables=[fts],
        where=[f"{fts}.rowid = {table}.id", f"{fts} MATCH %s"],
        params=[match],
        select={"rank": f"bm25({fts}, {', '.join(map(str, weights))})"},
    ).order_by("rank", *order)


def _passage(summary, headline):
    """The summary's passage that matched (``headline``, marked), with an
    ellipsis where it starts or ends inside the summary; the summary's opening
    when none did."""
    if headline is None:
        return Truncator(summary).words(PASSAGE_WORDS, truncate="…")
    plain = _unmarked(headline).strip()
    before = "" if summary.startswith(plain) else "…"
    after = "" if summary.endswith(plain) else "…"
    return _marked(f"{before}{headline.strip()}{after}")


def _unmarked(text):
    text = text.replace(START, "").replace(STOP, "")
    return text.replace(LT, "<").replace(GT, ">")


def _marked(text):
    """``text`` escaped, its marked words in <mark> elements."""
    text = escape(text.replace(LT, "<").replace(GT, ">"))
    return mark_safe(text.replace(START, "<mark>").replace(STOP, "</mark>"))


# How alike a word must be to one of the query's to be suggested: pg_trgm's
# own default threshold, which its % operator (the trigram index's) applies.
SUGGESTION_SIMILARITY = 0.3
# On SQLite, the words a query's word is compared with: those that begin with
# its first two characters and are at most this many characters longer or
# shorter, the most frequent first, at most SQLITE_CANDIDATES of them (one
# range of the word's index each).
SQLITE_LENGTH_WINDOW = 3
SQLITE_CANDIDATES = 500


def suggestion(query):
    """The query with each word the record does not hold replaced by the
    record's word most like it, or "" when no word is replaced.

    The words are looked up in the public record's vocabulary
    (``catalogue.Word``), in one query whatever the record's size: no
    document is read. A query of more than ``MAX_TERMS`` words is offered
    nothing (the search refuses more terms than that anyway).
    """
    words = [word.lower() for word in TRIGRAM_WORD_RE.findall(query)]
    asked = sorted({word for word in words if len(word) <= MAX_WORD_LENGTH})
    if not asked or len(asked) > MAX_TERMS:
        return ""
    alike = _alike_words(asked)
    replaced = [alike.get(word, word) for word in words]
    return " ".join(replaced) if replaced != words else ""


def _alike_words(words):
    """``{word: the vocabulary's word most like it}`` for the ``words`` it
    does not hold (of words as alike, the more frequent, then the first in
    code point order)."""
    if is_full_text():
        return _alike_words_sql(words)
    table = Word._meta.db_table
    parts, params = [], []
    for word in words:
        # The word itself, if known, and the candidates like it.
        parts.append(f"SELECT %s, word, frequency FROM {table} WHERE word = %s")
        params += [word, word]
        prefix = word[:2]
        parts.append(
            f"SELECT * FROM (SELECT %s, word, frequency FROM {table} "
            "WHERE word >= %s AND word < %s AND length(word) BETWEEN %s AND %s "
            "ORDER BY frequency DESC, word LIMIT %s)"
        )
        params += [
            word,
            prefix,
            prefix[:-1] + chr(ord(prefix[-1]) + 1),
            len(word) - SQLITE_LENGTH_WINDOW,
            len(word) + SQLITE_LENGTH_WINDOW,
            SQLITE_CANDIDATES,
        ]
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts), params)
        candidates = cursor.fetchall()
    known = {(word, found) for word, found, _ in candidates if word == found}
    best = {}
    for word, found, frequency in candidates:
        if (word, word) in known:
            continue
        score = similarity(word, found)
        if score < SUGGESTION_SIMILARITY:
            continue
        key = (-score, -frequency, found)
        if word not in best or key < best[word][0]:
            best[word] = (key, found)
    return {word: found for word, (_, found) in best.items()}


def _alike_words_sql(words):
    """``_alike_words`` on PostgreSQL: each word's most alike in the
    vocabulary, found through its trigram index (``%``, pg_trgm's
    similarity at its threshold, ``SUGGESTION_SIMILARITY``)."""
    table = Word._meta.db_table
    sql = f"""
        SELECT asked.word, alike.word
        FROM unnest(%s::text[]) AS asked (word)
        CROSS JOIN LATERAL (
            SELECT known.word FROM {table} AS known
            WHERE known.word %% asked.word
                AND similarity(known.word, asked.word) >= %s
            ORDER BY similarity(known.word, asked.word) DESC,
                known.frequency DESC, known.word COLLATE "C"
            LIMIT 1
        ) AS alike
        WHERE NOT EXISTS (SELECT 1 FROM {table} WHERE word = asked.word)
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, [words, SUGGESTION_SIMILARITY])
        return dict(cursor.fetchall())

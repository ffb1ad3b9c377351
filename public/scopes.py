"""What each public page shows, as page-cache scopes, and what a change touches.

The page cache (``pagecache``) serves a stored page only while the
generations of its scopes are current. This module is the site's side of
that bargain: ``page_scopes`` names the scopes each page depends on (the
``PAGE_CACHE_SCOPES`` setting points at it), and ``change_scopes`` the scopes
a change affects (``PAGE_CACHE_CHANGE_SCOPES``: the actions expire them).

Scopes, besides the page cache's own ``EVERYTHING`` (the preface,
registries, topics, imports):

- ``listing``: what every document list shows besides its rows (registry
  totals and the public tags offered as filters);
- ``lists``: the full index, unfiled, registries, tags, feeds, sitemaps,
  search and the statistics;
- ``people``: the people pages, besides the lists (a person's page shows
  their documents as the lists do, so it takes ``lists`` too);
- ``topic:<slug>``, ``doc:<identifier>`` and ``decisions``.
"""

import django_filters
from django.db.models import CharField, IntegerField, Value

from catalogue.filters import DecisionRecordFilter, DocumentFilter, DocumentTableFilter
from catalogue.identifiers import Identifier
from catalogue.models import (
    DecisionRecord,
    Document,
    Preface,
    Reference,
    RelatedDocument,
    Topic,
)
from catalogue.references import find_names
from pagecache.generations import EVERYTHING
from pagecache.queries import Parameters

LISTING = "listing"
LISTS = "lists"
DECISIONS = "decisions"
PEOPLE = "people"


def topic_scope(slug):
    return f"topic:{slug}"


def document_scope(identifier):
    return f"doc:{identifier}"


# Which scopes each public page depends on, by URL name. Pages not named here
# (the admin, staff exports, decision images, the API's description, which
# answers YAML or JSON as asked) are never cached.
PAGES = {
    "catalogue:index": lambda kw: [LISTS],
    "catalogue:search": lambda kw: [LISTS],
    # Every change to a public document expires the lists, and with them the
    # statistics; a topic's renaming expires everything.
    "catalogue:statistics": lambda kw: [LISTS],
    "catalogue:unfiled": lambda kw: [LISTS, LISTING],
    "catalogue:registry-list": lambda kw: [LISTS],
    "catalogue:registry-detail": lambda kw: [LISTS, LISTING],
    "catalogue:tag-list": lambda kw: [LISTS, LISTING],
    "catalogue:tag-detail": lambda kw: [LISTS, LISTING],
    "catalogue:feed": lambda kw: [LISTS],
    "catalogue:robots": lambda kw: [],
    "catalogue:favicon": lambda kw: [],
    "catalogue:sitemap": lambda kw: [LISTS, DECISIONS],
    "catalogue:sitemap-section": lambda kw: [LISTS, DECISIONS],
    "catalogue:topic-detail": lambda kw: [LISTING, topic_scope(kw["slug"])],
    # A list's feed follows what its page shows: whatever expires the page
    # expires its feed.
    "catalogue:topic-feed": lambda kw: [LISTING, topic_scope(kw["slug"])],
    "catalogue:unfiled-feed": lambda kw: [LISTS, LISTING],
    "catalogue:registry-feed": lambda kw: [LISTS, LISTING],
    "catalogue:tag-feed": lambda kw: [LISTS, LISTING],
    "catalogue:search-feed": lambda kw: [LISTS],
    "catalogue:venue-feed": lambda kw: [LISTS],
    # A person's page shows their documents as the lists do, and what the
    # editors' verbs on people change; the venues' only what the lists show.
    "catalogue:people": lambda kw: [LISTS, PEOPLE],
    "catalogue:person-detail": lambda kw: [LISTS, PEOPLE],
    "catalogue:person-feed": lambda kw: [LISTS, PEOPLE],
    "catalogue:venue-list": lambda kw: [LISTS],
    "catalogue:venue-detail": lambda kw: [LISTS],
    "catalogue:document-detail": lambda kw: [document_scope(kw["identifier"])],
    "catalogue:document-version": lambda kw: [document_scope(kw["identifier"])],
    "catalogue:document-feed": lambda kw: [document_scope(kw["identifier"])],
    "catalogue:document-linkset": lambda kw: [document_scope(kw["identifier"])],
    "catalogue:document-linkset-json": lambda kw: [document_scope(kw["identifier"])],
    "catalogue:document-json-ld": lambda kw: [document_scope(kw["identifier"])],
    # Every decision log's pages, the record's own and the teams'.
    "catalogue:decision-list": lambda kw: [DECISIONS],
    "catalogue:decision-detail": lambda kw: [DECISIONS],
    "catalogue:decision-feed": lambda kw: [DECISIONS],
    "catalogue:log-decision-list": lambda kw: [DECISIONS],
    "catalogue:log-decision-detail": lambda kw: [DECISIONS],
    "catalogue:log-decision-feed": lambda kw: [DECISIONS],
    # Citation downloads: a list's costs a thousand entries' rendering.
    "catalogue:search-citation": lambda kw: [LISTS],
    "catalogue:topic-citation": lambda kw: [topic_scope(kw["slug"])],
    "catalogue:document-citation": lambda kw: [document_scope(kw["identifier"])],
    # The API (api/) shows what the pages show, under the same scopes: a list
    # of documents, topics or registries what the full index and the lists
    # show; a document what its page shows; decision logs what their pages do.
    "api:root": lambda kw: [],
    "api:problem-type": lambda kw: [],
    "api:document-list": lambda kw: [LISTS, LISTING],
    "api:document-detail": lambda kw: [document_scope(kw["identifier"])],
    "api:topic-list": lambda kw: [LISTS],
    "api:topic-detail": lambda kw: [LISTS],
    "api:registry-list": lambda kw: [LISTS],
    "api:registry-detail": lambda kw: [LISTS],
    "api:tag-list": lambda kw: [LISTS, LISTING],
    "api:tag-detail": lambda kw: [LISTS, LISTING],
    # People, as their pages: a change to a person expires ``people``, and a
    # change to a public document (whose authors they are) the lists.
    "api:person-list": lambda kw: [LISTS, PEOPLE],
    "api:person-detail": lambda kw: [LISTS, PEOPLE],
    "api:decision-log-list": lambda kw: [DECISIONS],
    "api:decision-log-detail": lambda kw: [DECISIONS],
    "api:decision-record-list": lambda kw: [DECISIONS],
    "api:decision-record": lambda kw: [DECISIONS],
    "api:decision-record-twin": lambda kw: [DECISIONS],
}


# The query parameters each cached page reads, each with how it is written
# (a list's filters and its page, a search's query too, a document table's
# sort): another spelling of the same query is redirected to its own. Pages
# not named read none.
def filter_parameters(filterset, *, strict=False):
    """The parameters of ``filterset``'s filters: years are numbers, tags a set."""
    filters = filterset.base_filters
    return Parameters(
        text=[n for n, f in filters.items() if not isinstance(f, (NUMBERS, SETS))],
        numbers=[n for n, f in filters.items() if isinstance(f, NUMBERS)],
        sets=[n for n, f in filters.items() if isinstance(f, SETS)],
        strict=strict,
    )


NUMBERS = django_filters.NumberFilter
SETS = (django_filters.MultipleChoiceFilter, django_filters.ModelMultipleChoiceFilter)
PAGE = Parameters(numbers=["page"])
LIST_PARAMETERS = filter_parameters(DocumentFilter) | PAGE
TABLE_PARAMETERS = filter_parameters(DocumentTableFilter) | PAGE
QUERY = Parameters(text=["q"])
# The API's lists page by cursor, and refuse what they cannot read.
API_PAGES = Parameters(text=["cursor"], numbers=["page_size"], strict=True)
# A list a client syncs takes the time of its last sync.
SYNCED = Parameters(text=["modified_since"], strict=True)
PARAMETERS = {
    "catalogue:search": LIST_PARAMETERS | QUERY,
    "catalogue:unfiled": TABLE_PARAMETERS,
    "catalogue:registry-detail": TABLE_PARAMETERS,
    "catalogue:tag-detail": TABLE_PARAMETERS,
    "catalogue:topic-detail": TABLE_PARAMETERS,
    "catalogue:registry-list": PAGE,
    "catalogue:tag-list": PAGE,
    "catalogue:people": PAGE,
    "catalogue:person-detail": PAGE,
    "catalogue:venue-list": PAGE,
    "catalogue:venue-detail": PAGE,
    "catalogue:decision-list": PAGE | Parameters(text=["status"]),
    "catalogue:log-decision-list": PAGE | Parameters(text=["status"]),
    "catalogue:sitemap-section": Parameters(numbers=["p"]),
    "catalogue:search-citation": LIST_PARAMETERS | QUERY,
    # A list's feed reads the page's filters, never its page or sort.
    "catalogue:search-feed": LIST_PARAMETERS | QUERY,
    "catalogue:topic-feed": filter_parameters(DocumentFilter),
    "catalogue:unfiled-feed": filter_parameters(DocumentFilter),
    "catalogue:registry-feed": filter_parameters(DocumentFilter),
    "catalogue:tag-feed": filter_parameters(DocumentFilter),
    "catalogue:decision-feed": Parameters(text=["status"]),
    "catalogue:log-decision-feed": Parameters(text=["status"]),
    "catalogue:topic-citation": LIST_PARAMETERS,
    "api:document-list": filter_parameters(DocumentFilter, strict=True)
    | API_PAGES
    | SYNCED,
    "api:topic-list": API_PAGES | SYNCED,
    "api:removed-list": API_PAGES | Parameters(text=["since"], strict=True),
    **dict.fromkeys(
        [
            "api:registry-list",
            "api:tag-list",
            "api:person-list",
            "api:decision-log-list",
        ],
        API_PAGES,
    ),
    "api:decision-record-list": filter_parameters(DecisionRecordFilter, strict=True)
    | API_PAGES
    | SYNCED,
}
# Every other cached page reads no parameter; the API's refuse any.
NONE = Parameters()
NONE_STRICT = Parameters(strict=True)


def page_parameters(match):
    """The query parameters the page ``match`` shows reads, as ``Parameters``."""
    default = NONE_STRICT if match.view_name.startswith("api:") else NONE
    return PARAMETERS.get(match.view_name, default)


def page_scopes(match):
    """The scopes of the page ``match`` (a ResolverMatch) shows, or None."""
    scopes = PAGES.get(match.view_name)
    return None if scopes is None else scopes(match.kwargs)


# The pages of each scope as path patterns, for shared caches in front that
# purge by path (CloudFront); the others purge by the scope itself.
SCOPE_PATHS = {
    EVERYTHING: ["/*"],
    LISTS: [
        *("/", "/search/*", "/statistics/*", "/feed/*", "/sitemap*"),
        *("/registries/*", "/tags/*", "/unfiled/*", "/people/*", "/venues/*"),
        *("/api/documents/", "/api/documents/?*", "/api/topics/*"),
        *("/api/registries/*", "/api/tags/*", "/api/people/*"),
    ],
    LISTING: [
        *("/topics/*", "/unfiled/*", "/registries/*", "/tags/*"),
        *("/api/documents/", "/api/documents/?*", "/api/tags/*"),
    ],
    DECISIONS: ["/decisions/*", "/sitemap*", "/api/decision-logs/*"],
    PEOPLE: ["/people/*", "/api/people/*", "/search/*"],
}
SCOPE_PREFIX_PATHS = {
    "topic": ["/topics/{}/*"],
    "doc": ["/{}/*", "/api/documents/{}/*"],
}


def scope_paths(scope):
    """The path patterns of the pages that depend on ``scope``."""
    if scope in SCOPE_PATHS:
        return SCOPE_PATHS[scope]
    kind, _, name = scope.partition(":")
    return [pattern.format(name) for pattern in SCOPE_PREFIX_PATHS[kind]]


def document_scopes(document, *, topic_slugs=(), names=()):
    """The scopes a change to a public ``document`` affects.

    Its own pages, its topic (and ``topic_slugs``, where it was filed before),
    the site-wide lists, the entries its text names now or named before
    (``names``, for their "Referenced by"), the entries whose text names
    it, with their topics (their links say whether it is retired, superseded
    or has a newer version), and the entries whose related work lists it
    (their lists give its title, and drop it once it is withdrawn, before
    related work is next recomputed).
    """
    scopes = {LISTS, document_scope(document.identifier)}
    scopes.update(topic_scope(slug) for slug in topic_slugs if slug)
    if document.topic_id is not None:
        scopes.add(topic_scope(document.topic.slug))
    for name in [*names, *find_names(document.reference_text)]:
        if name.prefix == DecisionRecord.PREFIX:
            scopes.add(DECISIONS)
        else:
            scopes.add(document_scope(Identifier(name.prefix, name.number)))
    scopes |= _naming_scopes(document.identifier, listed=document)
    return scopes


def documents_scopes(changes, *, listing=False):
    """The scopes a change to many public documents affects, as
    ``document_scopes`` names them for each, found in a few queries for all
    of them: ``changes`` is ``[(document, before)]``, ``before`` the document
    as it was read before the change, or None for a new one. A new document
    had no page of its own to expire (only answers of 200 are kept); the
    texts that name it had, and link it now.

    ``listing``: as for ``change_scopes``.
    """
    scopes = {LISTS, LISTING} if listing else {LISTS}
    topics, names, identifiers = set(), [], set()
    for document, before in changes:
        topics.add(document.topic_id)
        names += find_names(document.reference_text)
        identifiers.add(document.identifier)
        if before is not None:
            scopes.add(document_scope(document.identifier))
            topics.add(before.topic_id)
            names += find_names(before.reference_text)
    topics.discard(None)
    scopes.update(
        topic_scope(slug)
        for slug in Topic.objects.filter(pk__in=topics).values_list("slug", flat=True)
    )
    for name in names:
        if name.prefix == DecisionRecord.PREFIX:
            scopes.add(DECISIONS)
        else:
            scopes.add(document_scope(Identifier(name.prefix, name.number)))
    # The pages whose related work lists a changed document show its title
    # and drop it once it is withdrawn.
    changed = [document.pk for document, before in changes if before is not None]
    for start in range(0, len(changed), NAMED_AT_ONCE):
        listing_pages = RelatedDocument.objects.filter(
            related_id__in=changed[start : start + NAMED_AT_ONCE]
        ).values_list("document__registry__prefix", "document__number")
        scopes.update(
            document_scope(Identifier(prefix, number))
            for prefix, number in listing_pages.distinct()
        )
    return scopes | _naming_many_scopes(identifiers)


# Numbers looked up a query at a time (as many as the vocabulary reads at
# once), within every database's limit of parameters.
NAMED_AT_ONCE = 1000


def _naming_many_scopes(identifiers, log=None):
    """``_naming_scopes`` of many identifiers (of decision records of
    ``log``) at once."""
    keys = {identifier.key for identifier in identifiers}
    scopes = set()
    numbers = sorted({number for _, number in keys})
    named = {"log": log.pk} if log is not None else {}
    for start in range(0, len(numbers), NAMED_AT_ONCE):
        rows = Reference.objects.filter(
            prefix__in={prefix for prefix, _ in keys},
            number__in=numbers[start : start + NAMED_AT_ONCE],
            **named,
        ).values_list(
            "prefix",
            "number",
            "document__registry__prefix",
            "document__number",
            "document__topic__slug",
            "decision_id",
        )
        for named_prefix, named_number, prefix, number, slug, decision_id in rows:
            if (named_prefix, named_number) not in keys:
                continue
            if decision_id is not None:
                scopes.add(DECISIONS)
            else:
                scopes.add(document_scope(Identifier(prefix, number)))
                if slug:
                    scopes.add(topic_scope(slug))
    preface = Preface.objects.first() if log is None or log.is_own else None
    if preface is not None and any(
        name.key in keys for name in find_names(preface.text)
    ):
        scopes.add(EVERYTHING)
    return scopes


def _naming_scopes(identifier, log=None, listed=None):
    """Scopes of the texts that name ``identifier`` (a decision record's of
    ``log``), the preface's included: it names the record's own log's; and
    of the documents whose related work lists the document ``listed``, read
    in the same query."""
    scopes = set()
    named = {"log": log.pk} if log is not None else {}
    rows = (
        Reference.objects.filter(
            prefix=identifier.prefix, number=identifier.number, **named
        )
        .values_list(
            "document__registry__prefix",
            "document__number",
            "document__topic__slug",
            "decision_id",
        )
        .order_by()
    )
    if listed is not None:
        rows = rows.union(
            RelatedDocument.objects.filter(related_id=listed.pk)
            .values_list(
                "document__registry__prefix",
                "document__number",
                Value(None, output_field=CharField()),
                Value(None, output_field=IntegerField()),
            )
            .order_by(),
            all=True,
        )
    for prefix, number, slug, decision_id in rows:
        if decision_id is not None:
            scopes.add(DECISIONS)
        else:
            scopes.add(document_scope(Identifier(prefix, number)))
            if slug:
                scopes.add(topic_scope(slug))
    preface = Preface.objects.first() if log is None or log.is_own else None
    if preface is not None and any(
        name.key == identifier.key for name in find_names(preface.text)
    ):
        scopes.add(EVERYTHING)
    return scopes


def people_scopes(persons, documents=()):
    """The scopes a change to ``persons`` affects: the people pages, the
    lists (search lists people) and the pages of ``documents``, which link
    their authors."""
    scopes = {PEOPLE, LISTS}
    scopes.update(document_scope(document.identifier) for document in documents)
    return scopes


def own_page_scopes(pks):
    """The scopes of the own pages of the documents ``pks``: what shows their
    related work."""
    rows = Document.objects.filter(pk__in=pks).values_list("registry__prefix", "number")
    return {document_scope(Identifier(prefix, number)) for prefix, number in rows}


def before_change(obj):
    """What ``change_scopes`` needs to know of a public document or decision
    record before a change: where it was filed and the names its text gave."""
    if isinstance(obj, DecisionRecord):
        return {"names": find_names(obj.body)}
    return {
        "topic_slugs": [obj.topic.slug] if obj.topic_id else [],
        "names": find_names(obj.reference_text),
    }


def change_scopes(obj, *, before=None, listing=False):
    """The scopes a change to a public document or decision record affects.

    ``listing``: the change alters what every document list shows besides its
    rows (a registry's total, the public tags), as a first publication does.
    """
    if isinstance(obj, DecisionRecord):
        return decision_scopes(obj, **(before or {}))
    scopes = document_scopes(obj, **(before or {}))
    if listing:
        scopes.add(LISTING)
    return scopes


def decisions_scopes(changes):
    """The scopes a change to many public decision records affects, as
    ``decision_scopes`` names them for each, found in a query or two a log:
    ``changes`` is ``[(decision, before)]``, ``before`` what
    ``before_change`` gave for it (None for a new one)."""
    scopes, numbers = {DECISIONS, LISTS}, {}
    for decision, before in changes:
        log = decision.log
        numbers.setdefault(log, set()).add(decision.number)
        for name in [*(before or {}).get("names", ()), *find_names(decision.body)]:
            if name.prefix != log.prefix:
                scopes.add(document_scope(Identifier(name.prefix, name.number)))
    for log, logged in numbers.items():
        scopes |= _naming_many_scopes(
            [Identifier(log.prefix, number) for number in logged], log
        )
    return scopes


def decision_scopes(decision, *, names=()):
    """The scopes a change to a public decision record affects: the decision
    pages and lists, the texts naming it, and the documents its text names now
    or named before (``names``), whose pages list it as naming them."""
    scopes = {DECISIONS, LISTS, *_naming_scopes(decision.identifier, decision.log)}
    for name in [*names, *find_names(decision.body)]:
        if name.prefix != decision.log.prefix:
            scopes.add(document_scope(Identifier(name.prefix, name.number)))
    return scopes

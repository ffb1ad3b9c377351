"""One search over documents, decision records and topics.

On PostgreSQL: full-text search in web-search syntax (``"exact phrase"``,
``-word``, ``or``), ranked, over search vectors the database keeps in indexed
columns (migration 0004), with the matching passage highlighted. On SQLite:
the same page, matching words and phrases as substrings, in number order.
"""

import operator
import re
from functools import reduce

from django.contrib.postgres.search import SearchHeadline, SearchQuery, SearchRank
from django.core.paginator import InvalidPage, Paginator
from django.db import connection
from django.db.models import F, Q, Value
from django.db.models.functions import Replace
from django.http import Http404
from django.utils.html import escape
from django.utils.safestring import mark_safe

from catalogue.filters import DocumentFilter
from catalogue.identifiers import Identifier
from catalogue.models import DecisionRecord, Document, Topic

MAX_QUERY_LENGTH = 200
RESULTS_PER_PAGE = 50
CONFIG = "english"
# Private-use characters mark the highlights, so the text around them can be
# escaped before they become <mark> elements; angle brackets stand in for
# themselves while PostgreSQL picks the passage, or it would drop anything
# that looks like a tag from the text.
START, STOP, LT, GT = "\ue000", "\ue001", "\ue002", "\ue003"

TERM_RE = re.compile(r'(-?)"([^"]*)"|(-?)(\S+)')


def entry_named(query):
    """The public document or decision record a query names by identifier
    (LIT-325, lit 4, ADR-59), or None."""
    identifier = Identifier.parse_typed(query)
    if identifier is None:
        return None
    if identifier.prefix == DecisionRecord.PREFIX:
        return DecisionRecord.objects.public().filter(number=identifier.number).first()
    return (
        Document.objects.public()
        .select_related("registry")
        .filter(registry__prefix=identifier.prefix, number=identifier.number)
        .first()
    )


def is_full_text():
    return connection.vendor == "postgresql"


class SearchResults:
    """The documents, decision records and topics that match a query."""

    def __init__(self, query, data):
        self.query = query
        documents = Document.objects.public().select_related("registry", "topic")
        if query:
            documents = self._match_documents(documents)
        else:
            documents = documents.order_by("registry__prefix", "number")
        self.filter = DocumentFilter(data, queryset=documents)

    def context(self, request):
        is_filtered = any(request.GET.get(name) for name in self.filter.filters)
        searched = bool(self.query) or is_filtered
        paginator = Paginator(
            self.filter.qs if searched else Document.objects.none(), RESULTS_PER_PAGE
        )
        try:
            page = paginator.page(request.GET.get("page") or 1)
        except InvalidPage as error:
            raise Http404(str(error)) from None
        documents = list(page.object_list)
        for document in documents:
            document.passage = self._passage(document)
        return {
            "query": self.query,
            "searched": searched,
            "is_filtered": is_filtered,
            "filter": self.filter,
            "page_obj": page,
            "paginator": paginator,
            "documents": documents,
            "decisions": self._match_decisions() if self.query else [],
            "topics": self._match_topics() if self.query else [],
            "full_text": is_full_text(),
        }

    # Documents

    def _match_documents(self, documents):
        if is_full_text():
            query = self._search_query()
            return (
                documents.filter(search_vector=query)
                .annotate(
                    rank=SearchRank(F("search_vector"), query),
                    headline=SearchHeadline(
                        Replace(
                            Replace("summary", Value("<"), Value(LT)),
                            Value(">"),
                            Value(GT),
                        ),
                        query,
                        config=CONFIG,
                        start_sel=START,
                        stop_sel=STOP,
                        max_words=40,
                        min_words=20,
                    ),
                )
                .order_by("-rank", "registry__prefix", "number")
            )
        fields = ["title", "authors", "source_identifier", "citation_note", "summary"]
        return documents.filter(self._text_condition(fields)).order_by(
            "registry__prefix", "number"
        )

    def _passage(self, document):
        if hasattr(document, "headline"):
            text = document.headline.replace(LT, "<").replace(GT, ">")
        else:
            text = mark_terms(document.summary, self._terms()[0])
        return mark_safe(escape(text).replace(START, "<mark>").replace(STOP, "</mark>"))

    # Decision records and topics: few rows, listed whole.

    def _match_decisions(self):
        decisions = DecisionRecord.objects.public()
        if is_full_text():
            query = self._search_query()
            return list(
                decisions.filter(search_vector=query)
                .annotate(rank=SearchRank(F("search_vector"), query))
                .order_by("-rank", "number")
            )
        return list(decisions.filter(self._text_condition(["title", "body"])))

    def _match_topics(self):
        if is_full_text():
            query = self._search_query()
            return list(
                Topic.objects.filter(search_vector=query)
                .annotate(rank=SearchRank(F("search_vector"), query))
                .order_by("-rank", "position")
            )
        return list(Topic.objects.filter(self._text_condition(["name", "scope"])))

    # Query parsing

    def _search_query(self):
        return SearchQuery(self.query, search_type="websearch", config=CONFIG)

    def _terms(self):
        """(groups of terms that must all match, terms that must not match).

        Groups are alternatives, separated by ``or`` as in web-search syntax.
        """
        groups, excluded = [[]], []
        for match in TERM_RE.finditer(self.query):
            negated = match[1] or match[3]
            term = match[2] if match[2] is not None else match[4]
            if not term.strip('"'):
                continue
            if term.lower() == "or" and not negated and match[4]:
                groups.append([])
            elif negated:
                excluded.append(term)
            else:
                groups[-1].append(term.strip('"'))
        return [group for group in groups if group], excluded

    def _text_condition(self, fields):
        def matches(term):
            return reduce(
                operator.or_, (Q(**{f"{field}__icontains": term}) for field in fields)
            )

        groups, excluded = self._terms()
        condition = reduce(
            operator.or_,
            (reduce(operator.and_, map(matches, group)) for group in groups),
            Q(pk__in=[]) if groups else Q(),
        )
        for term in excluded:
            condition &= ~matches(term)
        return condition


def mark_terms(text, groups, width=300):
    """A passage of ``text`` around the first term found, terms marked."""
    terms = sorted({term for group in groups for term in group}, key=len, reverse=True)
    if not terms:
        return text[:width]
    pattern = re.compile("|".join(map(re.escape, terms)), re.IGNORECASE)
    first = pattern.search(text)
    start = max(0, first.start() - width // 3) if first else 0
    passage = text[start : start + width]
    marked = pattern.sub(lambda m: f"{START}{m[0]}{STOP}", passage)
    return ("…" if start else "") + marked + ("…" if start + width < len(text) else "")

"""The reading room's pages: the index, topics, lists, documents, decisions,
search. Only what a reader may see is ever listed or shown."""

import datetime
import re
from dataclasses import dataclass
from typing import NamedTuple
from urllib.parse import urlencode

from django.core.exceptions import BadRequest
from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.functional import cached_property
from django.utils.http import quote_etag
from django.utils.safestring import mark_safe
from django.utils.text import Truncator
from django.views.generic import DetailView, ListView, TemplateView

from catalogue.addresses import absolute_url
from catalogue.filters import (
    ColumnOrderingFilter,
    DocumentFilter,
    DocumentTableFilter,
)
from catalogue.models import (
    OWN_LOG,
    Authorship,
    DecisionImage,
    DecisionLog,
    DecisionRecord,
    DecisionRelation,
    Document,
    DocumentNotice,
    ListedCount,
    Person,
    Preface,
    Registry,
    RelatedDocument,
    Topic,
    Venue,
)
from catalogue.references import resolve
from formats.madr import unlinked
from public import people, search, signposting
from public.downloads import filtered_citation_response
from public.links import decision_files, link_names_in_html, place_files
from public.rows import document_rows, row_values, stored_rows
from public.statistics import statistics_figures, topic_year_figure
from public.versions import version_comparison

# A topic page shows all its rows on one page, as the record always has;
# longer lists are paginated.
ROWS_PER_PAGE = 1000
# Where a list's rows go in its rendered page: a comment no escaped value or
# template of the site writes.
ROWS_PLACE = "<!--anthology:document-rows-->"


class IndexView(TemplateView):
    """The full index: every topic in editorial order with its counts.

    Template: ``catalogue/index.html``. Context: ``preface``, ``references``,
    ``topics`` (each with ``counts``, a list of (prefix, n)), ``unfiled_counts``.
    """

    template_name = "catalogue/index.html"

    def get_context_data(self, **kwargs):
        counts = Document.objects.public().topic_counts()
        topics = list(Topic.objects.all())
        for topic in topics:
            topic.counts = sorted(counts.get(topic.pk, {}).items())
        preface = Preface.objects.first()
        return super().get_context_data(
            preface=preface,
            references=resolve([preface.text] if preface else []),
            topics=topics,
            unfiled_counts=sorted(counts.get(None, {}).items()),
            **kwargs,
        )


class StatisticsView(TemplateView):
    """The record at a glance: public documents per topic, per year and
    topic, by status, as the record grew, and the most referenced.

    Template: ``catalogue/statistics.html``. Context: ``figures`` (each a
    ``statistics.Figure``: a chart and its numbers as a table).
    """

    template_name = "catalogue/statistics.html"

    def get_context_data(self, **kwargs):
        return super().get_context_data(figures=statistics_figures(), **kwargs)


# The parameter of a table's sort, and the columns a reader sorts it by, each
# first ascending (the oldest year first); the number order is a table's own.
SORT = "sort"
SORT_COLUMNS = list(ColumnOrderingFilter.COLUMNS)


@dataclass(frozen=True)
class SortHeader:
    """A sortable column's header: the address of its link, and how the
    table is sorted by the column ("ascending", "descending", or "")."""

    href: str
    sort: str = ""


def sort_headers(request, sort):
    """``{column: SortHeader}`` for a table sorted by ``sort`` ("" for its
    own number order). A column's link sorts the table by it, the other way
    round if it is sorted by it already, and keeps every other parameter
    but the page (a new order starts on its first page)."""
    column = sort.removeprefix("-") or "number"
    descending = sort.startswith("-")
    headers = {}
    for name in SORT_COLUMNS:
        state, wanted = "", name
        if name == column:
            state = "descending" if descending else "ascending"
            wanted = name if descending else f"-{name}"
        query = request.GET.copy()
        query.pop("page", None)
        if wanted == "number":
            # The table's own order has the plain address.
            query.pop(SORT, None)
        else:
            query[SORT] = wanted
        encoded = query.urlencode()
        headers[name] = SortHeader(
            href=f"?{encoded}" if encoded else request.path, sort=state
        )
    return headers


class DocumentListView(ListView):
    """A list of public documents in number order, filtered and sorted from
    the URL.

    Subclasses narrow ``base_queryset()``. Context: ``documents`` (this
    page's ``ListedRow`` objects), ``rows`` (their table rows as HTML, from
    ``rows.document_rows``), ``filter``, ``references`` (for a preface the
    page shows), ``is_filtered``, ``sort`` (the sort asked for, as
    written, or "") and ``sorting`` (a ``SortHeader`` per sortable column).
    """

    context_object_name = "documents"
    paginate_by = ROWS_PER_PAGE
    hidden_filters = []
    # The URL name of the list's feed, which follows what it shows.
    feed_name = None
    # Lists that mix topics show each row's topic.
    topic_column = False
    # How many documents the list holds unfiltered, where the page knows it
    # without counting them again (a filed list's registry counts); None
    # has the paginator count them.
    listed_count = None

    def base_queryset(self):
        return Document.objects.public()

    def get_queryset(self):
        return self.filtered(row_values(self.base_queryset()), DocumentTableFilter)

    def selection(self):
        """The public documents the list shows, whatever their order or page:
        what the list's feed follows."""
        return self.filtered(self.base_queryset(), DocumentFilter)

    def filtered(self, queryset, filterset):
        """``queryset`` narrowed by the list's filters as the URL gives them;
        filters it cannot read are a 400 that names them."""
        self.filter = filterset(self.request.GET or None, queryset=queryset)
        for name in self.hidden_filters:
            del self.filter.filters[name]
        if self.filter.is_bound and not self.filter.is_valid():
            raise BadRequest(self.filter.errors.as_text())
        return self.filter.qs

    def get_paginator(self, queryset, per_page, **kwargs):
        paginator = super().get_paginator(queryset, per_page, **kwargs)
        if self.listed_count is not None and not self.is_filtered():
            # The paginator counts lazily: the count known is its count.
            paginator.count = self.listed_count
        return paginator

    def is_filtered(self):
        """Whether the URL's filters narrow the list (a sort only orders it)."""
        return any(
            self.request.GET.get(name) for name in self.filter.filters if name != SORT
        )

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["documents"] = stored_rows(context["documents"])
        # The rows come built, their names linked (``rows.document_rows``).
        context["references"] = {}
        # The rows join the page once it is rendered (``render_to_response``).
        self.rows = document_rows(context["documents"], topic_column=self.topic_column)
        context["rows"] = mark_safe(ROWS_PLACE)
        context["topic_column"] = self.topic_column
        context["filter"] = self.filter
        # A sort only orders the rows: the list shows what it showed unsorted.
        context["is_filtered"] = self.is_filtered()
        context["filter_query"] = filter_query(self.request)
        if self.feed_name:
            context["feed_url"] = feed_address(
                self.feed_name, self.kwargs, context["filter_query"]
            )
            context["feed_title"] = feed_title(
                self.feed_subject(), filter_words(self.filter)
            )
        sort = self.filter.form.cleaned_data[SORT] if self.filter.is_bound else None
        context["sort"] = sort[0] if sort else ""
        context["sorting"] = sort_headers(self.request, context["sort"])
        if "listed" not in context:
            # How many the list holds before its filters: one more count,
            # asked only when the list is filtered.
            context["listed"] = (
                self.unfiltered_count()
                if context["is_filtered"]
                else context["paginator"].count
            )
        return context

    def render_to_response(self, context, **kwargs):
        """The page, its rows' HTML put in their place once it is rendered:
        the rows of a long list (a megabyte of a topic's) would otherwise be
        copied again at every level of the templates they pass through."""
        response = super().render_to_response(context, **kwargs)
        rows = self.rows

        def place_rows(response):
            head, place, tail = response.content.partition(ROWS_PLACE.encode())
            if place:
                response.content = b"".join([head, rows.encode(response.charset), tail])

        response.add_post_render_callback(place_rows)
        return response

    def unfiltered_count(self):
        """How many documents the list holds before its filters."""
        return self.base_queryset().count()

    def feed_subject(self):
        """What the list's feed is named after."""
        raise NotImplementedError


def feed_address(name, kwargs, query):
    """The address of the feed ``name`` of a page, with the page's filters."""
    path = reverse(f"catalogue:{name}", kwargs=kwargs)
    return f"{path}?{query}" if query else path


def feed_title(subject, words=""):
    """A feed's title as its page's ``<link>`` gives it."""
    return subject + (f" ({words})" if words else "")


def filter_words(filterset):
    """What a list's filters keep, in words: "LIT, active, 2019–2023, tagged
    memory" ("" when they keep every document)."""
    if not filterset.is_bound or not filterset.is_valid():
        return ""
    chosen = filterset.form.cleaned_data
    words = []
    if chosen.get("registry"):
        words.append(chosen["registry"].prefix)
    topic = chosen.get("topic")
    if topic:
        words.append("unfiled" if topic == "unfiled" else topic.name)
    if chosen.get("status"):
        words.append(Document.Status(chosen["status"]).label.lower())
    first, last = chosen.get("year_from"), chosen.get("year_to")
    if first and last:
        words.append(f"{first}–{last}")
    elif first:
        words.append(f"from {first}")
    elif last:
        words.append(f"to {last}")
    tags = chosen.get("tag")
    if isinstance(tags, QuerySet) and tags.query.is_empty():
        # No tag chosen: the field's ``none()``, which asked whether it holds
        # any would compile its query to find out.
        tags = None
    if tags:
        words.append("tagged " + ", ".join(tag.name for tag in tags))
    return ", ".join(words)


class FiledListView(DocumentListView):
    """The documents filed under ``self.topic`` (None: the unfiled ones), with
    the count line: per registry, how many of its public documents they are.

    Context: ``counts`` (RegistryCount per registry) and the list's context.
    """

    hidden_filters = ["topic"]
    topic = None

    def base_queryset(self):
        return Document.objects.public().in_topic(self.topic)

    def get_context_data(self, **kwargs):
        # Kept with the stored rows: a few numbers, not a count of the record.
        counts = ListedCount.objects.registry_counts(topic=self.topic)
        self.listed_count = sum(count.listed for count in counts)
        return super().get_context_data(
            counts=counts, listed=self.listed_count, **kwargs
        )


class TopicDetailView(FiledListView):
    """A topic page: the preface, the topic, its counts and its documents.

    Template: ``catalogue/topic_detail.html``. Context: ``topic``, ``preface``
    and the filed list's context.
    """

    template_name = "catalogue/topic_detail.html"
    feed_name = "topic-feed"

    @cached_property
    def topic(self):
        return get_object_or_404(Topic, slug=self.kwargs["slug"])

    def feed_subject(self):
        return self.topic.name

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        preface = Preface.objects.first()
        if preface:
            context["references"] |= resolve([preface.text])
        context.update(
            topic=self.topic,
            preface=preface,
            year_chart=topic_year_figure(self.topic),
        )
        return context


class UnfiledListView(FiledListView):
    """Public documents filed against no topic, in number order.

    Template: ``catalogue/unfiled_list.html``. Context: the filed list's.
    """

    template_name = "catalogue/unfiled_list.html"
    feed_name = "unfiled-feed"

    def feed_subject(self):
        return "Unfiled documents"


class RegistryDetailView(DocumentListView):
    """Every public document of a registry, in number order.

    Template: ``catalogue/registry_detail.html``. Context: ``registry`` and
    the list's context.
    """

    template_name = "catalogue/registry_detail.html"
    hidden_filters = ["registry"]
    topic_column = True
    feed_name = "registry-feed"

    def feed_subject(self):
        return f"{self.registry.name} ({self.registry.prefix})"

    @cached_property
    def registry(self):
        return get_object_or_404(
            Registry.objects.public(), prefix=self.kwargs["prefix"]
        )

    def base_queryset(self):
        return Document.objects.public().in_registry(self.registry)

    def get_context_data(self, **kwargs):
        return super().get_context_data(registry=self.registry, **kwargs)


class TagDetailView(DocumentListView):
    """Public documents with a tag, in number order.

    Template: ``catalogue/tag_detail.html``. Context: ``tag`` and the list's
    context.
    """

    template_name = "catalogue/tag_detail.html"
    hidden_filters = ["tag"]
    topic_column = True
    feed_name = "tag-feed"

    def feed_subject(self):
        return f"Tagged “{self.tag.name}”"

    @cached_property
    def tag(self):
        # A tag only drafts carry has no public page: its name is not public.
        return get_object_or_404(
            Document.objects.public().tags(), slug=self.kwargs["slug"]
        )

    def base_queryset(self):
        return Document.objects.public().filter(tags=self.tag)

    def get_context_data(self, **kwargs):
        return super().get_context_data(tag=self.tag, **kwargs)


class TagListView(ListView):
    """Every tag a public document carries, by name, with its count of them.

    Template: ``catalogue/tag_list.html``. Context: ``tags``.
    """

    context_object_name = "tags"
    template_name = "catalogue/tag_list.html"

    def get_queryset(self):
        return Document.objects.public().tag_counts().order_by("name")


class RegistryListView(ListView):
    """Every registry with its count of public documents.

    Template: ``catalogue/registry_list.html``. Context: ``registries``.
    """

    context_object_name = "registries"

    def get_queryset(self):
        return Registry.objects.public().with_public_counts()


class PersonListView(ListView):
    """The index of people: everyone a public document names, by family
    name under its letter, each with their count of public documents.

    Template: ``catalogue/person_list.html``. Context: ``groups`` (this
    page's people under their letters: ``people.LetterGroup``), ``letters``
    (every letter of the index with the page it starts on) and the list's.
    """

    template_name = "catalogue/person_list.html"
    context_object_name = "people"
    paginate_by = people.PEOPLE_PER_PAGE

    def get_queryset(self):
        return people.public_people().order_by("sort_key", "slug")

    def get_paginator(self, queryset, per_page, **kwargs):
        paginator = super().get_paginator(queryset, per_page, **kwargs)
        # The letters' query counts the index too: the paginator asks no more.
        paginator.count, self.letters = people.letters(
            Person.objects.public(), per_page
        )
        return paginator

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["groups"] = people.letter_groups(context["people"])
        context["letters"] = self.letters
        return context


class PersonDetailView(DetailView):
    """A person's page: their name, standing (an ORCID iD an editor verified,
    or unverified), affiliation and homepage, the spellings their documents
    use, their public documents by topic (a page at a time), counted per
    registry and per year, their co-authors and venues, and the other
    people of their name.

    Template: ``catalogue/person_detail.html``. Context: ``person``,
    ``counts`` (RegistryCount per registry), ``groups`` (this page's
    documents under their topics: ``people.RowGroup``), ``page_obj``,
    ``years``, ``spellings``, ``coauthors`` (each with ``shared``),
    ``more_coauthors``, ``venues`` and ``namesakes``.

    An address no person has now is a former one (``former_address``).
    """

    context_object_name = "person"
    template_name = "catalogue/person_detail.html"

    def get_queryset(self):
        return Person.objects.public()

    def get(self, request, *args, **kwargs):
        try:
            self.object = self.get_object()
        except Http404:
            return former_address(request, self.kwargs["slug"])
        return self.render_to_response(self.get_context_data(object=self.object))

    def get_context_data(self, **kwargs):
        person = self.object
        documents = people.person_documents(person)
        topics = people.topic_groups(documents)
        page = people.page_of(
            people.in_topic_order(documents),
            self.request.GET.get("page"),
            sum(count for *_, count in topics.values()),
            people.DOCUMENTS_PER_PAGE,
        )
        rows = stored_rows(page.object_list)
        coauthors, more_coauthors = people.coauthors(person, documents)
        return super().get_context_data(
            counts=[
                count
                for count in Document.objects.public().registry_shares(documents)
                if count.listed
            ],
            groups=people.grouped_rows(
                rows,
                topics,
                lambda row: row.topic_slug,
            ),
            page_obj=page,
            paginator=page.paginator,
            is_paginated=page.has_other_pages(),
            years=people.year_counts(documents),
            spellings=people.spellings(person),
            coauthors=coauthors,
            more_coauthors=more_coauthors,
            venues=people.venues_of(documents),
            namesakes=people.namesakes(person),
            **kwargs,
        )


def former_address(request, slug):
    """A person's former address: 301 to the one person it names now (a
    merge, a new slug), or the list of the people a split name names, which
    is no page of its own to index; 404 when it names no public person.

    Template: ``catalogue/person_address.html``. Context: ``slug``,
    ``people`` (each with ``document_count``).
    """
    named = list(
        people.public_people()
        .filter(former_addresses__slug=slug)
        .order_by("sort_key", "slug")
    )
    if not named:
        raise Http404(f"No person at {slug}.")
    if len(named) == 1:
        return redirect(named[0], permanent=True)
    return render(
        request, "catalogue/person_address.html", {"slug": slug, "people": named}
    )


class VenueListView(ListView):
    """Every known venue, by name, with its count of public documents (none
    is 0: a venue is known before the record cites it).

    Template: ``catalogue/venue_list.html``. Context: ``venues``.
    """

    template_name = "catalogue/venue_list.html"
    context_object_name = "venues"
    paginate_by = people.PEOPLE_PER_PAGE

    def get_queryset(self):
        return people.venue_counts()


class VenueDetailView(DetailView):
    """A venue's page: its full name and kind, and its public documents by
    year, newest first, with a count per year, a page at a time.

    Template: ``catalogue/venue_detail.html``. Context: ``venue``,
    ``total``, ``years`` ([(year, n)], oldest first), ``groups`` (this
    page's documents under their years) and ``page_obj``.
    """

    model = Venue
    context_object_name = "venue"
    template_name = "catalogue/venue_detail.html"

    def get_context_data(self, **kwargs):
        documents = people.venue_documents(self.object)
        years = people.year_counts(documents)
        total = sum(n for _, n in years)
        page = people.page_of(
            people.newest_first(documents),
            self.request.GET.get("page"),
            total,
            people.DOCUMENTS_PER_PAGE,
        )
        rows = stored_rows(page.object_list)
        return super().get_context_data(
            total=total,
            years=years,
            feed_url=reverse("catalogue:venue-feed", args=[self.object.slug]),
            feed_title=feed_title(self.object.name),
            groups=people.grouped_rows(
                rows,
                {year: (str(year), "", n) for year, n in years},
                people.row_year,
                topic_column=True,
            ),
            page_obj=page,
            paginator=page.paginator,
            is_paginated=page.has_other_pages(),
            **kwargs,
        )


class PermanentIdentifierMixin:
    """A page at its permanent identifier; other spellings (LIT-0004) redirect."""

    def get(self, request, *args, **kwargs):
        self.object = self.get_object()
        canonical = self.canonical_url()
        if request.path != canonical:
            return redirect(canonical, permanent=True)
        return self.render_to_response(self.get_context_data(**self.object_context()))

    def canonical_url(self):
        return self.object.get_absolute_url()

    def object_context(self):
        return {"object": self.object}


class Corrected(NamedTuple):
    """A published correction as a page lists it: its fragment, when, what."""

    anchor: str
    at: datetime.datetime
    text: str


class DocumentDetailView(PermanentIdentifierMixin, DetailView):
    """A document's own page, at its permanent identifier.

    Template: ``catalogue/document_detail.html``. Context: ``document``,
    ``references`` (for its summary and its successor), ``referenced_by``
    (public documents and decision records that name it), ``supersedes``
    (the public documents it supersedes), ``versions``, ``corrections``
    (the erratum notices of its published corrections), ``tags`` and
    ``related`` (its related work, with the reasons).
    """

    context_object_name = "document"

    def get_queryset(self):
        # What it supersedes: public documents only, read once for the page
        # and its BibTeX entry's note.
        supersedes = Prefetch(
            "supersedes", queryset=Document.objects.public().in_number_order()
        )
        return (
            Document.objects.public()
            .select_related(
                "registry", "topic", "superseded_by__registry", "venue_listing__venue"
            )
            .prefetch_related("tags", supersedes, *self.author_prefetch())
        )

    def author_prefetch(self):
        """The author positions of the document's text, each with its person,
        read in one query for the page's links and its JSON-LD."""
        return [
            Prefetch(
                "authorships",
                queryset=Authorship.objects.filter(version__isnull=True)
                .select_related("person")
                .order_by("position"),
                to_attr="current_authorships",
            )
        ]

    def render_to_response(self, context, **kwargs):
        """The page, with its signposts (``public.signposting``) as headers."""
        response = super().render_to_response(context, **kwargs)
        return self.signpost(response, context)

    def signpost(self, response, context):
        document = context["document"]
        return signposting.signpost(
            response, document, authorships=document.current_authorships
        )

    def get_object(self, queryset=None):
        identifier = self.kwargs["identifier"]
        try:
            return self.get_queryset().get(
                registry__prefix=identifier.prefix, number=identifier.number
            )
        except Document.DoesNotExist:
            raise Http404(f"No public document {identifier}.") from None

    def get_context_data(self, **kwargs):
        document = self.object
        successor = document.superseded_by
        return super().get_context_data(
            references=resolve(
                [document.summary, successor.identifier if successor else ""]
            ),
            referenced_by=Document.objects.public()
            .naming(document.identifier)
            .in_number_order(),
            decisions_referencing=DecisionRecord.objects.public().naming(
                document.identifier
            ),
            # The published versions, listed by catalogue/_versions.html,
            # and the published corrections beside them (_corrections.html).
            versions=document.versions.all(),
            corrections=[
                Corrected(f"notice-{notice.pk}", notice.at, notice.reason)
                for notice in document.notices.filter(
                    kind=DocumentNotice.Kind.CORRECTED
                ).order_by("at", "pk")
            ],
            tags=document.tags.all(),
            supersedes=document.supersedes.all(),
            # Stored by the related-work job: one query, whatever its reasons.
            related=RelatedDocument.objects.shown_with(document),
            **kwargs,
        )


class DocumentVersionView(DocumentDetailView):
    """One published version of a public document, compared with the one before.

    Template: ``catalogue/documentversion_detail.html``. Context: ``document``,
    ``version``, ``comparison`` (a VersionComparison), ``versions``. Only
    published versions exist as rows: pending revisions are never shown.
    """

    template_name = "catalogue/documentversion_detail.html"

    def author_prefetch(self):
        # The version's own positions are read with it.
        return []

    def signpost(self, response, context):
        version = context["version"]
        return signposting.signpost(
            response,
            context["document"],
            version=version,
            authorships=version.linked_authorships,
        )

    def canonical_url(self):
        return reverse(
            "catalogue:document-version",
            kwargs={
                "identifier": self.object.identifier,
                "number": self.kwargs["number"],
            },
        )

    def object_context(self):
        version = get_object_or_404(
            self.object.versions.prefetch_related(version_authorships()),
            number=self.kwargs["number"],
        )
        version.document = self.object
        return {
            "object": self.object,
            "version": version,
            "comparison": version_comparison(version),
        }


def version_authorships():
    """A version's author positions with their people, each marked
    ``has_page`` when the person is public: a version may name someone the
    text no longer names, whose page is gone."""
    public = Authorship.objects.filter(
        person=OuterRef("person"),
        version__isnull=True,
        document__status__in=Document.PUBLIC_STATUSES,
    )
    return Prefetch(
        "authorships",
        queryset=Authorship.objects.select_related("person")
        .annotate(has_page=Exists(public))
        .order_by("position"),
        to_attr="linked_authorships",
    )


def decision_log(kwargs):
    """The decision log a page's URL names (``log``: its slug), or the
    record's own; Http404 for none. The own log has no address of its own
    beside /decisions/."""
    if "log" not in kwargs:
        log = DecisionLog.objects.own()
        if log is None:
            return DecisionLog(**OWN_LOG)
        return log
    log = DecisionLog.objects.public().filter(slug=kwargs["log"], is_own=False).first()
    if log is None:
        raise Http404(f"No decision log {kwargs['log']}.")
    return log


class DecisionRecordListView(ListView):
    """A decision log's records, in number order: the record's own at
    /decisions/, a team's at /decisions/<log>/; ``?status=accepted`` keeps
    the records of one status, ``none`` those stating none, and a status kept
    only as written (``?status=Parked``) the records stating it.

    Template: ``catalogue/decisionrecord_list.html``. Context: ``log``,
    ``logs`` (the other logs holding public records), ``statuses`` ((value,
    label, chosen) for the filter: the statuses the log's public records
    state), ``decisions``, each with ``successors`` (the public records
    superseding it) and ``placed_status`` (its status's links to other
    records leading to their pages).
    """

    context_object_name = "decisions"
    paginate_by = ROWS_PER_PAGE

    @cached_property
    def log(self):
        return decision_log(self.kwargs)

    @cached_property
    def stated(self):
        """``{value: label}``: the statuses the log's public records state,
        ours in their order, then those kept only as written, by their words."""
        pairs = set(
            DecisionRecord.objects.public()
            .filter(log=self.log.pk)
            .order_by()
            .values_list("status", "status_text")
            .distinct()
        )
        # A record stating none of ours states none at all, or only its words.
        ours = {status or "none" for status, text in pairs if status or not text}
        written = {
            text: written_status_label(text)
            for status, text in pairs
            if text and not status
        }
        stated = {
            value or "none": label
            for value, label in DecisionRecord.Status.choices
            if (value or "none") in ours
        }
        for text, label in sorted(written.items(), key=lambda item: item[1].lower()):
            stated.setdefault(text, label)
        return stated

    @cached_property
    def chosen(self):
        """The ``status`` asked for ("" for any); a word that is neither one of
        ours nor a status the log's records state is refused."""
        chosen = self.request.GET.get("status", "")
        ours = {"none", *DecisionRecord.Status.values}
        if chosen and chosen not in ours and chosen not in self.stated:
            raise BadRequest(f"No status {chosen!r}.")
        return chosen

    def selection(self):
        """The log's public records of the status asked for: what the page
        lists and its feed follows."""
        decisions = DecisionRecord.objects.public().filter(log=self.log.pk)
        chosen = self.chosen
        if chosen == "none":
            decisions = decisions.filter(status="", status_text="")
        elif chosen and chosen in DecisionRecord.Status.values:
            decisions = decisions.filter(status=chosen)
        elif chosen:
            decisions = decisions.filter(status="", status_text=chosen)
        return decisions

    def status_label(self):
        """The status asked for, as the filter names it ("" for any)."""
        if not self.chosen:
            return ""
        if self.chosen == "none" or self.chosen in DecisionRecord.Status.values:
            return DecisionRecord.Status(
                "" if self.chosen == "none" else self.chosen
            ).label
        # A status kept as written was found among the log's, as it is named.
        return self.stated[self.chosen]

    def get_queryset(self):
        return self.selection().prefetch_related(
            Prefetch(
                "inverse_relations",
                DecisionRelation.objects.filter(
                    kind=DecisionRelation.Kind.SUPERSEDES,
                    source__published_at__isnull=False,
                ).select_related("source__log"),
                to_attr="successors",
            )
        )

    def get_context_data(self, **kwargs):
        offered = dict(self.stated)
        if self.chosen and self.chosen not in offered:
            # One of ours that no record states (now): still shown as chosen.
            offered[self.chosen] = DecisionRecord.Status(
                "" if self.chosen == "none" else self.chosen
            ).label
        # The other logs with a record to read (the own log's page shows
        # none while it holds none).
        logs = (
            DecisionLog.objects.public()
            .filter(decisions__published_at__isnull=False)
            .distinct()
        )
        feed = "log-decision-feed" if "log" in self.kwargs else "decision-feed"
        status = self.status_label()
        context = super().get_context_data(
            log=self.log,
            feed_url=feed_address(
                feed,
                self.kwargs,
                urlencode({"status": self.chosen}) if self.chosen else "",
            ),
            feed_title=feed_title(f"{self.log.name}: decision records", status.lower()),
            logs=[log for log in logs if log.pk != self.log.pk],
            statuses=[
                (value, label, value == self.chosen) for value, label in offered.items()
            ],
            status_chosen=bool(self.chosen),
            **kwargs,
        )
        # A status's links to the records it names lead to their pages.
        decisions = context["decisions"]
        files = decision_files([d.status_text for d in decisions], self.log.pk)
        for decision in decisions:
            decision.placed_status = place_files(
                decision.status_html, files=files, images={}
            )
        return context


def written_status_label(text):
    """A status kept as written, as the filter names it: its words without
    their links, cut short."""
    return Truncator(" ".join(unlinked(text).split())).chars(80)


class DecisionRecordDetailView(PermanentIdentifierMixin, DetailView):
    """A decision record's own page, at its identifier in its log
    (/decisions/ADR-026/, /decisions/govuk-aws/ADR-026/, a second file of one
    number at /decisions/govuk-aws/ADR-064/2/).

    Template: ``catalogue/decisionrecord_detail.html``. Context: ``decision``,
    ``body`` (its Markdown as HTML: names, sibling files and its images
    linked), ``status_history`` (likewise), ``relations`` ((label, public
    record) pairs, both ways),
    ``metadata`` ((label, text) pairs), ``references``, ``referenced_by``,
    ``decisions_referencing``, ``corrections`` (its published corrections).
    """

    context_object_name = "decision"

    def get_object(self, queryset=None):
        identifier = self.kwargs["identifier"]
        # The log is read with the record: one query.
        if "log" in self.kwargs:
            in_log = {"log__slug": self.kwargs["log"], "log__is_own": False}
        else:
            in_log = {"log__is_own": True}
        try:
            return DecisionRecord.objects.public().get(
                log__prefix=identifier.prefix,
                number=identifier.number,
                twin=self.kwargs.get("twin", 1),
                **in_log,
            )
        except DecisionRecord.DoesNotExist:
            raise Http404(f"No decision record {identifier}.") from None

    def get_context_data(self, **kwargs):
        decision = self.object
        references = resolve([decision.body], log=decision.log)
        images = {
            name: reverse(
                decision.url_name("decision-image"),
                kwargs={**decision.url_kwargs(), "name": name},
            )
            + f"?v={digest[:16]}"
            for name, digest in decision.images.values_list("name", "digest")
        }
        files = decision_files(
            [decision.body, decision.status_text, decision.status_history],
            decision.log_id,
        )
        body = place_files(decision.body_html, files=files, images=images)
        # A status's links to the records it names lead to their pages.
        decision.placed_status = place_files(
            decision.status_html, files=files, images={}
        )
        naming = DecisionRecord.objects.public().naming(
            decision.identifier, log=decision.log
        )
        if decision.twin != 1:
            naming = DecisionRecord.objects.none()
        return super().get_context_data(
            body=link_names_in_html(scrolling_tables(body), references),
            status_history=scrolling_tables(
                place_files(decision.status_history_html, files=files, images=images),
                named="Status history table",
            ),
            relations=decision_relations(decision),
            metadata=[
                (str(key).replace("-", " ").capitalize(), _metadata_text(value))
                for key, value in decision.metadata.items()
            ],
            references=references,
            referenced_by=_documents_naming(decision),
            decisions_referencing=naming,
            corrections=[
                Corrected(f"correction-{c.pk}", c.published_at, c.sentence())
                for c in decision.corrections.shown().order_by("published_at", "pk")
            ],
            **kwargs,
        )


# A table of a decision's stored HTML: sanitised, it keeps no attribute.
TABLE_TAG_RE = re.compile(r"<table>|</table>")


def scrolling_tables(html, *, named="Table"):
    """A decision's stored HTML with each table in a box of its own that
    scrolls sideways, so a wide table never widens the page. The box is a
    region (``named`` and its number) that takes the keyboard's focus, so
    that it scrolls without a mouse in every browser; the table inside stays
    a table."""
    count = 0

    def boxed(match):
        nonlocal count
        if match[0] == "</table>":
            return "</table></div>"
        count += 1
        return (
            f'<div class="table-scroll" role="region" tabindex="0" '
            f'aria-label="{named} {count}"><table>'
        )

    return mark_safe(TABLE_TAG_RE.sub(boxed, str(html)))  # Fixed tags added.


def _documents_naming(decision):
    """Documents name only the record's own log's decisions (and a log's of
    a prefix of its own); a second file of one number is named by none."""
    if decision.twin != 1:
        return Document.objects.none()
    return (
        Document.objects.public()
        .naming(decision.identifier, log=decision.log)
        .in_number_order()
    )


def decision_relations(decision):
    """``(label, record)`` for every relation of ``decision`` to a public
    record, read from its side: "Supersedes ADR-002", "Amended by ADR-005"."""
    rows = (
        DecisionRelation.objects.filter(
            Q(source=decision, target__published_at__isnull=False)
            | Q(target=decision, source__published_at__isnull=False)
        )
        .select_related("source__log", "target__log")
        .order_by("kind", "source__number", "target__number")
    )
    relations = []
    for relation in rows:
        if relation.source_id == decision.pk:
            relations.append((relation.get_kind_display(), relation.target))
        else:
            kind = DecisionRelation.Kind(relation.kind)
            relations.append((kind.inverse_label, relation.source))
    return relations


def _metadata_text(value):
    if isinstance(value, list):
        return ", ".join(_metadata_text(item) for item in value)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_metadata_text(v)}" for k, v in value.items())
    return "" if value is None else str(value)


# An image's URL names its digest (``?v=``): under it the bytes never change.
IMMUTABLE = {"public": True, "max_age": 365 * 24 * 3600, "immutable": True}
REVALIDATE = {"public": True, "max_age": 0, "must_revalidate": True}
# An SVG opened on its own runs as a page: it may load and run nothing.
SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox"


def decision_image(request, identifier, name, log=None, twin=1):
    """An image of a public decision record, as imported with it, with its own
    content type; cached for good under the URL its page links to."""
    found = decision_log({"log": log} if log else {})
    if identifier.prefix != found.prefix:
        raise Http404("Not a decision record of this log.")
    image = get_object_or_404(
        DecisionImage.objects.filter(decision__published_at__isnull=False),
        decision__log=found.pk,
        decision__number=identifier.number,
        decision__twin=twin,
        name=name,
    )
    etag = quote_etag(image.digest)
    response = get_conditional_response(request, etag=etag)
    if response is None:
        response = HttpResponse(bytes(image.data), content_type=image.content_type)
    response["ETag"] = etag
    current = request.GET.get("v") == image.digest[:16]
    patch_cache_control(response, **(IMMUTABLE if current else REVALIDATE))
    if image.content_type == "image/svg+xml":
        response["Content-Security-Policy"] = SVG_POLICY
    return response


def filter_query(request):
    """The query string of a list's filters, without its page or its sort:
    what a download of the list takes to hold the same documents."""
    query = request.GET.copy()
    query.pop("page", None)
    query.pop(SORT, None)
    return query.urlencode()


def search_results(request):
    query = request.GET.get("q", "").strip()
    if len(query) > search.MAX_QUERY_LENGTH:
        raise BadRequest(f"A search is at most {search.MAX_QUERY_LENGTH} characters.")
    if search.term_count(query) > search.MAX_TERMS:
        raise BadRequest(
            f"A search is at most {search.MAX_TERMS} words and quoted phrases."
        )
    results = search.SearchResults(query, request.GET)
    if not results.filter.is_valid():
        raise BadRequest(results.filter.errors.as_text())
    return results


def search_view(request):
    """One search over documents, decision records, topics and people.

    An identifier (``LIT-325``, ``lit 325``, ``ADR-59``) goes straight to the
    document or decision record it names, and the one public person's name
    alone (``rajbhandari``) to their page. Template: ``catalogue/search.html``;
    context from ``search.SearchResults``, and ``people`` whose names match
    (``search.people_named``) with ``more_people``.
    """
    query = request.GET.get("q", "")
    named = search.entry_named(query)
    if named is not None:
        return redirect(named)
    results = search_results(request)
    found = search.people_named(query)
    # A bare search for a person's name is a way to their page; one with
    # filters asks for documents.
    if found.person is not None and set(request.GET) == {"q"}:
        return redirect(found.person)
    context = results.context(request)
    if context["searched"]:
        what = f"“{results.query}”" if results.query else "documents"
        context["feed_url"] = feed_address("search-feed", {}, filter_query(request))
        context["feed_title"] = feed_title(
            f"Search for {what}", filter_words(results.filter)
        )
    return render(
        request,
        "catalogue/search.html",
        {**context, "people": found.listed, "more_people": found.more},
    )


def search_citation(request, fmt):
    """The documents a search finds, as BibTeX, RIS or CSL-JSON."""
    results = search_results(request)
    page = request.GET.get("page", "1")
    return filtered_citation_response(results.filter, fmt, "search", page)


def robots_txt(request):
    """Crawlers may read every public page, and find them in the sitemap;
    the admin, staff exports and endless search pages are left alone."""
    sitemap = absolute_url(reverse("catalogue:sitemap"))
    lines = [
        "User-agent: *",
        "Disallow: /admin/",
        "Disallow: /export/",
        "Disallow: /search/",
        f"Sitemap: {sitemap}",
    ]
    return HttpResponse("\n".join(lines) + "\n", content_type="text/plain")


def favicon(request):
    """``/favicon.ico``, where browsers look first: the static icon."""
    return redirect(static("favicon.ico"))


def bad_request(request, exception):
    """The 400 page, saying what was wrong when a view said so.

    Only a view's own ``BadRequest`` is explained: other client errors (a
    disallowed host, a suspicious request) are answered without detail.
    Template: ``400.html``. Context: ``message``.
    """
    message = str(exception) if type(exception) is BadRequest else ""
    return render(request, "400.html", {"message": message}, status=400)

"""Atom feeds of new and revised documents (site-wide; of each list a
reader follows, with its filters: a topic, unfiled, a registry, a tag, a
venue, a person, a search; of one document) and of each decision log's
records, with its status filter. Every feed's author is the record's
editors, so an entry naming no author still has one.

An entry is a published version, so a revision appears as an entry of its own
and a draft never appears at all; or a notice of a public document's change
of standing (withdrawn, with its reason; reinstated; superseded), whatever
the document's age. Its id is the version page's absolute address under the
canonical origin (``SITE_URL``) (for a notice, the document page's with the
notice's own fragment), unique to the entry and never changed whatever Host a
reader's request carried (neither is ever edited), as RFC 4287 asks; its link
is the document's page, where a reader reads the document as it now stands;
its summary is plain text, typed as such.
"""

import re
from datetime import UTC, datetime
from html import escape, unescape
from typing import NamedTuple
from urllib.parse import urljoin

from django.contrib.syndication.views import Feed
from django.db.models import Prefetch, QuerySet
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.html import strip_tags
from django.utils.xmlutils import SimplerXMLGenerator

from catalogue.addresses import absolute_url
from catalogue.models import (
    PUBLIC_STATUSES,
    Correction,
    DecisionImage,
    DecisionLog,
    DecisionRecord,
    Document,
    DocumentNotice,
    DocumentVersion,
    Person,
    Venue,
)
from catalogue.text import xml_safe
from public import people, views
from public.links import decision_files, place_files

ENTRIES = 50


def retraction(document):
    """The notice a withdrawn document's entries open with, or ""."""
    if document.status != document.Status.WITHDRAWN:
        return ""
    when = f" on {document.withdrawn_at:%-d %B %Y}" if document.withdrawn_at else ""
    reason = (
        f" Reason: {document.withdrawal_reason}" if document.withdrawal_reason else ""
    )
    return f"Withdrawn{when}.{reason}\n\n"


def succession(document):
    """What ``document`` supersedes and what supersedes it, as sentences:
    "Supersedes LIT-098. Superseded by LIT-784." (its ``supersedes`` are
    prefetched, public only)."""
    said = []
    older = [doc.label for doc in document.supersedes.all()]
    if older:
        said.append(f"Supersedes {', '.join(older)}.")
    if document.superseded_by_id and document.status != document.Status.WITHDRAWN:
        said.append(f"Superseded by {document.superseded_by.label}.")
    return " ".join(said) + "\n\n" if said else ""


def public_supersedes(prefix="document__"):
    """The prefetch of the public documents each document supersedes."""
    return Prefetch(
        f"{prefix}supersedes",
        queryset=Document.objects.public().select_related("registry"),
    )


def newest_notices(topic=None, person=None, document=None, documents=None):
    """The newest notices of public documents (of ``topic``, whose text
    names ``person``, of ``document`` alone, or among ``documents``, a
    selection of public documents), newest first."""
    notices = DocumentNotice.objects.filter(
        document__status__in=PUBLIC_STATUSES
    ).select_related(
        "document__registry",
        "document__topic",
        "document__superseded_by__registry",
        "successor__registry",
    )
    if topic is not None:
        notices = notices.filter(document__topic=topic)
    if person is not None:
        notices = notices.filter(document__in=by_person(person))
    if document is not None:
        notices = notices.filter(document=document)
    if documents is not None:
        notices = notices.filter(document__in=documents.values("pk"))
    return list(notices.order_by("-at", "-pk")[:ENTRIES])


def by_person(person):
    """The documents whose text names ``person``, as a subquery."""
    return Document.objects.by_person(person).values("pk")


def newest_entries(versions, notices):
    """The ``ENTRIES`` newest of versions and notices together, newest first."""
    entries = [*versions, *notices]
    entries.sort(key=lambda entry: (published(entry), entry.pk), reverse=True)
    return entries[:ENTRIES]


def published(entry):
    return entry.at if isinstance(entry, DocumentNotice) else entry.published_at


EMPTY_FEED_UPDATED = datetime(1970, 1, 1, tzinfo=UTC)


class XMLSafeGenerator(SimplerXMLGenerator):
    """Django's feed writer, writing text and attribute values ``xml_safe``:
    a row stored before the record refused control characters and
    noncharacters still makes a well-formed feed (Django's would fail with
    UnserializableContentError, or write U+FFFE as it is)."""

    def characters(self, content):
        super().characters(xml_safe(content))

    def startElement(self, name, attrs):
        super().startElement(
            name, {key: xml_safe(value) for key, value in (attrs or {}).items()}
        )


class TextSummaryAtomFeed(Atom1Feed):
    """Atom whose summaries are plain text (Django types them as HTML), its
    text written ``xml_safe``."""

    def write(self, outfile, encoding):
        handler = XMLSafeGenerator(outfile, encoding, short_empty_elements=True)
        handler.startDocument()
        handler.startElement("feed", self.root_attributes())
        self.add_root_elements(handler)
        self.write_items(handler)
        handler.endElement("feed")

    def latest_post_date(self):
        # Django dates a feed without entries now, so it would differ on each
        # request; it has never changed, and says so with the epoch.
        if not self.items:
            return EMPTY_FEED_UPDATED
        return super().latest_post_date()

    def add_item_elements(self, handler, item):
        super().add_item_elements(handler, {**item, "description": None})
        if item["description"] is not None:
            handler.addQuickElement("summary", item["description"], {"type": "text"})
        if item.get("content_html"):
            # HTML as escaped text, its addresses absolute: a reader shows it
            # away from the page it came from (RFC 4287, section 4.1.3).
            handler.addQuickElement("content", item["content_html"], {"type": "html"})


# Who answers for every feed: RFC 4287 (section 4.1.1) wants an author for
# each entry, and an entry naming none takes the feed's.
EDITORS = "The anthology's editors"


class EditorsFeed(Feed):
    """A feed written by the record's editors, identified by its own address
    (with the query that selects it), as the pages' addresses identify their
    entries."""

    feed_type = TextSummaryAtomFeed
    author_name = EDITORS

    def author_link(self):
        return absolute_url(reverse("catalogue:index"))

    def get_feed(self, obj, request):
        feed = super().get_feed(obj, request)
        feed.feed["feed_url"] = feed.feed["id"] = absolute_url(request.get_full_path())
        return feed


class DocumentVersionFeed(EditorsFeed):
    title = "Anthology: new and revised documents"
    subtitle = (
        "Every document version as it is published, and every correction, "
        "withdrawal, reinstatement and supersession."
    )

    def link(self):
        return absolute_url(reverse("catalogue:index"))

    def versions(self):
        return (
            DocumentVersion.objects.filter(document__status__in=PUBLIC_STATUSES)
            .select_related(
                "document__registry",
                "document__topic",
                "document__superseded_by__registry",
            )
            .prefetch_related(public_supersedes())
        )

    def newest_versions(self, topic=None, person=None, document=None, documents=None):
        """The newest published versions (of ``topic``'s documents, of the
        documents whose text names ``person``, of ``document``, or of the
        selection ``documents``)."""
        versions = self.versions()
        if documents is not None:
            versions = versions.filter(document__in=documents.values("pk"))
        if document is not None:
            versions = versions.filter(document=document)
        if topic is not None:
            versions = versions.filter(document__topic=topic)
        if person is not None:
            versions = versions.filter(document__in=by_person(person))
        return versions.order_by("-published_at", "-pk")[:ENTRIES]

    def items(self):
        return newest_entries(self.newest_versions(), newest_notices())

    def item_title(self, entry):
        document = entry.document
        if isinstance(entry, DocumentNotice):
            return (
                f"{document.label} {entry.get_kind_display().lower()}: {document.title}"
            )
        return f"{document.identifier.label(entry.number)}: {entry.title}"

    def item_description(self, entry):
        if isinstance(entry, DocumentNotice):
            return entry.sentence()
        document = entry.document
        return retraction(document) + succession(document) + entry.summary_with_citation

    def item_link(self, entry):
        return absolute_url(entry.document.get_absolute_url())

    def item_guid(self, entry):
        if isinstance(entry, DocumentNotice):
            return f"{self.item_link(entry)}#notice-{entry.pk}"
        return absolute_url(
            reverse(
                "catalogue:document-version",
                kwargs={
                    "identifier": entry.document.identifier,
                    "number": entry.number,
                },
            )
        )

    def item_pubdate(self, entry):
        return published(entry)

    def item_updateddate(self, entry):
        if isinstance(entry, DocumentNotice):
            return entry.at
        # A withdrawal updates every entry of the document: feed readers show
        # the retraction notice.
        return max(filter(None, [entry.published_at, entry.document.withdrawn_at]))

    def item_author_name(self, entry):
        authors = (
            entry.document.authors
            if isinstance(entry, DocumentNotice)
            else entry.authors
        )
        # An entry naming no author takes the feed's: an empty name is none.
        return authors.strip() or None

    def item_categories(self, entry):
        topic = entry.document.topic
        return [topic.name] if topic else ["Unfiled"]


class PersonFeed(DocumentVersionFeed):
    """The versions and notices of the public documents whose text names a
    person: everything new of theirs the record publishes."""

    def get_object(self, request, slug):
        return get_object_or_404(Person.objects.public(), slug=slug)

    def title(self, person):
        return f"Anthology: {person.display_name}"

    def subtitle(self, person):
        return f"New and revised documents by {person.display_name}."

    def link(self, person):
        return absolute_url(person.get_absolute_url())

    def items(self, person):
        return newest_entries(
            self.newest_versions(person=person), newest_notices(person=person)
        )


class DocumentFeed(DocumentVersionFeed):
    """One public document's versions and notices: its corrections, its
    withdrawal, reinstatement or supersession, as they are published."""

    def get_object(self, request, identifier):
        return get_object_or_404(
            Document.objects.public().select_related("registry"),
            registry__prefix=identifier.prefix,
            number=identifier.number,
        )

    def title(self, document):
        return f"Anthology: {document.identifier}: {document.title}"

    def subtitle(self, document):
        return (
            f"Every version of {document.identifier} as it is published, and "
            "every correction, withdrawal, reinstatement and supersession."
        )

    def link(self, document):
        return absolute_url(document.get_absolute_url())

    def items(self, document):
        return newest_entries(
            self.newest_versions(document=document),
            newest_notices(document=document),
        )


class Selection(NamedTuple):
    """What a list's feed follows: its title and subtitle, the address of
    the page it follows (with the same query), and the public documents
    that page lists, whatever their order or page."""

    title: str
    subtitle: str
    link: str
    documents: QuerySet
    # How the versions and notices are narrowed to the selection, when not
    # by ``documents``: a topic's unfiltered feed reads its own index.
    narrowed: dict | None = None


class SelectionFeed(DocumentVersionFeed):
    """The versions and notices of the documents a list page shows, with the
    page's filters as its URL gives them: a reader follows exactly what they
    see. A filter the page refuses the feed refuses alike (400)."""

    def get_object(self, request, **kwargs):
        return self.selection(request, **kwargs)

    def selection(self, request, **kwargs):
        raise NotImplementedError

    def title(self, selection):
        return selection.title

    def subtitle(self, selection):
        return selection.subtitle

    def link(self, selection):
        return selection.link

    def items(self, selection):
        narrowed = selection.narrowed or {"documents": selection.documents}
        return newest_entries(
            self.newest_versions(**narrowed), newest_notices(**narrowed)
        )


def page_address(request, name, **kwargs):
    """The absolute address of the page ``name`` with the feed's query: the
    page that shows what the feed follows."""
    query = request.GET.urlencode()
    path = reverse(f"catalogue:{name}", kwargs=kwargs)
    return absolute_url(f"{path}?{query}" if query else path)


def titled(view):
    """A list's feed's title: its page's feed link's, under the site's name."""
    words = views.filter_words(view.filter)
    return f"Anthology: {views.feed_title(view.feed_subject(), words)}"


class TopicFeed(SelectionFeed):
    """A topic's documents, with the topic page's filters."""

    def selection(self, request, slug):
        view = views.TopicDetailView()
        view.setup(request, slug=slug)
        documents = view.selection()
        topic = view.topic
        return Selection(
            titled(view),
            f"New and revised documents filed under {topic.name}.",
            page_address(request, "topic-detail", slug=slug),
            documents,
            None if views.filter_words(view.filter) else {"topic": topic},
        )


class UnfiledFeed(SelectionFeed):
    """The documents filed against no topic, with the page's filters."""

    def selection(self, request):
        view = views.UnfiledListView()
        view.setup(request)
        documents = view.selection()
        return Selection(
            titled(view),
            "New and revised documents filed against no topic.",
            page_address(request, "unfiled"),
            documents,
        )


class RegistryFeed(SelectionFeed):
    """A registry's documents, with the registry page's filters."""

    def selection(self, request, prefix):
        view = views.RegistryDetailView()
        view.setup(request, prefix=prefix)
        documents = view.selection()
        registry = view.registry
        return Selection(
            titled(view),
            f"New and revised documents of the {registry.name} ({registry.prefix}).",
            page_address(request, "registry-detail", prefix=prefix),
            documents,
        )


class TagFeed(SelectionFeed):
    """The documents with a tag, with the tag page's filters."""

    def selection(self, request, slug):
        view = views.TagDetailView()
        view.setup(request, slug=slug)
        documents = view.selection()
        tag = view.tag
        return Selection(
            titled(view),
            f"New and revised documents tagged {tag.name}.",
            page_address(request, "tag-detail", slug=slug),
            documents,
        )


class VenueFeed(SelectionFeed):
    """The documents a known venue published."""

    def selection(self, request, slug):
        venue = get_object_or_404(Venue, slug=slug)
        return Selection(
            f"Anthology: {venue.name}",
            f"New and revised documents published in {venue.name}.",
            absolute_url(venue.get_absolute_url()),
            people.venue_documents(venue),
        )


class SearchFeed(SelectionFeed):
    """The documents a search finds, with its filters: what its results
    list, page after page. A search of nothing finds nothing, as its page."""

    def selection(self, request):
        results = views.search_results(request)
        query = results.query
        words = views.filter_words(results.filter)
        # As its page: a search with neither words nor filters lists nothing.
        searched = bool(query) or any(
            request.GET.get(name) for name in results.filter.filters
        )
        what = f"“{query}”" if query else "documents"
        return Selection(
            f"Anthology: {views.feed_title(f'Search for {what}', words)}",
            f"New and revised documents a search for {what} finds.",
            page_address(request, "search"),
            results.filter.qs if searched else Document.objects.none(),
        )


def absolute_addresses(html, base):
    """Stored HTML with every link and image address absolute, resolved
    against ``base`` (the page it shows on): a feed reader shows it
    elsewhere."""

    def absolute(match):
        url = urljoin(base, unescape(match["url"]))
        return f'{match["attribute"]}="{escape(url)}"'

    return ADDRESS_RE.sub(absolute, str(html))


# The attributes that carry an address in a decision's sanitised HTML,
# always written with double quotes.
ADDRESS_RE = re.compile(r'(?P<attribute>\b(?:href|src))="(?P<url>[^"]*)"')


class DecisionLogFeed(EditorsFeed):
    """A decision log's records as they are published, and their published
    corrections, newest first: the record's own at /decisions/feed/, a
    team's at /decisions/<log>/feed/, either with the page's status filter
    (``?status=accepted``). A record's entry's id is its page; it is
    updated when the record is. Its summary is its status and text as plain
    text, its content the text's stored HTML as its page shows it. A
    correction's id is the page with the correction's own fragment, as the
    page lists it."""

    def get_object(self, request, log=None):
        view = views.DecisionRecordListView()
        view.setup(request, **({"log": log} if log else {}))
        page = (
            reverse("catalogue:log-decision-list", kwargs={"log": log})
            if log
            else reverse("catalogue:decision-list")
        )
        query = request.GET.urlencode()
        return DecisionSelection(
            log=view.log,
            status=view.status_label(),
            link=absolute_url(f"{page}?{query}" if query else page),
            decisions=view.selection(),
        )

    def title(self, selection):
        status = f" ({selection.status.lower()})" if selection.status else ""
        return f"Anthology: decision records of {selection.log.name}{status}"

    def subtitle(self, selection):
        return f"The decision records of {selection.log.name}, as they are published."

    def link(self, selection):
        return selection.link

    def items(self, selection):
        decisions = list(
            selection.decisions.select_related("log").order_by("-published_at", "-pk")[
                :ENTRIES
            ]
        )
        corrections = (
            Correction.objects.shown()
            .filter(decision__in=selection.decisions.values("pk"))
            .select_related("decision__log")
            .order_by("-published_at", "-pk")[:ENTRIES]
        )
        entries = [*decisions, *corrections]
        entries.sort(key=lambda entry: (entry.published_at, entry.pk), reverse=True)
        entries = entries[:ENTRIES]
        self.place(selection.log, [e for e in entries if isinstance(e, DecisionRecord)])
        return entries

    def place(self, log, decisions):
        """Each record's ``feed_html``: its stored HTML with its links to
        sibling files and its images placed as its page places them, every
        address absolute. At most two queries for any number of records: the
        sibling files linked, the images shown."""
        files = decision_files([d.body for d in decisions], log.pk)
        images = {}
        # Only records that show an image ask for their images.
        showing = [d for d in decisions if "<img" in d.body_html]
        rows = DecisionImage.objects.filter(decision__in=showing).values_list(
            "decision_id", "name", "digest"
        )
        if not showing:
            rows = []
        by_pk = {decision.pk: decision for decision in decisions}
        for pk, name, digest in rows:
            decision = by_pk[pk]
            images.setdefault(pk, {})[name] = (
                reverse(
                    decision.url_name("decision-image"),
                    kwargs={**decision.url_kwargs(), "name": name},
                )
                + f"?v={digest[:16]}"
            )
        for decision in decisions:
            placed = place_files(
                decision.body_html, files=files, images=images.get(decision.pk, {})
            )
            decision.feed_html = absolute_addresses(
                placed, absolute_url(decision.get_absolute_url())
            )

    def item_title(self, entry):
        if isinstance(entry, Correction):
            return f"{entry.decision.label} corrected: {entry.decision.title}"
        return f"{entry.label}: {entry.title}"

    def item_description(self, entry):
        if isinstance(entry, Correction):
            return f"Correction of {entry.published_at:%-d %B %Y}: {entry.sentence()}."
        status = plain_text(entry.status_html) or entry.get_status_display()
        return f"{status}.\n\n{plain_text(entry.body_html)}".strip()

    def item_extra_kwargs(self, entry):
        if isinstance(entry, Correction):
            return {}
        return {"content_html": entry.feed_html}

    def item_link(self, entry):
        decision = entry.decision if isinstance(entry, Correction) else entry
        return absolute_url(decision.get_absolute_url())

    def item_guid(self, entry):
        if isinstance(entry, Correction):
            return f"{self.item_link(entry)}#correction-{entry.pk}"
        return self.item_link(entry)

    def item_pubdate(self, entry):
        return entry.published_at

    def item_updateddate(self, entry):
        if isinstance(entry, Correction):
            return entry.published_at
        return max(entry.published_at, entry.updated_at)


class DecisionSelection(NamedTuple):
    """What a decision log's feed follows: the log, the status asked for
    (its label, "" for any), the page's address and the records."""

    log: DecisionLog
    status: str
    link: str
    decisions: QuerySet


def plain_text(html):
    """Stored HTML as the plain text a reader reads: no tags, entities
    written as their characters, each block (a heading, a paragraph, an item,
    a row) a paragraph of its own, runs of white space one space."""
    blocks = BLOCK_END_RE.split(str(html))
    texts = (" ".join(unescape(strip_tags(block)).split()) for block in blocks)
    return "\n\n".join(text for text in texts if text)


# Where a block of a decision's sanitised HTML ends.
BLOCK_END_RE = re.compile(r"</(?:h[1-6]|p|li|tr|blockquote|pre)>|<br\s*/?>")

"""Atom feeds of new and revised documents (site-wide and per topic) and of
each decision log's records.

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

from datetime import UTC, datetime

from django.contrib.syndication.views import Feed
from django.db.models import Prefetch
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.xmlutils import SimplerXMLGenerator

from catalogue.addresses import absolute_url
from catalogue.models import (
    PUBLIC_STATUSES,
    Correction,
    DecisionRecord,
    Document,
    DocumentNotice,
    DocumentVersion,
    Person,
    Topic,
)
from catalogue.text import xml_safe
from public.views import decision_log

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


def newest_notices(topic=None, person=None, document=None):
    """The newest notices of public documents (of ``topic``, whose text
    names ``person``, or of ``document`` alone), newest first."""
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


class DocumentVersionFeed(Feed):
    feed_type = TextSummaryAtomFeed
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

    def newest_versions(self, topic=None, person=None, document=None):
        """The newest published versions (of ``topic``'s documents, of the
        documents whose text names ``person``, or of ``document``)."""
        versions = self.versions()
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

    def get_feed(self, obj, request):
        feed = super().get_feed(obj, request)
        # The feed's own address identifies it, as the pages' do their entries.
        feed.feed["feed_url"] = feed.feed["id"] = absolute_url(request.path)
        return feed

    def item_pubdate(self, entry):
        return published(entry)

    def item_updateddate(self, entry):
        if isinstance(entry, DocumentNotice):
            return entry.at
        # A withdrawal updates every entry of the document: feed readers show
        # the retraction notice.
        return max(filter(None, [entry.published_at, entry.document.withdrawn_at]))

    def item_author_name(self, entry):
        return (
            entry.document.authors
            if isinstance(entry, DocumentNotice)
            else entry.authors
        )

    def item_categories(self, entry):
        topic = entry.document.topic
        return [topic.name] if topic else ["Unfiled"]


class TopicFeed(DocumentVersionFeed):
    def get_object(self, request, slug):
        return get_object_or_404(Topic, slug=slug)

    def title(self, topic):
        return f"Anthology: {topic.name}"

    def subtitle(self, topic):
        return f"New and revised documents filed under {topic.name}."

    def link(self, topic):
        return absolute_url(topic.get_absolute_url())

    def items(self, topic):
        return newest_entries(self.newest_versions(topic), newest_notices(topic))


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


class DecisionLogFeed(Feed):
    """A decision log's records as they are published, and their published
    corrections, newest first: the record's own at /decisions/feed/, a
    team's at /decisions/<log>/feed/. A record's entry's id is its page; it
    is updated when the record is. A correction's is the page with the
    correction's own fragment, as the page lists it."""

    feed_type = TextSummaryAtomFeed

    def get_object(self, request, log=None):
        return decision_log({"log": log} if log else {})

    def title(self, log):
        return f"Anthology: decision records of {log.name}"

    def subtitle(self, log):
        return f"The decision records of {log.name}, as they are published."

    def link(self, log):
        return absolute_url(log.get_absolute_url())

    def items(self, log):
        decisions = (
            DecisionRecord.objects.public()
            .filter(log=log.pk)
            .order_by("-published_at", "-pk")[:ENTRIES]
        )
        corrections = (
            Correction.objects.shown()
            .filter(decision__in=DecisionRecord.objects.public().filter(log=log.pk))
            .select_related("decision__log")
            .order_by("-published_at", "-pk")[:ENTRIES]
        )
        entries = [*decisions, *corrections]
        entries.sort(key=lambda entry: (entry.published_at, entry.pk), reverse=True)
        return entries[:ENTRIES]

    def get_feed(self, obj, request):
        feed = super().get_feed(obj, request)
        feed.feed["feed_url"] = feed.feed["id"] = absolute_url(request.path)
        return feed

    def item_title(self, entry):
        if isinstance(entry, Correction):
            return f"{entry.decision.label} corrected: {entry.decision.title}"
        return f"{entry.label}: {entry.title}"

    def item_description(self, entry):
        if isinstance(entry, Correction):
            return f"Correction of {entry.published_at:%-d %B %Y}: {entry.sentence()}."
        status = entry.status_text or entry.get_status_display()
        return f"{status}. {entry.body}"

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

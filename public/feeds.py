"""Atom feeds of new and revised documents: site-wide and per topic.

An entry is a published version, so a revision appears as an entry of its own
and a draft never appears at all. Its id is the version page's absolute
address under the canonical origin (``SITE_URL``), unique to the entry and
never changed whatever Host a reader's request carried (a version is never
edited), as RFC 4287 asks; its link is the document's page, where a reader
reads the document as it now stands; its summary is plain text, typed as such.
"""

from datetime import UTC, datetime

from django.contrib.syndication.views import Feed
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from catalogue.addresses import absolute_url
from catalogue.models import PUBLIC_STATUSES, DocumentVersion, Topic

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


EMPTY_FEED_UPDATED = datetime(1970, 1, 1, tzinfo=UTC)


class TextSummaryAtomFeed(Atom1Feed):
    """Atom whose summaries are plain text (Django types them as HTML)."""

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
    subtitle = "Every document version as it is published."

    def link(self):
        return absolute_url(reverse("catalogue:index"))

    def versions(self):
        return DocumentVersion.objects.filter(
            document__status__in=PUBLIC_STATUSES
        ).select_related("document__registry", "document__topic")

    def items(self):
        return self.versions().order_by("-published_at", "-pk")[:ENTRIES]

    def item_title(self, version):
        return f"{version.document.identifier.label(version.number)}: {version.title}"

    def item_description(self, version):
        return retraction(version.document) + version.summary_with_citation

    def item_link(self, version):
        return absolute_url(version.document.get_absolute_url())

    def item_guid(self, version):
        return absolute_url(
            reverse(
                "catalogue:document-version",
                kwargs={
                    "identifier": version.document.identifier,
                    "number": version.number,
                },
            )
        )

    def get_feed(self, obj, request):
        feed = super().get_feed(obj, request)
        # The feed's own address identifies it, as the pages' do their entries.
        feed.feed["feed_url"] = feed.feed["id"] = absolute_url(request.path)
        return feed

    def item_pubdate(self, version):
        return version.published_at

    def item_updateddate(self, version):
        # A withdrawal updates every entry of the document: feed readers show
        # the retraction notice.
        return max(filter(None, [version.published_at, version.document.withdrawn_at]))

    def item_author_name(self, version):
        return version.authors

    def item_categories(self, version):
        topic = version.document.topic
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
        return (
            self.versions()
            .filter(document__topic=topic)
            .order_by("-published_at", "-pk")[:ENTRIES]
        )

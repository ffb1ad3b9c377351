"""The sitemap: an index of sections, one per kind of page.

A section with no page is left out of the index and is not found at its own
address: the sitemaps.org schema requires at least one ``<url>`` in a
``<urlset>``.
"""

from urllib.parse import urlsplit

from django.contrib.sitemaps import Sitemap
from django.contrib.sitemaps import views as sitemap_views
from django.core.paginator import Paginator
from django.db.models import Max
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.functional import cached_property
from django.utils.http import http_date

from catalogue.addresses import absolute_url, site_origin
from catalogue.models import DecisionRecord, Document, Person, Registry, Topic
from public.people import venue_counts


class SectionSitemap(Sitemap):
    def get_latest_lastmod(self):
        # The index's date of a section, by one query: Django's own reads every
        # item of the section (every public document) to take the latest.
        if not callable(getattr(self, "lastmod", None)):
            return super().get_latest_lastmod()
        return self.items().aggregate(latest=Max("updated_at"))["latest"]

    @cached_property
    def paginator(self):
        # Without an empty first page, an empty section is a 404.
        return Paginator(self._items(), self.limit, allow_empty_first_page=False)

    # Every <loc> is under the canonical origin, whatever the request's Host.
    def get_protocol(self, protocol=None):
        return urlsplit(site_origin()).scheme

    def get_domain(self, site=None):
        return urlsplit(site_origin()).netloc


class PageSitemap(SectionSitemap):
    def items(self):
        return [
            "catalogue:index",
            "catalogue:registry-list",
            "catalogue:tag-list",
            "catalogue:people",
            "catalogue:venue-list",
            "catalogue:decision-list",
            "catalogue:unfiled",
        ]

    def location(self, name):
        return reverse(name)


class TopicSitemap(SectionSitemap):
    def items(self):
        return Topic.objects.order_by("position")


class RegistrySitemap(SectionSitemap):
    def items(self):
        return Registry.objects.public().order_by("prefix")


class DocumentSitemap(SectionSitemap):
    limit = 10000

    def items(self):
        return Document.objects.public().in_number_order()

    def lastmod(self, document):
        return document.updated_at


class DecisionRecordSitemap(SectionSitemap):
    def items(self):
        return DecisionRecord.objects.public().order_by("number")

    def lastmod(self, decision):
        return decision.updated_at


class TagSitemap(SectionSitemap):
    def items(self):
        return Document.objects.public().tags().order_by("slug")

    def location(self, tag):
        return reverse("catalogue:tag-detail", kwargs={"slug": tag.slug})


class PersonSitemap(SectionSitemap):
    limit = 10000

    def items(self):
        return Person.objects.public().order_by("sort_key", "slug").only("slug")


class VenueSitemap(SectionSitemap):
    """The venues of public documents: a venue of none has a page, but
    nothing on it to find."""

    def items(self):
        return venue_counts().filter(document_count__gt=0)


SITEMAPS = {
    "pages": PageSitemap,
    "topics": TopicSitemap,
    "registries": RegistrySitemap,
    "documents": DocumentSitemap,
    "decisions": DecisionRecordSitemap,
    "tags": TagSitemap,
    "people": PersonSitemap,
    "venues": VenueSitemap,
}


def index_entries(sitemaps):
    """Each page of each section, by its absolute address, with its last change."""
    for name, section in sitemaps.items():
        location = absolute_url(
            reverse("catalogue:sitemap-section", kwargs={"section": name})
        )
        lastmod = section.get_latest_lastmod()
        for page in section.paginator.page_range:
            address = location if page == 1 else f"{location}?p={page}"
            yield sitemap_views.SitemapIndexItem(address, lastmod)


@sitemap_views.x_robots_tag
def index(request, **kwargs):
    """The sitemap index, listing the sections that have pages, under the
    canonical origin (Django's own index builds them from the request)."""
    sections = {name: section() for name, section in SITEMAPS.items()}
    sitemaps = {
        name: section for name, section in sections.items() if section.paginator.count
    }
    entries = list(index_entries(sitemaps))
    lastmods = {entry.last_mod for entry in entries}
    headers = None
    if entries and None not in lastmods:
        headers = {"Last-Modified": http_date(max(lastmods).timestamp())}
    return TemplateResponse(
        request,
        "sitemap_index.xml",
        {"sitemaps": entries},
        content_type="application/xml",
        headers=headers,
    )

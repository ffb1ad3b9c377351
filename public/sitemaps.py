from django.contrib.sitemaps import Sitemap
from django.urls import reverse

from catalogue.models import DecisionRecord, Document, Registry, Topic


class PageSitemap(Sitemap):
    def items(self):
        return ["catalogue:index", "catalogue:decision-list", "catalogue:unfiled"]

    def location(self, name):
        return reverse(name)


class TopicSitemap(Sitemap):
    def items(self):
        return Topic.objects.order_by("position")


class RegistrySitemap(Sitemap):
    def items(self):
        return Registry.objects.order_by("prefix")


class DocumentSitemap(Sitemap):
    limit = 10000

    def items(self):
        return Document.objects.public().in_number_order()

    def lastmod(self, document):
        return document.updated_at


class DecisionRecordSitemap(Sitemap):
    def items(self):
        return DecisionRecord.objects.public().order_by("number")

    def lastmod(self, decision):
        return decision.updated_at


class TagSitemap(Sitemap):
    def items(self):
        return Document.objects.public().tags().order_by("slug")

    def location(self, tag):
        return reverse("catalogue:tag-detail", kwargs={"slug": tag.slug})


SITEMAPS = {
    "pages": PageSitemap,
    "topics": TopicSitemap,
    "registries": RegistrySitemap,
    "documents": DocumentSitemap,
    "decisions": DecisionRecordSitemap,
    "tags": TagSitemap,
}

"""The admin of what documents are filed under and the index is built on:
registries, topics, tags and the preface.

They are saved straight from the admin, without a workflow verb, and every
cached page is expired after each change (``ExpiresPagesMixin``).
"""

from auditlog.mixins import AuditlogHistoryAdminMixin
from django.contrib import admin
from taggit import admin as taggit_admin
from taggit.models import Tag

from catalogue.models import Preface, Registry, Topic
from editorial.admin.expiry import ExpiresPagesMixin
from exchange import admin_actions
from exchange.page_import import TopicPageImportMixin
from exchange.resources import TopicImportMixin


@admin.register(Registry)
class RegistryAdmin(ExpiresPagesMixin, AuditlogHistoryAdminMixin, admin.ModelAdmin):
    list_display = ["prefix", "name", "last_number"]
    readonly_fields = ["last_number"]
    search_fields = ["prefix", "name"]


@admin.register(Topic)
class TopicAdmin(
    ExpiresPagesMixin,
    TopicPageImportMixin,
    TopicImportMixin,
    AuditlogHistoryAdminMixin,
    admin.ModelAdmin,
):
    list_display = ["position", "name", "flavour", "scope"]
    list_display_links = ["name"]
    list_filter = ["flavour"]
    prepopulated_fields = {"slug": ["name"]}
    search_fields = ["name", "scope"]
    actions = admin_actions.TOPIC_ACTIONS


@admin.register(Preface)
class PrefaceAdmin(ExpiresPagesMixin, AuditlogHistoryAdminMixin, admin.ModelAdmin):
    list_display = ["heading", "updated_at"]

    def has_add_permission(self, request):
        return not Preface.objects.exists()


# taggit's own admin renames and deletes tags, which public pages print.
admin.site.unregister(Tag)


@admin.register(Tag)
class TagAdmin(ExpiresPagesMixin, taggit_admin.TagAdmin):
    pass

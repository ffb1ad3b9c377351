"""The admin of what documents are filed under and the index is built on:
registries, topics, tags and the preface.

They are saved straight from the admin, without a workflow verb, and every
cached page is expired after each change (``ExpiresPagesMixin``).
"""

from auditlog.mixins import AuditlogHistoryAdminMixin
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from taggit import admin as taggit_admin
from taggit.models import Tag

from catalogue.models import Preface, Registry, Topic
from editorial.admin.expiry import ExpiresPagesMixin
from exchange import admin_actions
from exchange.page_import import TopicPageImportMixin
from exchange.resources import TopicImportMixin
from pagecache.generations import expire_everything


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
        # The preface is one row: it is added once, then changed.
        return super().has_add_permission(request) and not Preface.objects.exists()


# taggit's own admin renames and deletes tags, which public pages print.
admin.site.unregister(Tag)


@admin.register(Tag)
class TagAdmin(ExpiresPagesMixin, taggit_admin.TagAdmin):
    """taggit's tag admin, whose merge renames tags on every document and
    deletes the merged ones: only for those who may change and delete tags."""

    def may_merge(self, request):
        return self.has_change_permission(request) and self.has_delete_permission(
            request
        )

    def get_actions(self, request):
        actions = super().get_actions(request)
        if not self.may_merge(request):
            actions.pop("render_tag_form", None)
        return actions

    def merge_tags_view(self, request):
        if not self.may_merge(request):
            raise PermissionDenied("Merging tags needs the change and delete rights.")
        response = super().merge_tags_view(request)
        if request.method == "POST" and response.status_code == 302:
            expire_everything()  # The merged tags are renamed on every page.
        return response

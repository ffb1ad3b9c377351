"""The admin of what documents are filed under and the index is built on:
registries, topics, tags and the preface; and the known venues citations
are read by.

They are saved and deleted through their actions (``actions.filing``), which
expire every cached page, never by a bare ``save()``.
"""

from auditlog.mixins import AuditlogHistoryAdminMixin
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from taggit import admin as taggit_admin
from taggit.forms import MergeTagsForm
from taggit.models import Tag

from actions import filing
from catalogue.models import Preface, Registry, Topic, Venue
from editorial.admin import exports
from editorial.admin.csv_import import TopicImportMixin
from editorial.admin.page_import import TopicPageImportMixin


class FilingActionsMixin:
    """The admin's save and delete take their action, never a bare ``save()``."""

    def save_model(self, request, obj, form, change):
        filing.save(obj=obj, user=request.user)

    def delete_model(self, request, obj):
        filing.delete(objs=[obj], user=request.user)

    def delete_queryset(self, request, queryset):
        filing.delete(objs=list(queryset), user=request.user)


@admin.register(Registry)
class RegistryAdmin(FilingActionsMixin, AuditlogHistoryAdminMixin, admin.ModelAdmin):
    list_display = ["prefix", "name", "last_number"]
    readonly_fields = ["last_number"]
    search_fields = ["prefix", "name"]


@admin.register(Topic)
class TopicAdmin(
    FilingActionsMixin,
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
    actions = exports.TOPIC_ACTIONS


@admin.register(Preface)
class PrefaceAdmin(FilingActionsMixin, AuditlogHistoryAdminMixin, admin.ModelAdmin):
    list_display = ["heading", "updated_at"]

    def has_add_permission(self, request):
        # The preface is one row: it is added once, then changed.
        return super().has_add_permission(request) and not Preface.objects.exists()


@admin.register(Venue)
class VenueAdmin(FilingActionsMixin, AuditlogHistoryAdminMixin, admin.ModelAdmin):
    """The known venues: a citation naming one (``OSDI ‘20``) is read at
    import into the document's venue and type."""

    list_display = ["name", "full_name", "kind", "doi_prefix"]
    list_filter = ["kind"]
    search_fields = ["name", "full_name", "doi_prefix"]


# taggit's own admin renames and deletes tags, which public pages print.
admin.site.unregister(Tag)


@admin.register(Tag)
class TagAdmin(FilingActionsMixin, taggit_admin.TagAdmin):
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
        """taggit's merge page, merging through ``filing.merge_tags``: its own
        merge deletes the target tag from the documents that already had it."""
        if not self.may_merge(request):
            raise PermissionDenied("Merging tags needs the change and delete rights.")
        selected = request.session.get("selected_tag_ids", "").split(",")
        form = MergeTagsForm(request.POST if request.method == "POST" else None)
        if form.is_valid():
            tags = Tag.objects.filter(pk__in=[pk for pk in selected if pk.isdigit()])
            filing.merge_tags(
                tags=list(tags),
                into=form.cleaned_data["new_tag_name"],
                user=request.user,
            )
            self.message_user(request, "Tags have been merged", level="success")
            request.session.pop("selected_tag_ids", None)
            return redirect("..")
        if form.is_bound:
            self.message_user(request, "Form is invalid.", level="error")
        context = {"form": MergeTagsForm(), "selected_tag_ids": selected}
        return render(request, "admin/taggit/merge_tags_form.html", context)

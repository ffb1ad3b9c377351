"""The admin of what documents are filed under and the index is built on:
registries, topics, tags and the preface; and the known venues citations
are read by.

They are saved and deleted through their actions (``actions.filing``), which
expire every cached page, never by a bare ``save()``.
"""

from auditlog.mixins import AuditlogHistoryAdminMixin
from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.exceptions import PermissionDenied
from django.db.models import Case, Count, OuterRef, Q, Subquery, Value, When
from django.db.models.functions import Lower
from django.http import JsonResponse
from django.template.defaultfilters import pluralize
from django.template.response import TemplateResponse
from django.urls import path, reverse
from taggit import admin as taggit_admin
from taggit.models import Tag, TaggedItem

from actions import filing
from catalogue.models import Document, Preface, Registry, Topic, Venue
from catalogue.text import RecordTextForm
from editorial.admin import exports
from editorial.admin.candidates import CandidateTopicsMixin
from editorial.admin.csv_import import TopicImportMixin
from editorial.admin.forms import TagMergeForm
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
    CandidateTopicsMixin,
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

    list_display = ["name", "slug", "full_name", "kind", "doi_prefix"]
    list_filter = ["kind"]
    prepopulated_fields = {"slug": ["name"]}
    search_fields = ["name", "full_name", "doi_prefix"]


# taggit's own admin merges tags by deleting every link of a document that
# already has the new tag, the new tag's own links included: its admin, and
# so its merge page and action, are replaced whole by the record's own (taggit
# registers it on import, so it is imported first, whatever the apps' order).
admin.site.unregister(taggit_admin.Tag)


class TagForm(RecordTextForm, forms.ModelForm):
    """A tag's name and slug, refusing what no text of the record may hold
    (taggit's model is not the record's, so its validation does not)."""


# How many tags the Tags field offers at once.
OFFERED = 10


@admin.register(Tag)
class TagAdmin(FilingActionsMixin, admin.ModelAdmin):
    """Tags, renamed and deleted through their actions; merged, by whoever
    may publish, through ``filing.merge_tags`` after a page that lists what
    each tag holds."""

    form = TagForm
    list_display = ["name", "slug", "held_by"]
    ordering = ["name", "slug"]
    search_fields = ["name"]
    prepopulated_fields = {"slug": ["name"]}
    actions = ["merge_tags_action"]

    def get_queryset(self, request):
        held = TaggedItem.objects.filter(tag=OuterRef("pk")).values("tag")
        count = held.annotate(n=Count("pk")).values("n")
        return super().get_queryset(request).annotate(documents=Subquery(count))

    @admin.display(description="Documents", ordering="documents")
    def held_by(self, tag):
        return tag.documents or 0

    def get_urls(self):
        names = path(
            "names/",
            self.admin_site.admin_view(self.names_view),
            name="taggit_tag_names",
        )
        return [names, *super().get_urls()]

    def names_view(self, request):
        """The tags an editor typing ``q`` into a document's Tags field is
        offered, as JSON (``{"tags": [name, …]}``): names holding it, and
        names whose slug starts as it would ("pipeline-par" offers "pipeline
        parallelism"), those starting with it first, at most ``OFFERED``.
        For whoever may add or edit documents."""
        if not (
            request.user.has_perm("catalogue.change_document")
            or request.user.has_perm("catalogue.add_document")
        ):
            raise PermissionDenied
        typed = request.GET.get("q", "").strip()[
            : Tag._meta.get_field("name").max_length
        ]
        if not typed:
            return JsonResponse({"tags": []})
        matching = Q(name__icontains=typed)
        if slug := Tag().slugify(typed):
            matching |= Q(slug__startswith=slug)
        offered = (
            Tag.objects.filter(matching)
            .annotate(
                later=Case(When(name__istartswith=typed, then=Value(0)), default=1)
            )
            .order_by("later", Lower("name"), "pk")
            .values_list("name", flat=True)[:OFFERED]
        )
        return JsonResponse({"tags": list(offered)})

    def has_merge_permission(self, request):
        return request.user.has_perm(filing.MERGE_TAGS)

    @admin.action(description="Merge the selected tags…", permissions=["merge"])
    def merge_tags_action(self, request, queryset):
        """The tags and what each holds, the name to keep, then Confirm.

        Template: ``admin/taggit/tag/merge.html``.
        """
        tags = list(queryset.order_by("name"))
        form = TagMergeForm(
            request.POST if "confirm" in request.POST else None, tags=tags
        )
        if form.is_valid():
            kept, documents = filing.merge_tags(
                tags=tags, into=form.kept_name(), user=request.user
            )
            self.message_user(
                request,
                f"Merged {len(tags)} tag{pluralize(len(tags))} into “{kept.name}”: "
                f"{documents} document{pluralize(documents)} "
                f"{pluralize(documents, 'holds,hold')} it.",
                messages.SUCCESS,
            )
            return None
        holding = {
            tag.pk: list(
                Document.objects.filter(tags=tag)
                .select_related("registry")
                .order_by("registry__prefix", "number")
            )
            for tag in tags
        }
        return TemplateResponse(
            request,
            "admin/taggit/tag/merge.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "title": "Merge these tags?",
                "tags": [(tag, holding[tag.pk]) for tag in tags],
                "form": form,
                "cancel_url": reverse("admin:taggit_tag_changelist"),
                "action_checkbox_name": ACTION_CHECKBOX_NAME,
            },
        )

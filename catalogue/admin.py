import re

from auditlog.mixins import AuditlogHistoryAdminMixin
from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from taggit import admin as taggit_admin
from taggit.models import Tag

from catalogue import admin_exports, caching, services
from catalogue.admin_forms import DocumentActionForm, DocumentForm
from catalogue.models import (
    BrokenReference,
    DecisionRecord,
    Document,
    DocumentVersion,
    Preface,
    Registry,
    Revision,
    Topic,
)
from catalogue.paginators import EstimatedCountPaginator
from catalogue.references import resolve
from catalogue.resources import DocumentImportMixin, TopicImportMixin
from catalogue.versions import version_comparison


class ExpiresPagesOnImportMixin:
    def process_result(self, result, request):
        # django-import-export calls this after a confirmed CSV import only:
        # many rows changed, so every cached page is expired (issue 6).
        caching.expire_everything()
        return super().process_result(result, request)


class ExpiresPagesMixin(ExpiresPagesOnImportMixin):
    """Saved straight from the admin, not through a service: a registry, a
    topic, the preface, a tag. Their names and texts show on most public
    pages and they change rarely, so every cached page is expired (issue 6).
    Done here, explicitly, rather than in a signal."""

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        caching.expire_everything()

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        caching.expire_everything()

    def delete_queryset(self, request, queryset):
        super().delete_queryset(request, queryset)
        caching.expire_everything()


@admin.register(Registry)
class RegistryAdmin(ExpiresPagesMixin, AuditlogHistoryAdminMixin, admin.ModelAdmin):
    list_display = ["prefix", "name", "last_number"]
    readonly_fields = ["last_number"]
    search_fields = ["prefix", "name"]


@admin.register(Topic)
class TopicAdmin(
    ExpiresPagesMixin, TopicImportMixin, AuditlogHistoryAdminMixin, admin.ModelAdmin
):
    list_display = ["position", "name", "flavour", "scope"]
    list_display_links = ["name"]
    list_filter = ["flavour"]
    prepopulated_fields = {"slug": ["name"]}
    search_fields = ["name", "scope"]
    actions = admin_exports.TOPIC_ACTIONS


class DocumentVersionInline(admin.TabularInline):
    model = DocumentVersion
    fields = ["version_link", "title", "published_at", "published_by", "note"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False
    verbose_name_plural = "published versions"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("published_by")

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="Version")
    def version_link(self, version):
        url = reverse(
            "admin:catalogue_document_version",
            args=[version.document_id, version.number],
        )
        return format_html('<a href="{}">v{} — compare</a>', url, version.number)


class QueueFilter(admin.SimpleListFilter):
    """The editors' queues, each with its count (one query)."""

    title = "queue"
    parameter_name = "queue"

    QUEUES = {
        "unfiled": ("Unfiled", Q(topic__isnull=True)),
        "in_review": ("In review", Q(status=Document.Status.IN_REVIEW)),
        "pending": (
            "Pending revision",
            Q(revisions__status=Revision.Status.PENDING),
        ),
    }

    def lookups(self, request, model_admin):
        # Three counts, each answered from an index (topic, status, the
        # pending revisions' own), not one pass over every document (issue 6).
        counts = {
            "unfiled": Document.objects.unfiled().count(),
            "in_review": Document.objects.filter(
                status=Document.Status.IN_REVIEW
            ).count(),
            "pending": Revision.objects.filter(status=Revision.Status.PENDING).count(),
        }
        return [
            (key, f"{label} ({counts[key]})") for key, (label, _) in self.QUEUES.items()
        ]

    def queryset(self, request, queryset):
        if self.value() in self.QUEUES:
            return queryset.filter(self.QUEUES[self.value()][1]).distinct()
        return queryset


class DecadeFilter(admin.SimpleListFilter):
    """The citation's year by decade: offered without reading every row, where
    a list of the distinct years would (issue 6)."""

    title = "year"
    parameter_name = "decade"
    FIRST = 1950

    def lookups(self, request, model_admin):
        last = timezone.now().year // 10 * 10
        return [
            (str(decade), f"{decade}s") for decade in range(last, self.FIRST - 1, -10)
        ]

    def queryset(self, request, queryset):
        if self.value() and self.value().isdigit():
            decade = int(self.value())
            return queryset.filter(year__gte=decade, year__lt=decade + 10)
        return queryset


class PublishedFilter(admin.SimpleListFilter):
    title = "publication"
    parameter_name = "published"

    def lookups(self, request, model_admin):
        return [("yes", "Published"), ("no", "Draft")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.public()
        if self.value() == "no":
            return queryset.drafts()
        return queryset


IDENTIFIER_SEARCH_RE = re.compile(r"\s*([A-Za-z][A-Za-z0-9]*?)[\s-]*0*(\d+)\s*")


@admin.register(Document)
class DocumentAdmin(
    ExpiresPagesOnImportMixin,
    DocumentImportMixin,
    AuditlogHistoryAdminMixin,
    admin.ModelAdmin,
):
    form = DocumentForm
    action_form = DocumentActionForm
    change_form_template = "admin/catalogue/document/change_form.html"
    list_display = [
        "identifier_label",
        "title",
        "status",
        "topic",
        "registry",
        "has_pending_revision",
        "updated_at",
    ]
    list_display_links = ["identifier_label", "title"]
    # The last-changed date as a filter, not a date hierarchy: the hierarchy
    # reads every row's date on every view (issue 6).
    list_filter = [
        QueueFilter,
        "status",
        "registry",
        "topic",
        DecadeFilter,
        "tags",
        "updated_at",
    ]
    list_select_related = ["registry", "topic"]
    search_fields = ["title", "authors", "source_identifier", "citation_note"]
    # The unique (registry, number) index gives the first page without sorting
    # the table, and an estimate stands in for counting it (issue 6).
    ordering = ["registry_id", "number"]
    paginator = EstimatedCountPaginator
    show_full_result_count = False
    empty_value_display = "Unfiled"
    autocomplete_fields = ["topic", "superseded_by"]
    actions = [
        "submit_for_review_action",
        "publish_action",
        "withdraw_action",
        "refile_action",
        "add_tag_action",
        *admin_exports.DOCUMENT_ACTIONS,
    ]
    inlines = [DocumentVersionInline]

    def get_fieldsets(self, request, obj=None):
        filing = ["registry", "number", "version", "status", "topic", "tags"]
        fieldsets = [
            (None, {"fields": filing}),
            (
                "Citation",
                {"fields": ["authors", "year", "source_identifier", "citation_note"]},
            ),
            (None, {"fields": ["title", "summary", "note", "base"]}),
            ("Record", {"fields": ["superseded_by", "created_at", "updated_at"]}),
        ]
        if obj is None:
            fieldsets[-1] = ("Record", {"fields": []})
            fieldsets[2] = (None, {"fields": ["title", "summary"]})
        return fieldsets

    def get_readonly_fields(self, request, obj=None):
        fields = ["version", "status", "created_at", "updated_at"]
        if obj is not None:
            fields += ["registry", "number"]
            if not self.has_publish_permission(request):
                fields.append("superseded_by")
        return fields

    def get_queryset(self, request):
        pending = Revision.objects.filter(
            document=OuterRef("pk"), status=Revision.Status.PENDING
        )
        return super().get_queryset(request).annotate(pending=Exists(pending))

    def view_on_site(self, obj):
        return obj.get_absolute_url() if obj.is_public else None

    def get_search_results(self, request, queryset, search_term):
        """Also find a document by identifier: ``LIT-004``, ``lit 4``, ``LIT4``."""
        results, may_have_duplicates = super().get_search_results(
            request, queryset, search_term
        )
        match = IDENTIFIER_SEARCH_RE.fullmatch(search_term)
        if match:
            results |= queryset.filter(
                registry__prefix__iexact=match[1], number=int(match[2])
            )
        return results, may_have_duplicates

    def has_publish_permission(self, request, obj=None):
        return request.user.has_perm("catalogue.publish_document")

    def has_delete_permission(self, request, obj=None):
        # Documents are retired by withdrawing them, so their numbers stay taken.
        return False

    @admin.display(description="Document", ordering="number")
    def identifier_label(self, document):
        return document.label

    @admin.display(description="Pending revision", boolean=True)
    def has_pending_revision(self, document):
        return document.pending

    # Saving: public documents keep their text; edits wait as a revision.

    def save_model(self, request, obj, form, change):
        cleaned = form.cleaned_data
        if not change:
            services.save_document(
                document=obj, user=request.user, tags=cleaned.get("tags") or []
            )
        else:
            changes = {
                name: cleaned[name]
                for name in services.EDITABLE_FIELDS
                if name in cleaned
            }
            services.edit_document(
                document=obj, user=request.user, changes=changes, note=cleaned["note"]
            )
            successor = cleaned.get("superseded_by")
            if "superseded_by" in form.changed_data and successor is not None:
                services.supersede(document=obj, successor=successor, user=request.user)
        self._workflow_step(request, obj, note=cleaned.get("note", ""))
        obj.refresh_from_db()

    def _workflow_step(self, request, document, note):
        """The buttons beside Save; each verb checks the user's rights itself."""
        if "_submit_for_review" in request.POST:
            services.submit_for_review(document=document, user=request.user)
        elif "_publish" in request.POST:
            services.publish(document=document, user=request.user, note=note)
        elif "_withdraw" in request.POST:
            services.withdraw(document=document, user=request.user, note=note)
        elif "_discard_revision" in request.POST:
            services.discard_revision(document=document, user=request.user)

    def save_related(self, request, form, formsets, change):
        # Tags are saved by the services (into the pending revision when the
        # document is public), never straight from the form.
        for formset in formsets:
            self.save_formset(request, form, formset, change=change)

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except ValidationError as error:
            # A workflow step refused (for example: publishing what is not
            # pending). The admin's transaction rolled everything back.
            self.message_user(request, " ".join(error.messages), messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())

    def render_change_form(self, request, context, add=False, change=False, **kw):
        obj = context.get("original")
        if obj is not None:
            context["pending_revision"] = obj.pending_revision()
            context["can_publish"] = self.has_publish_permission(request)
        return super().render_change_form(request, context, add, change, **kw)

    # Bulk actions: all or nothing, each row checked by the service.

    def _bulk(self, request, queryset, verb, done):
        problems = []
        with transaction.atomic():
            for document in queryset.select_related("registry").order_by("number"):
                try:
                    verb(document)
                except ValidationError as error:
                    problems.append(
                        f"{document.identifier}: {' '.join(error.messages)}"
                    )
            if problems:
                transaction.set_rollback(True)
        if problems:
            self.message_user(
                request,
                "Nothing was changed. " + " ".join(problems),
                messages.ERROR,
            )
        else:
            self.message_user(request, f"{done}: {queryset.count()} document(s).")

    @admin.action(description="Submit for review", permissions=["change"])
    def submit_for_review_action(self, request, queryset):
        self._bulk(
            request,
            queryset,
            lambda d: services.submit_for_review(document=d, user=request.user),
            "Submitted for review",
        )

    @admin.action(description="Publish", permissions=["publish"])
    def publish_action(self, request, queryset):
        self._bulk(
            request,
            queryset,
            lambda d: services.publish(document=d, user=request.user),
            "Published",
        )

    @admin.action(description="Withdraw", permissions=["publish"])
    def withdraw_action(self, request, queryset):
        self._bulk(
            request,
            queryset,
            lambda d: services.withdraw(document=d, user=request.user),
            "Withdrawn",
        )

    @admin.action(description="Refile to the chosen topic", permissions=["change"])
    def refile_action(self, request, queryset):
        topic = Topic.objects.filter(pk=request.POST.get("topic") or None).first()
        if topic is None:
            self.message_user(
                request,
                "Choose a topic to refile to; nothing was changed.",
                messages.ERROR,
            )
            return
        self._bulk(
            request,
            queryset,
            lambda d: services.edit_document(
                document=d, user=request.user, changes={"topic": topic}
            ),
            f"Refiled to {topic.name}",
        )

    @admin.action(description="Add the tag", permissions=["change"])
    def add_tag_action(self, request, queryset):
        tag = (request.POST.get("tag") or "").strip()
        if not tag:
            self.message_user(
                request, "Type a tag to add; nothing was changed.", messages.ERROR
            )
            return

        self._bulk(
            request,
            queryset,
            lambda d: services.add_tags(document=d, user=request.user, names=[tag]),
            f"Tagged “{tag}”",
        )

    # Versions, comparison, revert, preview.

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path(
                "<path:object_id>/preview/",
                view(self.preview_view),
                name="catalogue_document_preview",
            ),
            path(
                "<path:object_id>/versions/<int:number>/",
                view(self.version_view),
                name="catalogue_document_version",
            ),
            *super().get_urls(),
        ]

    def preview_view(self, request, object_id):
        """The public page as it will read once the pending revision is published."""
        document = self.get_object(request, object_id)
        if document is None or not self.has_view_permission(request, document):
            raise PermissionDenied
        revision = document.pending_revision()
        if revision is not None:
            revision.applied_to(document)
        return TemplateResponse(
            request,
            "catalogue/document_detail.html",
            {
                "document": document,
                "versions": document.versions.all(),
                "references": resolve([document.summary]),
                "preview_of": revision or document,
                "is_preview": True,
            },
        )

    def version_view(self, request, object_id, number):
        """One published version, compared word by word with the one before.

        POST reverts to it: a new pending revision, history untouched.
        """
        document = self.get_object(request, object_id)
        if document is None or not self.has_view_permission(request, document):
            raise PermissionDenied
        version = get_object_or_404(document.versions, number=number)
        if request.method == "POST":
            if not self.has_change_permission(request, document):
                raise PermissionDenied
            services.revert(document=document, version=version, user=request.user)
            self.message_user(
                request,
                f"v{number} is now the pending revision; a publisher publishes it "
                "as a new version.",
            )
            return HttpResponseRedirect(
                reverse("admin:catalogue_document_change", args=[document.pk])
            )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "original": document,
            "title": f"{document.identifier} v{number}",
            "comparison": version_comparison(version),
            "version": version,
            "can_revert": self.has_change_permission(request, document),
        }
        return TemplateResponse(
            request, "admin/catalogue/document/version.html", context
        )


class DecisionRecordForm(forms.ModelForm):
    supersedes = forms.ModelMultipleChoiceField(
        queryset=DecisionRecord.objects.all(),
        required=False,
        help_text="Records this one supersedes: they say “superseded by” it.",
        widget=forms.SelectMultiple,
    )

    class Meta:
        model = DecisionRecord
        fields = ["number", "title", "status", "decided_on", "body", "superseded_by"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["supersedes"].queryset = DecisionRecord.objects.exclude(
                pk=self.instance.pk
            )
            self.initial["supersedes"] = list(self.instance.supersedes.all())


@admin.register(DecisionRecord)
class DecisionRecordAdmin(AuditlogHistoryAdminMixin, admin.ModelAdmin):
    form = DecisionRecordForm
    list_display = ["__str__", "status", "decided_on", "is_published", "updated_at"]
    list_filter = ["status", PublishedFilter]
    search_fields = ["title", "body"]
    autocomplete_fields = ["superseded_by"]
    readonly_fields = ["published_at", "published_by"]
    actions = ["publish_action", *admin_exports.DECISION_RECORD_ACTIONS]

    def has_publish_permission(self, request, obj=None):
        return request.user.has_perm("catalogue.publish_decisionrecord")

    @admin.display(description="Published", boolean=True)
    def is_published(self, record):
        return record.is_public

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        services.record_references(decisions=[obj])
        services.set_supersedes(
            record=obj, superseded=form.cleaned_data["supersedes"], user=request.user
        )
        caching.decision_changed(obj)

    @admin.action(description="Publish", permissions=["publish"])
    def publish_action(self, request, queryset):
        with transaction.atomic():
            for record in queryset:
                services.publish_decision(record=record, user=request.user)
        self.message_user(request, f"Published {queryset.count()} decision record(s).")


@admin.register(Preface)
class PrefaceAdmin(ExpiresPagesMixin, AuditlogHistoryAdminMixin, admin.ModelAdmin):
    list_display = ["heading", "updated_at"]

    def has_add_permission(self, request):
        return not Preface.objects.exists()


@admin.register(BrokenReference)
class BrokenReferenceAdmin(admin.ModelAdmin):
    """Names in published text that point at nothing a reader can open."""

    list_display = ["__str__", "source_link", "source_status"]
    list_select_related = ["document__registry", "decision"]
    search_fields = ["prefix", "document__title", "decision__title"]

    def get_queryset(self, request):
        return super().get_queryset(request).broken()

    @admin.display(description="named in")
    def source_link(self, reference):
        source = reference.source
        meta = source._meta
        url = reverse(
            f"admin:{meta.app_label}_{meta.model_name}_change", args=[source.pk]
        )
        return format_html('<a href="{}">{}</a>', url, source)

    @admin.display(description="status of the naming record")
    def source_status(self, reference):
        return reference.source.get_status_display()

    def has_view_permission(self, request, obj=None):
        # Whoever may see documents sees what their texts name wrongly.
        return request.user.has_perm("catalogue.view_document")

    def has_module_permission(self, request):
        return self.has_view_permission(request)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


# taggit's own admin renames and deletes tags, which public pages print.
admin.site.unregister(Tag)


@admin.register(Tag)
class TagAdmin(ExpiresPagesMixin, taggit_admin.TagAdmin):
    pass

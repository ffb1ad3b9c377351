"""The documents' admin: the list, the change form and its workflow buttons.

A public document keeps its text when an editor saves: the edit waits as a
pending revision until a publisher publishes it.
"""

from auditlog.mixins import AuditlogHistoryAdminMixin
from django.contrib import admin
from django.db.models import Exists, OuterRef
from django.utils.formats import date_format
from django.utils.html import format_html

import actions.documents
from catalogue.identifiers import Identifier
from catalogue.models import Document, Registry, Revision
from editorial.admin import controls, exports
from editorial.admin.bulk import DocumentActionsMixin
from editorial.admin.conversation import ConversationMixin, conversation
from editorial.admin.csv_import import DocumentImportMixin
from editorial.admin.filters import (
    AuthorListFilter,
    DecadeFilter,
    QueueFilter,
    TagFilter,
    TopicFilter,
)
from editorial.admin.forms import (
    DocumentActionForm,
    DocumentForm,
    NamedAutocompleteMixin,
)
from editorial.admin.lookup import AddByIdentifierMixin
from editorial.admin.paginators import EstimatedCountPaginator
from editorial.admin.previews import PreviewLinkPagesMixin
from editorial.admin.review import DocumentPagesMixin
from editorial.admin.schedules import SchedulePagesMixin


@admin.register(Document)
class DocumentAdmin(
    # Each base adds one part of the page and overrides nothing another base
    # does, except ``get_urls`` and ``changeform_view``, which each extends
    # through super(): the pages' own URLs (review, preview, versions,
    # withdraw; then the CSV import's) come before the ModelAdmin's catch-all
    # ``<object_id>/``, and the workflow's messages wrap the change form.
    AddByIdentifierMixin,  # the add form filled in from arXiv or Crossref
    controls.WorkflowFormMixin,  # the change form's buttons and messages
    NamedAutocompleteMixin,  # topic and successor chosen by name
    DocumentActionsMixin,  # the list's bulk actions
    DocumentPagesMixin,  # review, preview, versions, duplicates, withdraw
    SchedulePagesMixin,  # changes scheduled ahead, and their cancelling
    PreviewLinkPagesMixin,  # preview links made and revoked
    ConversationMixin,  # the review's comments, sending back, assignments
    DocumentImportMixin,  # the CSV import and its jobs' pages
    AuditlogHistoryAdminMixin,  # the audit trail's history page
    admin.ModelAdmin,
):
    form = DocumentForm
    action_form = DocumentActionForm
    change_form_template = "admin/catalogue/document/change_form.html"
    list_display = ["identifier_label", "title", "standing", "filed_under", "changed"]
    list_display_links = ["identifier_label", "title"]
    # The last-changed date as a filter, not a date hierarchy: the hierarchy
    # reads every row's date on every view.
    list_filter = [
        QueueFilter,
        "status",
        "registry",
        ("topic", TopicFilter),
        DecadeFilter,
        AuthorListFilter,
        ("tags", TagFilter),
        "updated_at",
    ]
    list_select_related = ["registry", "topic"]
    search_fields = ["title", "authors", "source_identifier", "citation_note", "venue"]
    # The unique (registry, number) index gives the first page without sorting
    # the table, and an estimate stands in for counting it.
    ordering = ["registry_id", "number"]
    paginator = EstimatedCountPaginator
    show_full_result_count = False
    autocomplete_fields = ["topic", "superseded_by"]
    autocomplete_placeholders = {"topic": "Unfiled", "superseded_by": "None"}
    actions = [
        "submit_for_review_action",
        "publish_action",
        "withdraw_action",
        "refile_action",
        "add_tag_action",
        *exports.DOCUMENT_ACTIONS,
    ]

    def get_fieldsets(self, request, obj=None):
        fieldsets = [
            (None, {"fields": ["title", "summary"]}),
            (
                "Citation",
                {"fields": ["authors", "year", "source_identifier", "citation_note"]},
            ),
            ("Bibliography", {"fields": Document.BIBLIOGRAPHIC_FIELDS}),
            (
                "Filing",
                {
                    "fields": [
                        "registry",
                        "number",
                        "version",
                        "status",
                        "topic",
                        "tags",
                    ]
                    if obj is not None
                    # A new document has no number, version or status to
                    # show: its registry numbers it when it is saved.
                    else ["registry", "topic", "tags"]
                },
            ),
        ]
        if obj is not None:
            fieldsets += [
                ("Change note", {"fields": ["note", "base"]}),
                (
                    "Succession and dates",
                    {"fields": ["superseded_by", "created_at", "updated_at"]},
                ),
            ]
        return fieldsets

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        # With one registry there is nothing to choose.
        registries = list(Registry.objects.values_list("pk", flat=True)[:2])
        if len(registries) == 1:
            initial.setdefault("registry", registries[0])
        return initial

    def get_readonly_fields(self, request, obj=None):
        # Numbers are the registry's to give: a new document takes the next.
        fields = ["number", "version", "status", "created_at", "updated_at"]
        if obj is not None:
            fields += ["registry"]
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
        identifier = Identifier.parse_typed(search_term)
        if identifier is not None:
            results |= queryset.filter(
                registry__prefix__iexact=identifier.prefix, number=identifier.number
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

    @admin.display(description="Status", ordering="status")
    def standing(self, document):
        status = document.get_status_display()
        if not document.pending:
            return status
        return format_html('{} <span class="badge">pending revision</span>', status)

    @admin.display(description="Topic", ordering="topic__position")
    def filed_under(self, document):
        return document.topic.name if document.topic_id else "Unfiled"

    @admin.display(description="Changed", ordering="updated_at")
    def changed(self, document):
        return date_format(document.updated_at, "j M Y")

    # Saving: public documents keep their text; edits wait as a revision.

    def save_model(self, request, obj, form, change):
        cleaned = form.cleaned_data
        revision = None
        outcomes = []
        if not change:
            actions.documents.save_document(
                document=obj, user=request.user, tags=cleaned.get("tags") or []
            )
        else:
            changes = {
                name: cleaned[name]
                for name in actions.documents.EDITABLE_FIELDS
                if name in cleaned
            }
            revision = actions.documents.edit_document(
                document=obj, user=request.user, changes=changes, note=cleaned["note"]
            )
            successor = cleaned.get("superseded_by")
            if "superseded_by" in form.changed_data and successor is not None:
                actions.documents.supersede(
                    document=obj, successor=successor, user=request.user
                )
                outcomes.append(f"{obj.identifier} is superseded by {successor}.")
        obj.refresh_from_db()
        # The buttons beside Save; each verb checks the user's rights itself.
        taken = controls.take_pressed_step(
            request.POST, document=obj, user=request.user, note=cleaned.get("note", "")
        )
        outcomes.insert(0, taken or controls.saved(obj, revision, added=not change))
        obj.refresh_from_db()
        request.workflow_outcomes = outcomes

    def save_related(self, request, form, formsets, change):
        # Tags are saved by the workflow (into the pending revision when the
        # document is public), never straight from the form.
        for formset in formsets:
            self.save_formset(request, form, formset, change=change)

    def render_change_form(self, request, context, add=False, change=False, **kw):
        document = context.get("original")
        if document is not None:
            revision = document.pending_revision()
            context["pending_revision"] = revision
            context["may_publish"] = actions.documents.PUBLISH.is_offered(
                document, revision, request.user
            )
            context["versions"] = document.versions.select_related(
                "published_by", "written_by"
            )
            context["review"] = conversation(
                document, revision, request.user, next_url=request.get_full_path()
            )
            context["workflow_controls"] = [
                (control, control.url(document))
                for control in controls.offered_controls(
                    document, revision, request.user
                )
            ]
        return super().render_change_form(request, context, add, change, **kw)

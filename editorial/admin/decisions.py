"""The decision records' admin: a published record's edits are held as its
pending revision, as a document's are; a team's folder is imported from the
list ("Import a decision folder")."""

from auditlog.mixins import AuditlogHistoryAdminMixin
from django.contrib import admin
from django.db import transaction

from actions.decisions import (
    DISCARD_DECISION,
    PUBLISH_DECISION,
    delete_decisions,
    discard_decision_revision,
    keep_relations,
    publish_decision,
    save_decision,
)
from catalogue.models import DecisionRecord, DecisionRelation
from editorial.admin import exports
from editorial.admin.controls import WorkflowFormMixin
from editorial.admin.conversation import (
    ConversationMixin,
    conversation,
    kept_reviews,
)
from editorial.admin.filters import PublishedFilter
from editorial.admin.folder_import import DecisionFolderImportMixin
from editorial.admin.forms import DecisionRecordForm, NamedAutocompleteMixin


class RelationInline(NamedAutocompleteMixin, admin.TabularInline):
    """The records this one amends, clarifies or relates to; supersession is
    the form's own field, which also marks the older records superseded."""

    model = DecisionRelation
    fk_name = "source"
    extra = 0
    autocomplete_fields = ["target"]
    autocomplete_placeholders = {"target": "A decision record"}
    verbose_name = "relation"

    def get_queryset(self, request):
        return (
            super().get_queryset(request).exclude(kind=DecisionRelation.Kind.SUPERSEDES)
        )

    # A published record's relations show here but change through its folder's
    # import: saved from the form, they would go live ahead of its revision.
    def has_add_permission(self, request, obj=None):
        return super().has_add_permission(request, obj) and _draft(obj)

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and _draft(obj)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and _draft(obj)

    def formfield_for_choice_field(self, db_field, request, **kwargs):
        if db_field.name == "kind":
            kwargs["choices"] = [
                choice
                for choice in DecisionRelation.Kind.choices
                if choice[0] != DecisionRelation.Kind.SUPERSEDES
            ]
        return super().formfield_for_choice_field(db_field, request, **kwargs)


def _draft(decision):
    return decision is None or not decision.is_public


@admin.register(DecisionRecord)
class DecisionRecordAdmin(
    DecisionFolderImportMixin,
    ConversationMixin,
    WorkflowFormMixin,
    AuditlogHistoryAdminMixin,
    admin.ModelAdmin,
):
    form = DecisionRecordForm
    change_form_template = "admin/catalogue/decisionrecord/change_form.html"
    inlines = [RelationInline]
    list_display = [
        "__str__",
        "log",
        "status",
        "decided_on",
        "is_published",
        "updated_at",
    ]
    list_filter = ["log", "status", PublishedFilter]
    search_fields = ["title", "body"]
    readonly_fields = ["source_name", "published_at", "published_by"]
    actions = ["publish_action", *exports.DECISION_RECORD_ACTIONS]

    def has_publish_permission(self, request, obj=None):
        return request.user.has_perm("catalogue.publish_decisionrecord")

    def get_readonly_fields(self, request, obj=None):
        fields = super().get_readonly_fields(request, obj)
        # A published record's number is how readers cite it.
        return [*fields, "number"] if obj is not None and obj.is_public else fields

    @admin.display(description="Published", boolean=True)
    def is_published(self, decision):
        return decision.is_public

    def save_model(self, request, obj, form, change):
        cleaned = form.cleaned_data
        revision = save_decision(
            decision=obj,
            user=request.user,
            supersedes=cleaned["supersedes"],
            note=cleaned.get("note", ""),
        )
        if "_publish" in request.POST and (revision or not obj.is_public):
            publish_decision(decision=obj, user=request.user)
            outcome = f"Published {obj.label}."
        elif "_discard_revision" in request.POST:
            discard_decision_revision(decision=obj, user=request.user)
            outcome = f"Discarded the pending revision of {obj.label}."
        elif revision is not None:
            outcome = f"Held as a pending revision: readers still see {obj.label}."
        elif obj.is_public:
            outcome = (
                f"Nothing is held for {obj.label}: the form reads as readers see it."
            )
        else:
            outcome = f"Saved {obj.label}."
        request.workflow_outcomes = [outcome]

    def render_change_form(self, request, context, add=False, change=False, **kw):
        decision = context.get("original")
        if decision is not None:
            revision = decision.pending_revision()
            context["pending_revision"] = revision
            # The save itself can make what "Save and publish" publishes.
            context["can_publish"] = request.user.has_perm(PUBLISH_DECISION.permission)
            context["can_discard"] = DISCARD_DECISION.is_offered(
                decision, revision, request.user
            )
            context["review"] = conversation(
                decision, revision, request.user, next_url=request.get_full_path()
            )
            context["kept_reviews"] = kept_reviews(decision=decision)
        return super().render_change_form(request, context, add, change, **kw)

    def save_formset(self, request, form, formset, change):
        """The relations' inline is saved through their action."""
        saved = formset.save(commit=False)
        keep_relations(saved=saved, deleted=formset.deleted_objects, user=request.user)

    def delete_model(self, request, obj):
        delete_decisions(decisions=[obj], user=request.user)

    def delete_queryset(self, request, queryset):
        delete_decisions(decisions=list(queryset), user=request.user)

    @admin.action(description="Publish", permissions=["publish"])
    def publish_action(self, request, queryset):
        with transaction.atomic():
            for decision in queryset:
                publish_decision(decision=decision, user=request.user)
        self.message_user(request, f"Published {queryset.count()} decision record(s).")

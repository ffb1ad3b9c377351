"""The decision records' admin."""

from auditlog.mixins import AuditlogHistoryAdminMixin
from django.contrib import admin
from django.db import transaction

from catalogue.models import DecisionRecord, DecisionRelation
from editorial.admin.filters import PublishedFilter
from editorial.admin.forms import DecisionRecordForm, NamedAutocompleteMixin
from editorial.decisions import publish_decision, save_decision
from exchange import admin_actions


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

    def formfield_for_choice_field(self, db_field, request, **kwargs):
        if db_field.name == "kind":
            kwargs["choices"] = [
                choice
                for choice in DecisionRelation.Kind.choices
                if choice[0] != DecisionRelation.Kind.SUPERSEDES
            ]
        return super().formfield_for_choice_field(db_field, request, **kwargs)


@admin.register(DecisionRecord)
class DecisionRecordAdmin(AuditlogHistoryAdminMixin, admin.ModelAdmin):
    form = DecisionRecordForm
    inlines = [RelationInline]
    list_display = ["__str__", "status", "decided_on", "is_published", "updated_at"]
    list_filter = ["status", PublishedFilter]
    search_fields = ["title", "body"]
    readonly_fields = ["source_name", "published_at", "published_by"]
    actions = ["publish_action", *admin_actions.DECISION_RECORD_ACTIONS]

    def has_publish_permission(self, request, obj=None):
        return request.user.has_perm("catalogue.publish_decisionrecord")

    @admin.display(description="Published", boolean=True)
    def is_published(self, decision):
        return decision.is_public

    def save_model(self, request, obj, form, change):
        save_decision(
            decision=obj, user=request.user, supersedes=form.cleaned_data["supersedes"]
        )

    @admin.action(description="Publish", permissions=["publish"])
    def publish_action(self, request, queryset):
        with transaction.atomic():
            for decision in queryset:
                publish_decision(decision=decision, user=request.user)
        self.message_user(request, f"Published {queryset.count()} decision record(s).")

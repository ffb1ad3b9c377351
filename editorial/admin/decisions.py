"""The decision records' admin."""

from auditlog.mixins import AuditlogHistoryAdminMixin
from django.contrib import admin
from django.db import transaction

from catalogue.models import DecisionRecord
from editorial.admin.filters import PublishedFilter
from editorial.admin.forms import DecisionRecordForm, NamedAutocompleteMixin
from editorial.decisions import publish_decision, save_decision
from exchange import admin_actions


@admin.register(DecisionRecord)
class DecisionRecordAdmin(
    NamedAutocompleteMixin, AuditlogHistoryAdminMixin, admin.ModelAdmin
):
    form = DecisionRecordForm
    list_display = ["__str__", "status", "decided_on", "is_published", "updated_at"]
    list_filter = ["status", PublishedFilter]
    search_fields = ["title", "body"]
    autocomplete_fields = ["superseded_by"]
    autocomplete_placeholders = {"superseded_by": "None"}
    readonly_fields = ["published_at", "published_by"]
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

from django.contrib import admin

from catalogue import admin_exports, services
from catalogue.models import (
    DecisionRecord,
    Document,
    DocumentVersion,
    Preface,
    Registry,
    Topic,
)
from catalogue.resources import DocumentImportMixin, TopicImportMixin


@admin.register(Registry)
class RegistryAdmin(admin.ModelAdmin):
    list_display = ["prefix", "name", "last_number"]
    readonly_fields = ["last_number"]
    search_fields = ["prefix", "name"]


@admin.register(Topic)
class TopicAdmin(TopicImportMixin, admin.ModelAdmin):
    list_display = ["position", "name", "flavour", "scope"]
    list_display_links = ["name"]
    list_filter = ["flavour"]
    prepopulated_fields = {"slug": ["name"]}
    search_fields = ["name", "scope"]
    actions = admin_exports.TOPIC_ACTIONS


class DocumentVersionInline(admin.TabularInline):
    model = DocumentVersion
    fields = ["number", "title", "published_at", "published_by", "note"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Document)
class DocumentAdmin(DocumentImportMixin, admin.ModelAdmin):
    list_display = ["__str__", "status", "topic", "version", "updated_at"]
    list_filter = ["status", "registry", "topic"]
    list_select_related = ["registry", "topic"]
    search_fields = ["title", "authors", "source_identifier", "summary"]
    readonly_fields = ["version", "created_at", "updated_at"]
    autocomplete_fields = ["superseded_by"]
    fieldsets = [
        (
            None,
            {"fields": ["registry", "number", "version", "status", "topic", "tags"]},
        ),
        (
            "Citation",
            {"fields": ["authors", "year", "source_identifier", "citation_note"]},
        ),
        (None, {"fields": ["title", "summary", "superseded_by"]}),
        ("Record", {"fields": ["created_at", "updated_at"]}),
    ]
    inlines = [DocumentVersionInline]
    actions = admin_exports.DOCUMENT_ACTIONS

    def save_model(self, request, obj, form, change):
        services.save_document(document=obj, user=request.user)

    def has_delete_permission(self, request, obj=None):
        # Documents are retired by withdrawing them, so their numbers stay taken.
        return False


@admin.register(DecisionRecord)
class DecisionRecordAdmin(admin.ModelAdmin):
    list_display = ["__str__", "status", "decided_on"]
    list_filter = ["status"]
    search_fields = ["title", "body"]
    autocomplete_fields = ["superseded_by"]
    actions = admin_exports.DECISION_RECORD_ACTIONS


@admin.register(Preface)
class PrefaceAdmin(admin.ModelAdmin):
    list_display = ["heading", "updated_at"]

    def has_add_permission(self, request):
        return not Preface.objects.exists()

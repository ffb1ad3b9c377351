"""Broken references: names in published text that point at nothing a
reader can open, listed for editors to mend. The preface's are listed above
the rows: the preface is one text, read where it is shown, and keeps no
``Reference`` rows."""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from catalogue.models import BrokenReference, Preface
from catalogue.references import broken_names


@admin.register(BrokenReference)
class BrokenReferenceAdmin(admin.ModelAdmin):
    list_display = ["__str__", "source_link", "source_status"]
    list_select_related = ["document__registry", "decision"]
    search_fields = ["prefix", "document__title", "decision__title"]

    def get_queryset(self, request):
        return super().get_queryset(request).broken()

    def changelist_view(self, request, extra_context=None):
        preface = Preface.objects.first()
        extra_context = {
            **(extra_context or {}),
            "preface": preface,
            "preface_broken": broken_names(preface.text) if preface else [],
        }
        return super().changelist_view(request, extra_context)

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

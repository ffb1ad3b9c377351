"""Cached pages expired after what the admin saves without a workflow verb."""

from pagecache.generations import expire_everything


class ExpiresPagesOnImportMixin:
    def process_result(self, result, request):
        # django-import-export calls this after a confirmed CSV import only:
        # many rows changed, so every cached page is expired.
        expire_everything()
        return super().process_result(result, request)


class ExpiresPagesMixin(ExpiresPagesOnImportMixin):
    """Saved straight from the admin, not through a workflow verb: a registry,
    a topic, the preface, a tag. Their names and texts show on most public
    pages and they change rarely, so every cached page is expired. Done here,
    explicitly, rather than in a signal."""

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        expire_everything()

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        expire_everything()

    def delete_queryset(self, request, queryset):
        super().delete_queryset(request, queryset)
        expire_everything()

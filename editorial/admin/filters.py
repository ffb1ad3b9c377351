"""The admin lists' filters: the editors' queues, the citation's decade,
decision records' publication."""

from django.contrib import admin
from django.utils import timezone

from editorial import desk


class QueueFilter(admin.SimpleListFilter):
    """The editors' queues, each with its count: the desk's, as a filter."""

    title = "queue"
    parameter_name = "queue"

    def lookups(self, request, model_admin):
        # Each count is answered from an index (topic, status, the pending
        # revisions' own, the audit trail's), not one pass over every document.
        return [
            (queue.key, f"{queue.label} ({queue.count})")
            for queue in desk.document_queues(request.user)
        ]

    def queryset(self, request, queryset):
        conditions = desk.queue_conditions(request.user)
        if self.value() in conditions:
            return queryset.filter(conditions[self.value()]).distinct()
        return queryset


class TopicFilter(admin.RelatedFieldListFilter):
    """Documents by topic; those without one are "Unfiled", as everywhere."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.empty_value_display = "Unfiled"


class TagFilter(admin.RelatedFieldListFilter):
    """Documents by tag; those without one have "No tags"."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.empty_value_display = "No tags"


class DecadeFilter(admin.SimpleListFilter):
    """The citation's year by decade: offered without reading every row, where
    a list of the distinct years would."""

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


class AuthorListFilter(admin.SimpleListFilter):
    """Documents whose author list is known only as "First et al.": the ones
    ``enrich_metadata`` or an editor still has to complete."""

    title = "author list"
    parameter_name = "authors"

    def lookups(self, request, model_admin):
        return [("incomplete", "Incomplete (“First et al.” only)"), ("known", "Known")]

    def queryset(self, request, queryset):
        incomplete = queryset.with_incomplete_authors()
        if self.value() == "incomplete":
            return incomplete
        if self.value() == "known":
            return queryset.exclude(pk__in=incomplete.values("pk"))
        return queryset

"""The admin lists' filters: the editors' queues, the citation's decade,
decision records' publication."""

from django.contrib import admin
from django.db.models import Q
from django.utils import timezone

from catalogue.models import Document, Revision


class QueueFilter(admin.SimpleListFilter):
    """The editors' queues, each with its count."""

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
        # pending revisions' own), not one pass over every document.
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

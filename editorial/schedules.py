"""The scheduled changes the desk and a document's admin list."""

import datetime

from django.db.models import Q
from django.utils import timezone

from actions import schedules
from catalogue.models import Schedule

# How long the desk keeps showing a schedule that failed.
FAILED_SHOWN_DAYS = 7
# How many schedules the desk lists.
DESK_SHOWN = 20


def document_schedules(document):
    """A document's schedules still waiting, and those that ran or failed
    last, newest last."""
    return list(
        document.schedules.select_related("scheduled_by", "cancelled_by")
        .exclude(state=Schedule.State.CANCELLED)
        .order_by("-at", "-pk")[:10]
    )[::-1]


def desk_schedules(now=None):
    """The desk's schedules, in one query: those waiting, soonest first, each
    marked ``late`` when no runner took it in time, and those that failed in
    the last days, with their reason."""
    now = now or timezone.now()
    recent = now - datetime.timedelta(days=FAILED_SHOWN_DAYS)
    rows = list(
        Schedule.objects.filter(
            Q(state=Schedule.State.WAITING)
            | Q(state=Schedule.State.FAILED, ran_at__gte=recent)
        )
        .select_related("document__registry", "scheduled_by")
        .order_by("at", "pk")[:DESK_SHOWN]
    )
    for row in rows:
        row.late = schedules.is_late(row, now)
    return rows

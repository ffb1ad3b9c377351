"""The desk's statistics: how the editorial work went, week by week, over
the last ``WEEKS`` weeks, for editors in the admin.

Read from what the record keeps of its own making, never from a counter of
its own: version rows (first publications), held revisions, withdrawal
notices, the audit trail (a document's moves into and out of review) and the
background jobs (imports, and who started them). Each figure is a chart with
its numbers as a table (``public.statistics.Figure``).
"""

from datetime import UTC, datetime, time, timedelta
from statistics import median

from auditlog.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.template.response import TemplateResponse
from django.urls import path
from django.utils import timezone
from django.utils.safestring import mark_safe

from catalogue.models import Document, DocumentNotice, DocumentVersion, Revision
from catalogue.models.choices import DocumentStatus, RevisionStatus
from jobs.models import Job
from public import charts
from public.statistics import Figure

WEEKS = 26
# The imports' job functions (the admin's IMPORT_JOB, PAGE_JOB, FOLDER_JOB),
# named here as the backups' is: the admin site is built before its
# ModelAdmins may be imported.
IMPORT_JOBS = [
    "imports.job_functions.import_csv",
    "imports.job_functions.import_page",
    "imports.job_functions.import_decision_folder",
]
# The imports chart names this many people, the busiest, one by one.
NAMED_IMPORTERS = 6
# Whoever may read the audit trail may read what it adds up to.
PERMISSION = "auditlog.view_logentry"
IN_REVIEW = str(DocumentStatus.IN_REVIEW)


def week_starts(now):
    """The Mondays (UTC, midnight) of the last ``WEEKS`` weeks, this one last."""
    today = now.astimezone(UTC).date()
    monday = today - timedelta(days=today.weekday())
    return [
        datetime.combine(monday - timedelta(weeks=n), time(), tzinfo=UTC)
        for n in range(WEEKS - 1, -1, -1)
    ]


def _week_of(moment, starts):
    """The index of the week ``moment`` falls in, or None before the first."""
    for index in range(len(starts) - 1, -1, -1):
        if moment >= starts[index]:
            return index
    return None


def _label(start):
    return f"{start:%d %b}"


def _days(delta):
    return round(delta.total_seconds() / 86400, 1)


def _status_moves(document_ids=None, since=None):
    """``(document id, when, old status, new status)`` for every change of a
    document's status the audit trail holds (of ``document_ids``, since
    ``since``), oldest first."""
    entries = LogEntry.objects.filter(
        content_type=ContentType.objects.get_for_model(Document),
        changes__has_key="status",
    )
    if document_ids is not None:
        entries = entries.filter(object_id__in=document_ids)
    if since is not None:
        entries = entries.filter(timestamp__gte=since)
    rows = entries.order_by("timestamp").values_list(
        "object_id", "timestamp", "changes"
    )
    return [
        (object_id, when, *[str(value) for value in changes["status"]])
        for object_id, when, changes in rows
    ]


def submission_waits(starts):
    """Per week, the days each document first published that week waited
    since it was submitted for review (since it was created, when it was
    published straight from its draft), and each revision published that
    week waited since it was held."""
    first = list(
        DocumentVersion.objects.filter(
            number=1, published_at__gte=starts[0]
        ).values_list("document_id", "published_at", "document__created_at")
    )
    submitted = {}
    for document_id, when, _old, new in _status_moves([row[0] for row in first]):
        if new == IN_REVIEW:
            submitted.setdefault(document_id, []).append(when)
    documents = [[] for _ in starts]
    for document_id, published_at, created_at in first:
        earlier = [
            when for when in submitted.get(document_id, []) if when <= published_at
        ]
        since = max(earlier) if earlier else created_at
        documents[_week_of(published_at, starts)].append(_days(published_at - since))
    revisions = [[] for _ in starts]
    for created_at, published_at in Revision.objects.filter(
        status=RevisionStatus.PUBLISHED, published_at__gte=starts[0]
    ).values_list("created_at", "published_at"):
        revisions[_week_of(published_at, starts)].append(
            _days(published_at - created_at)
        )
    return documents, revisions


def throughput_figure(starts):
    documents, revisions = submission_waits(starts)
    rows = []
    for start, firsts, edits in zip(starts, documents, revisions, strict=True):
        both = firsts + edits
        rows.append(
            [
                _label(start),
                len(firsts),
                median(firsts) if firsts else "",
                len(edits),
                median(edits) if edits else "",
                median(both) if both else 0,
            ]
        )
    return Figure(
        slug="throughput",
        title="Days from submission to publication, median per week",
        svg=_draw(
            charts.columns,
            [(row[0], row[5]) for row in rows],
            "throughput",
            "Days from submission to publication, median per week",
        ),
        headers=[
            "Week of",
            "First publications",
            "Their median days",
            "Revisions published",
            "Their median days",
            "Median days, all",
        ],
        rows=rows,
    )


def _draw(draw, data, slug, title, **options):
    # The chart module escapes every text it writes.
    return mark_safe(draw(data, title=title, title_id=f"chart-{slug}", **options))


def revisions_figure(starts):
    """Per week: revisions held (written), published, discarded; and
    documents withdrawn."""
    counts = [[0, 0, 0, 0] for _ in starts]
    rows = Revision.objects.filter(
        Q(created_at__gte=starts[0])
        | Q(published_at__gte=starts[0])
        | Q(status=RevisionStatus.DISCARDED, updated_at__gte=starts[0])
    ).values_list("created_at", "status", "published_at", "updated_at")
    for created_at, status, published_at, updated_at in rows:
        moments = [(0, created_at)]
        if status == RevisionStatus.PUBLISHED:
            moments.append((1, published_at))
        elif status == RevisionStatus.DISCARDED:
            moments.append((2, updated_at))
        for column, moment in moments:
            week = _week_of(moment, starts)
            if week is not None:
                counts[week][column] += 1
    for (at,) in DocumentNotice.objects.filter(
        kind=DocumentNotice.Kind.WITHDRAWN, at__gte=starts[0]
    ).values_list("at"):
        counts[_week_of(at, starts)][3] += 1
    series = [
        "Revisions held",
        "Revisions published",
        "Revisions discarded",
        "Withdrawals",
    ]
    columns = [
        (_label(start), values) for start, values in zip(starts, counts, strict=True)
    ]
    title = "Revisions held and published, and withdrawals, per week"
    return Figure(
        slug="revisions",
        title=title,
        svg=_draw(
            charts.stacked_columns,
            columns,
            "revisions",
            title,
            series=series,
            grouped=True,
        ),
        headers=["Week of", *series],
        rows=[[label, *values] for label, values in columns],
    )


def _queue_sizes(starts, now, current, moves):
    """The size of a queue at the end of each week, from its size ``now``
    (``current``) and the ``(when, change)`` moves into (+1) and out of
    (-1) it since: taken back, newest first."""
    ends = [*starts[1:], now]
    sizes, size = [], current
    moves = sorted(moves, reverse=True)
    position = 0
    for end in reversed(ends):
        while position < len(moves) and moves[position][0] > end:
            size -= moves[position][1]
            position += 1
        sizes.append(size)
    return list(reversed(sizes))


def queues_figure(starts, now):
    """At the end of each week: documents in review, and revisions held
    (pending) for a publisher."""
    review_moves = []
    for _id, when, old, new in _status_moves(since=starts[0]):
        if new == IN_REVIEW:
            review_moves.append((when, 1))
        if old == IN_REVIEW:
            review_moves.append((when, -1))
    in_review = _queue_sizes(
        starts,
        now,
        Document.objects.filter(status=DocumentStatus.IN_REVIEW).count(),
        review_moves,
    )
    revision_moves = []
    pending_now = 0
    for created_at, status, published_at, updated_at in Revision.objects.filter(
        Q(status=RevisionStatus.PENDING)
        | Q(published_at__gte=starts[0])
        | Q(status=RevisionStatus.DISCARDED, updated_at__gte=starts[0])
    ).values_list("created_at", "status", "published_at", "updated_at"):
        pending_now += status == RevisionStatus.PENDING
        revision_moves.append((created_at, 1))
        if status != RevisionStatus.PENDING:
            revision_moves.append((published_at or updated_at, -1))
    pending = _queue_sizes(starts, now, pending_now, revision_moves)
    series = ["Documents in review", "Revisions held"]
    columns = [
        (_label(start), [a, b])
        for start, a, b in zip(starts, in_review, pending, strict=True)
    ]
    title = "The queues at the end of each week"
    return Figure(
        slug="queues",
        title=title,
        svg=_draw(
            charts.stacked_columns,
            columns,
            "queues",
            title,
            series=series,
            grouped=True,
        ),
        headers=["Week of", *series],
        rows=[[label, *values] for label, values in columns],
    )


def imports_figure(starts):
    """Imports started each week (CSV, topic page, decision folder), by who
    started them; an import run as a command is in the audit trail alone."""
    jobs = list(
        Job.objects.filter(function__in=IMPORT_JOBS, created_at__gte=starts[0])
        .order_by("created_at")
        .values_list("created_at", "created_by__username")
    )
    people = {}
    for _at, username in jobs:
        name = username or "(account removed)"
        people[name] = people.get(name, 0) + 1
    busiest = sorted(people, key=lambda name: (-people[name], name))
    named = busiest[:NAMED_IMPORTERS]
    series = [*named, *(["Others"] if len(busiest) > len(named) else [])]
    counts = [[0] * len(series) for _ in starts]
    for at, username in jobs:
        name = username or "(account removed)"
        column = named.index(name) if name in named else len(named)
        counts[_week_of(at, starts)][column] += 1
    columns = [
        (_label(start), values) for start, values in zip(starts, counts, strict=True)
    ]
    title = "Imports per week, by who started them"
    return Figure(
        slug="imports",
        title=title,
        svg=_draw(charts.stacked_columns, columns, "imports", title, series=series),
        headers=["Week of", *series],
        rows=[[label, *values] for label, values in columns],
    )


def editorial_figures(now=None):
    """Every figure of the desk's statistics, in the order the page shows them."""
    now = now or timezone.now()
    starts = week_starts(now)
    return [
        throughput_figure(starts),
        revisions_figure(starts),
        queues_figure(starts, now),
        imports_figure(starts),
    ]


class StatisticsAdminMixin:
    """Adds the desk's statistics to an admin site, at ``statistics/``."""

    def get_urls(self):
        return [
            path(
                "statistics/",
                self.admin_view(self.statistics_view),
                name="statistics",
            ),
            *super().get_urls(),
        ]

    def statistics_view(self, request):
        """How the editorial work went, week by week. Template:
        ``admin/statistics.html``; context: ``figures``, ``weeks``."""
        if not request.user.has_perm(PERMISSION):
            raise PermissionDenied
        context = {
            **self.each_context(request),
            "title": "Statistics of the desk",
            "figures": editorial_figures(),
            "weeks": WEEKS,
        }
        return TemplateResponse(request, "admin/statistics.html", context)

"""The dumps' schedule: a chore of the workers (``JOBS_CHORES``) queues a job
that writes a dump once the newest is ``DUMPS_EVERY_HOURS`` old.

The chore only looks (the storage's newest manifest) and queues; the work runs
as a job, coalesced under one key, so however many workers look at once, one
dump is written at a time and at most one waits. The job looks again before
it writes: a dump made meanwhile (by the command, say) makes it a no-op.
"""

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from dumps import store
from jobs import runner
from jobs.models import Job

FUNCTION = "dumps.jobs.make_due_dump"
COALESCE = "dumps"
TITLE = "Public dumps of the record"


def is_due(now=None):
    """Whether the schedule asks for a dump now: one every
    ``DUMPS_EVERY_HOURS`` (never when 0)."""
    if settings.DUMPS_EVERY_HOURS <= 0:
        return False
    newest = store.newest_dump()
    now = now or timezone.now()
    return newest is None or now - newest.made_at >= timedelta(
        hours=settings.DUMPS_EVERY_HOURS
    )


def request_due():
    """Queue the dumps' job when a dump is due and none is waiting or
    running. A workers' chore."""
    if not is_due() or Job.objects.unfinished().filter(function=FUNCTION).exists():
        return None
    return runner.request(
        coalesce=COALESCE,
        function=FUNCTION,
        arguments={},
        merge=lambda waiting, asked: waiting,
        title=lambda arguments: TITLE,
    )


def make_due_dump():
    """Write a dump if one is still due: the job's summary and the dump's name."""
    if not is_due():
        return "No dump was due: the newest is recent enough.", None
    dump = store.write_dump(progress=runner.progress)
    store.prune()
    return summary(dump), dump.name


def summary(dump):
    counts = ", ".join(f"{file.documents} in {file.name}" for file in dump.files)
    return f"Wrote the dump {dump.name} (documents: {counts})."

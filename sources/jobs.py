"""``check_sources`` as a background job (``jobs.runner``), for the operator
to schedule: one run at a time (``LOCK``), its report kept as the job's
result."""

from jobs import runner
from sources.checks import SERVICES, check_sources

CHECK_JOB = "sources.jobs.check"
LOCK = "check-sources"


def check(*, only=None, limit=None):
    """Run the checks; the summary for the job's list, every line as its
    result."""
    report = check_sources(only=only, limit=limit, progress=runner.progress)
    return report.summary(), list(report.lines(only or SERVICES))


def enqueue(*, only=None, limit=None, user=None):
    """Queue a run of the checks (``runner.enqueue``'s refusals stand)."""
    return runner.enqueue(
        title="Check the sources"
        + (f" ({', '.join(only)})" if only else "")
        + (f", the first {limit:,} documents" if limit else ""),
        function=CHECK_JOB,
        arguments={"only": only, "limit": limit},
        user=user,
        lock=LOCK,
    )

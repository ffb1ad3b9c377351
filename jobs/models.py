import os
import socket
import uuid
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import connection, models
from django.utils import timezone


class JobQuerySet(models.QuerySet):
    def unfinished(self):
        """Jobs waiting for a worker or running on one."""
        return self.filter(state__in=[Job.State.QUEUED, Job.State.RUNNING])

    def keeping_uploads(self):
        """Jobs whose upload the shared cache may still keep: not failed, not
        yet done with it, sent less than ``JOBS_UPLOAD_SECONDS`` ago."""
        since = timezone.now() - timedelta(seconds=settings.JOBS_UPLOAD_SECONDS)
        return (
            self.exclude(upload="")
            .exclude(state=Job.State.FAILED)
            .filter(created_at__gte=since)
        )


class Job(models.Model):
    """Long work run by a worker in the background: what was asked, by whom,
    how it went. Its progress and its result live in the shared cache."""

    class State(models.TextChoices):
        QUEUED = "queued", "Waiting for a worker"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"
        FAILED = "failed", "Failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    title = models.CharField(max_length=200)
    function = models.CharField(
        max_length=200, help_text="The dotted path of the function the worker runs."
    )
    arguments = models.JSONField(default=dict, blank=True)
    state = models.CharField(max_length=10, choices=State, default=State.QUEUED)
    summary = models.TextField(
        blank=True, help_text="What the job did, or why it failed."
    )
    page = models.CharField(
        max_length=300, blank=True, help_text="Where the job's result is shown."
    )
    worker = models.CharField(
        max_length=200, blank=True, help_text="The host and process running it."
    )
    session = models.CharField(
        max_length=100,
        blank=True,
        help_text="The database session its work runs in (PostgreSQL's "
        "backend process and when it began), while it runs.",
    )
    lock = models.CharField(
        max_length=100,
        blank=True,
        help_text="Jobs of one lock run one at a time: the database refuses a "
        "second unfinished one.",
    )
    coalesce = models.CharField(
        max_length=100,
        blank=True,
        help_text="Jobs of one key are coalesced: at most one waits for a "
        "worker (a second request adds its work to it) and one runs.",
    )
    upload = models.CharField(
        max_length=250,
        blank=True,
        help_text="The shared cache's key of the upload the job reads, while "
        "it is kept: removed with the job when it fails.",
    )
    upload_bytes = models.PositiveBigIntegerField(
        default=0, help_text="The size of the upload this job sent."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="jobs",
    )
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = JobQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["state"], name="job_state")]
        constraints = [
            models.UniqueConstraint(
                fields=["lock"],
                condition=models.Q(state__in=["queued", "running"])
                & ~models.Q(lock=""),
                name="one_unfinished_job_per_lock",
            ),
            models.UniqueConstraint(
                fields=["coalesce"],
                condition=models.Q(state="queued") & ~models.Q(coalesce=""),
                name="one_waiting_job_per_coalesce",
            ),
        ]

    def __str__(self):
        return self.title

    def get_absolute_url(self):
        return self.page

    @property
    def is_done(self):
        return self.state in {self.State.FINISHED, self.State.FAILED}

    def worker_is_gone(self):
        """Whether the process that ran this job has died (on this host; a
        worker elsewhere is trusted until its queue gives the job up)."""
        return self._runs_here() is False

    def worker_is_seen_running(self):
        """Whether the process running this job is alive on this host."""
        return self._runs_here() is True

    def session_is_gone(self):
        """Whether the database session its work ran in has ended, so its
        transaction can no longer commit (False when this cannot be told:
        not PostgreSQL, or no session was recorded)."""
        if not self.session or connection.vendor != "postgresql":
            return False
        pid, _, began = self.session.partition(":")
        with connection.cursor() as cursor:
            # Inside a transaction the statistics are a snapshot taken at its
            # first read: a session ended since would still be listed.
            cursor.execute("SELECT pg_stat_clear_snapshot()")
            cursor.execute(
                "SELECT backend_start FROM pg_stat_activity WHERE pid = %s",
                [int(pid)],
            )
            row = cursor.fetchone()
        return row is None or row[0].isoformat() != began

    def _runs_here(self):
        """Whether the running job's process is alive, if it is this host's;
        None when this host cannot tell."""
        if self.state != self.State.RUNNING or not self.worker:
            return None
        host, _, pid = self.worker.rpartition(":")
        if host != socket.gethostname():
            return None
        return _alive(int(pid))


def _alive(pid):
    """Whether process ``pid`` runs (a zombie, dead but not yet reaped by its
    parent, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    # The state follows the command name, which is in parentheses.
    return stat.rpartition(")")[2].split()[0] != "Z"


def database_session():
    """This process's database session: PostgreSQL's backend process id and
    when it began (a process id alone may be reused); "" elsewhere."""
    if connection.vendor != "postgresql":
        return ""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid, backend_start FROM pg_stat_activity "
            "WHERE pid = pg_backend_pid()"
        )
        pid, began = cursor.fetchone()
    return f"{pid}:{began.isoformat()}"

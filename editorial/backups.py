"""Backups in the admin: a superuser starts one (a background job), follows
its progress on its page, and downloads the backups kept.

Superusers only: a backup holds every account's password hash and all that
is unpublished, so whoever holds one holds what a superuser may see; a
right of its own would hand that out without saying so.
"""

import uuid

from django.core.exceptions import PermissionDenied
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse

from imports.backups import backup_storage, find_backup, finished_backups
from jobs import runner
from jobs.models import Job
from jobs.views import start_job

BACKUP_JOB = "imports.job_functions.write_backup"


def may_back_up(user):
    return user.is_active and user.is_superuser


class BackupsAdminMixin:
    """Adds "Backups" to an admin site, listed under Background jobs for the
    superusers who may use it."""

    def get_urls(self):
        return [
            path("jobs/backups/", self.admin_view(self.backups_view), name="backups"),
            path(
                "jobs/backups/jobs/<uuid:job_id>/",
                self.admin_view(self.backup_job_view),
                name="backup_job",
            ),
            path(
                "jobs/backups/download/<str:name>",
                self.admin_view(self.backup_download_view),
                name="backup_download",
            ),
            *super().get_urls(),
        ]

    def get_app_list(self, request, app_label=None):
        apps = super().get_app_list(request, app_label)
        if not may_back_up(request.user):
            return apps
        for app in apps:
            if app["app_label"] == "jobs":
                app["models"].append(
                    {
                        "name": "Backups",
                        "object_name": "Backup",
                        "admin_url": reverse("admin:backups", current_app=self.name),
                        "add_url": None,
                        "view_only": True,
                        "perms": {"view": True},
                    }
                )
        return apps

    @staticmethod
    def _unfinished():
        """The backups waiting or running, each marked failed if its worker died."""
        jobs = list(Job.objects.unfinished().filter(function=BACKUP_JOB))
        runner.refresh_all(jobs)
        return [job for job in jobs if not job.is_done]

    def backups_view(self, request):
        """The backups kept, newest first, with their size and time; those
        running, with their progress; "Start a backup", which leads to the
        new job's page. Template: ``admin/backups/index.html``."""
        if not may_back_up(request.user):
            raise PermissionDenied
        # A backup whose worker died is marked failed, freeing the lock.
        running = self._unfinished()
        if request.method == "POST":
            job_id = uuid.uuid4()
            return start_job(
                request,
                back_to=reverse("admin:backups", current_app=self.name),
                id=job_id,
                title="Backup of the whole record",
                function=BACKUP_JOB,
                arguments={},
                page=reverse("admin:backup_job", args=[job_id], current_app=self.name),
                # One backup at a time, whichever request comes first.
                lock=BACKUP_JOB,
            )
        return self._backup_response(
            request,
            "admin/backups/index.html",
            title="Backups",
            running=[(job, runner.progress_of(job)) for job in running],
            backups=finished_backups(),
        )

    def backup_job_view(self, request, job_id):
        """A backup's progress while it is written, then the file (with its
        download) or why it failed. Template: ``admin/backups/job.html``."""
        if not may_back_up(request.user):
            raise PermissionDenied
        job = runner.refresh(get_object_or_404(Job, pk=job_id, function=BACKUP_JOB))
        result = runner.result_of(job) if job.state == Job.State.FINISHED else None
        return self._backup_response(
            request,
            "admin/backups/job.html",
            title=job.title,
            job=job,
            progress=runner.progress_of(job),
            backup=result and find_backup(result.name),
        )

    def backup_download_view(self, request, name):
        """The backup ``name``, streamed from the storage; the admin's views
        are never cached (``admin_view``), by a browser or anything between."""
        if not may_back_up(request.user):
            raise PermissionDenied
        backup = find_backup(name)
        if backup is None:
            raise Http404(f"No backup {name} is kept.")
        return FileResponse(
            backup_storage().open(backup.name, "rb"),
            as_attachment=True,
            filename=backup.name,
            content_type="application/json",
        )

    def _backup_response(self, request, template, **context):
        request.current_app = self.name
        return TemplateResponse(
            request,
            template,
            {**self.each_context(request), "progress_words": "rows written", **context},
        )

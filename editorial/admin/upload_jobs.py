"""An upload imported in a background job from a model's admin: a page to
upload the file, then the job's page (its progress while it runs, then its
report, or its refusal with every problem), the upload form again below.

The topic page import (``page_import``) and the decision folder import
(``folder_import``) are each one of these; the upload waits for its job in
the shared cache (``imports.job_functions.upload_storage``), where any worker reads it.
"""

import uuid

from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse

from imports import job_functions as import_jobs
from jobs import runner
from jobs.models import Job
from jobs.views import start_job


class UploadImportMixin:
    """Adds an upload's import, run as a background job, to a model admin.

    A subclass says what it imports: the URL names' ending (``import_page``
    gives ``admin:catalogue_topic_import_page`` and ``…_import_page_job``),
    the form and its file field (whose cleaned file carries its bytes as
    ``data``), the job's function, the rights it needs and the words its pages
    use. The job is called with the kept file's name, the upload's name and
    the user's key.
    """

    upload_import = ""
    upload_route = ""
    upload_form_class = None
    upload_field = ""
    upload_job = ""
    upload_permissions = ()
    upload_heading = ""
    upload_button = ""
    upload_rule = ""
    upload_progress_words = "rows read"
    upload_import_template = "admin/catalogue/upload_import.html"

    def upload_job_title(self, upload):
        raise NotImplementedError

    def upload_job_arguments(self, form):
        """What else the job is called with, from the valid ``form``."""
        return {}

    def has_upload_import_permission(self, request):
        return request.user.has_perms(self.upload_permissions)

    def _upload_url_name(self):
        return f"{self.opts.app_label}_{self.opts.model_name}_{self.upload_import}"

    def get_urls(self):
        name = self._upload_url_name()
        return [
            path(
                self.upload_route,
                self.admin_site.admin_view(self.upload_import_view),
                name=name,
            ),
            path(
                f"{self.upload_route}jobs/<uuid:job_id>/",
                self.admin_site.admin_view(self.upload_import_job_view),
                name=f"{name}_job",
            ),
            *super().get_urls(),
        ]

    def changelist_view(self, request, extra_context=None):
        # The list offers the import to those who may run it.
        extra_context = {
            "can_upload_import": self.has_upload_import_permission(request),
            **(extra_context or {}),
        }
        return super().changelist_view(request, extra_context)

    def upload_import_view(self, request):
        """The upload; a valid one starts its job and leads to the job's page."""
        if not self.has_upload_import_permission(request):
            raise PermissionDenied
        form = self.upload_form_class(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data[self.upload_field]
            storage = import_jobs.upload_storage()
            storage.save(upload.data)
            job_id = uuid.uuid4()
            return start_job(
                request,
                back_to=reverse(
                    f"admin:{self._upload_url_name()}",
                    current_app=self.admin_site.name,
                ),
                id=job_id,
                title=self.upload_job_title(upload),
                function=self.upload_job,
                arguments={
                    "file_name": storage.name,
                    "original_name": upload.name,
                    "user_id": request.user.pk,
                    **self.upload_job_arguments(form),
                },
                page=reverse(
                    f"admin:{self._upload_url_name()}_job",
                    args=[job_id],
                    current_app=self.admin_site.name,
                ),
                upload=storage.key,
                upload_bytes=len(upload.data),
            )
        return self._upload_response(request, form=form, title=self.upload_heading)

    def upload_import_job_view(self, request, job_id):
        """The job's progress while it runs, then its report or its refusal."""
        if not self.has_upload_import_permission(request):
            raise PermissionDenied
        job = get_object_or_404(Job, pk=job_id, function=self.upload_job)
        if job.created_by_id != request.user.pk and not request.user.is_superuser:
            raise PermissionDenied
        job = runner.refresh(job)
        return self._upload_response(
            request,
            title=job.title,
            job=job,
            progress=runner.progress_of(job),
            report=runner.result_of(job) if job.state == Job.State.FINISHED else None,
            form=self.upload_form_class() if job.is_done else None,
        )

    def _upload_response(self, request, **context):
        request.current_app = self.admin_site.name
        return TemplateResponse(
            request,
            self.upload_import_template,
            {
                **self.admin_site.each_context(request),
                "opts": self.opts,
                "heading": self.upload_heading,
                "upload_url": reverse(
                    f"admin:{self._upload_url_name()}",
                    current_app=self.admin_site.name,
                ),
                "button": self.upload_button,
                "rule": self.upload_rule,
                "progress_words": self.upload_progress_words,
                **context,
            },
        )

"""The topic page import in the admin: a topic's text uploaded, imported as
``import_index`` imports it, in a background job with a page of its own."""

import uuid

from django import forms
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from exchange import jobs as import_jobs
from exchange.uploads import upload_bytes
from jobs import runner
from jobs.models import Job

PAGE_JOB = "exchange.jobs.import_page"


class TopicPageForm(forms.Form):
    page = forms.FileField(
        label="Topic page",
        help_text="The text of a topic page in the record's format, UTF-8.",
    )

    def clean_page(self):
        upload = self.cleaned_data["page"]
        data = upload_bytes(upload, encoding="utf-8", save_as="page as UTF-8")
        upload.data = data
        return upload


class TopicPageImportMixin:
    """Adds "Import a topic page" to a model admin (the topics')."""

    page_import_template = "admin/catalogue/topic/import_page.html"
    import_export_change_list_template = "admin/catalogue/topic/change_list.html"

    def has_page_import_permission(self, request):
        # A page brings documents, new versions included, and makes and
        # changes topics.
        return request.user.has_perms(
            [
                "catalogue.publish_document",
                "catalogue.add_topic",
                "catalogue.change_topic",
            ]
        )

    def get_urls(self):
        info = self.model._meta.app_label, self.model._meta.model_name
        return [
            path(
                "import-page/",
                self.admin_site.admin_view(self.import_page_view),
                name="{}_{}_import_page".format(*info),
            ),
            path(
                "import-page/jobs/<uuid:job_id>/",
                self.admin_site.admin_view(self.import_page_job_view),
                name="{}_{}_import_page_job".format(*info),
            ),
            *super().get_urls(),
        ]

    def import_page_view(self, request):
        if not self.has_page_import_permission(request):
            raise PermissionDenied
        form = TopicPageForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data["page"]
            storage = import_jobs.upload_storage()
            storage.save(upload.data)
            job_id = uuid.uuid4()
            info = self.model._meta.app_label, self.model._meta.model_name
            job = runner.enqueue(
                id=job_id,
                title=f"Import of the topic page {upload.name}",
                function=PAGE_JOB,
                arguments={
                    "file_name": storage.name,
                    "original_name": upload.name,
                    "user_id": request.user.pk,
                },
                user=request.user,
                page=reverse(
                    "admin:{}_{}_import_page_job".format(*info),
                    args=[job_id],
                    current_app=self.admin_site.name,
                ),
            )
            return redirect(job.page)
        return self._page_response(request, form=form, title="Import a topic page")

    def import_page_job_view(self, request, job_id):
        """The job's progress while it runs, then its report or its refusal."""
        if not self.has_page_import_permission(request):
            raise PermissionDenied
        job = get_object_or_404(Job, pk=job_id, function=PAGE_JOB)
        if job.created_by_id != request.user.pk and not request.user.is_superuser:
            raise PermissionDenied
        job = runner.refresh(job)
        return self._page_response(
            request,
            title=job.title,
            job=job,
            progress=runner.progress_of(job),
            report=runner.result_of(job) if job.state == Job.State.FINISHED else None,
            form=TopicPageForm() if job.is_done else None,
        )

    def _page_response(self, request, **context):
        request.current_app = self.admin_site.name
        return TemplateResponse(
            request,
            self.page_import_template,
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                **context,
            },
        )

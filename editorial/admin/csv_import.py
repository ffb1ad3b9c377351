"""The admin's CSV import: the upload, its dry run and its import, each a
background job on the upload kept in the shared cache (``imports.resources``
reads the rows; the job functions are ``imports.job_functions``)."""

import uuid

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.decorators import method_decorator
from django.views.decorators.http import require_POST
from import_export.admin import ImportMixin
from import_export.formats.base_formats import CSV
from import_export.forms import ImportForm

from editorial.admin.uploads import upload_bytes
from imports import job_functions as import_jobs
from imports.outcomes import ROWS_A_PAGE, ImportOutcome
from imports.resources import DocumentResource, TopicResource
from jobs import runner
from jobs.models import Job
from jobs.views import start_job
from pagecache.backends import CACHE_ERRORS


class CSVImportForm(ImportForm):
    """The upload: a UTF-8 CSV file no larger than ``IMPORT_MAX_BYTES``."""

    def clean_import_file(self):
        upload = self.cleaned_data["import_file"]
        upload.data = upload_bytes(
            upload, encoding=import_jobs.ENCODING, save_as="file as UTF-8 CSV"
        )
        return upload


class CSVImportMixin(ImportMixin):
    """The admin's import: CSV only, the export's format, all or nothing.

    The dry run and the import each run as a background job on the upload,
    kept in the shared cache; the job's page shows its progress, then the
    dry run's preview with Confirm, or what the import wrote.
    """

    import_template_name = "admin/catalogue/import.html"
    import_form_class = CSVImportForm
    tmp_storage_class = "import_export.tmp_storages.CacheStorage"

    from_encoding = import_jobs.ENCODING

    def get_import_formats(self):
        return [CSV]

    def has_import_permission(self, request):
        # An import adds rows and overwrites others: both rights, on its model.
        return self.has_add_permission(request) and self.has_change_permission(request)

    def get_urls(self):
        info = self.get_model_info()
        return [
            path(
                "import/jobs/<uuid:job_id>/",
                self.admin_site.admin_view(self.import_job_view),
                name="{}_{}_import_job".format(*info),
            ),
            *super().get_urls(),
        ]

    def import_action(self, request, **kwargs):
        if request.method == "POST" and self.has_import_permission(request):
            form = self.create_import_form(request)
            if form.is_valid():
                upload = form.cleaned_data["import_file"]
                # The bytes the form has read and checked, kept once (the
                # mixin's write_to_tmp_storage would read the file again, by
                # joining its chunks one at a time).
                storage = import_jobs.upload_storage()
                storage.save(upload.data)
                return self._start(
                    request,
                    storage.name,
                    upload.name,
                    dry_run=True,
                    upload_bytes=len(upload.data),
                )
        # The form, or its errors.
        return super().import_action(request, **kwargs)

    @method_decorator(require_POST)
    def process_import(self, request, **kwargs):
        if not self.has_import_permission(request):
            raise PermissionDenied
        form = self.create_confirm_form(request)
        if not form.is_valid():
            return super().process_import(request, **kwargs)
        # Only a file this user's own dry run checked is imported.
        checked = get_object_or_404(
            Job,
            created_by=request.user,
            function=IMPORT_JOB,
            state=Job.State.FINISHED,
            arguments__file_name=form.cleaned_data["import_file_name"],
            arguments__dry_run=True,
        )
        if _upload_gone(checked):
            # Its page says why, and offers the upload again.
            return HttpResponseRedirect(checked.page)
        arguments = checked.arguments
        return self._start(
            request, arguments["file_name"], arguments["original_name"], dry_run=False
        )

    def _start(self, request, file_name, original_name, *, dry_run, upload_bytes=0):
        """The dry run's or the import's job; the import reads the upload its
        dry run sent (its bytes counted once, with the dry run)."""
        job_id = uuid.uuid4()
        info = self.get_model_info()
        return start_job(
            request,
            back_to=reverse(
                "admin:{}_{}_import".format(*info), current_app=self.admin_site.name
            ),
            id=job_id,
            title=(
                f"{'Dry run' if dry_run else 'Import'} of {original_name} "
                f"({self.model._meta.verbose_name_plural})"
            ),
            function=IMPORT_JOB,
            arguments={
                "resource": self._resource_path(),
                "file_name": file_name,
                "original_name": original_name,
                "dry_run": dry_run,
                "user_id": request.user.pk,
            },
            page=reverse(
                "admin:{}_{}_import_job".format(*info),
                args=[job_id],
                current_app=self.admin_site.name,
            ),
            upload=import_jobs.upload_storage(file_name).key,
            upload_bytes=upload_bytes,
        )

    def _resource_path(self):
        resource = self.resource_classes[0]
        return f"{resource.__module__}.{resource.__qualname__}"

    def import_job_view(self, request, job_id):
        """The job's progress while it runs; then the dry run's totals, its
        problems or else its changes a page at a time (``?page=``), and
        Confirm; or what the import wrote. Its work does not grow with the
        file: the outcome's totals and one page of its rows are read."""
        if not self.has_import_permission(request):
            raise PermissionDenied
        job = get_object_or_404(Job, pk=job_id, function=IMPORT_JOB)
        if job.created_by_id != request.user.pk and not request.user.is_superuser:
            raise PermissionDenied
        job = runner.refresh(job)
        form = self.create_import_form(request) if job.is_done else None
        if job.state == Job.State.FAILED:
            # Why the file could not be imported, where a new one is chosen.
            form.cleaned_data = {}
            form.add_error("import_file", job.summary)
        context = {
            **self.admin_site.each_context(request),
            **self.get_import_context_data(),
            # The columns the upload form lists, as the import page's own.
            "fields_list": [
                (
                    resource.get_display_name(),
                    [
                        field.column_name
                        for field in resource().get_user_visible_fields()
                    ],
                )
                for resource in self.get_import_resource_classes(request)
            ],
            "title": job.title,
            "opts": self.model._meta,
            "job": job,
            "progress": runner.progress_of(job),
            "form": form,
        }
        outcome = runner.result_of(job) if job.state == Job.State.FINISHED else None
        if isinstance(outcome, ImportOutcome):
            context["outcome"] = outcome
            context["page_obj"] = Paginator(outcome.rows(), ROWS_A_PAGE).get_page(
                request.GET.get("page")
            )
        else:
            outcome = None  # no longer kept
        if job.state == Job.State.FINISHED and not job.arguments["dry_run"]:
            context["imported"] = True
        elif outcome is not None and (gone := _upload_gone(job)):
            context["upload_gone"] = gone
        elif outcome is not None and not outcome.has_problems:
            context["confirm_form"] = self.get_confirm_form_class(request)(
                initial={
                    "import_file_name": job.arguments["file_name"],
                    "original_file_name": job.arguments["original_name"],
                    "format": 0,
                    "resource": "",
                }
            )
        request.current_app = self.admin_site.name
        return TemplateResponse(request, [self.import_template_name], context)


IMPORT_JOB = "imports.job_functions.import_csv"


def _upload_gone(dry_run):
    """Why the upload ``dry_run`` checked can no longer be imported (a failed
    import takes its upload along; a kept one expires), or "" while it is
    kept (or the cache cannot say: the import then tells)."""
    key = import_jobs.upload_storage(dry_run.arguments["file_name"]).key
    try:
        if cache.has_key(key):
            return ""
    except CACHE_ERRORS:
        return ""
    imported = Job.objects.filter(
        function=IMPORT_JOB,
        arguments__file_name=dry_run.arguments["file_name"],
        arguments__dry_run=False,
    ).first()
    name = dry_run.arguments["original_name"]
    if imported is not None and imported.state == Job.State.FAILED:
        why = f"Its import failed, and the upload went with it: {imported.summary}"
    elif imported is not None and imported.state == Job.State.FINISHED:
        why = f"It was imported: {imported.summary}"
    else:
        minutes = settings.JOBS_UPLOAD_SECONDS // 60
        why = (
            "The upload is no longer kept: an upload waits for its import "
            f"{minutes} minutes at most."
        )
    return (
        f"{name} can no longer be imported from this dry run. {why} Upload the "
        "file again for a new dry run."
    )


class DocumentImportMixin(CSVImportMixin):
    resource_classes = [DocumentResource]

    def has_import_permission(self, request):
        # An import writes what readers see, new versions included: a
        # publisher's act, not an editor's.
        return super().has_import_permission(request) and request.user.has_perm(
            "catalogue.publish_document"
        )


class TopicImportMixin(CSVImportMixin):
    resource_classes = [TopicResource]

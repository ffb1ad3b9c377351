from django.contrib import admin
from django.utils.html import format_html

from jobs import runner
from jobs.models import Job


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    """Background jobs, read only: each one's state, progress and result.
    Whoever started a job sees their jobs; those allowed to view jobs, all."""

    # A job's title leads to its page (its progress, then its result); its
    # time, to the details kept of it here.
    list_display = [
        "title_link",
        "state",
        "progress",
        "summary",
        "created_by",
        "created_at",
    ]
    list_display_links = ["created_at"]
    list_filter = ["state"]
    list_select_related = ["created_by"]
    readonly_fields = [
        "title",
        "state",
        "progress",
        "summary",
        "result_page",
        "created_by",
        "created_at",
        "started_at",
        "finished_at",
        "worker",
    ]
    fields = readonly_fields

    def get_queryset(self, request):
        jobs = super().get_queryset(request)
        if request.user.has_perm("jobs.view_job"):
            return jobs
        return jobs.filter(created_by=request.user)

    def has_module_permission(self, request):
        # Those who may view jobs, and those who started one: never staff
        # status alone.
        user = request.user
        return user.is_active and (
            user.has_perm("jobs.view_job")
            or Job.objects.filter(created_by=user).exists()
        )

    def has_view_permission(self, request, obj=None):
        return self.has_module_permission(request) and (
            obj is None
            or obj.created_by_id == request.user.pk
            or request.user.has_perm("jobs.view_job")
        )

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_changelist_instance(self, request):
        # The jobs of the page are told as they are (a job its worker left
        # unfinished is listed as failed) with their progress, at one round
        # trip to the queue and one to the cache whatever their number.
        changelist = super().get_changelist_instance(request)
        jobs = list(changelist.result_list)
        runner.refresh_all(jobs)
        progress = runner.progress_of_many(jobs)
        for job in jobs:
            job.known_progress = progress.get(job.pk)
        return changelist

    def change_view(self, request, object_id, form_url="", extra_context=None):
        job = self.get_object(request, object_id)
        if job is not None:
            runner.refresh(job)
        return super().change_view(request, object_id, form_url, extra_context)

    @admin.display(description="Progress")
    def progress(self, job):
        if hasattr(job, "known_progress"):
            done_total = job.known_progress
        else:
            done_total = runner.progress_of(job)
        if done_total is None:
            return "—"
        done, total = done_total
        return format_html(
            '<progress value="{}" max="{}"></progress> {} of {}',
            done,
            total,
            done,
            total,
        )

    @admin.display(description="Job", ordering="title")
    def title_link(self, job):
        if not job.page:
            return job.title
        return format_html('<a href="{}" class="job-page">{}</a>', job.page, job.title)

    @admin.display(description="Result")
    def result_page(self, job):
        if not job.page:
            return "—"
        return format_html('<a href="{}">Open the job’s page</a>', job.page)

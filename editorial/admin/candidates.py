"""Candidate topics in the admin: the groups of unfiled (or badly placed)
documents the record suggests as topics it lacks, under the topics' admin.

Editors see them; publishers recompute them (a background job of the whole
record, on the related-work queue, followed on the same page) and decide:
make a group a topic (``actions.filing``) or dismiss it.
"""

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from actions import filing
from catalogue.models import CandidateTopic
from jobs import runner
from jobs.models import Job
from jobs.views import start_job
from similarity.queueing import CANDIDATES_JOB, CANDIDATES_LOCK, open_candidates

# Seeing the candidates changes nothing readers see.
SEE_CANDIDATES = "catalogue.change_document"
# Recomputing them reads the whole record, tens of seconds of a worker: the
# publishers', who decide them.
RECOMPUTE_CANDIDATES = filing.DECIDE_CANDIDATES


class CandidateTopicsMixin:
    """Adds "Candidate topics" to a model admin (the topics')."""

    def get_urls(self):
        return [
            path(
                "candidates/",
                self.admin_site.admin_view(self.candidates_view),
                name="catalogue_topic_candidates",
            ),
            path(
                "candidates/decide/",
                self.admin_site.admin_view(self.candidate_view),
                name="catalogue_topic_candidate",
            ),
            *super().get_urls(),
        ]

    def candidates_view(self, request):
        """The open candidate topics, each with its suggested name, members
        (with their fit) and nearest topic; a recomputation's progress while
        it runs; "Recompute" for those who may. Template:
        ``admin/catalogue/topic/candidates.html``."""
        if not request.user.has_perm(SEE_CANDIDATES):
            raise PermissionDenied
        here = reverse(
            "admin:catalogue_topic_candidates", current_app=self.admin_site.name
        )
        if request.method == "POST":
            if not request.user.has_perm(RECOMPUTE_CANDIDATES):
                raise PermissionDenied
            return start_job(
                request,
                back_to=here,
                title="Candidate topics",
                function=CANDIDATES_JOB,
                arguments={},
                page=here,
                lock=CANDIDATES_LOCK,
                queue_name=settings.JOBS_RELATED_QUEUE,
            )
        running = list(Job.objects.unfinished().filter(function=CANDIDATES_JOB))
        runner.refresh_all(running)
        running = [job for job in running if not job.is_done]
        last = (
            Job.objects.filter(function=CANDIDATES_JOB).order_by("-created_at").first()
        )
        request.current_app = self.admin_site.name
        return TemplateResponse(
            request,
            "admin/catalogue/topic/candidates.html",
            {
                **self.admin_site.each_context(request),
                "title": "Candidate topics",
                "opts": self.model._meta,
                "candidates": open_candidates(),
                "running": [(job, runner.progress_of(job)) for job in running],
                "last": last,
                "may_decide": request.user.has_perm(filing.DECIDE_CANDIDATES),
                "may_recompute": request.user.has_perm(RECOMPUTE_CANDIDATES),
                "progress_words": "steps done",
            },
        )

    def candidate_view(self, request):
        """POST only: make the candidate ``candidate`` (its id) a topic
        (``_make``, with ``name`` and ``scope``) or dismiss it (``_dismiss``)."""
        if not request.user.has_perm(SEE_CANDIDATES):
            raise PermissionDenied
        here = reverse(
            "admin:catalogue_topic_candidates", current_app=self.admin_site.name
        )
        if request.method != "POST":
            return redirect(here)
        pk = request.POST.get("candidate", "")
        candidate = get_object_or_404(CandidateTopic, pk=pk if pk.isdigit() else None)
        try:
            if "_dismiss" in request.POST:
                filing.dismiss_candidate(candidate=candidate, user=request.user)
                messages.success(request, f"Dismissed “{candidate.name}”.")
                return redirect(here)
            topic = filing.make_topic_from_candidate(
                candidate=candidate,
                user=request.user,
                name=request.POST.get("name", ""),
                scope=request.POST.get("scope", ""),
            )
        except ValidationError as error:
            messages.error(request, " ".join(error.messages))
            return redirect(here)
        messages.success(
            request,
            f"Made the topic “{topic.name}” and filed its documents under it.",
        )
        return redirect(here)

"""The document list's bulk actions: all or nothing, each row checked by the
workflow verb it takes."""

from functools import partial

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db import transaction

from catalogue.models import Topic
from editorial import workflow


class DocumentActionsMixin:
    """Submit, publish, withdraw, refile and tag the selected documents."""

    def _bulk(self, request, queryset, verb, done):
        """Take ``verb(document=…, user=…)`` on every row, or on none."""
        problems = []
        with transaction.atomic():
            for document in queryset.select_related("registry").order_by("number"):
                try:
                    verb(document=document, user=request.user)
                except ValidationError as error:
                    problems.append(
                        f"{document.identifier}: {' '.join(error.messages)}"
                    )
            if problems:
                transaction.set_rollback(True)
        if problems:
            self.message_user(
                request,
                "Nothing was changed. " + " ".join(problems),
                messages.ERROR,
            )
        else:
            self.message_user(request, f"{done}: {queryset.count()} document(s).")

    def _refused(self, request, message):
        self.message_user(request, f"{message}; nothing was changed.", messages.ERROR)

    @admin.action(description="Submit for review", permissions=["change"])
    def submit_for_review_action(self, request, queryset):
        self._bulk(
            request, queryset, workflow.submit_for_review, "Submitted for review"
        )

    @admin.action(description="Publish", permissions=["publish"])
    def publish_action(self, request, queryset):
        self._bulk(request, queryset, workflow.publish, "Published")

    @admin.action(description="Withdraw", permissions=["publish"])
    def withdraw_action(self, request, queryset):
        self._bulk(request, queryset, workflow.withdraw, "Withdrawn")

    @admin.action(description="Refile to the chosen topic", permissions=["change"])
    def refile_action(self, request, queryset):
        topic = Topic.objects.filter(pk=request.POST.get("topic") or None).first()
        if topic is None:
            self._refused(request, "Choose a topic to refile to")
            return
        refile = partial(workflow.edit_document, changes={"topic": topic})
        self._bulk(request, queryset, refile, f"Refiled to {topic.name}")

    @admin.action(description="Add the tag", permissions=["change"])
    def add_tag_action(self, request, queryset):
        tag = (request.POST.get("tag") or "").strip()
        if not tag:
            self._refused(request, "Type a tag to add")
            return
        tagging = partial(workflow.add_tags, names=[tag])
        self._bulk(request, queryset, tagging, f"Tagged “{tag}”")

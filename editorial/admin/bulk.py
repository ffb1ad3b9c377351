"""The document list's bulk actions: all or nothing, each row checked by the
workflow verb it takes."""

from functools import partial

from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.exceptions import ValidationError
from django.db import transaction
from django.template.defaultfilters import pluralize
from django.template.response import TemplateResponse
from django.urls import reverse

import actions.documents
from catalogue.models import Topic
from editorial.admin.forms import WithdrawalForm


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
            request,
            queryset,
            actions.documents.submit_for_review,
            "Submitted for review",
        )

    @admin.action(description="Publish", permissions=["publish"])
    def publish_action(self, request, queryset):
        self._bulk(request, queryset, actions.documents.publish, "Published")

    @admin.action(description="Withdraw…", permissions=["publish"])
    def withdraw_action(self, request, queryset):
        """Withdrawing asks first, for the reason readers will see."""
        form = WithdrawalForm(request.POST if "post" in request.POST else None)
        if not form.is_valid():
            count = queryset.count()
            return TemplateResponse(
                request,
                "admin/catalogue/document/withdraw_selected.html",
                {
                    **self.admin_site.each_context(request),
                    "opts": self.model._meta,
                    "title": "Withdraw these documents?",
                    "documents": queryset.select_related("registry"),
                    "form": form,
                    "submit_label": f"Withdraw {count} document{pluralize(count)}",
                    "cancel_url": reverse("admin:catalogue_document_changelist"),
                    "action_checkbox_name": ACTION_CHECKBOX_NAME,
                },
            )
        withdrawing = partial(
            actions.documents.withdraw, reason=form.cleaned_data["reason"]
        )
        self._bulk(request, queryset, withdrawing, "Withdrawn")
        return None

    @admin.action(description="Refile to the chosen topic", permissions=["change"])
    def refile_action(self, request, queryset):
        topic = Topic.objects.filter(pk=request.POST.get("topic") or None).first()
        if topic is None:
            self._refused(request, "Choose a topic to refile to")
            return
        refile = partial(actions.documents.edit_document, changes={"topic": topic})
        self._bulk(request, queryset, refile, f"Refiled to {topic.name}")

    @admin.action(description="Add the tag", permissions=["change"])
    def add_tag_action(self, request, queryset):
        tag = (request.POST.get("tag") or "").strip()
        if not tag:
            self._refused(request, "Type a tag to add")
            return
        tagging = partial(actions.documents.add_tags, names=[tag])
        self._bulk(request, queryset, tagging, f"Tagged “{tag}”")

"""The document list's bulk actions: all or nothing, each row checked by the
workflow verb it takes."""

from collections import Counter
from functools import partial

from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.exceptions import ValidationError
from django.db import transaction
from django.template.defaultfilters import pluralize
from django.template.response import TemplateResponse
from django.urls import reverse

import actions.documents
from catalogue.models import Document, Topic
from catalogue.text import refusal, unsafe_character
from editorial.admin.forms import WithdrawalForm


def counted(number, singular, plural=None):
    """``1 document``, ``2 documents``."""
    noun = singular if number == 1 else (plural or f"{singular}s")
    return f"{number} {noun}"


def told(parts):
    """The outcomes a bulk action reports, in order: each part is a count and
    the sentence for it; the counts that are nought are left out."""
    said = [sentence(number) for number, sentence in parts if number]
    return "; ".join(said) + "." if said else "Nothing was selected."


def were(number, state):
    """``1 was already published``, ``3 were already published``."""
    return f"{number} {'was' if number == 1 else 'were'} {state}"


def _is_held(document):
    """Whether an edit to ``document`` waits as its pending revision."""
    return document.is_public


class DocumentActionsMixin:
    """Submit, publish, withdraw, refile and tag the selected documents."""

    def _bulk(self, request, queryset, verb, *, outcome, report):
        """Take ``verb(document=…, user=…)`` on every row, or on none.

        Each row's ``outcome`` is read before anything is changed (the rows
        may no longer match the list's filter once they are); a row whose
        outcome is ``"already"`` is left as it is. ``report`` turns the
        counts by outcome into the message.
        """
        documents = list(queryset.select_related("registry").order_by("number"))
        counts = Counter()
        problems = []
        with transaction.atomic():
            for document in documents:
                result = outcome(document)
                counts[result] += 1
                if result == "already":
                    continue
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
            self.message_user(request, report(counts))

    def _refused(self, request, message):
        self.message_user(request, f"{message}; nothing was changed.", messages.ERROR)

    @admin.action(description="Submit for review", permissions=["change"])
    def submit_for_review_action(self, request, queryset):
        def outcome(document):
            in_review = document.status == Document.Status.IN_REVIEW
            return "already" if in_review else "submitted"

        def report(counts):
            return told(
                [
                    (
                        counts["submitted"],
                        lambda n: f"Submitted {counted(n, 'draft')} for review",
                    ),
                    (counts["already"], lambda n: were(n, "already in review")),
                ]
            )

        self._bulk(
            request,
            queryset,
            actions.documents.submit_for_review,
            outcome=outcome,
            report=report,
        )

    @admin.action(description="Publish", permissions=["publish"])
    def publish_action(self, request, queryset):
        def outcome(document):
            if not document.is_public:
                return "first"
            return "revision" if document.pending_revision() else "already"

        def report(counts):
            return told(
                [
                    (
                        counts["first"],
                        lambda n: f"Published {counted(n, 'new document')}",
                    ),
                    (
                        counts["revision"],
                        lambda n: (
                            f"published {counted(n, 'pending revision')}"
                            if counts["first"]
                            else f"Published {counted(n, 'pending revision')}"
                        ),
                    ),
                    (counts["already"], lambda n: were(n, "already published")),
                ]
            )

        self._bulk(
            request,
            queryset,
            actions.documents.publish,
            outcome=outcome,
            report=report,
        )

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

        def outcome(document):
            withdrawn = document.status == Document.Status.WITHDRAWN
            return "already" if withdrawn else "withdrawn"

        def report(counts):
            return told(
                [
                    (
                        counts["withdrawn"],
                        lambda n: f"Withdrew {counted(n, 'document')}",
                    ),
                    (counts["already"], lambda n: were(n, "already withdrawn")),
                ]
            )

        self._bulk(request, queryset, withdrawing, outcome=outcome, report=report)
        return None

    @admin.action(description="Refile to the chosen topic", permissions=["change"])
    def refile_action(self, request, queryset):
        topic = Topic.objects.filter(pk=request.POST.get("topic") or None).first()
        if topic is None:
            self._refused(request, "Choose a topic to refile to")
            return
        refile = partial(actions.documents.edit_document, changes={"topic": topic})

        def outcome(document):
            if actions.documents.editable_state(document)["topic"] == topic.pk:
                return "already"
            return "held" if _is_held(document) else "refiled"

        def report(counts):
            return told(
                [
                    (
                        counts["refiled"],
                        lambda n: (
                            f"Refiled {counted(n, 'unpublished document')} "
                            f"to {topic.name}"
                        ),
                    ),
                    (
                        counts["held"],
                        lambda n: (
                            f"{counted(n, 'public document')} "
                            f"{'holds' if n == 1 else 'hold'} {topic.name} as a "
                            "pending revision, for a publisher to publish"
                        ),
                    ),
                    (
                        counts["already"],
                        lambda n: were(n, f"already filed under {topic.name}"),
                    ),
                ]
            )

        self._bulk(request, queryset, refile, outcome=outcome, report=report)

    @admin.action(description="Add the tag", permissions=["change"])
    def add_tag_action(self, request, queryset):
        tag = (request.POST.get("tag") or "").strip()
        if not tag:
            self._refused(request, "Type a tag to add")
            return
        if character := unsafe_character(tag):
            self._refused(request, f"The tag {refusal(character)}")
            return
        tagging = partial(actions.documents.add_tags, names=[tag])

        def outcome(document):
            tags = actions.documents.editable_state(document)["tags"]
            if tag.lower() in {name.lower() for name in tags}:
                return "already"
            return "held" if _is_held(document) else "tagged"

        def report(counts):
            return told(
                [
                    (
                        counts["tagged"],
                        lambda n: (
                            f"Added “{tag}” to {counted(n, 'unpublished document')}"
                        ),
                    ),
                    (
                        counts["held"],
                        lambda n: (
                            f"{counted(n, 'public document')} "
                            f"{'holds' if n == 1 else 'hold'} “{tag}” as a pending "
                            "revision, for a publisher to publish"
                        ),
                    ),
                    (counts["already"], lambda n: f"{n} already had it"),
                ]
            )

        self._bulk(request, queryset, tagging, outcome=outcome, report=report)

"""The workflow's controls on a document's change form, and what each did.

A control shows only where its step may be taken (``Step.is_offered``). A
button posts the form and takes its step after the save; a step that cannot
be taken back (withdrawing) has a page of its own that asks first.
"""

from dataclasses import dataclass

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.urls import reverse

import actions.documents
from actions.steps import Step


@dataclass(frozen=True)
class Control:
    """``button``: posts the form, then takes the step; ``page``: the URL name
    of the step's own page. ``after_save``: the save itself can bring the
    step's precondition about (publishing the edit being saved), so only the
    permission decides whether the button shows."""

    step: Step
    label: str
    button: str = ""
    page: str = ""
    after_save: bool = False

    def url(self, document):
        return reverse(self.page, args=[document.pk]) if self.page else ""

    def is_offered(self, document, revision, user):
        if self.after_save:
            return user.has_perm(self.step.permission)
        return self.step.is_offered(document, revision, user)


# In the order the form shows them.
CONTROLS = [
    Control(
        actions.documents.SUBMIT,
        "Save and submit for review",
        button="_submit_for_review",
    ),
    Control(
        actions.documents.PUBLISH,
        "Save and publish",
        button="_publish",
        after_save=True,
    ),
    Control(
        actions.documents.DISCARD,
        "Discard pending revision",
        button="_discard_revision",
    ),
    Control(actions.documents.REINSTATE, "Reinstate", button="_reinstate"),
    Control(
        actions.documents.WITHDRAW,
        "Withdraw…",
        page="admin:catalogue_document_withdraw",
    ),
]


def offered_controls(document, revision, user):
    """The controls ``user`` may use on ``document`` with pending ``revision``."""
    return [
        control for control in CONTROLS if control.is_offered(document, revision, user)
    ]


def take_pressed_step(post, *, document, user, note=""):
    """Take the step whose button ``post`` holds; say what happened, or None."""
    if "_submit_for_review" in post:
        actions.documents.submit_for_review(document=document, user=user)
        return f"Submitted {document.identifier} for review."
    if "_publish" in post:
        version = actions.documents.publish(document=document, user=user, note=note)
        document.refresh_from_db()
        if version is None:
            return (
                f"Published the new filing of {document.identifier}; its text "
                f"stays {document.label}."
            )
        return f"Published {document.identifier} v{version.number}."
    if "_discard_revision" in post:
        actions.documents.discard_revision(document=document, user=user)
        return (
            f"Discarded the pending revision of {document.identifier}; readers "
            f"still see {document.label}."
        )
    if "_reinstate" in post:
        actions.documents.reinstate(document=document, user=user)
        document.refresh_from_db()
        return (
            f"Reinstated {document.identifier}: readers see it "
            f"{document.get_status_display().lower()} again."
        )
    return None


def saved(document, revision, *, added):
    """What a save without a step did, in the editor's words."""
    if added:
        return f"Saved {document.identifier} as a draft."
    if revision is not None:
        return f"Held as a pending revision: readers still see {document.label}."
    if document.is_public:
        return (
            f"Nothing is held for {document.identifier}: the form reads as "
            f"readers see {document.label}."
        )
    return f"Saved {document.identifier} ({document.get_status_display().lower()})."


class WorkflowFormMixin:
    """A change form whose save takes workflow steps.

    It says what a save did, in the editor's words, instead of the admin's
    "was changed successfully", which would hide that an edit to a public
    record is held, not live (``save_model`` sets
    ``request.workflow_outcomes``); and a step the workflow refuses comes back
    as a message, everything the save did rolled back with the admin's
    transaction.
    """

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except ValidationError as error:
            self.message_user(request, " ".join(error.messages), messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())

    def message_user(self, request, message, level=messages.INFO, *args, **kwargs):
        outcomes = getattr(request, "workflow_outcomes", None)
        if outcomes and level == messages.SUCCESS:
            request.workflow_outcomes = None
            for outcome in outcomes:
                super().message_user(request, outcome, level, *args, **kwargs)
            return
        super().message_user(request, message, level, *args, **kwargs)

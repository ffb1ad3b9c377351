"""The review conversation in the admin: the thread of comments on a draft
or pending revision, shown on the review page and the change form, and the
forms that add to it (comment, send back, resubmit, assign, claim), posted to
one page of the document's or decision record's admin.

Every form calls an action of ``actions.review``, which checks the user's
rights itself; a form is offered only where its step may be taken.
"""

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Q
from django.http import HttpResponseNotAllowed, HttpResponseRedirect
from django.urls import path, reverse
from django.utils.http import url_has_allowed_host_and_scheme

import actions.review
from catalogue.models import (
    DecisionRecord,
    ReviewComment,
    ReviewThread,
)
from catalogue.models.review import COMMENT_MAX_CHARACTERS, LIVE_STATES
from catalogue.text import RecordTextForm
from editorial.roles import EDITOR, PUBLISHER

# The buttons of the conversation's forms, and the step each takes.
BUTTONS = {
    "_comment": "comment",
    "_send_back": "send_back",
    "_resubmit": "resubmit",
    "_assign": "assign",
    "_claim": "claim",
}


class CommentForm(RecordTextForm, forms.Form):
    """A comment on the whole draft or on one of its fields."""

    field = forms.ChoiceField(label="About", required=False)
    body = forms.CharField(
        label="Comment",
        required=False,
        max_length=COMMENT_MAX_CHARACTERS,
        widget=forms.Textarea(attrs={"rows": 4, "class": "vLargeTextField"}),
    )

    def __init__(self, *args, anchors, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["field"].choices = [
            ("", "The whole draft"),
            *((name, label) for name, label in anchors.items()),
        ]


def reviewers():
    """The accounts that may be asked to review: active editors, publishers
    and superusers."""
    return (
        get_user_model()
        .objects.filter(is_active=True)
        .filter(Q(is_superuser=True) | Q(groups__name__in=[EDITOR, PUBLISHER]))
        .distinct()
        .order_by("username")
    )


class AssignForm(RecordTextForm, forms.Form):
    assignee = forms.ModelChoiceField(
        queryset=None, required=False, label="Reviewer", empty_label="Nobody"
    )
    due_on = forms.DateField(
        label="Due by",
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        input_formats=["%Y-%m-%d"],
        help_text="Optional; written 2026-12-31.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["assignee"].queryset = reviewers()


def conversation(subject, revision, user, *, next_url):
    """What the review panel shows of ``subject``'s draft or pending
    ``revision`` to ``user``: the live thread and its comments, the forms
    ``user`` may use, and the reviews kept from earlier publications."""
    live = (
        ReviewThread.objects.live()
        .filter(**{_owner(subject): subject})
        .select_related("assignee", "assigned_by")
        .first()
    )
    offered = {
        name: actions.review.step(subject, name).is_offered(subject, revision, user)
        for name in set(BUTTONS.values())
    }
    if live is not None and live.assignee_id == user.pk:
        offered["claim"] = False
    comments = []
    if live is not None:
        comments = list(live.comments.select_related("author"))
    anchors = (live or ReviewThread(**{_owner(subject): subject})).anchors
    assign = None
    if offered["assign"]:
        assign = AssignForm(
            initial={
                "assignee": live.assignee_id if live else None,
                "due_on": live.due_on if live else None,
            }
        )
    return {
        "thread": live,
        "comments": comments,
        "overdue": live is not None and live.is_overdue(),
        "under_review": subject.is_public is False or revision is not None,
        "offered": offered,
        "comment_form": CommentForm(anchors=anchors) if offered["comment"] else None,
        "assign_form": assign,
        "url": reverse(
            f"admin:catalogue_{subject._meta.model_name}_conversation",
            args=[subject.pk],
        ),
        "next": next_url,
    }


def kept_reviews(**owner):
    """The reviews settled (published or discarded) of ``owner`` (a version,
    a decision record), newest first, each with its comments: staff read them
    in the history."""
    threads = list(
        ReviewThread.objects.filter(**owner)
        .exclude(state__in=LIVE_STATES)
        .select_related("assignee")
        .order_by("-closed_at", "-pk")
    )
    by_thread = {}
    for comment in ReviewComment.objects.filter(thread__in=threads).select_related(
        "author"
    ):
        by_thread.setdefault(comment.thread_id, []).append(comment)
    for thread in threads:
        thread.kept_comments = by_thread.get(thread.pk, [])
    return threads


def _owner(subject):
    return "decision" if isinstance(subject, DecisionRecord) else "document"


class ConversationMixin:
    """Adds ``<pk>/review-conversation/`` to a document's or decision
    record's admin: the conversation's forms post there, and go back to the
    page they were posted from."""

    def get_urls(self):
        name = f"catalogue_{self.model._meta.model_name}_conversation"
        route = path(
            "<path:object_id>/review-conversation/",
            self.admin_site.admin_view(self.conversation_view),
            name=name,
        )
        return [route, *super().get_urls()]

    def conversation_view(self, request, object_id):
        """Takes the step of the button pressed; a page only posted to."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        subject = self.get_object(request, object_id)
        if subject is None or not self.has_view_permission(request, subject):
            raise PermissionDenied
        back = request.POST.get("next", "")
        if not url_has_allowed_host_and_scheme(
            back, allowed_hosts={request.get_host()}
        ):
            back = reverse(
                f"admin:catalogue_{self.model._meta.model_name}_change",
                args=[subject.pk],
            )
        try:
            said = self._take(request, subject)
        except ValidationError as error:
            self.message_user(request, " ".join(error.messages), messages.ERROR)
        else:
            self.message_user(request, said, messages.SUCCESS)
        return HttpResponseRedirect(back)

    def _take(self, request, subject):
        pressed = next((button for button in BUTTONS if button in request.POST), None)
        if pressed is None:
            raise ValidationError("No step was asked for.", code="no_step")
        name = BUTTONS[pressed]
        user, label = request.user, actions.review.label_of(subject)
        if name in {"assign", "claim"}:
            form = AssignForm(request.POST)
            if not form.is_valid():
                raise ValidationError(_form_errors(form), code="invalid_assignment")
            due_on = form.cleaned_data["due_on"]
            if name == "claim":
                actions.review.claim(subject=subject, user=user, due_on=due_on)
                return f"You review {label}."
            assignee = form.cleaned_data["assignee"]
            actions.review.assign(
                subject=subject, user=user, assignee=assignee, due_on=due_on
            )
            if assignee is None:
                return f"Nobody is assigned to review {label}."
            due = f", due by {due_on:%-d %B %Y}" if due_on else ""
            return f"{assignee} reviews {label}{due}."
        anchors = ReviewThread(**{_owner(subject): subject}).anchors
        form = CommentForm(request.POST, anchors=anchors)
        if not form.is_valid():
            raise ValidationError(_form_errors(form), code="invalid_comment")
        body, field = form.cleaned_data["body"], form.cleaned_data["field"]
        if name == "resubmit":
            actions.review.resubmit(subject=subject, user=user, body=body)
            return f"Resubmitted {label} for review."
        if name == "send_back":
            actions.review.send_back(subject=subject, user=user, body=body, field=field)
            return f"Sent {label} back to its editor: changes requested."
        actions.review.comment(subject=subject, user=user, body=body, field=field)
        return f"Your comment on {label} is kept with its review."


def _form_errors(form):
    return " ".join(
        f"{form.fields[name].label if name in form.fields else 'Form'}: {message}"
        for name, errors in form.errors.items()
        for message in errors
    )

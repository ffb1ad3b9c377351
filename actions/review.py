"""The review of a draft or pending revision: comments (on the whole draft or
anchored to one field), sending it back to its editor with a comment,
resubmitting it, and who reviews it by when.

A review is the editors' alone: nothing here changes what readers see, so no
page is expired and no document is told to ``RECORD_CHANGED``; the desk reads
its queues afresh on every request. Each action checks its step, writes in
one transaction under the reviewed record's row lock, is audited, and mails
the people it concerns once it commits (``tell``), each unless they turned
review mail off.

The documents' and decision records' own actions settle a review when they
publish or discard what it was about (``settle``), and a draft submitted
again after it was sent back resubmits it (``resubmitted``).
"""

from auditlog.models import LogEntry
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from actions.mail import mail_on_commit
from actions.steps import Step, audited, require, taking
from catalogue.models import (
    DecisionRecord,
    Document,
    ReviewComment,
    ReviewerPreference,
    ReviewState,
    ReviewThread,
)


def label_of(subject):
    """How the desk names ``subject``: LIT-012, ADR-064 (2)."""
    if isinstance(subject, DecisionRecord):
        return str(subject.label)
    return str(subject.identifier)


def _under_review(subject, revision):
    """Only a draft or a pending revision is reviewed."""
    if subject.is_public and revision is None:
        raise ValidationError(
            f"{label_of(subject)} has no draft or pending revision to review.",
            code="nothing_to_review",
        )


def _live_thread(subject):
    return ReviewThread.objects.live().filter(**{_owner(subject): subject}).first()


def _may_send_back(subject, revision):
    """A draft its editor submitted, or a pending revision, not already sent
    back. A decision record has no submission: any draft may be sent back."""
    _under_review(subject, revision)
    thread = _live_thread(subject)
    if thread is not None and thread.changes_requested:
        raise ValidationError(
            f"{label_of(subject)} is already back with its editor.",
            code="already_sent_back",
        )
    draft = isinstance(subject, Document) and not subject.is_public
    if draft and subject.status != Document.Status.IN_REVIEW:
        raise ValidationError(
            f"{label_of(subject)} is a draft not submitted for review: "
            "comment on it instead.",
            code="not_in_review",
        )


def _sent_back(subject, revision):
    """Only a review sent back to its editor is resubmitted."""
    _under_review(subject, revision)
    thread = _live_thread(subject)
    if thread is None or not thread.changes_requested:
        raise ValidationError(
            f"{label_of(subject)} was not sent back: there is nothing to resubmit.",
            code="not_sent_back",
        )


def _steps(noun, change, publish):
    return {
        "comment": Step(change, f"comment on {noun}", _under_review, True),
        "send_back": Step(publish, f"send {noun} back", _may_send_back, True),
        "resubmit": Step(change, f"resubmit {noun}", _sent_back, True),
        "assign": Step(publish, f"assign reviews of {noun}", _under_review, True),
        "claim": Step(publish, f"review {noun}", _under_review, True),
    }


# Who may take each step of a review, by the model reviewed: editors comment
# and resubmit; publishers also send back, assign and claim.
STEPS = {
    Document: _steps(
        "documents",
        "catalogue.change_document",
        "catalogue.publish_document",
    ),
    DecisionRecord: _steps(
        "decision records",
        "catalogue.change_decisionrecord",
        "catalogue.publish_decisionrecord",
    ),
}


def step(subject, name):
    """The step ``name`` (comment, send_back, resubmit, assign, claim) of a
    review of ``subject``."""
    return STEPS[type(subject)][name]


def _owner(subject):
    return "document" if isinstance(subject, Document) else "decision"


def _thread(subject, revision):
    """The live review of ``subject``'s draft or pending ``revision``, made if
    there is none. A review left live for a revision no longer pending (an
    import replaced it) is settled as discarded first."""
    held = "revision" if isinstance(subject, Document) else "decision_revision"
    thread = _live_thread(subject)
    if thread is not None and getattr(thread, f"{held}_id") != getattr(
        revision, "pk", None
    ):
        _close(thread, ReviewState.DISCARDED)
        thread = None
    if thread is None:
        thread = ReviewThread(**{_owner(subject): subject, held: revision})
        thread.save()
    return thread


def _close(thread, state, version=None):
    thread.state = state
    thread.version = version
    thread.closed_at = timezone.now()
    thread.save()


def _add(thread, *, user, body, field="", kind=ReviewComment.Kind.COMMENT):
    anchors = thread.anchors
    if field and field not in anchors:
        raise ValidationError(
            f"A comment is on the whole draft or on one of its fields "
            f"({', '.join(anchors)}), not on “{field}”.",
            code="unknown_field",
        )
    comment = ReviewComment(
        thread=thread, author=user, kind=kind, field=field, body=body.strip()
    )
    comment.full_clean(exclude=["thread"])
    comment.save()
    return comment


def _need_text(body, doing):
    if not body.strip():
        raise ValidationError(
            f"Write the comment to {doing} with.", code="comment_missing"
        )


def comment(*, subject, user, body, field=""):
    """Add a comment to the review of ``subject``'s draft or pending revision,
    on the whole of it or on ``field``. The editor and the reviewer hear of it."""
    _need_text(body, "add")
    with taking(step(subject, "comment"), subject, user) as (subject, revision):
        thread = _thread(subject, revision)
        added = _add(thread, user=user, body=body, field=field)
        tell(thread, added, {*_writers(subject, revision), thread.assignee}, user)
    return added


def send_back(*, subject, user, body, field=""):
    """Send ``subject``'s draft or pending revision back to its editor with a
    comment: the review waits on the editor (changes requested), and a
    document in review is a draft again until resubmitted."""
    _need_text(body, "send it back")
    with taking(step(subject, "send_back"), subject, user) as (subject, revision):
        thread = _thread(subject, revision)
        added = _add(
            thread,
            user=user,
            body=body,
            field=field,
            kind=ReviewComment.Kind.CHANGES_REQUESTED,
        )
        thread.state = ReviewState.CHANGES_REQUESTED
        thread.save()
        if isinstance(subject, Document) and not subject.is_public:
            subject.status = Document.Status.DRAFT
            subject.save(update_fields=["status", "updated_at"])
        tell(thread, added, _writers(subject, revision), user)
    return added


def resubmit(*, subject, user, body=""):
    """The editor sends a review that came back to them to review again: a
    document's draft is in review once more. ``body`` says what changed."""
    with taking(step(subject, "resubmit"), subject, user) as (subject, revision):
        if isinstance(subject, Document) and not subject.is_public:
            subject.status = Document.Status.IN_REVIEW
            subject.save(update_fields=["status", "updated_at"])
        return _reopen(subject, revision, user, body)


def _reopen(subject, revision, user, body):
    thread = _thread(subject, revision)
    thread.state = ReviewState.OPEN
    thread.save()
    added = _add(thread, user=user, body=body, kind=ReviewComment.Kind.RESUBMITTED)
    tell(thread, added, {thread.assignee}, user)
    return added


def resubmitted(document, user):
    """A draft submitted for review: if it had been sent back, its review is
    open again. Called by ``documents.submit_for_review``, in its transaction."""
    thread = _live_thread(document)
    if thread is not None and thread.changes_requested:
        _reopen(document, None, user, "")


def assign(*, subject, user, assignee, due_on=None):
    """Make ``assignee`` the reviewer of ``subject``'s draft or pending
    revision, due by ``due_on`` (or whenever); None leaves it unassigned. The
    assignee hears of it, unless they assigned themselves."""
    with taking(step(subject, "assign"), subject, user) as (subject, revision):
        return _assign(subject, revision, user, assignee, due_on)


def claim(*, subject, user, due_on=None):
    """A publisher takes the review of ``subject`` on, keeping its due date
    unless given another."""
    with taking(step(subject, "claim"), subject, user) as (subject, revision):
        thread = _live_thread(subject)
        kept = thread.due_on if thread is not None else None
        return _assign(subject, revision, user, user, due_on or kept)


def _assign(subject, revision, user, assignee, due_on):
    may_review = step(subject, "comment").permission
    if assignee is not None and not (
        assignee.is_active and assignee.has_perm(may_review)
    ):
        raise ValidationError(
            f"{assignee} may not review {label_of(subject)}: only an editor or a "
            "publisher reviews.",
            code="not_a_reviewer",
        )
    thread = _thread(subject, revision)
    newly = assignee is not None and assignee.pk != thread.assignee_id
    thread.assignee, thread.due_on = assignee, due_on
    thread.assigned_by, thread.assigned_at = user, timezone.now()
    thread.save()
    if newly:
        tell(thread, None, {assignee}, user)
    return thread


def settle(subject, *, published, version=None):
    """Close the live review of ``subject`` once what it was about is
    published (with the ``version`` it made, if any) or discarded. Called by
    the documents' and decision records' actions, in their transaction."""
    thread = _live_thread(subject)
    if thread is not None:
        state = ReviewState.PUBLISHED if published else ReviewState.DISCARDED
        _close(thread, state, version)


def set_review_mail(*, user, wants):
    """Whether ``user`` is mailed about reviews: their own choice."""
    require(user, "catalogue.view_document", "choose what review mail to get")
    with transaction.atomic(), audited(user):
        preference, _ = ReviewerPreference.objects.get_or_create(user=user)
        preference.wants_review_mail = wants
        preference.save()
    return preference


def wants_review_mail(user):
    preference = ReviewerPreference.objects.filter(user=user).first()
    return preference is None or preference.wants_review_mail


# Who is told


def _writers(subject, revision):
    """Who wrote the draft or the pending revision: its editor."""
    if revision is not None:
        return {revision.created_by, revision.updated_by}
    created = (
        LogEntry.objects.get_for_object(subject)
        .filter(action=LogEntry.Action.CREATE)
        .select_related("actor")
    )
    entry = created.order_by("timestamp").first()
    return {entry.actor if entry else None}


def review_url(subject):
    """The admin page where ``subject``'s review is read and answered."""
    name = (
        "admin:catalogue_document_change"
        if isinstance(subject, Document)
        else "admin:catalogue_decisionrecord_change"
    )
    return f"{settings.SITE_URL.rstrip('/')}{reverse(name, args=[subject.pk])}"


def tell(thread, added, people, actor):
    """Mail ``people`` (but the ``actor``, and anyone without an address or
    who turned review mail off) what happened to ``thread``: the comment
    ``added``, or, without one, their assignment. Plain text, sent once the
    change commits; a mail server that cannot be reached undoes nothing."""
    recipients = sorted(
        {
            person.email
            for person in people
            if person is not None
            and person.email
            and person.is_active
            and person != actor
            and wants_review_mail(person)
        }
    )
    if not recipients:
        return
    subject = thread.subject
    context = {
        "thread": thread,
        "comment": added,
        "actor": actor,
        "label": label_of(subject),
        "title": subject.title,
        "url": review_url(subject),
        "due_on": thread.due_on,
    }
    title = render_to_string("editorial/mail/review_subject.txt", context)
    body = render_to_string("editorial/mail/review.txt", context)

    mail_on_commit(title, body, recipients, about=f"review {thread.pk}")

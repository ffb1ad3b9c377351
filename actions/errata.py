"""What a correction's outcome changes once decided: the erratum readers are
told of, and the reader who proposed it, told by mail.

The documents' and decision records' own actions call these when they
publish or discard a revision that holds accepted corrections, so a
correction is published exactly when its text is.
"""

from django.conf import settings
from django.template.loader import render_to_string
from django.urls import reverse

from actions.mail import mail_on_commit
from catalogue.models import Correction, DocumentNotice

Status = Correction.Status


def published(correction, *, user, at):
    """Mark ``correction`` published at ``at``: a document's erratum notice
    names it, and the reader hears of it."""
    correction.status = Status.PUBLISHED
    correction.published_at = at
    if correction.decided_at is None:
        correction.decided_at, correction.decided_by = at, user
    correction.save()
    if correction.document_id:
        DocumentNotice.objects.create(
            document_id=correction.document_id,
            kind=DocumentNotice.Kind.CORRECTED,
            at=at,
            by=user,
            reason=correction.sentence(),
        )
    tell_reader(correction)


def settle_revision(revision, *, user, at):
    """A document's revision is published: so are the corrections it holds."""
    for correction in revision.corrections.filter(status=Status.ACCEPTED):
        published(correction, user=user, at=at)


def settle_decision_revision(revision, *, user, at):
    """A decision record's revision is published: so are its corrections."""
    for correction in revision.corrections.filter(status=Status.ACCEPTED):
        published(correction, user=user, at=at)


def release(revision):
    """A revision holding accepted corrections was discarded: they wait on the
    desk again, to be accepted into another edit or declined."""
    for correction in revision.corrections.filter(status=Status.ACCEPTED):
        correction.status = Status.PENDING
        correction.revision = correction.decision_revision = None
        correction.decided_at = correction.decided_by = None
        correction.save()


def follow_url(correction):
    """The private address where the reader follows ``correction``."""
    path = reverse("corrections:follow", kwargs={"token": correction.token()})
    return f"{settings.SITE_URL.rstrip('/')}{path}"


def tell_reader(correction):
    """Mail the outcome of ``correction`` to the reader who gave an address,
    once the change commits. Plain text only: nothing a reader or a source
    wrote is ever read as markup by a mail client."""
    if not correction.email or correction.status not in {
        Status.PUBLISHED,
        Status.DECLINED,
    }:
        return
    context = {
        "correction": correction,
        "target": correction.target,
        "follow_url": follow_url(correction),
        "site_url": settings.SITE_URL.rstrip("/"),
    }
    subject = render_to_string("catalogue/mail/correction_subject.txt", context).strip()
    body = render_to_string("catalogue/mail/correction_outcome.txt", context)
    mail_on_commit(
        subject, body, [correction.email], about=f"correction {correction.pk}"
    )

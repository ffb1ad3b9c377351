"""Preview links: a document's unpublished text shown to someone without an
account, at an address a publisher hands out.

A link shows a draft (or a document in review) as it reads now, or a public
document's pending revision, until it expires (``PREVIEW_LINK_DAYS`` after it
is made) or is revoked. Its address carries the link's number signed with
the site's secret key (``PreviewLink.token``), so it can be listed and copied
again, and guessing one is as hard as forging a signature.
"""

import datetime

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from actions.steps import Step, audited, require, taking
from catalogue.models import PreviewLink


def _unpublished_text(document, revision):
    """Only what readers do not see yet is previewed: a document never
    published, or a pending revision."""
    if document.is_public and revision is None:
        raise ValidationError(
            f"{document.identifier} has nothing unpublished to preview: readers "
            "see all of it.",
            code="nothing_to_preview",
        )


MAKE = Step(
    "catalogue.publish_document",
    "make preview links",
    _unpublished_text,
    reads_revision=True,
)
REVOKE = Step("catalogue.publish_document", "revoke preview links")


def make_link(*, document, user, days=None):
    """A new preview link of ``document``'s unpublished text, open for
    ``days`` (``PREVIEW_LINK_DAYS`` unless told)."""
    days = settings.PREVIEW_LINK_DAYS if days is None else days
    if days < 1:
        raise ValidationError(
            "A preview link is open for at least a day.", code="preview_days"
        )
    with taking(MAKE, document, user) as (document, _):
        now = timezone.now()
        link = PreviewLink(
            document=document,
            created_by=user,
            created_at=now,
            expires_at=now + datetime.timedelta(days=days),
        )
        link.save()
    return link


def revoke_link(*, link, user):
    """Close a preview link at once: its address answers 410 from now on."""
    require(user, REVOKE.permission, REVOKE.doing)
    with transaction.atomic(), audited(user):
        link = PreviewLink.objects.select_for_update().get(pk=link.pk)
        if link.revoked_at is not None:
            return link
        link.revoked_at, link.revoked_by = timezone.now(), user
        link.save(update_fields=["revoked_at", "revoked_by"])
    return link

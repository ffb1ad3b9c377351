"""The outbox's drain: expiries whose immediate application failed (the
shared cache or a frontend did not answer, or the process died first) are
applied here until they land.

The job workers run ``drain`` between jobs and while they wait for one
(``JOBS_CHORES``); ``manage.py drain_outbox`` runs it once. Each expiry is
taken by one drain at a time, and left alone for
``PAGE_CACHE_OUTBOX_RETRY_SECONDS`` after each attempt: the first belongs to
the process that made it, whose purge thread may still be retrying.
"""

import datetime
import logging

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from pagecache import frontends, generations
from pagecache.backends import CACHE_ERRORS
from pagecache.models import PendingExpiry

logger = logging.getLogger(__name__)


def drain(*, limit=100):
    """Apply the due expiries of the outbox, oldest first: write their
    generations, then purge the shared caches in front; how many left it."""
    now = timezone.now()
    retry_at = now + datetime.timedelta(
        seconds=settings.PAGE_CACHE_OUTBOX_RETRY_SECONDS
    )
    done = 0
    for pending in PendingExpiry.objects.due(now).order_by("pk")[:limit]:
        # Taken only if no other drain took it since it was read.
        taken = PendingExpiry.objects.filter(
            pk=pending.pk, retry_at=pending.retry_at
        ).update(retry_at=retry_at, attempts=F("attempts") + 1)
        if taken and _apply(pending):
            done += 1
    return done


def _apply(pending):
    """Land what is left of ``pending``; whether it left the outbox."""
    scopes = " ".join(pending.scopes)
    if pending.written_at is None:
        try:
            generations.write_expiry(pending.scopes)
        except CACHE_ERRORS as error:
            return _failed(pending, f"Shared cache unreachable: {error!r}")
        generations.landed([pending.pk])
        if not frontends.configured():
            logger.info("Wrote the expiry of %s left in the outbox", scopes)
            return True
    for frontend in frontends.configured():
        try:
            frontend.purge(pending.scopes)
        except frontends.PurgeFailed as error:
            return _failed(pending, f"{type(frontend).__name__}: {error}")
    PendingExpiry.objects.filter(pk=pending.pk).delete()
    logger.info("Purged the expiry of %s left in the outbox", scopes)
    return True


def _failed(pending, error):
    logger.warning("Expiry of %s still pending: %s", " ".join(pending.scopes), error)
    PendingExpiry.objects.filter(pk=pending.pk).update(last_error=error)
    return False

"""What the link check heard from each address (``catalogue.LinkCheck``),
kept.

The link check's memory, not the record's text: no version, no audit entry,
nothing a reader sees changes, so no page expires. A link is *failing* from
the first check answered 404 or 410 until one answers 2xx or 3xx; it is
*dead* once a check at least ``DEAD_AFTER`` after the first failing one
still answers 404 or 410. Every other answer (403 and 401, which may be a
wall before the page; 429; a 5xx; no answer at all) neither starts nor ends
a failing run: it says nothing of whether the page is there. While a run
fails, ``checked_at`` is its last failing check.
"""

import datetime

from django.db import transaction

from actions.steps import require
from catalogue.models import LinkCheck

FAILING = {404, 410}
DEAD_AFTER = datetime.timedelta(days=1)


def is_healthy(status_code):
    return status_code is not None and 200 <= status_code < 400


def is_dead(check):
    """Whether ``check`` (a LinkCheck) says the link is dead."""
    return (
        check.failing_since is not None
        and check.status_code in FAILING
        and check.checked_at - check.failing_since >= DEAD_AFTER
    )


def record_link_checks(*, answers, checked_at, user=None, via=""):
    """Keep ``answers`` ({url: status code, or None for no answer}) as heard
    at ``checked_at``, in one transaction: one read of the rows, one insert
    and one update at most. Returns {url: LinkCheck} as kept."""
    require(user, "catalogue.change_linkcheck", "record link checks", via=via)
    with transaction.atomic():
        found = {
            check.url: check
            for check in LinkCheck.objects.select_for_update().filter(
                url__in=list(answers)
            )
        }
        new, changed = [], []
        for url, status_code in answers.items():
            check = found.get(url)
            if check is None:
                check = LinkCheck(url=url, checked_at=checked_at)
                new.append(check)
            else:
                changed.append(check)
            _heard(check, status_code, checked_at)
            found[url] = check
        LinkCheck.objects.bulk_create(new, batch_size=500)
        LinkCheck.objects.bulk_update(
            changed, ["status_code", "checked_at", "failing_since"], batch_size=500
        )
    return found


def _heard(check, status_code, checked_at):
    if status_code in FAILING:
        if check.failing_since is None:
            check.failing_since = checked_at
    elif is_healthy(status_code):
        check.failing_since = None
    elif check.failing_since is not None:
        # An answer that says nothing either way leaves a failing run as its
        # last failing check left it: checked_at stays that check's, so a
        # 503 a day after a 404 makes no link dead.
        return
    check.status_code = status_code
    check.checked_at = checked_at

"""A registry's numbers: issued once, never reused."""

from django.db import transaction
from django.db.models import Max

from catalogue.models import Registry


def issue_number(*, registry):
    """The registry's next number: one more than the highest ever issued.

    The registry's row stays locked until the transaction ends, so two editors
    creating documents at once never get the same number. Numbers written
    without this function (bulk loads) count too: the highest in use is taken
    into account.
    """
    with transaction.atomic():
        locked = Registry.objects.select_for_update().get(pk=registry.pk)
        in_use = locked.documents.aggregate(highest=Max("number"))["highest"] or 0
        locked.last_number = max(locked.last_number, in_use) + 1
        locked.save(update_fields=["last_number"])
    registry.last_number = locked.last_number
    return locked.last_number


def mark_issued(*, registry, number):
    """Note that ``number`` is used, so it is never issued again."""
    Registry.objects.filter(pk=registry.pk, last_number__lt=number).update(
        last_number=number
    )

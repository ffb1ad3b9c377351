"""A registry's numbers: issued once, never reused."""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max

from catalogue.identifiers import MAX_NUMBER
from catalogue.models import Registry


def issue_number(*, registry):
    """The registry's next number: one more than the highest ever issued.

    The registry's row stays locked until the transaction ends, so two editors
    creating documents at once never get the same number. Numbers written
    without this function (bulk loads) count too: the highest in use is taken
    into account.
    """
    with transaction.atomic():
        locked, highest = _locked_with_highest(registry)
        if highest >= MAX_NUMBER:
            raise ValidationError(
                f"Registry {locked.prefix} has issued its last number, {MAX_NUMBER}.",
                code="numbers_exhausted",
            )
        locked.last_number = highest + 1
        locked.save(update_fields=["last_number"])
    registry.last_number = locked.last_number
    return locked.last_number


def check_unissued(*, registry, number):
    """Refuse ``number`` for a new document of ``registry`` unless the registry
    never issued it and could: above its highest, within the column's range."""
    refusal = unissued_refusal(
        registry=registry, number=number, highest=highest_issued(registry=registry)
    )
    if refusal is not None:
        raise refusal


def highest_issued(*, registry):
    """The highest number ``registry`` has issued, its row locked until the
    transaction ends, so no number is issued meanwhile."""
    return _locked_with_highest(registry)[1]


def unissued_refusal(*, registry, number, highest):
    """Why ``number`` cannot be given to a new document of ``registry``, which
    has issued up to ``highest``, as a ValidationError; None if it can."""
    if not 0 < number <= MAX_NUMBER:
        return ValidationError(
            f"{registry.prefix} numbers run from 1 to {MAX_NUMBER}; {number} is "
            "out of range.",
            code="number_out_of_range",
        )
    if number <= highest:
        return ValidationError(
            f"{registry.prefix}-{number:03d} was issued before ({registry.prefix} "
            f"has issued up to {highest}); a number is never reused. Leave it "
            "blank for the next one.",
            code="number_issued",
        )
    return None


def _locked_with_highest(registry):
    """The registry's row, locked until the transaction ends, and the highest
    number it has issued: its mark, or a higher one a bulk load wrote."""
    locked = Registry.objects.select_for_update().get(pk=registry.pk)
    in_use = locked.documents.aggregate(highest=Max("number"))["highest"] or 0
    return locked, max(locked.last_number, in_use)


def mark_issued(*, registry, number):
    """Note that ``number`` is used, so it is never issued again."""
    Registry.objects.filter(pk=registry.pk, last_number__lt=number).update(
        last_number=number
    )

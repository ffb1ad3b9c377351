from django.db import models
from django.utils.translation import gettext_lazy as _

from catalogue.models.choices import RevisionStatus
from catalogue.models.fields import RecordTextChecked, one_of, user_field


class HeldEdit(RecordTextChecked, models.Model):
    """What an edit held for a publisher keeps besides its content: why, who
    wrote it and when, and who published it when. ``STATE`` names the field
    that holds where it stands (a ``RevisionStatus``)."""

    STATE = "status"

    note = models.CharField(
        max_length=500, blank=True, help_text=_("What changed and why.")
    )
    created_by = user_field()
    created_at = models.DateTimeField(auto_now_add=True)
    updated_by = user_field()
    updated_at = models.DateTimeField(auto_now=True)
    published_at = models.DateTimeField(null=True, blank=True)
    published_by = user_field()

    class Meta:
        abstract = True


def held_constraints(owner, state, *, one_pending, valid_state):
    """A held edit's constraints: at most one pending per ``owner`` (the
    field naming what it edits), and a ``state`` of ``RevisionStatus``."""
    return [
        models.UniqueConstraint(
            fields=[owner],
            condition=models.Q(**{state: RevisionStatus.PENDING}),
            name=one_pending,
        ),
        one_of(state, RevisionStatus, valid_state),
    ]

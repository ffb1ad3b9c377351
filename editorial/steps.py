"""Workflow steps: who may take each one, and when, declared once.

A ``Step`` names the permission a verb needs and its precondition. The verbs
(``workflow``, ``decisions``) take a step through ``taking``, which checks
the permission, opens the transaction, attributes the audit trail to the
user, locks and re-reads the row, and refuses unless the precondition holds;
the admin reads the same steps to decide which buttons to offer.
"""

from collections.abc import Callable
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass

from auditlog.context import set_actor
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction


def anytime(obj, revision):
    """No precondition: the permission is enough."""


@dataclass(frozen=True)
class Step:
    """A verb's permission (``doing`` names the verb for a refusal) and its
    precondition.

    ``precondition(obj, revision)`` raises ValidationError, with a code, when
    the step may not be taken on ``obj`` given its pending revision (looked
    up only when ``reads_revision``).
    """

    permission: str
    doing: str
    precondition: Callable = anytime
    reads_revision: bool = False

    def check(self, obj, revision=None):
        """Raise ValidationError unless the precondition holds."""
        self.precondition(obj, revision)

    def is_offered(self, obj, revision, user):
        """Whether the admin offers this step to ``user`` now."""
        if not user.has_perm(self.permission):
            return False
        try:
            self.precondition(obj, revision)
        except ValidationError:
            return False
        return True


def require(user, permission, doing):
    """Refuse with PermissionDenied unless ``user`` holds ``permission``."""
    if user is None or not user.has_perm(permission):
        raise PermissionDenied(f"{user or 'Nobody'} may not {doing}.")


def audited(user):
    """Attribute the audit trail's entries to ``user`` (the admin's middleware
    does it for requests; verbs called from elsewhere name the user)."""
    return set_actor(user) if user is not None else nullcontext()


@contextmanager
def taking(step, obj, user):
    """Take ``step`` on ``obj`` for ``user``: yield ``(obj, revision)``, the
    row locked and read again, inside one transaction.

    Refuses with PermissionDenied or ValidationError before anything is
    written. ``revision`` is the pending revision of a public document when
    the step reads it, else None.
    """
    require(user, step.permission, step.doing)
    with transaction.atomic(), audited(user):
        obj = type(obj).objects.select_for_update().get(pk=obj.pk)
        revision = None
        if step.reads_revision and obj.is_public:
            revision = obj.pending_revision()
        step.check(obj, revision)
        yield obj, revision

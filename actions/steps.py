"""Steps: who may take each action, and when, declared once.

A ``Step`` names the permission an action needs and its precondition. The
actions (``documents``, ``decisions``) take a step through ``taking``, which checks
the permission, opens the transaction, attributes the audit trail to the
user, locks and re-reads the row, and refuses unless the precondition holds;
the admin reads the same steps to decide which buttons to offer.
"""

from collections.abc import Callable
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass

from auditlog.context import set_actor, set_extra_data
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


def require(user, permission, doing, *, via=""):
    """Refuse with PermissionDenied unless ``user`` holds ``permission``.

    A command run on the server (``via`` names it, and no user) acts with the
    server's own rights: whoever runs it holds them all.
    """
    if user is None and via:
        return
    if user is None or not user.has_perm(permission):
        raise PermissionDenied(f"{user or 'Nobody'} may not {doing}.")


def audited(user, via=""):
    """Attribute the audit trail's entries to ``user`` (the admin's middleware
    does it for requests; actions called from elsewhere name the user), and
    say what made them (``via``: ``import_index seed.txt``), if told."""
    if via:
        return attributed(user, via)
    return set_actor(user) if user is not None else nullcontext()


def attributed(user, via):
    """The audit trail of what is saved meanwhile names ``user`` (or nobody)
    and says what wrote it (``via``: ``import_decisions adr/``)."""
    return set_extra_data({"actor": user, "additional_data": {"via": via}})


@contextmanager
def taking(step, obj, user, *, via=""):
    """Take ``step`` on ``obj`` for ``user`` (or a command, ``via``): yield
    ``(obj, revision)``, the row locked and read again, inside one transaction.

    Refuses with PermissionDenied or ValidationError before anything is
    written. ``revision`` is the pending revision of a public document when
    the step reads it, else None.
    """
    require(user, step.permission, step.doing, via=via)
    with transaction.atomic(), audited(user, via):
        obj = type(obj).objects.select_for_update().get(pk=obj.pk)
        revision = None
        if step.reads_revision and obj.is_public:
            revision = obj.pending_revision()
        step.check(obj, revision)
        yield obj, revision

"""Steps: who may take each action, and when, declared once.

A ``Step`` names the permission an action needs and its precondition. The
actions (``documents``, ``decisions``) take a step through ``taking``, which checks
the permission, opens the transaction, attributes the audit trail to the
user, locks and re-reads the row, and refuses unless the precondition holds;
the admin reads the same steps to decide which buttons to offer.
"""

from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial

from auditlog.context import _set_extra_data, auditlog_value, set_extra_data
from auditlog.models import LogEntry
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management.base import CommandError
from django.db import transaction
from django.db.models.signals import pre_save

from catalogue.models.choices import RevisionStatus


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
    if user is None:
        raise PermissionDenied(
            f"Only an account, or a command naming itself, may {doing}."
        )
    if not user.has_perm(permission):
        raise PermissionDenied(f"{user} may not {doing}.")


@contextmanager
def audited(user, via=""):
    """Attribute the audit trail's entries to ``user`` (the admin's middleware
    does it for requests; actions called from elsewhere name the user), and
    say what made them (``via``: ``import_index seed.txt``), if told.

    auditlog's own contexts do not nest: leaving an inner one leaves its
    attribution in place of the outer one's, whose receiver then ignores
    every later save (an action taken inside a request, then another, logged
    the second with no actor). So the outer one, if still in force, is put
    back on leaving an inner one.
    """
    if user is None and not via:
        yield
        return
    wanted = {"actor": user}
    if via:
        wanted["additional_data"] = {"via": via}
    outer = auditlog_value.get(None)
    outer_live = outer is not None and _listening(outer["signal_duid"])
    try:
        with set_extra_data(wanted):
            yield
    finally:
        if outer_live:
            auditlog_value.set(outer)
            pre_save.connect(
                partial(_set_extra_data, signal_duid=outer["signal_duid"]),
                sender=LogEntry,
                dispatch_uid=outer["signal_duid"],
                weak=False,
            )


def _listening(signal_duid):
    """Whether the attribution ``signal_duid`` still has its receiver."""
    return any(key[0] == signal_duid for key, *_ in pre_save.receivers)


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


def publish_held(edit, *, user, at):
    """Mark a held edit (a pending revision) published by ``user`` at ``at``,
    and save it."""
    setattr(edit, edit.STATE, RevisionStatus.PUBLISHED)
    edit.published_at, edit.published_by = at, user
    edit.save()


def discard_held(edit, *, user):
    """Mark a held edit discarded by ``user``, and save it."""
    setattr(edit, edit.STATE, RevisionStatus.DISCARDED)
    edit.updated_by = user
    edit.save()


def acting_user(username):
    """The account a command acts for (``--user``), or None when not named."""
    if not username:
        return None
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise CommandError(f"There is no account {username!r} to act for.")
    return user

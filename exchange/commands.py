"""What the exchange's management commands share."""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError


class FileCommand(BaseCommand):
    """A command that reads or writes the one file named by its argument."""

    path_help = "The file."

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help=self.path_help)


def acting_user(username):
    """The account a command acts for (``--user``), or None when not named."""
    if not username:
        return None
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise CommandError(f"There is no account {username!r} to act for.")
    return user

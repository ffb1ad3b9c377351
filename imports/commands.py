"""What the import and export commands share."""

from pathlib import Path

from django.core.management.base import BaseCommand


class FileCommand(BaseCommand):
    """A command that reads or writes the one file named by its argument."""

    path_help = "The file."

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help=self.path_help)

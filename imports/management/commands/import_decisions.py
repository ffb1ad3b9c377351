from pathlib import Path

from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management.base import BaseCommand, CommandError

from actions.steps import acting_user
from formats.problems import ImportRefused
from imports import progress
from imports.decision_folders import import_decisions


class Command(BaseCommand):
    help = (
        "Import a folder of decision records as adr-tools, MADR 2, 3 and 4, "
        "Nygard's format and log4brains write them, all or nothing; a re-import "
        "of the same folder changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path)
        parser.add_argument(
            "--log",
            help="The name of the team's decision log the folder is (made if new, "
            "updated if imported before); without it, the record's own decisions, "
            "or every log of a folder export_decisions wrote.",
        )
        parser.add_argument(
            "--prefix",
            help="A new log's identifier prefix (ADR unless told).",
        )
        parser.add_argument(
            "--user",
            help="The account the audit trail names; without it, it says "
            "import_decisions.",
        )

    def handle(self, *args, folder, user, log, prefix, **options):
        user = acting_user(user)
        if not folder.is_dir():
            raise CommandError(f"{folder} is not a folder.")
        try:
            with progress.bar("Importing decision records", unit="records"):
                report = import_decisions(folder, log=log, prefix=prefix, user=user)
        except ValidationError as error:
            raise CommandError(
                f"Nothing was imported from {folder}: {' '.join(error.messages)}"
            ) from error
        except PermissionDenied as error:
            raise CommandError(f"Nothing was imported from {folder}: {error}") from None
        except ImportRefused as error:
            raise CommandError(
                f"Nothing was imported from {folder}:\n{error}"
            ) from error
        self.stdout.write(str(report))

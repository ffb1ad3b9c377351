from django.core.management.base import CommandError

from imports import progress
from imports.commands import FileCommand
from imports.snapshots import BackupError, import_record


class Command(FileCommand):
    help = "Restore an export_record snapshot into an empty database, all or nothing."

    path_help = "The snapshot file to read."

    def handle(self, *args, path, **options):
        try:
            with (
                path.open(encoding="utf-8") as stream,
                progress.bar("Restoring the record", unit="rows"),
            ):
                counts = import_record(stream)
        except (OSError, BackupError) as error:
            raise CommandError(f"{path}: {error}") from error
        for label, n in counts.items():
            self.stdout.write(f"{label}: {n} restored.")

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from exchange.backup import BackupError, import_record


class Command(BaseCommand):
    help = (
        "Restore a snapshot written by export_record into a database without "
        "content. All or nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="The snapshot file to read.")

    def handle(self, *args, path, **options):
        try:
            with path.open(encoding="utf-8") as stream:
                counts = import_record(stream)
        except (OSError, BackupError) as error:
            raise CommandError(f"{path}: {error}") from error
        for label, n in counts.items():
            self.stdout.write(f"{label}: {n} restored.")

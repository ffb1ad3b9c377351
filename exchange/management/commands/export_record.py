from pathlib import Path

from django.core.management.base import BaseCommand

from exchange.backup import export_record


class Command(BaseCommand):
    help = (
        "Write a full, versioned snapshot of the record (registries, topics, "
        "documents with every version, tags, decision records, users) to PATH."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="The snapshot file to write.")

    def handle(self, *args, path, **options):
        with path.open("w", encoding="utf-8") as stream:
            export_record(stream)
        self.stdout.write(f"Wrote the record to {path}.")

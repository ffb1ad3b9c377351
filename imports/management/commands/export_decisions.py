from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from imports.decision_folders import export_decisions


class Command(BaseCommand):
    help = (
        "Write every decision log's published records into a folder, each log in "
        "the shape it was read in (MADR, MADR 2, adr-tools; relations, images), "
        "named as their own files were: the record's own at the top, each other "
        "log in a folder of its own, listed in decision-logs.json."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path)

    def handle(self, *args, folder, **options):
        if folder.exists() and not folder.is_dir():
            raise CommandError(f"{folder} is not a folder.")
        written = export_decisions(folder)
        records = sum(name.endswith(".md") for name in written)
        self.stdout.write(
            f"Wrote {records} decision records and {len(written) - records} "
            f"images to {folder}."
        )

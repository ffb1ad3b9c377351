from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from imports.decision_folders import export_decisions


class Command(BaseCommand):
    help = (
        "Write the published decision records into a folder as MADR files (front "
        "matter, sections, relations, images), named as their own files were."
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

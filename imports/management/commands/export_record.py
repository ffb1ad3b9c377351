from imports import progress
from imports.commands import FileCommand
from imports.snapshots import export_record


class Command(FileCommand):
    help = (
        "Write a full, versioned snapshot of the record (registries, topics, "
        "documents with every version, tags, decision records, users) to PATH."
    )

    path_help = "The snapshot file to write."

    def handle(self, *args, path, **options):
        with (
            path.open("w", encoding="utf-8") as stream,
            progress.bar("Writing the record", unit="rows"),
        ):
            export_record(stream)
        self.stdout.write(f"Wrote the record to {path}.")

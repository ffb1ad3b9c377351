"""Write a dump of the public record now, and prune the old ones."""

from django.core.management.base import BaseCommand

from dumps import jobs, store


class Command(BaseCommand):
    help = (
        "Write a dump of the public record (BibTeX, RIS, CSL-JSON and JSON "
        "Lines, gzip-compressed, with their SHA-256) to the backups storage, "
        "served at /data/, then delete the dumps beyond DUMPS_KEEP. The "
        "workers do this every DUMPS_EVERY_HOURS; this is for cron, or for a "
        "dump now."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--prune-only",
            action="store_true",
            help="Write nothing; only delete the dumps beyond DUMPS_KEEP.",
        )

    def handle(self, *args, prune_only, **options):
        if not prune_only:
            dump = store.write_dump()
            self.stdout.write(jobs.summary(dump))
            self.stdout.write(dump.sums, ending="")
        deleted = store.prune()
        for name in deleted:
            self.stdout.write(f"Deleted the old dump {name}.")

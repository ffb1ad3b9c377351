"""Build every public document's stored table row again."""

from django.core.management.base import BaseCommand

from actions.rows import rebuild
from catalogue.models import DocumentRow


class Command(BaseCommand):
    help = (
        "Build again the stored HTML of every public document's row in the "
        "topic, registry, tag, person and venue tables. The actions keep the "
        "rows as the record changes; this builds them whole (after upgrading "
        "to a version that stores rows or changes their format, or a restore "
        "made by other means). Until then a page builds a missing row as it "
        "reads it. Safe to run again."
    )

    def handle(self, *args, **options):
        rebuild()
        self.stdout.write(f"{DocumentRow.objects.count():,} rows stored.")

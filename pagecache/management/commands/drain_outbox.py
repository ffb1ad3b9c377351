"""Apply the expiries the outbox holds due: their generations written, the
shared caches in front purged. The job workers do this between jobs; run it
where no worker runs, or to see what is pending."""

from django.core.management.base import BaseCommand

from pagecache import outbox
from pagecache.models import PendingExpiry


class Command(BaseCommand):
    help = "Apply the due expiries of the page cache's outbox."

    def handle(self, *args, **options):
        done = outbox.drain()
        left = PendingExpiry.objects.count()
        self.stdout.write(f"Applied {done} expiries; {left} left in the outbox.")

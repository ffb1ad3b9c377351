"""Expire every cached page.

Changes made through the site expire what they change; run this after a
deploy (templates may have changed) or after changing the database by hand.
`make serve` runs it.
"""

from django.core.management.base import BaseCommand

from pagecache.generations import expire_everything


class Command(BaseCommand):
    help = "Expire every cached page, on every instance sharing the cache."

    def handle(self, *args, **options):
        expire_everything()
        self.stdout.write("Every cached public page will be rendered afresh.")

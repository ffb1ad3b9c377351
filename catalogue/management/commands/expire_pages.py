"""Expire every cached public page (issue 6).

The services expire what they change; run this after a deploy (templates may
have changed) or after changing the database by hand. `make serve` runs it.
"""

from django.core.management.base import BaseCommand

from catalogue import caching


class Command(BaseCommand):
    help = "Expire every cached public page, on every instance sharing the cache."

    def handle(self, *args, **options):
        caching.expire_everything()
        self.stdout.write("Every cached public page will be rendered afresh.")

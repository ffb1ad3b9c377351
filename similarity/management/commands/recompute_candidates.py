from django.core.management.base import BaseCommand

from similarity.jobs import recompute_candidates


class Command(BaseCommand):
    help = (
        "Recompute the candidate topics: the unfiled documents, and those filed "
        "with low fit, grouped by similarity (dismissed groups stay dismissed)."
    )

    def handle(self, *args, **options):
        summary, _ = recompute_candidates()
        self.stdout.write(summary)

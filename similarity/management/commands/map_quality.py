from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from similarity import quality

SEED = Path(settings.BASE_DIR) / "seeds" / "000_173d26dda2e0601e.txt"


class Command(BaseCommand):
    help = (
        "Print the quality of related work and candidate topics on the seed page "
        "and on a generated set with known groups (reads no database)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--seed-page", default=str(SEED))
        parser.add_argument("--groups", type=int, default=12)
        parser.add_argument("--size", type=int, default=25)
        parser.add_argument("--removed", type=int, default=3)

    def handle(self, *args, seed_page, groups, size, removed, **options):
        text = Path(seed_page).read_text(encoding="utf-8")
        for line in quality.seed_figures(text).lines("seed"):
            self.stdout.write(line)
        figures = quality.generated_figures(groups=groups, size=size, removed=removed)
        for line in figures.lines("generated"):
            self.stdout.write(line)

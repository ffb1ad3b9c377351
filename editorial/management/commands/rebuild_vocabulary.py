"""Count the public record's words again, for "Did you mean …?"."""

from django.core.management.base import BaseCommand

from actions.vocabulary import rebuild


class Command(BaseCommand):
    help = (
        "Count again every word of the public documents (title, citation, venue, "
        "summary, every author), which a search that finds nothing offers in "
        "place of a word the record does not hold. The actions keep the count "
        "as the record changes; this rebuilds it whole (after a restore made "
        "by other means, or to check it). Safe to run again."
    )

    def handle(self, *args, **options):
        words = rebuild()
        self.stdout.write(f"The public record holds {words:,} distinct words.")

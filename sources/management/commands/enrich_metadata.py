from django.core.management.base import BaseCommand

from actions.steps import acting_user
from sources.enrichment import documents_to_enrich, enrich


class Command(BaseCommand):
    help = (
        "Look up every document citing an arXiv id or a DOI on arXiv or Crossref "
        "and propose what they know and the record does not (author list, venue, "
        "type, date, DOI): as a pending revision of a public document, in place "
        "on an unpublished one. Reports what could not be matched."
    )

    def add_arguments(self, parser):
        parser.add_argument("--registry", help="Only this registry's documents: LIT.")
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="Say what would be proposed; write nothing.",
        )
        parser.add_argument(
            "--user",
            help="The account the revisions and the audit trail name; without it, "
            "they say enrich_metadata.",
        )

    def handle(self, *args, registry, dry_run, user, **options):
        report = enrich(
            documents=documents_to_enrich(registry),
            user=acting_user(user),
            dry_run=dry_run,
        )
        for line in report.lines(dry_run=dry_run):
            self.stdout.write(line)

from django.core.management.base import BaseCommand, CommandError

from catalogue.identifiers import Identifier
from catalogue.models import Document
from jobs.models import Job
from similarity.jobs import recompute_related_here


class Command(BaseCommand):
    help = (
        "Recompute the related work of every public document (or of the named "
        "ones and those they affect), with any recomputation left waiting, and "
        "expire the pages whose list changed."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "identifiers",
            nargs="*",
            help="Documents to recompute (LIT-004); all if none.",
        )

    def handle(self, *args, identifiers, **options):
        pks = None
        if identifiers:
            pks = []
            for text in identifiers:
                try:
                    identifier = Identifier.parse(text)
                except ValueError as error:
                    raise CommandError(f"{text}: not a document identifier.") from error
                found = Document.objects.filter(
                    registry__prefix=identifier.prefix, number=identifier.number
                ).values_list("pk", flat=True)
                if not found:
                    raise CommandError(f"{text}: no such document.")
                pks.extend(found)
        job = recompute_related_here(pks)
        if job.state == Job.State.FAILED:
            raise CommandError(job.summary)
        self.stdout.write(job.summary or f"{job.title}: {job.get_state_display()}")

"""Link every author position of the record to a person."""

from django.core.management.base import BaseCommand

from actions.people import link_record


class Command(BaseCommand):
    help = (
        "Link every author position of every document, and of each of its "
        "versions, to a person: by ORCID iD, or by name with a shared co-author, "
        "topic or venue; a name matched without evidence makes a new person and "
        "a proposal on the editors' desk. Positions already linked keep their "
        "person. Safe to run again."
    )

    def handle(self, *args, **options):
        documents, people, proposals = link_record(via="link_people")
        self.stdout.write(
            f"Linked the authors of {documents} documents: {people} new people, "
            f"{proposals} new proposals on the desk."
        )

from django.core.management.base import BaseCommand, CommandError

from catalogue.models import Document, Preface, Topic
from formats import topic_page


class Command(BaseCommand):
    help = (
        "Print a topic page in the existing record's format, as import_index "
        "reads it: public documents only."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", help="The topic's slug: distributed-optimization.")

    def handle(self, *args, slug, **options):
        topic = Topic.objects.filter(slug=slug).first()
        if topic is None:
            raise CommandError(f"No topic has the slug {slug!r}.")
        preface = Preface.objects.first()
        if preface is None:
            raise CommandError("The record has no preface to open the page with.")
        public = Document.objects.public()
        self.stdout.write(
            topic_page.render(
                preface=preface,
                topic=topic,
                counts=public.registry_counts(topic=topic),
                documents=public.in_topic(topic).in_number_order(),
            ),
            ending="",
        )

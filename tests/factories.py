import factory
from django.contrib.auth import get_user_model
from django.db.models import Max
from django.utils.text import slugify
from factory.django import DjangoModelFactory

from catalogue.models import DecisionRecord, Document, Registry, Topic


class RegistryFactory(DjangoModelFactory):
    class Meta:
        model = Registry
        django_get_or_create = ["prefix"]

    name = "Reading list"
    prefix = "LIT"


class TopicFactory(DjangoModelFactory):
    class Meta:
        model = Topic

    name = factory.Sequence(lambda n: f"Sample topic {n}")
    slug = factory.LazyAttribute(lambda topic: slugify(topic.name))
    scope = "what the sample topic covers"
    position = factory.LazyFunction(
        lambda: (Topic.objects.aggregate(last=Max("position"))["last"] or 0) + 1
    )


class DocumentFactory(DjangoModelFactory):
    class Meta:
        model = Document

    class Params:
        draft = factory.Trait(status=Document.Status.DRAFT)
        in_review = factory.Trait(status=Document.Status.IN_REVIEW)
        withdrawn = factory.Trait(status=Document.Status.WITHDRAWN)
        unfiled = factory.Trait(topic=None)

    registry = factory.SubFactory(RegistryFactory)
    number = factory.Sequence(lambda n: n + 1)
    title = factory.Faker("sentence", nb_words=6)
    authors = factory.Faker("last_name")
    year = factory.Faker("random_int", min=1990, max=2026)
    source_identifier = factory.Sequence(lambda n: f"ARXIV-2101.{n:05d}")
    summary = factory.Faker("paragraph")
    status = Document.Status.ACTIVE
    topic = factory.SubFactory(TopicFactory)


class DecisionRecordFactory(DjangoModelFactory):
    class Meta:
        model = DecisionRecord

    number = factory.Sequence(lambda n: n + 1)
    title = factory.Faker("sentence", nb_words=5)
    status = DecisionRecord.Status.ACCEPTED


class UserFactory(DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ["username"]

    username = factory.Sequence(lambda n: f"editor{n}")
    first_name = factory.Faker("first_name")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.org")

import hashlib
import importlib
import struct
import zlib

import factory
from django.contrib.auth.models import Group, User
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.models import Max
from django.utils import timezone
from django.utils.text import slugify
from factory.django import DjangoModelFactory

import actions.corrections
import actions.documents
import actions.rows
from catalogue.models import (
    OWN_LOG,
    Correction,
    DecisionImage,
    DecisionLog,
    DecisionRecord,
    DecisionRelation,
    Document,
    Registry,
    Topic,
    Venue,
)

PASSWORD = "a long sample password"


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
    """A draft, as an editor's save makes one; ``published=True`` publishes it
    through the publish action (its version row, numbers and audit entries as
    production makes them), ``withdrawn=True`` then withdraws it."""

    class Meta:
        model = Document
        skip_postgeneration_save = True

    class Params:
        draft = factory.Trait(status=Document.Status.DRAFT)
        in_review = factory.Trait(status=Document.Status.IN_REVIEW)
        unfiled = factory.Trait(topic=None)
        # The seed's LIT-004 v4: Chen et al. (2016), ARXIV-1604.06174.
        sublinear_memory = factory.Trait(
            number=4,
            version=4,
            title="Training Deep Nets with Sublinear Memory Cost",
            authors="Chen et al.",
            year=2016,
            source_identifier="ARXIV-1604.06174",
        )
        # The full author list behind "Chen et al.", as arXiv lists it.
        all_authors = factory.Trait(
            author_list=[
                {"family": "Chen", "given": "Tianqi"},
                {"family": "Xu", "given": "Bing"},
                {"family": "Zhang", "given": "Chiyuan"},
                {"family": "Guestrin", "given": "Carlos"},
            ],
            publication_type="preprint",
            publication_date="2016-04-21",
        )

    registry = factory.SubFactory(RegistryFactory)
    number = factory.Sequence(lambda n: n + 1)
    title = factory.Faker("sentence", nb_words=6)
    authors = factory.Faker("last_name")
    year = factory.Faker("random_int", min=1990, max=2026)
    source_identifier = factory.Sequence(lambda n: f"ARXIV-2101.{n:05d}")
    summary = factory.Faker("paragraph")
    status = Document.Status.DRAFT
    topic = factory.SubFactory(TopicFactory)

    @factory.post_generation
    def tags(document, create, extracted, **kwargs):
        """``tags=["memory"]``: its tags, given before it is published."""
        if create and extracted:
            document.tags.add(*extracted)

    @factory.post_generation
    def published(document, create, extracted, **kwargs):
        if create and extracted:
            actions.documents.publish(document=document, user=factory_publisher())
            document.refresh_from_db()

    @factory.post_generation
    def withdrawn(document, create, extracted, **kwargs):
        if create and extracted:
            if not document.is_public:
                actions.documents.publish(document=document, user=factory_publisher())
            actions.documents.withdraw(
                document=document, user=factory_publisher(), reason="Withdrawn."
            )
            document.refresh_from_db()


def factory_publisher():
    """Who publishes the factories' documents: a superuser of their own."""
    return User.objects.get_or_create(
        username="factory-publisher",
        defaults={"is_staff": True, "is_superuser": True},
    )[0]


class DecisionLogFactory(DjangoModelFactory):
    """A team's decision log; ``own=True`` the record's own (made once)."""

    class Meta:
        model = DecisionLog
        django_get_or_create = ["slug"]

    class Params:
        own = factory.Trait(**OWN_LOG)

    name = factory.Sequence(lambda n: f"Team {n} decisions")
    slug = factory.LazyAttribute(lambda log: slugify(log.name))


class DecisionRecordFactory(DjangoModelFactory):
    """A published decision record; ``superseded_by=newer`` also makes ``newer``
    supersede it (a relation row, as the workflow keeps it)."""

    class Meta:
        model = DecisionRecord
        skip_postgeneration_save = True

    class Params:
        draft = factory.Trait(published_at=None)

    log = factory.LazyFunction(lambda: DecisionLogFactory(own=True))
    number = factory.Sequence(lambda n: n + 1)
    title = factory.Faker("sentence", nb_words=5)
    status = DecisionRecord.Status.ACCEPTED
    published_at = factory.LazyFunction(timezone.now)

    @factory.post_generation
    def superseded_by(self, create, successor, **kwargs):
        if create and successor is not None:
            DecisionRelation.objects.create(
                source=successor, kind=DecisionRelation.Kind.SUPERSEDES, target=self
            )

    @factory.post_generation
    def rows(self, create, extracted, **kwargs):
        """The stored rows naming it, built again as its publication would."""
        if create and self.published_at is not None:
            actions.rows.decisions_changed([self])


class CorrectionFactory(factory.Factory):
    """A reader's proposed correction of a public document (a new one by
    default), kept by the action readers' form calls: ``changes`` by field,
    a ``note``, an ``email``."""

    class Meta:
        model = Correction

    document = factory.LazyFunction(lambda: DocumentFactory(published=True))
    changes = factory.LazyAttribute(
        lambda correction: {"title": f"{correction.document.title} (corrected)"}
    )
    note = ""
    reason = "The paper's own first page says so."
    email = ""
    origin = Correction.Origin.READER

    @classmethod
    def _create(cls, model_class, *, document, **kwargs):
        return actions.corrections.propose(target=document, **kwargs)

    @classmethod
    def _build(cls, model_class, **kwargs):
        raise NotImplementedError("a correction is kept by its action: create it")


class DecisionImageFactory(DjangoModelFactory):
    """A PNG stored with a published decision record."""

    class Meta:
        model = DecisionImage

    decision = factory.SubFactory(DecisionRecordFactory)
    name = "img/diagram.png"
    content_type = "image/png"
    data = factory.LazyFunction(lambda: png_bytes())
    digest = factory.LazyAttribute(lambda image: hashlib.sha256(image.data).hexdigest())


class UserFactory(DjangoModelFactory):
    """A staff user; ``editor=True`` or ``publisher=True`` puts them in that group."""

    class Meta:
        model = User
        django_get_or_create = ["username"]
        skip_postgeneration_save = True

    class Params:
        editor = factory.Trait(role="Editor")
        publisher = factory.Trait(role="Publisher")

    username = factory.Sequence(lambda n: f"editor{n}")
    first_name = factory.Faker("first_name")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.org")
    password = factory.django.Password(PASSWORD)
    is_staff = True
    role = None

    @factory.post_generation
    def groups(user, create, extracted, **kwargs):
        if create and user.role:
            user.groups.add(editorial_group(user.role))

    @classmethod
    def _create(cls, model_class, *args, role=None, **kwargs):
        user = super()._create(model_class, *args, **kwargs)
        user.role = role
        return user


def make_known_venues():
    """The known venues of their migration, made again as it made them (and
    slugged as the next one does) when a transactional test's flush has
    taken them, whichever test ran before."""
    if Venue.objects.exists():
        return
    known = importlib.import_module("catalogue.migrations.0019_known_venues")
    Venue.objects.bulk_create(
        [
            Venue(
                name=name, slug=slugify(name), full_name=full, kind="conference_paper"
            )
            for name, full in known.CONFERENCES
        ]
        + [
            Venue(
                name=name,
                slug=slugify(name),
                full_name=full,
                kind="journal_article",
                doi_prefix=prefix,
            )
            for name, full, prefix in known.JOURNALS
        ]
    )


def editorial_group(name):
    """The Editor or Publisher group, made again by their own migrations'
    code when a transactional test's flush (which empties every table, data
    migrations' too) has taken them, whichever test ran before."""
    group = Group.objects.filter(name=name).first()
    if group is not None:
        return group
    for migration, function in [
        ("0003_editorial_groups", "create_groups"),
        ("0008_decision_formats", "grant_relation_permissions"),
        ("0024_people_permissions", "grant_people_permissions"),
        ("0025_corrections", "grant_correction_permissions"),
    ]:
        module = importlib.import_module(f"catalogue.migrations.{migration}")
        state = MigrationExecutor(connection).loader.project_state(
            ("catalogue", migration)
        )
        getattr(module, function)(state.apps, None)
    return Group.objects.get(name=name)


def png_bytes(width=4, height=3, colour=(30, 90, 160)):
    """A real PNG image of one colour, made here (no image file in the repository)."""

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = b"".join(b"\x00" + bytes(colour) * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )

"""The record's rules, enforced by the database itself, and the services."""

import pytest
from django.apps import apps
from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.db.models import ProtectedError

import actions.documents
from catalogue.models import DecisionRecord, Document, DocumentVersion, Registry, Topic
from tests.factories import (
    DecisionRecordFactory,
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
)

pytestmark = pytest.mark.django_db


def refused_by_database(create):
    """True when the database itself refuses the write (no form involved)."""
    try:
        with transaction.atomic():
            create()
    except IntegrityError:
        return True
    return False


def test_a_number_is_unique_within_its_registry():
    registry = RegistryFactory(prefix="LIT")
    DocumentFactory(registry=registry, number=4, published=True)

    assert refused_by_database(
        lambda: DocumentFactory(registry=registry, number=4, published=True)
    )
    assert not refused_by_database(
        lambda: DocumentFactory(
            registry=RegistryFactory(prefix="PRA"), number=4, published=True
        )
    )


def test_a_publication_type_is_one_the_record_knows():
    assert refused_by_database(
        lambda: DocumentFactory(publication_type="poster", published=True)
    )
    assert not refused_by_database(
        lambda: DocumentFactory(publication_type="journal_article", published=True)
    )


@pytest.mark.parametrize(
    "create",
    [
        lambda: Registry.objects.create(name="Again", prefix="LIT"),
        lambda: Topic.objects.create(name="Other", slug="taken", position=99),
        lambda: Topic.objects.create(name="Taken", slug="other", position=99),
        lambda: Topic.objects.create(name="Other", slug="other", position=1),
        lambda: DecisionRecord.objects.create(number=26, title="Again"),
        lambda: DocumentFactory(number=0, published=True),
        lambda: Document.objects.filter(number=7).update(status="published"),
        lambda: Document.objects.filter(number=7).update(version=0),
        lambda: Topic.objects.filter(slug="taken").update(flavour="genre"),
        lambda: DecisionRecord.objects.filter(number=26).update(status="maybe"),
    ],
    ids=[
        "registry prefix",
        "topic name",
        "topic slug",
        "topic position",
        "decision record number",
        "document number zero",
        "document status",
        "document version zero",
        "topic flavour",
        "decision record status",
    ],
)
def test_the_database_refuses_what_the_record_forbids(create):
    RegistryFactory(prefix="LIT")
    TopicFactory(name="Taken", slug="taken", position=1)
    DocumentFactory(number=7, published=True)
    DecisionRecordFactory(number=26)

    assert refused_by_database(create)


def test_a_version_number_is_unique_per_document():
    document = DocumentFactory(published=True)

    assert refused_by_database(lambda: DocumentVersion.snapshot(document).save())


def test_a_published_document_cannot_be_deleted_so_its_number_stays_taken():
    document = DocumentFactory(published=True)
    assert document.versions.exists()

    with pytest.raises(ProtectedError):
        document.delete()


def test_new_numbers_follow_the_highest_ever_issued_and_never_reuse_one(editor):
    registry = RegistryFactory()
    first = actions.documents.save_document(
        document=DocumentFactory.build(
            registry=registry, number=None, topic=None, draft=True
        ),
        user=editor,
    )
    high = actions.documents.save_document(
        document=DocumentFactory.build(
            registry=registry, number=40, topic=None, draft=True
        ),
        user=editor,
    )
    high.delete()  # A draft never published can go; its number cannot return.

    following = actions.documents.save_document(
        document=DocumentFactory.build(
            registry=registry, number=None, topic=None, draft=True
        ),
        user=editor,
    )

    assert (first.number, following.number) == (1, 41)
    assert Registry.objects.get().last_number == 41


def test_saving_a_draft_records_no_version(editor):
    document = actions.documents.save_document(
        document=DocumentFactory.build(
            registry=RegistryFactory(), number=None, topic=None, draft=True
        ),
        user=editor,
    )

    assert document.versions.count() == 0


@pytest.mark.parametrize(
    ("field", "value", "error_field"),
    [
        ("authors", "Foo (2019) and Bar", "authors"),
        ("source_identifier", "arXiv:1604.06174", "source_identifier"),
        ("citation_note", "NeurIPS. Oral", "citation_note"),
        ("year", 99, "year"),
    ],
)
def test_model_validation_refuses_a_citation_that_would_not_print_back(
    field, value, error_field
):
    document = DocumentFactory.build(registry=RegistryFactory(), topic=None)
    setattr(document, field, value)

    with pytest.raises(ValidationError) as raised:
        document.full_clean()

    assert error_field in raised.value.message_dict


def test_label_shows_the_version_from_v2_on():
    assert DocumentFactory(number=4, version=1, published=True).label == "LIT-004"
    assert DocumentFactory(number=16, version=2, published=True).label == "LIT-016 v2"
    assert DocumentFactory(number=1234, version=1, published=True).label == "LIT-1234"


def test_public_is_active_superseded_and_withdrawn():
    public = [
        DocumentFactory(status=status)
        for status in ["active", "superseded", "withdrawn"]
    ]
    DocumentFactory(draft=True)
    DocumentFactory(in_review=True)

    assert list(Document.objects.public().order_by("number")) == public


TEXT_FIELDS = [
    (model, field.name)
    for model in apps.get_app_config("catalogue").get_models()
    for field in model._meta.concrete_fields
    if isinstance(field, models.CharField | models.TextField | models.JSONField)
    and not field.choices
    and field.editable
]


# One character of each kind no text of the record may hold.
UNSAFE = ["\x00", "\x0b", "\x1b", "\x85", "\ufffe", "\uffff", "\ufdd0", "\ud800"]


@pytest.mark.parametrize(
    ("model", "name"),
    TEXT_FIELDS,
    ids=[f"{model.__name__}.{name}" for model, name in TEXT_FIELDS],
)
def test_every_text_of_the_record_refuses_what_xml_cannot_carry_by_its_field(
    model, name
):
    field = model._meta.get_field(name)
    others = [f.name for f in model._meta.get_fields() if f.name != name]
    for character in UNSAFE:
        instance = model()
        unsafe = f"b{character}"
        if isinstance(field, models.JSONField):
            unsafe = {"a": [unsafe]}
        setattr(instance, field.attname, unsafe)

        with pytest.raises(ValidationError) as refused:
            instance.clean_fields(exclude=others)

        # Refused by the field: by the record's rule, or by the field's own
        # format (a slug, a prefix, a date) where it has one.
        assert list(refused.value.error_dict) == [name], f"U+{ord(character):04X}"

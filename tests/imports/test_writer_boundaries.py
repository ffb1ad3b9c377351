"""What a bulk write leaves behind is what a single save would: the derived
source key, the registry's mark, one version row per published version with
the note readers are given."""

import copy

import pytest

from actions.batch import DocumentWrite, DocumentWriter
from catalogue.duplicates import likely_pairs, same_source
from catalogue.models import Document, DocumentVersion, Registry
from tests.factories import DocumentFactory, RegistryFactory, TopicFactory

pytestmark = pytest.mark.django_db

NOTE = "Imported from the reading list."


@pytest.fixture
def writer():
    return DocumentWriter(note=NOTE, via="import_index reading-list.txt")


def built(**fields):
    """An unsaved document, as an importer hands it to the writer: active
    unless told."""
    fields.setdefault("registry", RegistryFactory())
    fields.setdefault("topic", TopicFactory())
    if not fields.get("draft"):
        fields.setdefault("status", Document.Status.ACTIVE)
    return DocumentFactory.build(**fields)


def test_a_bulk_created_document_has_its_source_key(writer):
    writer.create([DocumentWrite(built(source_identifier="arXiv:1604.06174v2"))])

    assert Document.objects.get().source_key == "arxiv:1604.06174"


def test_a_bulk_created_document_is_found_as_a_duplicate(writer):
    recorded = DocumentFactory(number=4, source_identifier="ARXIV-1604.06174")
    imported = built(number=5, source_identifier="https://arxiv.org/abs/1604.06174v3")

    writer.create([DocumentWrite(imported)])

    assert list(same_source("arxiv:1604.06174", exclude=recorded.pk)) == [imported]
    assert [(p.first, p.second, p.reason) for p in likely_pairs()] == [
        (recorded, imported, "same source")
    ]


def test_a_bulk_update_of_the_source_identifier_rewrites_its_key(writer):
    document = DocumentFactory(number=4, source_identifier="ARXIV-2101.00001")
    other = DocumentFactory(number=5, source_identifier="DOI:10.1109/TAC.2003.812781")
    before = copy.copy(document)
    document.source_identifier = "doi: 10.1109/tac.2003.812781"
    document.version = 2

    writer.update([DocumentWrite(document, before=before)])

    document.refresh_from_db()
    assert document.source_key == "doi:10.1109/tac.2003.812781"
    assert list(same_source("arxiv:2101.00001")) == []
    assert [(p.first, p.second, p.reason) for p in likely_pairs()] == [
        (document, other, "same source")
    ]


def test_the_first_version_gets_the_plain_note(writer):
    writer.create([DocumentWrite(built(number=4, version=1))])

    assert list(DocumentVersion.objects.values_list("number", "note")) == [
        (1, "Imported from the reading list.")
    ]


def test_a_later_version_says_the_earlier_ones_were_not_kept(writer):
    writer.create([DocumentWrite(built(number=4, version=2))])

    assert list(DocumentVersion.objects.values_list("number", "note")) == [
        (2, "Imported from the reading list. Its earlier versions were not kept.")
    ]


def test_an_update_to_a_new_version_writes_its_row_with_the_later_note(writer):
    writer.create([DocumentWrite(built(number=4, version=1, title="First take"))])
    document = Document.objects.get()
    before = copy.copy(document)
    document.title, document.version = "Second take", 2

    writer.update([DocumentWrite(document, before=before)])

    assert list(
        DocumentVersion.objects.order_by("number").values_list("number", "note")
    ) == [
        (1, "Imported from the reading list."),
        (2, "Imported from the reading list. Its earlier versions were not kept."),
    ]


def test_an_update_that_keeps_the_version_writes_no_version_row(writer):
    writer.create([DocumentWrite(built(number=4, version=3))])
    document = Document.objects.get()
    before = copy.copy(document)
    document.topic = TopicFactory()

    writer.update([DocumentWrite(document, before=before)])

    assert list(DocumentVersion.objects.values_list("number", flat=True)) == [3]


def test_a_draft_written_in_bulk_has_no_version_row(writer):
    writer.create([DocumentWrite(built(number=4, draft=True))])

    assert not DocumentVersion.objects.exists()


def test_the_registrys_mark_is_the_highest_number_written(writer):
    registry = RegistryFactory(last_number=2)
    topic = TopicFactory()

    writer.create(
        [
            DocumentWrite(built(registry=registry, topic=topic, number=number))
            for number in [7, 12, 3]
        ]
    )

    assert Registry.objects.get().last_number == 12

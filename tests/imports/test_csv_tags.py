"""The CSV import reads its tags column as editors type tags: one tag a
comma-separated entry, spaces kept, a tag holding a comma in quotes, and a
name whose slug is an existing tag's taken as that tag; the export writes the
column so that the import reads the same tags back."""

import pytest
from bs4 import BeautifulSoup
from taggit.models import Tag, TaggedItem

from catalogue.models import Document, DocumentVersion
from tests.factories import DocumentFactory
from tests.imports.test_import_csv import (
    confirm,
    csv_text,
    export_documents,
    preview,
    problems,
    row,
)

# The import's jobs go through the test queue, which RQ keeps in Redis.
pytestmark = [pytest.mark.django_db, pytest.mark.redis]


def test_a_tag_with_spaces_is_one_tag_and_a_slug_alike_is_the_existing_tag(
    admin_client,
):
    DocumentFactory(number=1, tags=["pipeline parallelism"], published=True)
    content = csv_text(
        [row(tags='sequence parallelism, Pipeline-Parallelism, "Smith, Jones"')]
    )

    response = preview(admin_client, content)
    assert problems(response) == {}
    confirm(admin_client, response)

    document = Document.objects.get(number=4)
    assert sorted(document.tags.names()) == [
        "Smith, Jones",
        "pipeline parallelism",
        "sequence parallelism",
    ]
    assert sorted(Tag.objects.values_list("slug", flat=True)) == [
        "pipeline-parallelism",
        "sequence-parallelism",
        "smith-jones",
    ]


def test_tags_exported_are_imported_back_the_same(admin_client):
    names = ["sequence parallelism", "Smith, Jones", '"quoted" words', "Zhang’s — ×"]
    DocumentFactory(number=4, tags=names, published=True)
    exported = export_documents(admin_client)

    TaggedItem.objects.all().delete()
    Tag.objects.all().delete()
    DocumentVersion.objects.all().delete()
    Document.objects.all().delete()
    response = preview(admin_client, exported)
    assert problems(response) == {}
    confirm(admin_client, response)

    assert sorted(Document.objects.get(number=4).tags.names()) == sorted(names)
    assert export_documents(admin_client) == exported


def test_a_tag_longer_than_the_table_holds_is_named_by_row_and_column(
    admin_client,
):
    content = csv_text(
        [row(number="1", identifier="LIT-001"), row(tags="memory, " + "y" * 120)]
    )

    response = preview(admin_client, content)

    assert problems(response) == {
        2: {
            "tags": [
                f"The tag “{'y' * 40}…” is 120 characters long; a tag holds at "
                "most 100."
            ]
        }
    }
    assert not Document.objects.exists()


def test_a_row_naming_its_tags_in_another_spelling_changes_nothing(admin_client):
    DocumentFactory(number=4, tags=["pipeline parallelism", "Memory"], published=True)
    exported = export_documents(admin_client)
    respelled = exported.replace(
        b"Memory, pipeline parallelism", b"memory, Pipeline-Parallelism"
    )
    assert respelled != exported

    response = preview(admin_client, respelled)

    soup = BeautifulSoup(response.content, "html.parser")
    assert soup.select_one(".import-summary").get_text() == (
        "0 new, 0 updated, 1 unchanged."
    )
    assert soup.select_one("input[name=confirm]") is None

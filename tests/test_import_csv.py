"""The admin's CSV import: dry-run preview, problems by row and column."""

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from taggit.models import Tag, TaggedItem

from catalogue import exports
from catalogue.models import Document, DocumentVersion, Registry, Topic
from tests.factories import DocumentFactory, RegistryFactory, TopicFactory

pytestmark = pytest.mark.django_db


def export_documents(client):
    response = client.get(reverse("catalogue:export-documents"))
    return b"".join(response.streaming_content)


def export_topics(client):
    response = client.get(reverse("catalogue:export-topics"))
    return b"".join(response.streaming_content)


def preview(client, content, model="document"):
    upload = SimpleUploadedFile("record.csv", content, content_type="text/csv")
    response = client.post(
        reverse(f"admin:catalogue_{model}_import"),
        {"format": "0", "import_file": upload, "resource": "0"},
    )
    assert response.status_code == 200
    return response


def confirm(client, response, model="document"):
    form = response.context["confirm_form"]
    confirmed = client.post(
        reverse(f"admin:catalogue_{model}_process_import"), form.initial
    )
    assert confirmed.status_code == 302
    return confirmed


def problems(response):
    """``{row number: {column: [messages]}}`` as the preview lists them."""
    result = response.context["result"]
    found = {row.number: row.error_dict for row in result.invalid_rows}
    for number, errors in result.row_errors():
        found[number] = {"row": [str(error.error) for error in errors]}
    for error in result.base_errors:
        found[0] = {"file": [str(error.error)]}
    return found


def csv_text(rows):
    buffer = io.StringIO()
    writer = csv.DictWriter(
        buffer, fieldnames=exports.DOCUMENT_COLUMNS, lineterminator="\n"
    )
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue().encode()


def row(**values):
    cells = dict.fromkeys(exports.DOCUMENT_COLUMNS, "")
    cells.update(
        identifier="LIT-004",
        registry="LIT",
        number="4",
        version="1",
        title="Training Deep Nets with Sublinear Memory Cost",
        authors="Chen et al.",
        year="2016",
        source_identifier="ARXIV-1604.06174",
        summary="Gradient checkpointing — 48G × 7G.",
        status="active",
    )
    cells.update(values)
    return cells


def test_import_page_opens(admin_client):
    response = admin_client.get(reverse("admin:catalogue_document_import"))

    assert response.status_code == 200


def test_preview_tells_what_would_change_and_writes_nothing(admin_client):
    topic = TopicFactory(slug="optimisation")
    unchanged = DocumentFactory(number=1, topic=topic, version=1)
    updated = DocumentFactory(number=2, topic=topic, draft=True)
    updated.tags.add("memory")
    lines = list(csv.DictReader(io.StringIO(export_documents(admin_client).decode())))
    lines[1]["tags"] = "memory, pipelines"
    lines.append(row(number="3", identifier="LIT-003", topic="optimisation"))
    content = csv_text(lines)

    response = preview(admin_client, content)

    assert problems(response) == {}
    assert response.context["result"].totals["new"] == 1
    assert response.context["result"].totals["update"] == 1
    assert response.context["result"].totals["skip"] == 1
    assert Document.objects.count() == 2
    assert sorted(updated.tags.names()) == ["memory"]

    confirm(admin_client, response)

    created = Document.objects.get(number=3)
    assert created.summary == "Gradient checkpointing — 48G × 7G."
    assert created.topic == topic
    assert [version.number for version in created.versions.all()] == [1]
    assert sorted(Document.objects.get(pk=updated.pk).tags.names()) == [
        "memory",
        "pipelines",
    ]
    assert Document.objects.get(pk=unchanged.pk).updated_at == unchanged.updated_at


BAD_ROWS = [
    ("unknown topic", {"topic": "no-such-topic"}, "topic", "There is no topic"),
    ("unparseable year", {"year": "2016a"}, "year", "not a whole number"),
    ("missing year", {"year": ""}, "year", "cannot be null"),
    ("unknown status", {"status": "published"}, "status", "not a valid choice"),
    ("text over limit", {"title": "x" * 501}, "title", "at most 500 characters"),
    ("identifier mismatch", {"identifier": "LIT-005"}, "identifier", "does not match"),
    ("bad timestamp", {"created": "yesterday"}, "created", "is not a time"),
    (
        "broken citation",
        {"source_identifier": "arXiv 1604.06174"},
        "source_identifier",
        "An identifier reads",
    ),
]


@pytest.mark.parametrize(
    ("values", "column", "message"),
    [case[1:] for case in BAD_ROWS],
    ids=[case[0] for case in BAD_ROWS],
)
def test_bad_row_is_reported_by_row_and_column_and_nothing_is_written(
    admin_client, values, column, message
):
    TopicFactory(slug="optimisation")
    content = csv_text(
        [
            row(number="1", identifier="LIT-001", topic="optimisation"),
            row(**values),
            row(number="9", identifier="LIT-009"),
        ]
    )

    response = preview(admin_client, content)

    found = problems(response)
    assert list(found) == [2]
    assert message in " ".join(found[2][column])
    assert "confirm_form" not in response.context
    assert Document.objects.count() == 0
    assert Registry.objects.count() == 0


def test_duplicate_identifier_names_the_first_row(admin_client):
    content = csv_text([row(), row(number="5", identifier="LIT-005"), row()])

    found = problems(preview(admin_client, content))

    assert list(found) == [3]
    assert found[3]["identifier"] == ["LIT-004 is already in row 1."]
    assert Document.objects.count() == 0


def test_number_issued_before_is_not_reused(admin_client):
    registry = RegistryFactory()
    registry.last_number = 10
    registry.save()

    found = problems(preview(admin_client, csv_text([row()])))

    assert found == {
        1: {"number": ["LIT-004 was issued before; a number is never reused."]}
    }


def test_changed_text_without_a_new_version_is_refused(admin_client):
    document = DocumentFactory(number=4, topic=None)
    DocumentVersion.objects.create(
        document=document,
        number=1,
        published_at=document.created_at,
        **document.content(),
    )
    lines = list(csv.DictReader(io.StringIO(export_documents(admin_client).decode())))
    lines[0]["summary"] = "A new reading."

    found = problems(preview(admin_client, csv_text(lines)))

    assert found == {1: {"version": ["A changed text needs a new version number."]}}


def test_unknown_successor_fails_the_whole_file(admin_client):
    content = csv_text(
        [row(number="1", identifier="LIT-001"), row(successor="LIT-999")]
    )

    response = preview(admin_client, content)

    assert problems(response) == {
        0: {"file": ["['Row 2, column successor: there is no document LIT-999.']"]}
    }
    assert "confirm_form" not in response.context


def test_broken_encoding_is_reported_with_its_line(admin_client):
    content = csv_text([row()]).replace("—".encode(), b"\xff")

    response = preview(admin_client, content)

    assert response.context["form"].errors["import_file"] == [
        "Line 2 is not UTF-8 text (byte 0xff); save the file as UTF-8 CSV."
    ]
    assert Document.objects.count() == 0


def test_a_file_with_excels_byte_order_mark_imports(admin_client):
    response = preview(admin_client, exports.BOM + csv_text([row()]))
    confirm(admin_client, response)

    assert Document.objects.get().identifier == "LIT-004"


def test_export_import_into_an_empty_record_export_again_is_identical(
    admin_client, imported_seed
):
    lit4 = Document.objects.get(number=4)
    lit4.tags.add("memory", "Checkpointing")
    successor = DocumentFactory(
        number=900,
        registry=lit4.registry,
        title="=HYPERLINK(“x”)",
        summary="'@quoted\nsecond line, “typographic” — ×",
        draft=True,
    )
    Document.objects.filter(pk=lit4.pk).update(
        superseded_by=successor, status=Document.Status.SUPERSEDED
    )
    DocumentFactory(number=901, registry=RegistryFactory(prefix="PRA"), topic=None)
    topics_csv = export_topics(admin_client)
    documents_csv = export_documents(admin_client)

    TaggedItem.objects.all().delete()
    Tag.objects.all().delete()
    DocumentVersion.objects.all().delete()
    Document.objects.update(superseded_by=None)
    Document.objects.all().delete()
    Topic.objects.all().delete()
    Registry.objects.all().delete()

    confirm(admin_client, preview(admin_client, topics_csv, "topic"), "topic")
    response = preview(admin_client, documents_csv)
    assert problems(response) == {}
    confirm(admin_client, response)

    assert export_topics(admin_client) == topics_csv
    assert export_documents(admin_client) == documents_csv

"""Staff CSV exports: who may take them, what they hold, and that they stream."""

import csv
import datetime
import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from catalogue.models import Document
from formats import exports
from tests.factories import (
    DecisionRecordFactory,
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

EXPORT_URLS = ["export-documents", "export-topics", "export-decision-records"]


def body_of(response):
    assert response.status_code == 200
    assert response.streaming
    return b"".join(response.streaming_content)


def rows_of(response):
    text = body_of(response).decode("utf-8")
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture
def staff_client(client):
    """A member of the editorial staff, who may view documents in the admin."""
    client.force_login(UserFactory(editor=True))
    return client


@pytest.mark.parametrize("name", EXPORT_URLS)
def test_anonymous_visitor_is_sent_to_log_in(client, name):
    url = reverse(f"catalogue:{name}")

    response = client.get(url)

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))
    assert "next=" in response["Location"]


@pytest.mark.parametrize("name", EXPORT_URLS)
def test_signed_in_reader_who_is_not_staff_is_forbidden(client, name):
    client.force_login(UserFactory(is_staff=False))

    assert client.get(reverse(f"catalogue:{name}")).status_code == 403


@pytest.mark.parametrize("name", EXPORT_URLS)
def test_staff_get_a_streamed_csv_download(staff_client, name):
    response = staff_client.get(reverse(f"catalogue:{name}"))

    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith("attachment; filename=")
    assert body_of(response).count(b"\n") == 1  # The header alone.


def test_document_row_holds_every_column(staff_client):
    topic = TopicFactory(slug="distributed-optimization")
    successor = DocumentFactory(number=1234, topic=topic, published=True)
    document = DocumentFactory(
        sublinear_memory=True,
        citation_note="(SoCC ‘25)",
        summary="Gradient checkpointing — 48G × 7G, “quoted”, a, comma.",
        status=Document.Status.SUPERSEDED,
        superseded_by=successor,
        topic=topic,
    )
    document.tags.add("memory", "Checkpointing")
    Document.objects.filter(pk=document.pk).update(
        created_at=datetime.datetime(2020, 1, 2, 3, 4, 5, 6, tzinfo=datetime.UTC),
        updated_at=datetime.datetime(2021, 6, 7, 8, 9, 10, tzinfo=datetime.UTC),
    )

    rows = rows_of(staff_client.get(reverse("catalogue:export-documents")))

    assert rows[0] == {
        "identifier": "LIT-004",
        "registry": "LIT",
        "number": "4",
        "version": "4",
        "title": "Training Deep Nets with Sublinear Memory Cost",
        "authors": "Chen et al.",
        "year": "2016",
        "source_identifier": "ARXIV-1604.06174",
        "citation_note": "(SoCC ‘25)",
        "citation": "Chen et al. (2016), ARXIV-1604.06174 (SoCC ‘25)",
        "summary": "Gradient checkpointing — 48G × 7G, “quoted”, a, comma.",
        "status": "superseded",
        "topic": "distributed-optimization",
        "tags": "Checkpointing, memory",
        "successor": "LIT-1234",
        "created": "2020-01-02T03:04:05.000006Z",
        "last_changed": "2021-06-07T08:09:10.000000Z",
        "public_url": "http://testserver/LIT-004/",
        "author_list": "",
        "venue": "",
        "publication_type": "",
        "publication_date": "",
        "doi": "",
    }
    assert [row["identifier"] for row in rows] == ["LIT-004", "LIT-1234"]


def test_citation_without_identifier_or_note_has_no_comma(staff_client):
    DocumentFactory(
        authors="CoreWeave",
        year=2025,
        source_identifier="",
        unfiled=True,
        published=True,
    )

    (row,) = rows_of(staff_client.get(reverse("catalogue:export-documents")))

    assert row["citation"] == "CoreWeave (2025)"
    assert (row["source_identifier"], row["topic"], row["tags"]) == ("", "", "")


def test_drafts_are_exported_for_staff_without_a_public_url(staff_client):
    DocumentFactory(number=1, draft=True)
    DocumentFactory(number=2, in_review=True)

    rows = rows_of(staff_client.get(reverse("catalogue:export-documents")))

    assert [(row["status"], row["public_url"]) for row in rows] == [
        ("draft", ""),
        ("in_review", ""),
    ]


def test_export_takes_the_public_lists_filters_and_every_status(staff_client):
    topic = TopicFactory(slug="optimisation")
    wanted = DocumentFactory(topic=topic, draft=True, year=2016)
    wanted.tags.add("memory")
    DocumentFactory(topic=topic, draft=True, year=2016)  # no tag
    DocumentFactory(topic=topic, year=2016, published=True).tags.add("memory")  # active
    DocumentFactory(draft=True, year=2016).tags.add("memory")  # other topic
    DocumentFactory(
        topic=topic, draft=True, year=2016, registry=RegistryFactory(prefix="PRA")
    ).tags.add("memory")

    url = reverse("catalogue:export-documents")
    rows = rows_of(
        staff_client.get(
            url,
            {
                "registry": "LIT",
                "topic": "optimisation",
                "status": "draft",
                "year_from": "2016",
                "year_to": "2016",
                "tag": "memory",
            },
        )
    )

    assert [row["identifier"] for row in rows] == [wanted.identifier]


def test_invalid_filter_is_a_bad_request_naming_it(staff_client):
    response = staff_client.get(
        reverse("catalogue:export-documents"), {"year_from": "x"}
    )

    assert response.status_code == 400
    assert b"year_from" in response.content


def test_rows_are_in_registry_then_number_order(staff_client):
    for prefix, number in [("PRA", 2), ("LIT", 30), ("LIT", 7), ("ADX", 9)]:
        DocumentFactory(
            registry=RegistryFactory(prefix=prefix), number=number, published=True
        )

    rows = rows_of(staff_client.get(reverse("catalogue:export-documents")))

    assert [row["identifier"] for row in rows] == [
        "ADX-009",
        "LIT-007",
        "LIT-030",
        "PRA-002",
    ]


FORMULAS = [
    ("=SUM(A1:A9)", "'=SUM(A1:A9)"),
    ("+1 203 555", "'+1 203 555"),
    ("-2+3", "'-2+3"),
    ("@cmd", "'@cmd"),
    ("\tTab first", "'\tTab first"),
    ("\rReturn first", "'\rReturn first"),
    ("'=already quoted", "''=already quoted"),
    ("'plain apostrophe", "'plain apostrophe"),
    ("A = B", "A = B"),
    ("‘Quoted’ — 2×", "‘Quoted’ — 2×"),
]


@pytest.mark.parametrize(("title", "cell"), FORMULAS)
def test_cell_a_spreadsheet_would_run_is_neutralised(staff_client, title, cell):
    DocumentFactory(title=title, summary=title, published=True)

    (row,) = rows_of(staff_client.get(reverse("catalogue:export-documents")))

    assert (row["title"], row["summary"]) == (cell, cell)
    assert exports.restore(cell) == title


def test_nul_is_neutralised_where_the_database_can_hold_it():
    assert exports.neutralise("\0x") == "'\0x"


def test_other_cells_read_back_exactly_as_stored(staff_client):
    text = 'Line one\nline two, “three”, "four"\r\nfive'
    DocumentFactory(
        title=text, summary=" leading space", authors="O'Brien", published=True
    )

    (row,) = rows_of(staff_client.get(reverse("catalogue:export-documents")))

    assert (row["title"], row["summary"], row["authors"]) == (
        text,
        " leading space",
        "O'Brien",
    )


def test_byte_order_mark_only_when_asked(staff_client):
    DocumentFactory(published=True)
    url = reverse("catalogue:export-documents")

    plain = body_of(staff_client.get(url))
    excel = body_of(staff_client.get(url, {"bom": "1"}))

    assert plain.startswith(b"identifier,registry,")
    assert excel == b"\xef\xbb\xbf" + plain


def test_topics_and_decision_records_export(staff_client):
    TopicFactory(name="Distributed optimization", position=3, scope="parallelism")
    DecisionRecordFactory(
        number=26,
        title="One axis",
        body="=context",
        superseded_by=DecisionRecordFactory(number=60, title="Later"),
    )
    DecisionRecordFactory(number=59, title="Unfiled", decided_on="2025-05-01")

    topics = rows_of(staff_client.get(reverse("catalogue:export-topics")))
    records = rows_of(staff_client.get(reverse("catalogue:export-decision-records")))

    assert topics == [
        {
            "position": "3",
            "name": "Distributed optimization",
            "slug": "distributed-optimization",
            "flavour": "kind",
            "scope": "parallelism",
        }
    ]
    assert [
        (r["identifier"], r["successor"], r["body"], r["decided_on"]) for r in records
    ] == [
        ("ADR-026", "ADR-060", "'=context", ""),
        ("ADR-059", "", "", "2025-05-01"),
        ("ADR-060", "", "", ""),
    ]


def test_export_queries_do_not_grow_with_the_rows(staff_client):
    url = reverse("catalogue:export-documents")
    DocumentFactory.create_batch(3, published=True)
    with CaptureQueriesContext(connection) as few:
        body_of(staff_client.get(url))
    DocumentFactory.create_batch(30, published=True)
    with CaptureQueriesContext(connection) as many:
        body_of(staff_client.get(url))

    assert len(few.captured_queries) == len(many.captured_queries)


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the COPY path is PostgreSQL's"
)
def test_copy_writes_the_same_bytes_as_the_python_path(imported_seed):
    for number, (title, _) in enumerate(FORMULAS, start=9000):
        DocumentFactory(
            number=number,
            title=title,
            summary=title,
            citation_note="OSDI ‘20",
            published=True,
        )
    DocumentFactory(number=5000, draft=True, authors="CoreWeave", source_identifier="")
    Document.objects.first().tags.add("zeta", "Alpha", "émigré")
    documents = Document.objects.all()
    base = "https://anthology.example/"

    copied = b"".join(exports.document_chunks(documents, base_url=base))
    formatted = b"".join(
        exports.csv_line(row).encode()
        for row in exports._document_rows(documents, base_url=base)
    )

    assert copied.split(b"\n", 1)[1] == formatted
    assert copied.count(b"\n") == documents.count() + 1


# The admin's export actions.


def test_admin_action_exports_the_selected_rows(admin_client):
    chosen, _, also = DocumentFactory.create_batch(3, published=True)

    response = admin_client.post(
        reverse("admin:catalogue_document_changelist"),
        {"action": "export_documents_csv", "_selected_action": [chosen.pk, also.pk]},
    )

    assert [row["identifier"] for row in rows_of(response)] == [
        chosen.identifier,
        also.identifier,
    ]


def test_admin_action_exports_everything_matching_filters_and_search(admin_client):
    matching = [
        DocumentFactory(title=f"Pipeline parallelism {n}", draft=True) for n in range(3)
    ]
    DocumentFactory(title="Pipeline parallelism, published", published=True)
    DocumentFactory(title="Something else", draft=True)
    url = reverse("admin:catalogue_document_changelist")

    response = admin_client.post(
        f"{url}?status__exact=draft&q=pipeline",
        {
            "action": "export_documents_csv_bom",
            "select_across": "1",
            "_selected_action": [matching[0].pk],
        },
    )

    body = body_of(response)
    assert body.startswith(exports.BOM)
    rows = list(csv.DictReader(io.StringIO(body.decode("utf-8-sig"))))
    assert [row["identifier"] for row in rows] == [d.identifier for d in matching]


@pytest.mark.parametrize(
    ("model", "action", "count"),
    [
        ("topic", "export_topics_csv", 2),
        ("decisionrecord", "export_decision_records_csv", 1),
    ],
)
def test_admin_actions_export_topics_and_decision_records(
    admin_client, model, action, count
):
    topics = TopicFactory.create_batch(2)
    record = DecisionRecordFactory()
    selected = [topic.pk for topic in topics] if model == "topic" else [record.pk]

    response = admin_client.post(
        reverse(f"admin:catalogue_{model}_changelist"),
        {"action": action, "_selected_action": selected},
    )

    assert len(rows_of(response)) == count

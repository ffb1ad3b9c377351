"""The admin's CSV import: dry-run preview, problems by row and column."""

import csv
import io

import pytest
from auditlog.models import LogEntry
from bs4 import BeautifulSoup
from django.contrib.contenttypes.models import ContentType
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from taggit.models import Tag, TaggedItem

from catalogue.models import (
    Document,
    DocumentVersion,
    ListedCount,
    Person,
    Reference,
    Registry,
    Topic,
)
from formats import exports
from tests.factories import (
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
    factory_publisher,
)

# The jobs these tests start go through the test queue, which RQ keeps in Redis.
pytestmark = [pytest.mark.django_db, pytest.mark.redis]


def export_documents(client):
    response = client.get(reverse("catalogue:export-documents"))
    return b"".join(response.streaming_content)


def export_topics(client):
    response = client.get(reverse("catalogue:export-topics"))
    return b"".join(response.streaming_content)


def preview(client, content, model="document"):
    """The dry run's page, its job run at once (as the tests run jobs)."""
    upload = SimpleUploadedFile("record.csv", content, content_type="text/csv")
    response = client.post(
        reverse(f"admin:catalogue_{model}_import"),
        {"format": "0", "import_file": upload, "resource": "0"},
        follow=True,
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
    """``{row number: {column: [messages]}}`` as the preview lists them, every
    page of them: a row's own problems under "row", the file's under row 0."""
    outcome = response.context["outcome"]
    found = {}
    for refusal in outcome.rows() if outcome.has_problems else []:
        columns = found.setdefault(refusal.row or 0, {})
        for column, message in refusal.problems:
            name = column or ("row" if refusal.row else "file")
            columns.setdefault(name, []).append(message)
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
    unchanged = DocumentFactory(number=1, topic=topic, version=1, published=True)
    updated = DocumentFactory(number=2, topic=topic, draft=True)
    updated.tags.add("memory")
    lines = list(csv.DictReader(io.StringIO(export_documents(admin_client).decode())))
    lines[1]["tags"] = "memory, pipelines"
    lines.append(row(number="3", identifier="LIT-003", topic="optimisation"))
    content = csv_text(lines)

    response = preview(admin_client, content)

    assert problems(response) == {}
    assert response.context["outcome"].totals == {"new": 1, "update": 1, "skip": 1}
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
    ("number zero", {"number": "0", "identifier": ""}, "number", "starts at 1"),
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
        1: {
            "number": [
                "LIT-004 was issued before (LIT has issued up to 10); a number "
                "is never reused. Leave it blank for the next one."
            ]
        }
    }


def test_changed_text_without_a_new_version_is_refused(admin_client):
    DocumentFactory(number=4, topic=None, published=True)
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
        0: {"file": ["Row 2, column successor: there is no document LIT-999."]}
    }
    assert "confirm_form" not in response.context


@pytest.mark.parametrize(
    ("successor_row", "message"),
    [
        (
            row(number="5", identifier="LIT-005", status="draft"),
            "LIT-005 is not public (its status: draft), so it cannot supersede "
            "the public LIT-004.",
        ),
        (None, "LIT-004 cannot supersede itself."),
    ],
)
def test_a_public_document_is_superseded_only_by_another_public_one(
    admin_client, successor_row, message
):
    superseded = row(status="superseded", successor=successor_row and "LIT-005")
    if successor_row is None:
        superseded["successor"] = "LIT-004"
    content = csv_text([superseded, *filter(None, [successor_row])])

    response = preview(admin_client, content)

    assert problems(response) == {0: {"file": [f"Row 1, column successor: {message}"]}}
    assert not Document.objects.exists()


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
        published=True,
    )
    Document.objects.filter(pk=lit4.pk).update(
        superseded_by=successor, status=Document.Status.SUPERSEDED
    )
    DocumentFactory(
        number=901, registry=RegistryFactory(prefix="PRA"), topic=None, published=True
    )
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


def test_imported_document_gets_number_references_tags_version_and_audit(
    admin_client, admin_user
):
    Tag.objects.create(name="Memory")
    content = csv_text(
        [
            row(number="1", identifier="LIT-001", summary="Builds on LIT-004 v2."),
            row(tags="memory, checkpointing"),
            row(number="7", identifier="LIT-007", status="draft"),
        ]
    )

    confirm(admin_client, preview(admin_client, content))

    first, fourth, draft = Document.objects.order_by("number")
    assert Registry.objects.get().last_number == 7
    assert [
        (ref.prefix, ref.number, ref.version) for ref in first.references.all()
    ] == [("LIT", 4, 2)]
    assert sorted(fourth.tags.names()) == ["Memory", "checkpointing"]
    assert Tag.objects.count() == 2
    version = fourth.versions.get()
    assert (version.number, version.note, version.published_by) == (
        1,
        "Carried over from a copy of the record.",
        admin_user,
    )
    assert version.content() == fourth.content()
    assert not draft.versions.exists()
    entries = LogEntry.objects.get_for_object(fourth).order_by("action")
    assert [(entry.action, entry.actor) for entry in entries] == [
        (LogEntry.Action.CREATE, admin_user),
        (LogEntry.Action.UPDATE, admin_user),
    ]
    assert entries[0].changes["title"] == [None, fourth.title]
    assert "search_vector" not in entries[0].changes
    assert entries[1].changes == {
        "tags": {
            "type": "m2m",
            "operation": "add",
            "objects": ["Memory", "checkpointing"],
        }
    }
    assert LogEntry.objects.get_for_object(version).get().actor == admin_user


def test_a_registry_a_file_names_is_made_as_the_registry_add_page_makes_it(
    admin_client, admin_user
):
    content = csv_text([row(), row(registry="PRA", number="1", identifier="PRA-001")])

    confirm(admin_client, preview(admin_client, content))

    practice = Registry.objects.get(prefix="PRA")
    assert practice.name == "PRA"
    [made] = LogEntry.objects.get_for_object(practice)
    assert (made.action, made.actor) == (LogEntry.Action.CREATE, admin_user)
    assert Document.objects.filter(registry=practice).count() == 1


def test_a_publisher_naming_a_registry_the_record_lacks_is_refused_by_row(
    client, publisher
):
    RegistryFactory(prefix="LIT", name="Reading list")
    client.force_login(publisher)
    content = csv_text(
        [
            row(),
            row(registry="PRA", number="1", identifier="PRA-001"),
            row(number="9", identifier="LIT-009"),
        ]
    )

    response = preview(client, content)

    assert problems(response) == {
        2: {
            "registry": [
                f"There is no registry 'PRA', and {publisher.username} may not add "
                "registries: name one the record has, or ask someone who may add "
                "registries to add it first."
            ]
        }
    }
    assert "confirm_form" not in response.context
    assert list(Registry.objects.values_list("prefix", flat=True)) == ["LIT"]
    assert not Document.objects.exists()
    # The same right as the registry add page's, which refuses them too.
    assert client.get(reverse("admin:catalogue_registry_add")).status_code == 403


def test_documents_added_after_an_import_take_keys_no_document_has(admin_client):
    # The keys an import's rows take as they are staged must stay taken once
    # it is done: a document saved later, and the next import, take new ones.
    TopicFactory(slug="optimisation")
    confirm(admin_client, preview(admin_client, many_rows(3)))
    practice = RegistryFactory(prefix="PRA", name="Practice registry")
    DocumentFactory.create_batch(6, registry=practice)
    later = csv_text([row(number=str(n), identifier=f"LIT-{n:03d}") for n in [8, 9]])

    confirm(admin_client, preview(admin_client, later))

    assert Document.objects.count() == 11
    assert sorted(
        Document.objects.filter(registry__prefix="LIT").values_list("number", flat=True)
    ) == [1, 2, 3, 8, 9]


def test_update_changes_tags_references_and_adds_the_new_version(
    admin_client, admin_user
):
    document = DocumentFactory(
        number=4, topic=None, summary="See LIT-001.", published=True
    )
    document.tags.add("memory", "pipelines")
    lines = list(csv.DictReader(io.StringIO(export_documents(admin_client).decode())))
    lines[0].update(
        version="2", summary="Now names LIT-002.", tags="memory, Checkpointing"
    )

    confirm(admin_client, preview(admin_client, csv_text(lines)))

    document.refresh_from_db()
    assert document.summary == "Now names LIT-002."
    assert sorted(document.tags.names()) == ["Checkpointing", "memory"]
    assert [ref.number for ref in document.references.all()] == [2]
    assert [(v.number, v.published_by) for v in document.versions.all()] == [
        (2, admin_user),
        (1, factory_publisher()),
    ]
    changes = [
        entry.changes
        for entry in LogEntry.objects.get_for_object(document).filter(actor=admin_user)
    ]
    assert {"summary": ["See LIT-001.", "Now names LIT-002."], "version": [1, 2]} in [
        {name: change[name] for name in ["summary", "version"] if name in change}
        for change in changes
    ]
    assert {
        (change["tags"]["operation"], tuple(change["tags"]["objects"]))
        for change in changes
        if "tags" in change
    } == {("add", ("Checkpointing",)), ("delete", ("pipelines",))}


def many_rows(count):
    return csv_text(
        [
            row(
                number=str(number),
                identifier=f"LIT-{number:03d}",
                summary=f"Builds on LIT-{number + 1:03d}.",
                tags="memory, pipelines",
                successor=f"LIT-{count:03d}" if number < count else "",
                topic="optimisation",
            )
            for number in range(1, count + 1)
        ]
    )


def import_queries(client, content):
    """Queries of the preview and of the confirmation, each from a cold cache
    of content types (audit entries look theirs up once a process), but for
    those bringing the planner's statistics up to date, which an import makes
    only for the tables it changed by a sizable share."""
    ContentType.objects.clear_cache()
    with CaptureQueriesContext(connection) as previewing:
        response = preview(client, content)
    assert problems(response) == {}
    ContentType.objects.clear_cache()
    with CaptureQueriesContext(connection) as confirming:
        confirm(client, response)
    return len(_written(previewing)), len(_written(confirming))


def _written(queries):
    return [
        query
        for query in queries.captured_queries
        if not query["sql"].startswith(("ANALYZE", "PRAGMA optimize"))
    ]


@pytest.fixture
def sqlite_bulk_limit(monkeypatch):
    """SQLite 3.32 and later take 32,766 parameters a statement; Django assumes
    999 and would split each bulk statement of the test into several."""
    if connection.vendor == "sqlite":
        monkeypatch.setattr(connection.features, "max_query_params", 32766)


def test_import_queries_do_not_grow_with_rows(admin_client, sqlite_bulk_limit):
    RegistryFactory()
    TopicFactory(slug="optimisation")
    Tag.objects.create(name="memory")
    Tag.objects.create(name="pipelines")
    small = import_queries(admin_client, many_rows(10))
    Document.objects.update(superseded_by=None)
    # The record emptied as it was: the stored rows go with their documents,
    # their counts too, so the second import counts its listing anew as well.
    models = [TaggedItem, DocumentVersion, Reference, Document, Person, ListedCount]
    for model in models:
        model.objects.all().delete()
    Registry.objects.update(last_number=0)

    large = import_queries(admin_client, many_rows(200))

    assert Document.objects.count() == 200
    assert large == small


def test_reimporting_changed_rows_takes_the_same_queries_for_more_rows(
    admin_client, sqlite_bulk_limit
):
    TopicFactory(slug="optimisation")
    preview_and_confirm = import_queries(admin_client, many_rows(200))
    assert preview_and_confirm
    lines = list(csv.DictReader(io.StringIO(export_documents(admin_client).decode())))
    for line in lines:
        line.update(version="2", summary=line["summary"] + " Revised.", tags="memory")

    # Neither file holds LIT-200, the successor all rows name.
    few = import_queries(admin_client, csv_text(lines[:10]))
    many = import_queries(admin_client, csv_text(lines[10:199]))

    assert few == many
    assert DocumentVersion.objects.filter(number=2).count() == 199


def test_a_dry_run_of_unchanged_rows_takes_the_same_queries_for_more_rows(
    admin_client, sqlite_bulk_limit
):
    TopicFactory(slug="optimisation")
    import_queries(admin_client, many_rows(200))
    lines = list(csv.DictReader(io.StringIO(export_documents(admin_client).decode())))
    queries = []
    for chosen in [lines[:10], lines[10:199]]:
        with CaptureQueriesContext(connection) as previewing:
            response = preview(admin_client, csv_text(chosen))
        assert response.context["outcome"].totals["skip"] == len(chosen)
        queries.append(len(previewing))

    assert queries[0] == queries[1]


def test_a_dry_run_of_our_own_export_changes_nothing_and_offers_nothing_to_confirm(
    admin_client,
):
    DocumentFactory(number=4, title="Sublinear memory", published=True)
    DocumentFactory(number=7, title="Pipelines", published=True)

    response = preview(admin_client, export_documents(admin_client))

    soup = BeautifulSoup(response.content, "html.parser")
    assert soup.select_one(".import-summary").get_text() == (
        "0 new, 0 updated, 2 unchanged."
    )
    assert "The file matches the record: there is nothing to import." in (
        soup.get_text()
    )
    assert soup.select(".import-outcomes") == []
    assert soup.select_one("input[name=confirm]") is None


def outcome_rows(response):
    soup = BeautifulSoup(response.content, "html.parser")
    return [
        [cell.get_text() for cell in row.select("td")]
        for row in soup.select(".import-outcomes tbody tr")
    ]


def test_the_preview_lists_the_rows_that_change_with_their_columns_and_counts_the_rest(
    admin_client,
):
    topic = TopicFactory(slug="optimisation")
    DocumentFactory(number=4, title="Sublinear memory", topic=topic, published=True)
    revised = DocumentFactory(number=7, title="Pipelines", topic=topic, published=True)
    revised.tags.add("memory")
    lines = list(csv.DictReader(io.StringIO(export_documents(admin_client).decode())))
    lines[1].update(version="2", summary="Revised — 2× less memory.", tags="pipelines")
    lines.append(row(number="9", identifier="LIT-009", title="Zero “bubbles”"))

    response = preview(admin_client, csv_text(lines))

    assert outcome_rows(response) == [
        ["2", "Updated", "LIT-007 v2: Pipelines", "version, summary, tags"],
        ["3", "New", "LIT-009: Zero “bubbles”", ""],
    ]
    assert "in the file’s order; the 1 unchanged is not listed." in (
        response.content.decode()
    )
    assert response.context["confirm_form"]


def test_the_changes_and_the_problems_are_shown_a_hundred_rows_at_a_time(
    admin_client,
):
    TopicFactory(slug="optimisation")
    lines = [
        row(number=str(n), identifier=f"LIT-{n:03d}", title=f"Study {n}")
        for n in range(1, 251)
    ]
    url = preview(admin_client, csv_text(lines)).redirect_chain[-1][0]

    first, last = admin_client.get(url), admin_client.get(url + "?page=3")

    assert [cells[0] for cells in outcome_rows(first)] == [
        str(n) for n in range(1, 101)
    ]
    assert "Rows 1–100 of 250, page 1 of 3." in first.content.decode()
    assert [cells[0] for cells in outcome_rows(last)] == [
        str(n) for n in range(201, 251)
    ]
    for line in lines[::2]:
        line["topic"] = "no-such-topic"
    refused = preview(admin_client, csv_text(lines))
    assert sorted(problems(refused)) == list(range(1, 251, 2))
    second = admin_client.get(refused.redirect_chain[-1][0] + "?page=2")
    refusals = BeautifulSoup(second.content, "html.parser").select(
        ".import-refusals > li"
    )
    assert len(refusals) == 25
    assert refusals[0].get_text(" ", strip=True) == (
        "Row 201 (LIT-201): column topic: There is no topic 'no-such-topic'."
    )


def test_refused_rows_are_listed_in_full_with_their_identifier(admin_client):
    content = csv_text([row(), row(number="7", identifier="LIT-007", year="20x6")])

    response = preview(admin_client, content)

    soup = BeautifulSoup(response.content, "html.parser")
    refusals = soup.select_one(".import-refusals").get_text(" ", strip=True)
    assert "Row 2 (LIT-007): column year:" in refusals
    assert "'20x6' is not a whole number." in refusals
    assert soup.select_one("input[name=confirm]") is None


# The bibliographic columns: the author list in one cell, venue, type, date, DOI.

BIBLIOGRAPHIC_AUTHORS = [
    {"family": "Kaiser", "given": "Łukasz"},
    {"family": "Del Balso"},
    {"literal": "Wan Team, Alibaba; and friends"},
    {"family": "=cmd", "given": "Ann"},
]


def test_the_bibliographic_columns_round_trip_through_a_spreadsheet(admin_client):
    DocumentFactory(
        number=4,
        author_list=BIBLIOGRAPHIC_AUTHORS,
        venue="OSDI ‘20",
        publication_type="conference_paper",
        publication_date="2020-11-04",
        doi="10.5555/osdi.2020.byteps",
        published=True,
    )
    exported = export_documents(admin_client)
    (cells,) = list(csv.DictReader(io.StringIO(exported.decode())))

    assert (
        cells["author_list"],
        cells["venue"],
        cells["publication_type"],
        cells["publication_date"],
        cells["doi"],
    ) == (
        "Kaiser, Łukasz; Del Balso; {Wan Team, Alibaba; and friends}; =cmd, Ann",
        "OSDI ‘20",
        "conference_paper",
        "2020-11-04",
        "10.5555/osdi.2020.byteps",
    )
    # A spreadsheet user edits the cells: an author added, the venue changed.
    cells.update(
        author_list=f"{cells['author_list']}; Müller, Jörg",
        venue="OSDI 2020",
        version="2",
        summary="Changed with its bibliography.",
    )
    response = preview(admin_client, csv_text([cells]))
    assert problems(response) == {}
    confirm(admin_client, response)

    document = Document.objects.get(number=4)
    assert document.author_list == [
        *BIBLIOGRAPHIC_AUTHORS,
        {"family": "Müller", "given": "Jörg"},
    ]
    assert (document.venue, document.publication_date, document.doi) == (
        "OSDI 2020",
        "2020-11-04",
        "10.5555/osdi.2020.byteps",
    )
    (again,) = list(
        csv.DictReader(io.StringIO(export_documents(admin_client).decode()))
    )
    assert again["author_list"] == f"{cells['author_list']}"


def test_a_bad_author_list_cell_is_named_by_row_and_column(admin_client):
    content = csv_text(
        [row(author_list="Chen, Tianqi; Xu, Bing, Jr; {Unclosed", venue="OSDI")]
    )

    response = preview(admin_client, content)

    found = problems(response)
    assert list(found) == [1]
    assert "author 2 (‘Xu, Bing, Jr’)" in " ".join(found[1]["author_list"])
    assert Document.objects.count() == 0


def test_a_file_without_the_bibliographic_columns_leaves_them_as_they_are(
    admin_client,
):
    DocumentFactory(
        number=4,
        author_list=BIBLIOGRAPHIC_AUTHORS,
        venue="OSDI ‘20",
        published=True,
    )
    old_columns = exports.DOCUMENT_COLUMNS[
        : exports.DOCUMENT_COLUMNS.index("public_url") + 1
    ]
    (cells,) = list(
        csv.DictReader(io.StringIO(export_documents(admin_client).decode()))
    )
    buffer = io.StringIO()
    writer = csv.DictWriter(
        buffer, fieldnames=old_columns, lineterminator="\n", extrasaction="ignore"
    )
    writer.writeheader()
    writer.writerow({**cells, "title": "A retitled paper", "version": "2"})

    confirm(admin_client, preview(admin_client, buffer.getvalue().encode()))

    document = Document.objects.get(number=4)
    assert document.title == "A retitled paper"
    assert (document.author_list, document.venue) == (BIBLIOGRAPHIC_AUTHORS, "OSDI ‘20")

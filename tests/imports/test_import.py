"""Importing a topic page: the seed end to end, re-imports and malformed pages."""

import io
import re

import pytest
from auditlog.models import LogEntry
from bs4 import BeautifulSoup
from django.core.management import CommandError, call_command
from django.urls import reverse

from catalogue.models import Document, DocumentVersion, Preface, Registry, Topic
from tests.factories import (
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def import_page(path):
    out = io.StringIO()
    call_command("import_index", str(path), stdout=out)
    return out.getvalue()


def write_page(tmp_path, text, name="page.txt"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def record_snapshot():
    """Everything an import can write, to show that a refused one wrote nothing."""
    return {
        model.__name__: sorted(model.objects.values_list())
        for model in [Registry, Topic, Preface, Document, DocumentVersion]
    }


def table_cells(response):
    soup = BeautifulSoup(response.content, "html.parser")
    return [
        [cell.get_text() for cell in row.find_all("td")]
        for row in soup.select("table.documents tbody tr")
    ]


def test_seed_page_renders_cell_for_cell(client, imported_seed, seed_rows):
    response = client.get(
        reverse("catalogue:topic-detail", kwargs={"slug": "distributed-optimization"})
    )

    assert response.status_code == 200
    assert table_cells(response) == seed_rows


def test_seed_page_header_renders_preface_topic_and_counts(
    client, imported_seed, seed_text
):
    response = client.get("/topics/distributed-optimization/")
    soup = BeautifulSoup(response.content, "html.parser")
    intro_line, topic_line, count_line = seed_text.split("\n")[:3]

    assert soup.select_one(".preface").get_text() == intro_line
    assert (
        f"{soup.h1.get_text()} — {soup.select_one('.scope').get_text()}" == topic_line
    )
    # The page counts 737 LIT documents in all; the record holds only its 67.
    assert soup.select_one(".counts").get_text() == count_line.replace("737", "67")
    assert soup.select_one(".counts a")["href"] == reverse("catalogue:index")


def test_seed_import_stores_every_fact(imported_seed):
    document = Document.objects.get(registry__prefix="LIT", number=51)

    assert document.label == "LIT-051"
    assert document.authors == "Jiang et al."
    assert document.year == 2020
    assert document.source_identifier == ""
    assert document.citation_note == "OSDI ‘20"
    assert document.summary.startswith("BytePS: spare CPU")
    assert document.status == Document.Status.ACTIVE
    assert document.topic.name == "Distributed optimization"
    assert document.topic.scope == (
        "parallelism and sharding, communication, memory management, checkpointing"
    )
    assert Registry.objects.get().last_number == 783


def test_seed_import_keeps_the_latest_version_as_a_version_row(imported_seed):
    document = Document.objects.get(registry__prefix="LIT", number=4)
    [version] = document.versions.all()

    assert (document.version, version.number) == (4, 4)
    assert version.content() == document.content()
    assert DocumentVersion.objects.count() == 67


def test_typographic_characters_survive_byte_for_byte(imported_seed, seed_rows):
    stored = {
        document.label: document.summary_with_citation.encode()
        for document in Document.objects.select_related("registry")
    }
    for label, _, summary, _ in seed_rows:
        assert stored[label] == summary.encode("utf-8")
    typographic = "".join(row[2] for row in seed_rows)
    for character in "‘’“”—–×":
        assert character in typographic


def test_reimport_changes_nothing_and_says_so(seed_path):
    import_page(seed_path)
    before = record_snapshot()

    output = import_page(seed_path)

    assert record_snapshot() == before
    assert "Documents: 0 created, 0 updated, 67 unchanged." in output
    assert output.rstrip().endswith("Nothing changed.")


def test_first_import_reports_what_it_created(seed_path):
    output = import_page(seed_path)

    assert "Documents: 67 created, 0 updated, 0 unchanged." in output
    assert "Topics: 1 created" in output
    assert "The page counts 737 LIT documents in all" in output


def test_page_with_a_new_version_updates_the_document(tmp_path, seed_path, seed_text):
    import_page(seed_path)
    old = "| LIT-007 | Accurate, Large Minibatch SGD: Training ImageNet in 1 Hour | "
    old += "Goyal et al. (2017), ARXIV-1706.02677. Linear scaling rule"
    new = old.replace("LIT-007 |", "LIT-007 v2 |").replace(
        "Linear scaling rule", "The linear scaling rule"
    )
    assert old in seed_text

    output = import_page(write_page(tmp_path, seed_text.replace(old, new)))

    document = Document.objects.get(number=7)
    assert document.version == 2
    assert document.summary.startswith("The linear scaling rule")
    assert list(document.versions.values_list("number", flat=True)) == [2, 1]
    assert "Documents: 0 created, 1 updated, 66 unchanged." in output


def test_refiling_and_status_do_not_need_a_new_version(tmp_path, seed_path, seed_text):
    import_page(seed_path)
    document = Document.objects.get(number=7)
    document.topic = TopicFactory()
    document.save()

    output = import_page(seed_path)

    document.refresh_from_db()
    assert document.topic.slug == "distributed-optimization"
    assert document.version == 1
    assert "Documents: 0 created, 1 updated, 66 unchanged." in output


@pytest.mark.parametrize(
    ("change", "message"),
    [
        # The same version with a different text.
        (
            ("Linear scaling rule", "A linear scaling rule"),
            "line 7, #: LIT-007 v1 differs from the recorded v1 (summary)",
        ),
        # An older version than the record holds.
        (("| LIT-004 v4 |", "| LIT-004 v3 |"), "line 6, #: the record already holds"),
    ],
)
def test_reimport_that_contradicts_the_record_writes_nothing(
    tmp_path, seed_path, seed_text, change, message
):
    import_page(seed_path)
    before = record_snapshot()
    page = write_page(tmp_path, seed_text.replace(*change, 1))

    with pytest.raises(CommandError, match=re.escape(message)):
        import_page(page)

    assert record_snapshot() == before


def replace_line(text, number, new):
    lines = text.split("\n")
    lines[number - 1] = new
    return "\n".join(lines)


def row_line(text, number):
    return text.split("\n")[number - 1]


MALFORMED = {
    "a row with too few cells": (
        lambda text: replace_line(
            text, 9, row_line(text, 9).rsplit(" | ", 1)[0] + " |"
        ),
        "line 9: expected 4 cells (#, Title, Summary, Status), found 3",
    ),
    "a row with too many cells": (
        lambda text: replace_line(text, 12, row_line(text, 12) + " extra |"),
        "line 12: expected 4 cells (#, Title, Summary, Status), found 5",
    ),
    "an unparseable identifier": (
        lambda text: text.replace("| LIT-027 |", "| LIT-x |"),
        "line 11, #: cannot read the identifier 'LIT-x'",
    ),
    "an identifier without zero-padding": (
        lambda text: text.replace("| LIT-027 |", "| LIT-27 |"),
        "line 11, #: cannot read the identifier 'LIT-27'",
    ),
    "a duplicate identifier": (
        lambda text: text.replace("| LIT-043 |", "| LIT-027 |"),
        "line 12, #: LIT-027 is already listed on line 11",
    ),
    "a missing table": (
        lambda text: "\n".join(text.split("\n")[:3]),
        "line 4: expected the table header '| # | Title | Summary | Status |'",
    ),
    "a table without its header": (
        lambda text: replace_line(text, 4, "| Number | Title | Summary | Status |"),
        "line 4: expected the table header",
    ),
    "an unknown status": (
        lambda text: replace_line(
            text, 20, row_line(text, 20).replace("| Active |", "| Actve |")
        ),
        "line 20, Status: unknown status 'Actve'",
    ),
    "a summary without a citation": (
        lambda text: text.replace("Goyal et al. (2017), ", "Goyal et al., "),
        "line 7, Summary: the summary must open with a citation",
    ),
    "a count line that disagrees with the table": (
        lambda text: text.replace("67 of 737", "66 of 737"),
        "line 3: the count line gives 66 LIT documents, but the table lists 67",
    ),
    "a missing count line": (
        lambda text: replace_line(text, 3, "Back to the full index."),
        "line 3: expected the count line",
    ),
    "a missing topic line": (
        lambda text: replace_line(text, 2, "Distributed optimization"),
        "line 2: expected the topic line",
    ),
    "a title over the field's limit": (
        lambda text: text.replace("| ZeRO: Memory", "| " + "Z" * 501 + " Memory"),
        "line 11, Title: title: Ensure this value has at most 500 characters",
    ),
}


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
def test_malformed_page_is_refused_by_line_and_writes_nothing(
    tmp_path, seed_text, case
):
    corrupt, message = MALFORMED[case]
    existing = DocumentFactory(
        registry=RegistryFactory(prefix="LIT"), number=900, published=True
    )
    before = record_snapshot()

    with pytest.raises(CommandError) as raised:
        import_page(write_page(tmp_path, corrupt(seed_text)))

    assert message in str(raised.value)
    assert "nothing was written" in str(raised.value)
    assert record_snapshot() == before
    assert Document.objects.get() == existing


def test_every_problem_of_a_page_is_reported_at_once(tmp_path, seed_text):
    text = seed_text.replace("| LIT-027 |", "| LIT-x |").replace(
        "| LIT-043 |", "| LIT-y |"
    )

    with pytest.raises(CommandError) as raised:
        import_page(write_page(tmp_path, text))

    assert "line 11, #: cannot read the identifier 'LIT-x'" in str(raised.value)
    assert "line 12, #: cannot read the identifier 'LIT-y'" in str(raised.value)


def test_a_page_that_is_not_utf8_is_refused_with_its_line(tmp_path, seed_text):
    data = seed_text.encode("utf-8").replace("OSDI ‘20".encode(), b"OSDI \x91 20")
    path = tmp_path / "cp1252.txt"
    path.write_bytes(data)

    with pytest.raises(CommandError, match=r"line 13: not UTF-8 \(byte 0x91"):
        import_page(path)

    assert Document.objects.count() == 0


def test_a_missing_file_is_refused(tmp_path):
    with pytest.raises(CommandError, match="cannot read the page"):
        import_page(tmp_path / "absent.txt")


def test_if_empty_leaves_a_populated_record_alone(seed_path):
    DocumentFactory(published=True)
    out = io.StringIO()

    call_command("import_index", str(seed_path), "--if-empty", stdout=out)

    assert Document.objects.count() == 1
    assert "nothing imported" in out.getvalue()


def test_export_writes_the_page_back_in_its_own_format(imported_seed, seed_text):
    out = io.StringIO()

    call_command("export_index", "distributed-optimization", stdout=out)

    # Byte for byte, except the registry total: the record holds 67, not 737.
    assert out.getvalue() == seed_text.replace("67 of 737", "67 of 67")


def test_export_of_an_unknown_topic_is_refused(imported_seed):
    with pytest.raises(CommandError, match="No topic has the slug 'nope'"):
        call_command("export_index", "nope")


def test_every_document_the_page_creates_is_in_the_audit_trail(seed_path):
    call_command("import_index", str(seed_path), stdout=io.StringIO())

    entries = LogEntry.objects.get_for_model(Document).filter(
        action=LogEntry.Action.CREATE
    )
    assert entries.count() == Document.objects.count() == 67
    assert {entry.actor for entry in entries} == {None}
    assert {entry.additional_data["via"] for entry in entries} == {
        f"import_index {seed_path.name}"
    }


def test_a_page_imported_for_a_user_names_them_in_the_audit_trail(seed_path):
    # The page brings the preface, two registries and a topic besides its
    # documents: the account named needs the rights to add them all.
    editor = UserFactory(username="importer", is_superuser=True)

    call_command(
        "import_index", str(seed_path), "--user", "importer", stdout=io.StringIO()
    )

    actors = set(
        LogEntry.objects.get_for_model(Document).values_list("actor", flat=True)
    )
    assert actors == {editor.pk}
    version = Document.objects.get(number=4).versions.get()
    assert version.published_by == editor


def test_a_user_named_acts_with_their_own_rights_only(seed_path):
    UserFactory(username="publisher", publisher=True)

    with pytest.raises(CommandError) as refused:
        call_command(
            "import_index", str(seed_path), "--user", "publisher", stdout=io.StringIO()
        )

    assert str(refused.value).endswith(
        "nothing was written.\nline 1: publisher may not add prefaces."
    )
    assert not Document.objects.exists()
    assert not Preface.objects.exists()


def test_an_unknown_user_is_refused_before_anything_is_written(seed_path):
    with pytest.raises(CommandError, match="no account 'nobody'"):
        call_command("import_index", str(seed_path), "--user", "nobody")

    assert not Document.objects.exists()

"""Text the record refuses, refused alike on every way in and on both
databases: a summary over its size limit (the limit in the message), and a
NUL character (which PostgreSQL cannot store and SQLite would keep). Each
refusal names where: the row and column, the line; and nothing is written.

A decision folder is a team's own record: what a field cannot hold (a NUL,
a body longer than Markdown is rendered to) is kept, and the import notes
it by file and field."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from catalogue.markdown import MARKDOWN_MAX_CHARACTERS
from catalogue.models import DecisionRecord, Document
from catalogue.models.document import SUMMARY_MAX_CHARACTERS
from tests.factories import DecisionRecordFactory, RegistryFactory
from tests.imports.test_import import record_snapshot, write_page
from tests.imports.test_import_csv import csv_text, preview, problems, row
from tests.imports.test_madr_import import write_folder

pytestmark = pytest.mark.django_db

# A file's body ends with its last line's newline: one character over.
OVER_MARKDOWN = "x" * MARKDOWN_MAX_CHARACTERS
OVER_SUMMARY = "x" * (SUMMARY_MAX_CHARACTERS + 1)


def too_long(limit):
    return f"Ensure this value has at most {limit} characters (it has {limit + 1})."


NUL = "holds a NUL character (U+0000), which no text of the record may hold; remove it"


def holds(what):
    return f"holds {what}, which no text of the record may hold; remove it"


VT = holds("a control character (U+000B)")
ESC = holds("a control character (U+001B)")
FFFE = holds("a noncharacter (U+FFFE)")


@pytest.mark.parametrize(
    ("text", "field", "kept", "note"),
    [
        (
            f"# Big\n\n{OVER_MARKDOWN}\n",
            "body",
            f"{OVER_MARKDOWN}\n",
            "0001-big.md: body: over 1,000,000 characters; kept, and shown as text, "
            "not Markdown",
        ),
        # YAML writes a NUL as "\0" in a double-quoted string.
        (
            '---\nstatus: "Approved\\0"\n---\n# Nul\n',
            "status_text",
            "Approved\ufffd",
            "0001-big.md: status_text: a NUL character (U+0000) is kept as U+FFFD",
        ),
        (
            '---\ndeciders: ["Ann\\0"]\n---\n# Nul\n',
            "metadata",
            {"deciders": ["Ann\ufffd"]},
            "0001-big.md: metadata: a NUL character (U+0000) is kept as U+FFFD",
        ),
        (
            "# A title\n\nThe body\x01 as written.\n",
            "body",
            "The body\ufffd as written.\n",
            "0001-big.md, line 3: body: a control character (U+0001) is kept as U+FFFD",
        ),
        (
            "# Use \ufffe here\n\nBody.\n",
            "title",
            "Use \ufffd here",
            "0001-big.md, line 1: title: a noncharacter (U+FFFE) is kept as U+FFFD",
        ),
        # YAML writes an escape (U+001B) as "\e" in a double-quoted string.
        (
            '---\nstatus: "Approved\\e"\n---\n# Esc\n',
            "status_text",
            "Approved\ufffd",
            "0001-big.md: status_text: a control character (U+001B) is kept as U+FFFD",
        ),
    ],
    ids=[
        "body over the Markdown limit",
        "NUL in the status",
        "NUL in front matter",
        "control character in the body",
        "noncharacter in the title",
        "control character in the status",
    ],
)
def test_a_decision_folder_keeps_what_a_field_cannot_hold_noting_it(
    tmp_path, text, field, kept, note
):
    folder = write_folder(tmp_path / "adr", {"0001-big.md": text})

    out = io.StringIO()
    call_command("import_decisions", str(folder), stdout=out)

    assert note in out.getvalue()
    assert getattr(DecisionRecord.objects.get(), field) == kept


def test_a_body_over_the_markdown_limit_is_shown_as_its_text(client):
    decision = DecisionRecordFactory(body=f"# <b>Big</b>\n\n{OVER_MARKDOWN}")

    html = client.get(decision.get_absolute_url()).content.decode()

    assert '<pre class="as-written"># &lt;b&gt;Big&lt;/b&gt;' in html


def test_the_admin_refuses_a_summary_over_the_limit_saying_it(admin_client):
    response = admin_client.post(
        reverse("admin:catalogue_document_add"),
        {
            "registry": RegistryFactory().pk,
            "authors": "Chen et al.",
            "year": "2016",
            "title": "T",
            "summary": OVER_SUMMARY,
            "versions-TOTAL_FORMS": "0",
            "versions-INITIAL_FORMS": "0",
        },
    )

    assert response.status_code == 200
    assert response.context["adminform"].form.errors["summary"] == [
        too_long(SUMMARY_MAX_CHARACTERS)
    ]
    assert not Document.objects.exists()


@pytest.mark.redis
@pytest.mark.parametrize(
    ("cells", "column", "message"),
    [
        ({"summary": OVER_SUMMARY}, "summary", too_long(SUMMARY_MAX_CHARACTERS)),
        ({"summary": "Gradient\x00 checkpointing."}, "summary", NUL),
        ({"title": "Training\x00"}, "title", NUL),
        ({"citation_note": "OSDI\x00"}, "citation_note", NUL),
        ({"title": "Training\x0b"}, "title", VT),
        ({"summary": "Gradient\ufffe checkpointing."}, "summary", FFFE),
        ({"author_list": "Chen, Tianqi\x1b; Xu, Bing"}, "author_list", ESC),
        ({"tags": "memory, check\x0bpointing"}, "tags", VT),
    ],
    ids=[
        "summary over the limit",
        "NUL in the summary",
        "NUL in the title",
        "NUL in the note",
        "control character in the title",
        "noncharacter in the summary",
        "control character in the author list",
        "control character in a tag",
    ],
)
def test_a_csv_row_is_refused_by_row_and_column(admin_client, cells, column, message):
    response = preview(
        admin_client, csv_text([row(), row(identifier="LIT-005", number="5", **cells)])
    )

    assert problems(response) == {2: {column: [message]}}
    assert not Document.objects.exists()


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("Gradient checkpointing", "Gradient\x00 checkpointing", f"summary: {NUL}"),
        (
            "Gradient checkpointing",
            "Gradient " + OVER_SUMMARY,
            "summary: Ensure this value has at most 10000 characters (it has 10",
        ),
        (
            "Gradient checkpointing",
            "Gradient\x0b checkpointing",
            f"summary: {VT}",
        ),
        (
            "Gradient checkpointing",
            "Gradient\uffff checkpointing",
            f"summary: {holds('a noncharacter (U+FFFF)')}",
        ),
    ],
    ids=[
        "NUL in a summary",
        "summary over the limit",
        "control character in a summary",
        "noncharacter in a summary",
    ],
)
def test_a_topic_page_is_refused_by_line_and_column(
    tmp_path, seed_text, old, new, problem
):
    assert old in seed_text
    line = seed_text[: seed_text.index(old)].count("\n") + 1
    before = record_snapshot()

    with pytest.raises(CommandError) as raised:
        call_command(
            "import_index",
            str(write_page(tmp_path, seed_text.replace(old, new, 1))),
            stdout=io.StringIO(),
        )

    assert f"line {line}" in str(raised.value)
    assert problem in str(raised.value)
    assert record_snapshot() == before

"""The importers under generated malformed input (hypothesis).

Whatever the input, an importer either imports it or refuses it with a message
that names the line (or row), and a refused input writes nothing.
"""

import io
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.db import transaction
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catalogue.models import (
    DecisionRecord,
    Document,
    DocumentVersion,
    Preface,
    Registry,
    Topic,
)
from tests.conftest import SEED
from tests.imports.test_import_csv import csv_text, problems, row

pytestmark = pytest.mark.django_db

FUZZ = settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
SEED_LINES = SEED.read_text(encoding="utf-8").split("\n")
NASTY = st.text(
    alphabet=st.sampled_from(list("|-— .,()v0123456789LITADRX\t\r\"'‘’“”×≈=+@")),
    max_size=20,
)


def record():
    return {
        model.__name__: sorted(model.objects.values_list())
        for model in [Registry, Topic, Preface, Document, DocumentVersion]
    }


@st.composite
def mutated_pages(draw):
    """The seed page with a few lines cut, doubled, swapped or scribbled on."""
    lines = list(SEED_LINES)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["cut", "double", "swap", "scribble", "empty"]))
        if action == "cut":
            del lines[at]
        elif action == "double":
            lines.insert(at, lines[at])
        elif action == "swap":
            other = draw(st.integers(0, len(lines) - 1))
            lines[at], lines[other] = lines[other], lines[at]
        elif action == "scribble":
            line = lines[at]
            cut = draw(st.integers(0, len(line)))
            lines[at] = line[:cut] + draw(NASTY) + line[cut + draw(st.integers(0, 5)) :]
        else:
            lines[at] = ""
        if not lines:
            break
    return "\n".join(lines)


@FUZZ
@given(text=mutated_pages())
def test_the_page_importer_never_crashes_and_never_half_writes(tmp_path, text):
    path = tmp_path / "page.txt"
    path.write_text(text, encoding="utf-8")
    with transaction.atomic():
        before = record()
        try:
            call_command("import_index", str(path), stdout=io.StringIO())
        except CommandError as error:
            assert re.search(r"line \d+", str(error)), str(error)
            assert "nothing was written" in str(error)
            assert record() == before
        transaction.set_rollback(True)


CELLS = st.one_of(
    NASTY,
    st.sampled_from(["", "abc", "-1", "0", "99999999999", "1e400", "LIT-x", "draft"]),
    st.text(max_size=600),
)


@pytest.mark.redis  # The import is a job, queued in Redis.
@FUZZ
@given(
    changes=st.lists(
        st.tuples(st.integers(0, 2), st.sampled_from(sorted(row())), CELLS),
        min_size=1,
        max_size=4,
    ),
    raw_bytes=st.one_of(st.none(), st.binary(min_size=1, max_size=4)),
)
def test_the_csv_import_never_crashes_and_never_half_writes(
    admin_client, changes, raw_bytes
):
    rows = [
        row(identifier=f"LIT-{n:03d}", number=str(n), title=f"Title {n}")
        for n in (4, 5, 6)
    ]
    for index, column, value in changes:
        rows[index][column] = value
    content = csv_text(rows)
    if raw_bytes is not None:
        content = content[:40] + raw_bytes + content[40:]
    with transaction.atomic():
        before = record()
        upload = SimpleUploadedFile("record.csv", content, content_type="text/csv")
        response = admin_client.post(
            reverse("admin:catalogue_document_import"),
            {"format": "0", "import_file": upload, "resource": "0"},
            follow=True,
        )
        assert response.status_code == 200
        assert record() == before  # The preview is a dry run.
        if response.context.get("confirm_form") is None:
            # Refused: the page says which row, column or line is wrong.
            outcome = response.context.get("outcome")
            if outcome is not None:
                assert problems(response), "refused without saying why"
            else:
                assert response.context["form"].errors
        transaction.set_rollback(True)


DECISION_PIECES = st.sampled_from(
    [
        "---",
        "status: accepted",
        "status: [x",
        "date: 2020-05-04T10:00:00Z",
        "date: 2025-13-01",
        "supersedes: [0001-a.md]",
        "# 2. Title",
        "Title",
        "=====",
        "## Status",
        "Superceded by [1. A](0001-a.md)",
        "Amends ADR-0009",
        "Refined by [x](0003-x.md)",
        "* Status: on hold",
        "* Date: 2024-02-30",
        "```",
        "<!-- optional -->",
        "![a](../outside.png)",
        "",
    ]
)


@FUZZ
@given(st.lists(st.lists(DECISION_PIECES, max_size=12), min_size=1, max_size=3))
def test_a_decision_folder_of_any_lines_imports_every_file(tmp_path, files):
    folder = tmp_path / "decisions"
    folder.mkdir(exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    for number, lines in enumerate(files, start=1):
        (folder / f"{number:04d}-a.md").write_text("\n".join(lines), encoding="utf-8")
    with transaction.atomic():
        out = io.StringIO()
        call_command("import_decisions", str(folder), stdout=out)
        assert DecisionRecord.objects.count() == len(files)
        # Every note names its file.
        notes = [
            line for line in out.getvalue().splitlines() if line.startswith("Note")
        ]
        assert all(
            re.match(r"Note: \d{4}-a\.md(, line \d+)?: ", line) for line in notes
        )
        transaction.set_rollback(True)

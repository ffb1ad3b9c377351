"""Importing a folder of decision records in the Markdown ADR tools write."""

import io

import pytest
from django.core.management import CommandError, call_command

from catalogue.models import DecisionRecord

pytestmark = pytest.mark.django_db

NYGARD = """# 26. Registries share the topic list

Date: 2024-03-01

## Status

Superseded by [61. One topic list](0061-one-topic-list.md)

## Context

Two registers, one list of topics — “shared”.

## Decision

File both against the same topics.

## Consequences

Counts are per registry.
"""

MADR = """---
status: accepted
date: 2025-01-15
---
# One topic list

## Context and Problem Statement

The list is short (ADR-059).
"""

MADR2 = """# Unfiled is legal

* Status: proposed
* Date: 2025-02-01

## Decision Outcome

Keep an unfiled queue.
"""


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "0026-registries-share-topics.md").write_text(NYGARD, encoding="utf-8")
    (tmp_path / "0061-one-topic-list.md").write_text(MADR, encoding="utf-8")
    (tmp_path / "0059-unfiled-is-legal.md").write_text(MADR2, encoding="utf-8")
    (tmp_path / "README.md").write_text("# Decisions\n", encoding="utf-8")
    return tmp_path


def run(folder):
    out = io.StringIO()
    call_command("import_decisions", str(folder), stdout=out)
    return out.getvalue()


def test_import_reads_every_madr_shape_and_keeps_supersession(folder):
    report = run(folder)

    assert "3 created" in report
    old, new, unfiled = (DecisionRecord.objects.get(number=n) for n in (26, 61, 59))
    assert (old.title, old.status, str(old.decided_on)) == (
        "Registries share the topic list",
        "superseded",
        "2024-03-01",
    )
    assert old.superseded_by == new
    assert old.body.startswith(
        "## Context\n\nTwo registers, one list of topics — “shared”."
    )
    assert "## Status" not in old.body
    assert (new.status, unfiled.status) == ("accepted", "proposed")
    assert list(DecisionRecord.objects.public()) == [old, unfiled, new]


def test_a_reimport_changes_nothing(folder):
    run(folder)

    assert "0 created, 0 updated, 3 unchanged" in run(folder)


def test_a_folder_with_a_problem_imports_nothing_and_names_it(folder):
    (folder / "0070-bad.md").write_text(
        "# Bad\n\n* Status: rejected\n* Date: 2025-13-01\n", encoding="utf-8"
    )

    with pytest.raises(CommandError) as raised:
        run(folder)

    message = str(raised.value)
    assert "0070-bad.md, line 3: status 'rejected'" in message
    assert "0070-bad.md, line 4: date '2025-13-01'" in message
    assert not DecisionRecord.objects.exists()

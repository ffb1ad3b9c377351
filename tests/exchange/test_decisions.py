"""Decision records: publication, supersession both ways, Markdown, MADR import."""

import io

import pytest
from django.core.exceptions import PermissionDenied
from django.core.management import CommandError, call_command

from catalogue.models import DecisionRecord
from editorial import decisions
from public.markdown import render_markdown
from tests.factories import DecisionRecordFactory, UserFactory

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


def test_marking_a_successor_shows_superseded_by_on_the_older_record():
    publisher = UserFactory(publisher=True)
    old = DecisionRecordFactory(number=26)
    new = DecisionRecordFactory(number=61)

    decisions.set_supersedes(decision=new, superseded=[old], user=publisher)

    old.refresh_from_db()
    assert (old.superseded_by, old.status) == (new, "superseded")
    assert list(new.supersedes.all()) == [old]


def test_only_a_publisher_edits_or_publishes_decision_records():
    editor = UserFactory(editor=True)
    record = DecisionRecordFactory()

    with pytest.raises(PermissionDenied):
        decisions.publish_decision(decision=record, user=editor)
    with pytest.raises(PermissionDenied):
        decisions.set_supersedes(decision=record, superseded=[], user=editor)


def test_a_draft_decision_record_is_not_public():
    draft = DecisionRecordFactory(draft=True)
    published = decisions.publish_decision(
        decision=DecisionRecordFactory(draft=True), user=UserFactory(publisher=True)
    )

    assert list(DecisionRecord.objects.public()) == [published]
    assert list(DecisionRecord.objects.drafts()) == [draft]


@pytest.mark.parametrize(
    ("markdown", "absent"),
    [
        ("<script>alert(1)</script>", "<script"),
        ("[x](javascript:alert(1))", 'href="javascript'),
        ('<img src=x onerror="alert(1)">', "<img"),
        ("<a href='https://e.org' onclick='x()'>a</a>", "<a "),
    ],
)
def test_markdown_never_lets_markup_through(markdown, absent):
    assert absent not in render_markdown(markdown)


def test_markdown_renders_structure_and_keeps_typography():
    html = render_markdown("## Context\n\n“Quoted” — *so*.\n\n- one\n- two\n")

    assert html == (
        "<h2>Context</h2>\n<p>“Quoted” — <em>so</em>.</p>\n"
        "<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n"
    )

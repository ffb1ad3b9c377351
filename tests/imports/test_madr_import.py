"""Importing decision folders as teams keep them: adr-tools (Nygard), MADR 2,
MADR 3 and 4, log4brains. Every folder here is written by the tests, in the
shape each tool or template writes."""
# The folders' files keep the long lines their tools write.
# ruff: noqa: E501

import datetime
import io

import pytest
from auditlog.models import LogEntry
from django.core.management import CommandError, call_command

from catalogue.models import (
    DecisionImage,
    DecisionRecord,
    DecisionRelation,
    DecisionRevision,
)
from tests.factories import UserFactory, png_bytes

pytestmark = pytest.mark.django_db

# adr-tools: `adr init`, `adr new`, `adr new -s 2`, `adr link 3 Amends 2 "Amended by"`.
ADR_TOOLS = {
    "0001-record-architecture-decisions.md": """# 1. Record architecture decisions

Date: 2024-01-05

## Status

Accepted

## Context

We need to record the architectural decisions made on this project.

## Decision

We will use Architecture Decision Records, as described by Michael Nygard.

## Consequences

See Michael Nygard’s article — “Documenting architecture decisions”.
""",
    "0002-use-redis-for-caching.md": """# 2. Use Redis for caching

Date: 2024-02-01

## Status

Superceded by [4. Use Memcached instead](0004-use-memcached-instead.md)

Amended by [3. Tune the cache](0003-tune-the-cache.md)

## Context

Pages are slow.
""",
    "0003-tune-the-cache.md": """# 3. Tune the cache

Date: 2024-02-03

## Status

Accepted

Amends [2. Use Redis for caching](0002-use-redis-for-caching.md)

## Context

Keys expire too soon.
""",
    "0004-use-memcached-instead.md": """# 4. Use Memcached instead

Date: 2024-03-01

## Status

Accepted

Supercedes [2. Use Redis for caching](0002-use-redis-for-caching.md)

## Context

Redis is more than we need.
""",
    "README.md": """# Architecture Decision Records

* [1. Record architecture decisions](0001-record-architecture-decisions.md)
* [2. Use Redis for caching](0002-use-redis-for-caching.md)
""",
    "template.md": "# NUMBER. TITLE\n\nDate: DATE\n\n## Status\n\nSTATUS\n",
}

# MADR 2, written by hand from its template: bullets in the team's own order.
MADR_2 = {
    "0001-use-markdown-architectural-decision-records.md": """# Use Markdown Architectural Decision Records

* Status: accepted
* Deciders: Ann Lee, Bo Chen
* Date: 2018-04-02

Technical Story: [description | ticket/issue URL]

## Context and Problem Statement

We want to record architectural decisions made in this project.

## Decision Outcome

Chosen option: "MADR 2.1.2".
""",
    "0002-use-plain-junit5.md": """# Use Plain JUnit5 for advanced test assertions

* Status: proposed
* Date: 2018-05-04

## Context and Problem Statement

How to write readable test assertions?
""",
    "adr-template.md": """# [short title of solved problem and solution]

* Status: [proposed | rejected | accepted | deprecated | … | superseded by [ADR-0005](0005-example.md)]
* Deciders: [list everyone involved in the decision]
* Date: [YYYY-MM-DD when the decision was last updated]
""",
    "index.md": "# Decisions\n\n- [Use Markdown](0001-use-markdown-architectural-decision-records.md)\n",
}

# MADR 3 and 4: front matter, status and date optional; MADR's own 0000 record.
MADR_4 = {
    "0000-use-markdown-architectural-decision-records.md": """# Use Markdown Architectural Decision Records

## Context and Problem Statement

We want to record any decisions made in this project.

## Decision Outcome

Chosen option: "MADR 4.0.0".
""",
    "0001-use-postgresql.md": """---
status: accepted
date: 2020-05-04T10:00:00Z
decision-makers: [Ann Lee, Bo Chen]
consulted: Data team
---

# Use PostgreSQL

## Context and Problem Statement

Which database?
""",
    "0002-use-sqlite-for-tests.md": """---
status: "superseded by [ADR-0003](0003-use-postgresql-in-tests-too.md)"
---
# Use SQLite for tests

Fast.
""",
    "0003-use-postgresql-in-tests-too.md": """---
date: 2021-01-10
---
# Use PostgreSQL in tests too

Tests meet what production meets.
""",
    "adr-template.md": """---
status: "{proposed | rejected | accepted | deprecated | … | superseded by ADR-0123}"
date: {YYYY-MM-DD when the decision was last updated}
---

# {short title, representative of solved problem and found solution}
""",
}

# log4brains: files named by date; two decisions on one day.
LOG4BRAINS = {
    "20200925-use-log4brains-to-manage-the-adrs.md": """# Use Log4brains to manage the ADRs

- Status: accepted
- Date: 2020-09-25
- Tags: dev-tools, doc

## Context and Problem Statement

We want to record architectural decisions made in this project.
""",
    "20201002-use-prettier.md": """# Use Prettier

- Status: draft
- Date: 2020-10-02

## Context and Problem Statement

Code style.
""",
    "20201002-use-eslint.md": """# Use ESLint

- Status: accepted

## Context and Problem Statement

Lint.
""",
    "index.md": "<!-- This file is the home of the knowledge base. -->\n\n# Welcome\n",
    "template.md": "# [short title of solved problem and solution]\n\n- Status: [draft | proposed]\n",
}


def write_folder(path, files):
    path.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (path / name).write_text(text, encoding="utf-8")
    return path


def run(folder):
    out = io.StringIO()
    call_command("import_decisions", str(folder), stdout=out)
    return out.getvalue()


def refused(folder):
    with pytest.raises(CommandError) as raised:
        run(folder)
    assert not DecisionRecord.objects.exists()
    return str(raised.value)


def records():
    return {
        decision.number: (
            decision.title,
            decision.status,
            decision.status_text,
            decision.decided_on,
        )
        for decision in DecisionRecord.objects.all()
    }


def relations():
    return sorted(
        (relation.source.number, relation.kind, relation.target.number)
        for relation in DecisionRelation.objects.select_related("source", "target")
    )


def test_adr_tools_folder_imports_with_its_spellings_and_links(tmp_path):
    report = run(write_folder(tmp_path, ADR_TOOLS))

    assert "4 created, 0 updated, 0 unchanged." in report
    assert records() == {
        1: ("Record architecture decisions", "accepted", "", datetime.date(2024, 1, 5)),
        2: ("Use Redis for caching", "superseded", "", datetime.date(2024, 2, 1)),
        3: ("Tune the cache", "accepted", "", datetime.date(2024, 2, 3)),
        4: ("Use Memcached instead", "accepted", "", datetime.date(2024, 3, 1)),
    }
    # Each relation once, whichever file (or both) states it.
    assert relations() == [(3, "amends", 2), (4, "supersedes", 2)]
    first = DecisionRecord.objects.get(number=1)
    assert first.body.startswith("## Context\n\nWe need to record")
    assert first.body.endswith("“Documenting architecture decisions”.\n")
    assert (
        DecisionRecord.objects.get(number=2).body == "## Context\n\nPages are slow.\n"
    )
    assert first.source_name == "0001-record-architecture-decisions.md"


def test_madr_2_reads_bullet_metadata_in_any_order(tmp_path):
    run(write_folder(tmp_path, MADR_2))

    assert records() == {
        1: (
            "Use Markdown Architectural Decision Records",
            "accepted",
            "",
            datetime.date(2018, 4, 2),
        ),
        2: (
            "Use Plain JUnit5 for advanced test assertions",
            "proposed",
            "",
            datetime.date(2018, 5, 4),
        ),
    }
    # Facts the record has no field for stay in the text, as written.
    assert DecisionRecord.objects.get(number=1).body.startswith(
        "* Deciders: Ann Lee, Bo Chen\n\nTechnical Story: [description | ticket/issue URL]"
        "\n\n## Context and Problem Statement"
    )


def test_madr_4_front_matter_is_optional_and_kept(tmp_path):
    report = run(write_folder(tmp_path, MADR_4))

    assert "4 created" in report
    assert records() == {
        0: ("Use Markdown Architectural Decision Records", "", "", None),
        1: ("Use PostgreSQL", "accepted", "", datetime.date(2020, 5, 4)),
        2: ("Use SQLite for tests", "superseded", "", None),
        3: ("Use PostgreSQL in tests too", "", "", datetime.date(2021, 1, 10)),
    }
    assert DecisionRecord.objects.get(number=0).identifier == "ADR-000"
    assert DecisionRecord.objects.get(number=1).metadata == {
        "decision-makers": ["Ann Lee", "Bo Chen"],
        "consulted": "Data team",
    }
    assert relations() == [(3, "supersedes", 2)]


def test_log4brains_files_are_numbered_in_date_and_name_order(tmp_path):
    report = run(write_folder(tmp_path, LOG4BRAINS))

    assert "3 created" in report
    assert [
        (d.number, d.source_name, d.status, d.status_text, d.decided_on)
        for d in DecisionRecord.objects.all()
    ] == [
        (
            1,
            "20200925-use-log4brains-to-manage-the-adrs.md",
            "accepted",
            "",
            datetime.date(2020, 9, 25),
        ),
        (2, "20201002-use-eslint.md", "accepted", "", datetime.date(2020, 10, 2)),
        (
            3,
            "20201002-use-prettier.md",
            "proposed",
            "draft",
            datetime.date(2020, 10, 2),
        ),
    ]
    assert "20201002-use-prettier.md, line 3: status 'draft' read as proposed" in report


def test_log4brains_reimport_keeps_numbers_and_numbers_new_files_after(tmp_path):
    folder = write_folder(tmp_path, LOG4BRAINS)
    run(folder)
    (folder / "20200101-an-older-decision.md").write_text(
        "# An older decision\n\n- Status: accepted\n", encoding="utf-8"
    )

    report = run(folder)

    assert "1 created, 0 updated, 3 unchanged." in report
    assert (
        DecisionRecord.objects.get(source_name="20201002-use-prettier.md").number == 3
    )
    assert DecisionRecord.objects.get(number=4).title == "An older decision"


@pytest.mark.parametrize(
    ("written", "status", "status_text", "note"),
    [
        ("rejected", "rejected", "", None),
        ("Deprecated", "deprecated", "", None),
        ("Approved", "accepted", "Approved", "status 'Approved' read as accepted"),
        ("Pending", "proposed", "Pending", "status 'Pending' read as proposed"),
        ("on hold", "proposed", "on hold", "status 'on hold' read as proposed"),
        (
            "[Accepted](https://example.org/pull/541)",
            "accepted",
            "[Accepted](https://example.org/pull/541)",
            None,
        ),
        (
            "Partly superseded",
            "",
            "Partly superseded",
            "status 'Partly superseded' is not one of accepted, deprecated, "
            "proposed, rejected, superseded; kept as written",
        ),
    ],
)
def test_statuses_are_taken_as_teams_write_them(
    tmp_path, written, status, status_text, note
):
    folder = write_folder(
        tmp_path, {"0007-a-decision.md": f"# A decision\n\n* Status: {written}\n"}
    )

    report = run(folder)

    decision = DecisionRecord.objects.get()
    assert (decision.status, decision.status_text) == (status, status_text)
    assert decision.body == ""
    if note:
        assert f"Note: 0007-a-decision.md, line 3: {note}" in report
    else:
        assert "Note:" not in report


def test_a_status_that_also_names_a_relation_keeps_both(tmp_path):
    folder = write_folder(
        tmp_path,
        {
            "0045-old.md": "# Old\n\n## Status\n\nAccepted\n",
            "0046-new.md": "---\nstatus: accepted; supersedes ADR-0045\n---\n# New\n",
        },
    )

    run(folder)

    assert records()[46] == ("New", "accepted", "", None)
    assert relations() == [(46, "supersedes", 45)]


def test_every_relation_is_read_both_ways_whatever_the_spelling(tmp_path):
    folder = write_folder(
        tmp_path,
        {
            "0001-a.md": "# A\n\n## Status\n\nAccepted\n\n"
            "Clarified by [2. B](0002-b.md)\n\nRelated to [3. C](0003-c.md)\n",
            "0002-b.md": "# B\n\n## Status\n\nAccepted\n\nClarifies [1. A](0001-a.md)\n",
            "0003-c.md": "# C\n\n## Status\n\nAccepted\n\nRelates to [1. A](0001-a.md)\n\n"
            "Refined by [2. B](0002-b.md)\n",
        },
    )

    report = run(folder)

    assert relations() == [
        (1, "relates_to", 3),
        (2, "clarifies", 1),
        (2, "relates_to", 3),
    ]
    assert "0003-c.md, line 9: 'Refined by' read as relates to" in report


def test_templates_and_indexes_are_left_out_by_name_and_shape(tmp_path):
    files = {
        **MADR_2,
        "0099-template.md": "# {short title of solved problem and solution}\n",
        "0098-index.md": "# Index\n\n* [One](0001-use-markdown-architectural-decision-records.md)\n",
        "notes.md": "# Notes\n",
    }

    report = run(write_folder(tmp_path, files))

    assert sorted(DecisionRecord.objects.values_list("number", flat=True)) == [1, 2]
    assert (
        "notes.md: left out: not named as a decision (NNNN-title.md) and stating "
        "no status, context or decision"
    ) in report
    assert "0099-template.md: left out: a template or an index" in report


def test_a_utf8_byte_order_mark_is_read_as_nothing(tmp_path):
    (tmp_path / "0001-bom.md").write_bytes(
        "\ufeff# Byte-order mark — kept out\n\n* Status: accepted\n".encode()
    )

    run(tmp_path)

    assert records() == {1: ("Byte-order mark — kept out", "accepted", "", None)}


def test_an_unreadable_date_stays_in_the_text_with_a_note(tmp_path):
    folder = write_folder(
        tmp_path, {"0070-a.md": "# A\n\n* Status: accepted\n* Date: 2025-13-01\n"}
    )

    report = run(folder)

    assert DecisionRecord.objects.get().body == "* Date: 2025-13-01\n"
    assert (
        "0070-a.md, line 4: date '2025-13-01' is not a date; kept in the text" in report
    )


def test_a_front_matter_date_naming_no_day_is_kept_as_written_with_a_note(tmp_path):
    folder = write_folder(
        tmp_path,
        {"0071-b.md": "---\nstatus: accepted\ndate: 2025-13-01\n---\n# B\n"},
    )

    report = run(folder)

    decision = DecisionRecord.objects.get()
    assert (decision.decided_on, decision.metadata) == (None, {"date": "2025-13-01"})
    assert (
        "0071-b.md, line 3: date '2025-13-01' is not a date; kept as written" in report
    )


def test_no_shape_of_a_record_refuses_the_folder(tmp_path):
    folder = write_folder(
        tmp_path,
        {
            **ADR_TOOLS,
            "0005-broken-front-matter.md": "---\nstatus: [accepted\n---\n# Five\n",
            "0006-no-title.md": "Just text.\n",
        },
    )
    (folder / "0007-latin-1.md").write_bytes("# Sept\n\nCafé\n".encode("latin-1"))
    (folder / "0008-a-picture.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (folder / "0009-gone.md").symlink_to(folder / "nowhere.md")

    report = run(folder)

    assert "Decision records: 7 created, 0 updated, 0 unchanged." in report
    for note in [
        "0005-broken-front-matter.md, line 2: the front matter is not YAML: "
        "expected ',' or ']', but got '<stream end>'",
        "0006-no-title.md, line 1: no title line (# Title): titled 'No title'",
        "0007-latin-1.md, line 3: is not UTF-8 (byte 0xe9); read as Windows-1252",
        "0008-a-picture.md, line 3: left out: not text (it holds a NUL byte)",
        "0009-gone.md: left out: cannot be read: No such file or directory",
    ]:
        assert note in report
    five = DecisionRecord.objects.get(number=5)
    # What the front matter says is kept as written.
    assert five.metadata == {"front-matter": "status: [accepted"}
    assert five.status_text == "[accepted"
    assert DecisionRecord.objects.get(number=6).body == "Just text.\n"
    assert DecisionRecord.objects.get(number=7).body == "Café\n"


def test_a_reimport_changes_nothing(tmp_path):
    folder = write_folder(tmp_path, ADR_TOOLS)
    run(folder)

    report = run(folder)

    assert "0 created, 0 updated, 4 unchanged." in report
    assert "Nothing changed." in report


def test_a_changed_folder_updates_what_changed_only(tmp_path):
    folder = write_folder(tmp_path, ADR_TOOLS)
    run(folder)
    before = {d.number: d.updated_at for d in DecisionRecord.objects.all()}
    path = folder / "0003-tune-the-cache.md"
    path.write_text(
        path.read_text(encoding="utf-8").replace("Accepted", "Deprecated"),
        encoding="utf-8",
    )

    report = run(folder)

    assert "0 created, 1 updated, 3 unchanged." in report
    after = {d.number: d.updated_at for d in DecisionRecord.objects.all()}
    assert [n for n in after if after[n] != before[n]] == [3]
    assert DecisionRecord.objects.get(number=3).status == "deprecated"


def test_an_editors_later_change_is_kept_when_the_file_changed_too(tmp_path):
    folder = write_folder(tmp_path, ADR_TOOLS)
    run(folder)
    DecisionRecord.objects.filter(number=1).update(title="Record decisions (edited)")
    path = folder / "0001-record-architecture-decisions.md"
    path.write_text(
        path.read_text(encoding="utf-8").replace("We need", "We must"),
        encoding="utf-8",
    )

    report = run(folder)

    decision = DecisionRecord.objects.get(number=1)
    assert decision.title == "Record decisions (edited)"
    assert "We need" in decision.body
    # The file's change waits for a publisher, as any edit to a published record.
    held = decision.pending_revision()
    assert "We must" in held.body
    assert held.title == "Record architecture decisions"
    assert "0 created, 0 updated, 3 unchanged, 1 held as pending revisions." in (report)
    assert (
        "0001-record-architecture-decisions.md: ADR-001 was changed by an "
        "editor since it was last imported" in report
    )
    assert "1 held" not in run(folder)  # Seen once, held once.


def test_a_file_change_for_a_record_with_a_held_edit_is_not_taken(tmp_path):
    folder = write_folder(tmp_path, ADR_TOOLS)
    run(folder)
    DecisionRecord.objects.filter(number=1).update(title="Record decisions (edited)")
    DecisionRevision.objects.create(
        decision=DecisionRecord.objects.get(number=1), title="An editor's own"
    )
    path = folder / "0001-record-architecture-decisions.md"
    path.write_text(
        path.read_text(encoding="utf-8").replace("We need", "We must"),
        encoding="utf-8",
    )

    report = run(folder)

    assert "1 kept as an editor changed them." in report
    assert DecisionRevision.objects.get().title == "An editor's own"


def test_an_editors_later_change_survives_a_reimport_of_the_same_folder(tmp_path):
    folder = write_folder(tmp_path, ADR_TOOLS)
    run(folder)
    DecisionRecord.objects.filter(number=1).update(title="Record decisions (edited)")

    assert "4 unchanged" in run(folder)
    assert DecisionRecord.objects.get(number=1).title == "Record decisions (edited)"


def test_images_are_imported_with_their_record(tmp_path):
    png = png_bytes()
    folder = write_folder(
        tmp_path,
        {
            "0001-a.md": "# A\n\n![The cache, drawn](img/cache%20layout.png)\n\n"
            "![Remote](https://example.org/x.png) ![Missing](img/missing.png)\n",
        },
    )
    (folder / "img").mkdir()
    (folder / "img" / "cache layout.png").write_bytes(png)

    report = run(folder)

    assert [
        (i.decision.number, i.name, i.content_type, bytes(i.data))
        for i in DecisionImage.objects.all()
    ] == [(1, "img/cache layout.png", "image/png", png)]
    assert "image 'img/missing.png' is not in the folder; left out" in report

    (folder / "img" / "cache layout.png").write_bytes(png_bytes(colour=(200, 0, 0)))
    assert "0 created, 1 updated, 0 unchanged." in run(folder)
    assert bytes(DecisionImage.objects.get().data) == png_bytes(colour=(200, 0, 0))


def test_a_status_sections_further_paragraphs_are_its_history(tmp_path):
    folder = write_folder(
        tmp_path,
        {
            "0008-a.md": "# 8. A\n\n## Status\n\nAccepted\n\n"
            "Agreed in [the review](https://example.org/review).\n\n## Context\n\nC.\n"
        },
    )

    run(folder)

    assert records()[8] == ("A", "accepted", "", None)
    decision = DecisionRecord.objects.get(number=8)
    assert decision.status_history == (
        "Agreed in [the review](https://example.org/review)."
    )
    assert decision.body == "## Context\n\nC.\n"
    assert relations() == []


def test_an_import_names_its_user_or_itself_in_the_audit_trail(tmp_path):
    folder = tmp_path / "adr"
    folder.mkdir()
    (folder / "0001-record-decisions.md").write_text(
        "# 1. Record decisions\n\nDate: 2024-03-01\n\n## Status\n\nAccepted\n",
        encoding="utf-8",
    )
    UserFactory(username="importer", publisher=True)

    call_command("import_decisions", str(folder), stdout=io.StringIO())
    (folder / "0001-record-decisions.md").write_text(
        "# 1. Record decisions well\n\nDate: 2024-03-01\n\n## Status\n\nAccepted\n",
        encoding="utf-8",
    )
    call_command(
        "import_decisions", str(folder), "--user", "importer", stdout=io.StringIO()
    )

    first, second = LogEntry.objects.get_for_model(DecisionRecord).order_by("pk")
    assert (first.actor, first.additional_data) == (
        None,
        {"via": f"import_decisions {folder}"},
    )
    assert second.actor.username == "importer"

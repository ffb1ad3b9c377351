"""Decision folders in the shapes a corpus of teams' public folders showed,
imported whole.

Each folder is written by the tests in one shape the corpus holds, with
words of our own:

- one sub-folder per decision, its page a ``README.md`` (or a ``README.md``
  and an ``index.md`` of one text), beside a tool's folder whose README shows
  an example record in fenced code;
- files named by a timestamp (``20240516132303-title.md``), records in
  French (``statut: accepté``, ``## Contexte``, ``remplacé par``);
- enhancement proposals: front matter titles and statuses of their own
  steps (``implementable``, ``living``), titles opening with the folder's
  kind of record (``# TEP-0007: …``), a "## Status" section about something
  else, a first section under a front matter title;
- dates in a changelog's entries, a "Creation date" line, a heading that is
  a date line, a month written as a word between year and day;
- a status under a setext heading; a template's guidance and choices left
  in the status section; a status quoted; a supersession spelled
  "Superceeded" linking a page without ``.md``.
"""
# The folders' files keep the long lines their teams write.
# ruff: noqa: E501

import datetime
import io

import pytest
from django.core.management import call_command

from catalogue.models import DecisionRecord, DecisionRelation
from formats import written_dates
from tests.imports.test_madr_import import relations, write_folder

pytestmark = pytest.mark.django_db

Kind = DecisionRelation.Kind


def run(folder, *options):
    out = io.StringIO()
    call_command("import_decisions", str(folder), *options, stdout=out)
    return out.getvalue()


def record(number):
    return DecisionRecord.objects.get(number=number)


# A build tool's proposals: a folder per proposal, its page README.md, a
# template's folder, a tool's folder whose README shows a record in code.
SUB_FOLDERS = {
    "README.md": """# Proposals

- [Cache the build graph](0001-cache-the-build-graph/README.md)
- [Remote build workers](0002-remote-build-workers/README.md)
""",
    "0001-cache-the-build-graph/README.md": """# RFC-0001 Cache the build graph

**Status:** superseded by [RFC-0002](../0002-remote-build-workers/README.md)

## Summary

Every build walks the whole graph again; a cache keyed by inputs skips it.
""",
    "0002-remote-build-workers/README.md": """# RFC-0002 Remote build workers

**Status:** implemented

## Summary

Builds run on a pool of workers, which share one cache.
""",
    "0002-remote-build-workers/diagram.txt": "workers -> cache\n",
    "tools/README.md": """# The proposals tool

It writes a new proposal from the template:

```
---
status: proposed
---
# RFC-NNNN: My proposal
```
""",
    "tools/new.py": "print('new')\n",
}


def test_a_folder_of_one_sub_folder_per_decision_imports_each_page(tmp_path):
    report = run(write_folder_deep(tmp_path / "rfcs", SUB_FOLDERS), "--log", "RFCs")

    assert "Decision records: 2 created" in report
    assert {
        d.number: (d.title, d.status, d.source_name)
        for d in DecisionRecord.objects.all()
    } == {
        1: (
            "Cache the build graph",
            "superseded",
            "0001-cache-the-build-graph/README.md",
        ),
        2: ("Remote build workers", "accepted", "0002-remote-build-workers/README.md"),
    }
    # The link to the other folder's page is the record it names.
    assert relations() == [(2, Kind.SUPERSEDES, 1)]
    assert "is not in the folder or the record" not in report


def test_a_link_to_another_sub_folders_page_leads_to_its_record(tmp_path, client):
    first = "0001-cache-the-build-graph/README.md"
    files = {
        **SUB_FOLDERS,
        first: SUB_FOLDERS[first].replace(
            "skips it.",
            "skips it. See [the workers](../0002-remote-build-workers/README.md#summary).",
        ),
    }
    run(write_folder_deep(tmp_path / "rfcs", files), "--log", "RFCs")

    page = client.get(record(1).get_absolute_url()).content.decode()

    workers = record(2).get_absolute_url()
    assert f'href="{workers}"' in page
    assert f'href="{workers}#summary"' in page
    assert "README.md" not in page


# A catalogue of examples: a folder per decision, named by its words, with
# a README.md and an index.md of one text.
EXAMPLE = """# Decision record: Message broker

## Status

Decided. Open to revisiting when the volume grows.

## Decision

A managed queue.
"""


def test_a_sub_folders_readme_and_index_of_one_text_are_one_record(tmp_path):
    folder = write_folder_deep(
        tmp_path / "examples",
        {
            "message-broker/README.md": EXAMPLE,
            "message-broker/index.md": EXAMPLE,
            # Named as a decision by its title, its sections numbered.
            "log-storage/README.md": """## Architecture decision record: log storage

### 1. **Context**

Logs fill the disks.

### 2. **Options**

Object storage, or a search cluster.
""",
            "README.md": "# Examples\n\n* [Message broker](message-broker)\n",
        },
    )

    report = run(folder, "--log", "Examples")

    assert sorted(
        (d.title, d.status, d.source_name) for d in DecisionRecord.objects.all()
    ) == [
        ("Message broker", "accepted", "message-broker/README.md"),
        ("log storage", "", "log-storage/README.md"),
    ]
    assert (
        "message-broker/index.md: left out: the same text as message-broker/README.md"
        in report
    )


def write_folder_deep(path, files):
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text, encoding="utf-8")
    return path


# A French public service's folder: MADR 4 in French, files named by a
# timestamp.
FRENCH = {
    "20240516132303-utiliser-madr.md": """---
statut: accepté
date: 2024-05-16
décideurs: Aline, Bruno
---

# Utiliser MADR pour nos décisions

## Contexte et problématique

Nos choix techniques ne sont écrits nulle part.

## Décision

Chaque choix est une fiche MADR dans ce dossier.
""",
    "20240603162604-simuler-l-api.md": """---
statut: remplacé par [Enregistrer les réponses](20250110090000-enregistrer-les-reponses.md)
date: 2024-06-03
---

# Simuler l’API dans les tests

## Contexte et problématique

Les tests dépendent de l’ordre des requêtes.
""",
    "20250110090000-enregistrer-les-reponses.md": """---
statut: proposé
---

# Enregistrer les réponses de l’API

## Contexte et problématique

Les simulations écrites à la main vieillissent mal.
""",
}


def test_a_french_folder_named_by_timestamps_imports_whole(tmp_path):
    report = run(write_folder(tmp_path / "zlv", FRENCH), "--log", "ZLV")

    assert "Decision records: 3 created" in report
    assert {
        d.number: (d.title, d.status, d.decided_on)
        for d in DecisionRecord.objects.all()
    } == {
        1: ("Utiliser MADR pour nos décisions", "accepted", datetime.date(2024, 5, 16)),
        2: ("Simuler l’API dans les tests", "superseded", datetime.date(2024, 6, 3)),
        # Dated by its name, as a log4brains file is.
        3: (
            "Enregistrer les réponses de l’API",
            "proposed",
            datetime.date(2025, 1, 10),
        ),
    }
    assert relations() == [(3, Kind.SUPERSEDES, 2)]
    assert record(1).metadata == {"décideurs": "Aline, Bruno"}


# A pipelines project's enhancement proposals: front matter of their own
# (a slug for a title, statuses of their steps), headings "# TEP-0007: …",
# a section named Status about runs' statuses.
PROPOSALS = {
    "0007-conditions.md": """---
title: conditions
status: implementable
created: '2020-06-01'
---

# TEP-0007: Conditions

## Summary

A step runs only when its condition holds.

## Status

The status of a run lists every skipped step with its condition.
""",
    "0008-living-guide.md": """---
title: Style guide for proposals
status: Living
created: 2020-07-01
---

## Abstract

How a proposal is written, kept up to date as the project learns.

## Specification

Short sentences.
""",
    "0009-stalled.md": """---
title: stalled idea
status: stagnant
---

# TEP-0009: Stalled idea

Nobody took it further.
""",
}


def test_enhancement_proposals_statuses_and_sections_are_read(tmp_path):
    report = run(write_folder(tmp_path / "teps", PROPOSALS), "--log", "TEPs")

    assert {
        d.number: (d.title, d.status, d.status_text, d.decided_on)
        for d in DecisionRecord.objects.all()
    } == {
        7: ("conditions", "accepted", "implementable", datetime.date(2020, 6, 1)),
        8: (
            "Style guide for proposals",
            "accepted",
            "Living",
            datetime.date(2020, 7, 1),
        ),
        9: ("stalled idea", "proposed", "stagnant", None),
    }
    # The section about runs' statuses is the body's, whole.
    assert record(7).body == (
        "## Summary\n\nA step runs only when its condition holds.\n\n"
        "## Status\n\nThe status of a run lists every skipped step with its "
        "condition.\n"
    )
    # Under a front matter title, the first section is the body's.
    assert record(8).body.startswith("## Abstract\n\nHow a proposal is written")
    # The heading's number is the file's, and left out of the heading said.
    assert "the heading says 'Conditions'" in report


# Blockchain node ADRs: a changelog of dated entries, in the ways its
# authors wrote them over the years.
CHANGELOG = {
    "adr-001-light-client.md": """# ADR 001: Light client

## Changelog

- 2023/2/14: Review comments
- 2022/11/14: Initial draft

## Status

Accepted
""",
    "adr-002-mempool.md": """# ADR 002: Mempool

## Changelog

23-06-2018: Some minor fixes from review
13-06-2018: Initial draft

## Status

Proposed
""",
    "adr-003-rpc.md": """# ADR 003: RPC

## Changelog

- *2018-09-02* Remove the errors component
- 20-Aug-2018: Initial draft (@someone)

## Status

Accepted
""",
    "adr-004-created.md": """# ADR 004: Keep proposals in folders

**Creation date:** 2022-03-30

**Status:** implemented
""",
    "adr-005-heading.md": """# ADR 005: Log levels

## Date: 2025-03-20

## Decision

Four levels.
""",
    "adr-006-month-word.md": """# ADR 006: Feature selection

* Status: accepted
* Date: 2020-Nov-09
""",
    # A date key written as front matter writes it, in the body.
    "adr-008-key.md": """# ADR 008: Keys

last-updated: 2021-02-03
""",
    # No title line: the changelog is a section, not the title.
    "adr-007-untitled.md": """---
id: 7
---
## Changelog

- July 30, 2021: first draft

## Context

Nobody wrote a title.
""",
}


def test_dates_in_changelogs_and_other_lines_are_read(tmp_path):
    run(write_folder(tmp_path / "node", CHANGELOG), "--log", "Node")

    assert {d.number: d.decided_on for d in DecisionRecord.objects.all()} == {
        1: datetime.date(2022, 11, 14),
        2: datetime.date(2018, 6, 13),
        3: datetime.date(2018, 8, 20),
        4: datetime.date(2022, 3, 30),
        5: datetime.date(2025, 3, 20),
        6: datetime.date(2020, 11, 9),
        7: datetime.date(2021, 7, 30),
        8: datetime.date(2021, 2, 3),
    }
    assert record(7).body.startswith("## Changelog\n\n- July 30, 2021: first draft")
    # The changelog stays in the body, as written.
    assert record(2).body.startswith(
        "## Changelog\n\n23-06-2018: Some minor fixes from review\n"
    )
    assert record(5).body == "## Decision\n\nFour levels.\n"


# A platform team's records, rendered by a static site generator: setext
# headings, a supersession spelled their way to a page without ".md".
SETEXT = {
    "ADR031-ssl-only.html.md": """---
title: ADR031 - SSL only
---

# ADR031: SSL only

Context
-------

Plain HTTP leaks cookies.

Status
------

Superceeded by [ADR032](../ADR032-redirect-http)

Consequences
------------

Some old clients fail.
""",
    "ADR032-redirect-http.html.md": """# ADR032: Redirect HTTP

Status
======

Accepted
""",
}


def test_setext_status_headings_and_a_misspelt_supersession_are_read(tmp_path):
    run(write_folder(tmp_path / "paas", SETEXT), "--log", "PaaS")

    assert {d.number: d.status for d in DecisionRecord.objects.all()} == {
        31: "superseded",
        32: "accepted",
    }
    assert relations() == [(32, Kind.SUPERSEDES, 31)]
    assert record(31).body == (
        "Context\n-------\n\nPlain HTTP leaks cookies.\n\n"
        "Consequences\n------------\n\nSome old clients fail.\n"
    )


# Records written from a template whose guidance and choices were never
# filled in, beside one whose status is quoted.
TEMPLATES_LEFT = {
    "adr-010-untouched.md": """# ADR 010: Empty blocks

## Status

> A decision may be "proposed" if it has not been agreed upon yet.

{Deprecated|Proposed|Accepted|Declined}

## Context

Blocks with no transactions cost space.
""",
    "adr-011-quoted.md": """# ADR 011: Page ordering

## Status

> Accepted

## Context

Pages point at the next page.
""",
}


def test_a_templates_guidance_in_the_status_is_kept_and_no_status(tmp_path):
    report = run(write_folder(tmp_path / "node", TEMPLATES_LEFT), "--log", "Node")

    untouched, quoted = record(10), record(11)
    assert (untouched.status, untouched.status_text) == ("", "")
    assert untouched.status_history == (
        '> A decision may be "proposed" if it has not been agreed upon yet.\n\n'
        "{Deprecated|Proposed|Accepted|Declined}"
    )
    assert quoted.status == "accepted"
    assert "adr-010-untouched.md" not in report


@pytest.mark.parametrize(
    ("written", "order", "day"),
    [
        ("2020-4-15", None, datetime.date(2020, 4, 15)),
        ("2023/2/14", None, datetime.date(2023, 2, 14)),
        ("2020-Nov-09", None, datetime.date(2020, 11, 9)),
        ("20-Aug-2021", None, datetime.date(2021, 8, 20)),
        ("03.08.2022", written_dates.DAY_FIRST, datetime.date(2022, 8, 3)),
        ("2023-31-07", None, None),
    ],
)
def test_dates_written_year_first_or_with_a_months_word_are_read(written, order, day):
    assert written_dates.read_date(written, order) == day


@pytest.mark.parametrize(
    ("entry", "day"),
    [
        ("2022-03-03: Initial commit", datetime.date(2022, 3, 3)),
        ("*2018-09-02* Remove the errors component", datetime.date(2018, 9, 2)),
        ("20-Aug-2021: Initial draft", datetime.date(2021, 8, 20)),
    ],
)
def test_a_date_opening_an_entry_is_read(entry, day):
    assert written_dates.leading_date(entry)[0] == day


def test_a_body_status_the_front_matter_overrules_is_kept_as_history(tmp_path):
    folder = write_folder(
        tmp_path / "adr",
        {
            "0001-queues.md": """---
status: accepted
---

# Queues per tenant

## Status

Proposed, pending the load test.

## Context

Noisy neighbours.
""",
            # Both say accepted, in other words: the body's are kept too.
            "0002-shards.md": """---
status: accepted
---

# Shards per region

Status: Approved
""",
        },
    )

    report = run(folder, "--log", "Queues")

    decision = record(1)
    assert (decision.status, decision.status_history) == (
        "accepted",
        "Proposed, pending the load test.",
    )
    assert (record(2).status, record(2).status_history) == ("accepted", "Approved")
    assert "the front matter's status 'accepted' is taken" in report

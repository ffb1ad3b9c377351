"""Decision folders in the shapes real teams keep them, imported whole.

Each folder is written by the tests, in the shape of one team's folder: its
file names, its titles, where its status sits and how it is written, how its
dates are written. The records' words are our own.

- a citizen-science platform's: ``adr-01.md``, ``# ADR 1: …``, a bare date
  line under the title, the ``## Status`` section last;
- a government cloud platform's: ``000-Title-Words.md``, titles with and
  without a number (``# 21. …``, ``# 23 Logging``), ``Date: 01/06/2019``,
  statuses opening with an emoji and linking other records, dated update
  paragraphs under the status;
- a home automation project's: adr-tools titles and dates, a rule (``---``)
  after the status, a status that is a sentence with a link;
- a messaging library's: front matter over an adr-tools body, one record of
  100 KB with tables and diagrams beside small ones.
"""
# The folders' files keep the long lines their teams write.
# ruff: noqa: E501

import datetime
import io
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from catalogue.models import DecisionRecord, DecisionRelation
from tests.imports.test_madr_import import records, relations, write_folder

pytestmark = pytest.mark.django_db

Kind = DecisionRelation.Kind


def run(folder, *options):
    out = io.StringIO()
    call_command("import_decisions", str(folder), *options, stdout=out)
    return out.getvalue()


def record(number):
    return DecisionRecord.objects.get(number=number)


# A citizen-science platform's folder: adr-NN names, "# ADR N: Title", the
# day written out on the line under the title, the status section last.
CITIZEN_SCIENCE = {
    "adr-01.md": """# ADR 1: Keep a record of our choices

June 19, 2018

## Context

Volunteers and staff ask why the classification pipeline is built the way
it is, and nobody who made the early choices is still on the team.

## Decision

Each choice that shapes the platform gets a short file in this folder.

## Status

Accepted
""",
    "adr-02.md": """# ADR 2: Buffer classifications in Redis

July 3, 2018

## Context

A popular project launch sends thousands of classifications a minute, more
than the database takes at once.

## Decision

Classifications are pushed onto a Redis list and written in batches.

## Status

Superseded by [ADR 3](adr-03.md)
""",
    "adr-03.md": """# ADR 3: Stream classifications through a managed queue

October 22, 2018

## Context

A Redis failover lost an evening's classifications.

## Decision

Classifications go to a managed stream that keeps them for a week.

## Consequences

The batch writer reads the stream instead of the list.

## Status

Accepted
""",
}


def test_a_citizen_science_folder_imports_whole_with_its_dates_and_statuses(
    tmp_path,
):
    report = run(write_folder(tmp_path / "adrs", CITIZEN_SCIENCE))

    assert "Decision records: 3 created, 0 updated, 0 unchanged." in report
    assert records() == {
        1: (
            "Keep a record of our choices",
            "accepted",
            "",
            datetime.date(2018, 6, 19),
        ),
        2: (
            "Buffer classifications in Redis",
            "superseded",
            "",
            datetime.date(2018, 7, 3),
        ),
        3: (
            "Stream classifications through a managed queue",
            "accepted",
            "",
            datetime.date(2018, 10, 22),
        ),
    }
    assert relations() == [(3, Kind.SUPERSEDES, 2)]
    # The date line and the status section are fields now; the rest is the body.
    assert record(3).body == (
        "## Context\n\nA Redis failover lost an evening's classifications.\n\n"
        "## Decision\n\nClassifications go to a managed stream that keeps them for "
        "a week.\n\n## Consequences\n\nThe batch writer reads the stream instead of "
        "the list.\n"
    )


# A government cloud platform's folder: 000-Title-Words.md, titles with and
# without numbers, day-first dates, emoji statuses, dated update paragraphs.
JUNE_UPDATE = (
    "**June 2020 Update** After the spring incidents we looked at this again. "
    "Teams with heavy traffic asked for ingress controllers of their own, so that "
    "one noisy service cannot slow every other service behind a shared "
    "controller. The shared controllers stay for everyone else, and a team moves "
    "to its own when its traffic grows past what we are able to share fairly."
)
NOVEMBER_UPDATE = (
    "**November 2020 Update** The shared controllers now run on a node group of "
    "their own, sized for the busiest hour, and a team's own controller is made "
    "by a module it calls from its namespace's folder. We review this when the "
    "next cluster is built: the ingress class names change with it, and teams "
    "will have to change their annotations."
)
CLOUD_PLATFORM = {
    "000-Record-Architecture-Decisions.md": """# Record Architecture Decisions

Date: 01/06/2019

## Status

✅ Accepted

## Context

We make our choices in the open, where service teams can read them.
""",
    "018-Dedicated-Ingress-Controllers.md": f"""# 18. Dedicated Ingress Controllers

Date: 21/06/2019

## Status

✅ Accepted

{JUNE_UPDATE}

{NOVEMBER_UPDATE}

## Context

Every service shares two ingress controllers.
""",
    "019-Shared-Ingress-Controllers.md": """# 19. Shared Ingress Controllers

Date: 03/07/2019

## Status

✅ Accepted

## Context

Most services are small.
""",
    "020-Service-Mesh.md": """# 20. Service Mesh

Date: 05/08/2019

## Status

❌ Rejected (see [019](019-Shared-Ingress-Controllers.md))

## Context

A mesh would give every service mutual TLS.
""",
    "021-Multi-cluster.md": """# 21. Multi-cluster

Date: 11/05/2021

## Status

⌛️ Superseded by [036. Multi-cluster](036-multi-cluster.md)

## What’s proposed

We run service teams’ apps on more than one cluster.
""",
    "023-Logging.md": """# 23 Logging

Date: 11/11/2024

## Status

✅ Accepted

## Context

Logs cost more to keep than they are read.
""",
    "036-Multi-cluster.md": """# 36. Multi-cluster

Date: 02/03/2022

## Status

✅ Accepted

## Decision

Apps run on several clusters, each in its own account.
""",
    "README.md": """# Architecture Decision Records

- [Record Architecture Decisions](000-Record-Architecture-Decisions.md)
- [Multi-cluster](036-Multi-cluster.md)
""",
}


def import_cloud_platform(tmp_path, files=CLOUD_PLATFORM):
    return run(write_folder(tmp_path / "adr", files), "--log", "Cloud Platform")


def test_a_cloud_platform_folder_imports_whole_reading_its_dates_day_first(
    tmp_path,
):
    report = import_cloud_platform(tmp_path)

    # 21/06/2019 and 11/11/2024's neighbours show the folder writes the day
    # first: 01/06/2019 is the first of June.
    assert "Decision records: 7 created, 0 updated, 0 unchanged." in report
    assert records() == {
        0: (
            "Record Architecture Decisions",
            "accepted",
            "✅ Accepted",
            datetime.date(2019, 6, 1),
        ),
        18: (
            "Dedicated Ingress Controllers",
            "accepted",
            "✅ Accepted",
            datetime.date(2019, 6, 21),
        ),
        19: (
            "Shared Ingress Controllers",
            "accepted",
            "✅ Accepted",
            datetime.date(2019, 7, 3),
        ),
        20: (
            "Service Mesh",
            "rejected",
            "❌ Rejected (see [019](019-Shared-Ingress-Controllers.md))",
            datetime.date(2019, 8, 5),
        ),
        21: ("Multi-cluster", "superseded", "", datetime.date(2021, 5, 11)),
        23: ("Logging", "accepted", "✅ Accepted", datetime.date(2024, 11, 11)),
        36: ("Multi-cluster", "accepted", "✅ Accepted", datetime.date(2022, 3, 2)),
    }
    # The lowercase link names 036-Multi-cluster.md; "see 019" relates them.
    assert relations() == [
        (19, Kind.RELATES_TO, 20),
        (36, Kind.SUPERSEDES, 21),
    ]


def test_a_status_sections_dated_updates_are_its_history_whole(tmp_path):
    report = import_cloud_platform(tmp_path)

    assert "7 created" in report
    ingress = record(18)
    assert (ingress.status, ingress.status_text) == ("accepted", "✅ Accepted")
    assert len(JUNE_UPDATE) + len(NOVEMBER_UPDATE) > 500
    assert ingress.status_history == f"{JUNE_UPDATE}\n\n{NOVEMBER_UPDATE}"
    assert ingress.body == (
        "## Context\n\nEvery service shares two ingress controllers.\n"
    )


def test_slashed_dates_no_date_of_the_folder_orders_are_kept_as_written(
    tmp_path,
):
    files = {
        "000-Record-Architecture-Decisions.md": CLOUD_PLATFORM[
            "000-Record-Architecture-Decisions.md"
        ],
        "019-Shared-Ingress-Controllers.md": CLOUD_PLATFORM[
            "019-Shared-Ingress-Controllers.md"
        ],
    }

    report = import_cloud_platform(tmp_path, files)

    assert "Decision records: 2 created, 0 updated, 0 unchanged." in report
    assert {number: decided for number, (*_, decided) in records().items()} == {
        0: None,
        19: None,
    }
    assert (
        "000-Record-Architecture-Decisions.md, line 3: date '01/06/2019' may be day "
        "first or month first, and no date of the folder tells which; kept in the "
        "text"
    ) in report
    assert record(0).body == (
        "Date: 01/06/2019\n\n## Context\n\nWe make our choices in the open, where "
        "service teams can read them.\n"
    )
    assert record(19).body.startswith("Date: 03/07/2019\n\n")


def test_an_iso_date_in_the_folder_does_not_tell_how_slashed_dates_are_written(
    tmp_path,
):
    # 2024-11-11 holds "24-11-11", which is no day-first date of the folder.
    files = {
        "001-First.md": "# 1. First\n\nDate: 06/01/2019\n\n## Status\n\nAccepted\n",
        "002-Second.md": "# 2. Second\n\nDate: 2024-11-11\n\n## Status\n\nAccepted\n",
    }

    import_cloud_platform(tmp_path, files)

    assert record(1).decided_on is None
    assert record(1).body == "Date: 06/01/2019\n"
    assert record(2).decided_on == datetime.date(2024, 11, 11)


def test_a_logs_page_lists_a_cloud_platform_folders_records_by_status(tmp_path, client):
    import_cloud_platform(tmp_path)
    page = reverse("catalogue:log-decision-list", kwargs={"log": "cloud-platform"})

    def listed(status):
        response = client.get(page, {"status": status})
        assert response.status_code == 200
        return [decision.number for decision in response.context["decisions"]]

    assert listed("accepted") == [0, 18, 19, 23, 36]
    assert listed("superseded") == [21]
    assert listed("rejected") == [20]


def test_a_superseded_records_page_leads_to_the_record_superseding_it(tmp_path, client):
    import_cloud_platform(tmp_path)
    successor = record(36).get_absolute_url()

    response = client.get(record(21).get_absolute_url())

    assert response.status_code == 200
    page = response.content.decode()
    assert f'<a href="{successor}">ADR-036</a>' in page
    assert 'href="036-multi-cluster.md"' not in page


def test_status_link_on_the_record_page_leads_to_the_record_not_its_file_name(
    tmp_path, client
):
    import_cloud_platform(tmp_path)
    named = record(19).get_absolute_url()

    response = client.get(record(20).get_absolute_url())

    assert response.status_code == 200
    page = response.content.decode()
    assert 'href="019-Shared-Ingress-Controllers.md"' not in page
    # The status's own link, its other attributes as the page gives them.
    assert re.search(rf'<a href="{re.escape(named)}"[^>]*>019</a>', page)


# A home automation project's folder: adr-tools titles and dates, a rule
# after the status, a status written as a sentence over two paragraphs.
HOME_AUTOMATION = {
    "0007-integration-yaml-under-its-domain.md": """# 7. Integration YAML under its own domain

Date: 2020-04-05

## Status

Accepted

---

## Context

An integration's settings may sit under its domain or under each platform.

## Decision

New integrations put their settings under their domain.
""",
    "0009-keep-removed-yaml-keys.md": """# 9. Keep removed YAML keys readable

Date: 2020-06-01

## Status

Reverted by [discussion #1198](https://example.org/d/1198).

Second paragraph.

## Context

Removing a key breaks people's configuration on upgrade.
""",
}


def test_a_home_automation_folder_reads_a_rule_after_the_status_as_nothing(
    tmp_path,
):
    report = run(write_folder(tmp_path / "adr", HOME_AUTOMATION))

    assert "Decision records: 2 created, 0 updated, 0 unchanged." in report
    decision = record(7)
    assert (decision.title, decision.decided_on) == (
        "Integration YAML under its own domain",
        datetime.date(2020, 4, 5),
    )
    assert (decision.status, decision.status_text, decision.status_history) == (
        "accepted",
        "",
        "",
    )
    assert decision.body == (
        "## Context\n\nAn integration's settings may sit under its domain or under "
        "each platform.\n\n## Decision\n\nNew integrations put their settings under "
        "their domain.\n"
    )
    assert not [
        name
        for name in ("title", "status_text", "status_history", "body")
        if "---" in getattr(decision, name)
    ]


def test_a_status_sentence_is_kept_as_written_with_its_history(tmp_path):
    run(write_folder(tmp_path / "adr", HOME_AUTOMATION))

    decision = record(9)
    assert (decision.title, decision.decided_on) == (
        "Keep removed YAML keys readable",
        datetime.date(2020, 6, 1),
    )
    assert decision.status == "deprecated"
    assert decision.status_text == (
        "Reverted by [discussion #1198](https://example.org/d/1198)."
    )
    assert decision.status_history == "Second paragraph."
    assert ".;" not in decision.status_text
    assert relations() == []


# A messaging library's folder: front matter above adr-tools bodies, and one
# record of 100 KB (the longest of its kind the library keeps is near that).
def long_body():
    sections = []
    for part in range(1, 91):
        rows = "\n".join(
            f"| `Transport{part}.{row}` | {row * part} ms | {'✓' if row % 2 else '✗'} | “{part}/{row}” |"
            for row in range(1, 9)
        )
        sections.append(
            f"""### {part}. Pipeline step {part}

The pump hands message {part} to its handler chain — retry, then the
circuit breaker, then the handler — and acknowledges it when the chain
returns. A handler that throws leaves the message for the backstop.

| Step | Latency | Async | Note |
|------|--------:|:-----:|------|
{rows}

```text
   ┌──────────────┐      ┌──────────────┐
   │ Reactor {part:>4} │ ───▶ │ Handler {part:>4} │
   └──────────────┘      └──────────────┘
# not a heading: it is inside the fence
Status: not a status either
```

- Requeue after {part * 5} s, at most {part % 7 + 1} times.
- Publish with `Deposit()` then `ClearOutbox()` — never `Post()` inside a
  transaction.
"""
        )
    return (
        "## Context\n\n"
        + "\n".join(sections)
        + "\n## Decision\n\nWe validate pipelines at startup.\n"
    )


LONG_BODY = long_body()
MESSAGING = {
    "0001-record-architecture-decisions.md": """---
id: 1
title: Record Architecture Decisions
status: Accepted
created: 2019-02-12
tags: [process]
---
# 1. Record Architecture Decisions

Date: 2019-02-12

## Status

Accepted

## Context

We need to record the decisions made on this project.
""",
    "0022-validate-pipelines-at-startup.md": f"""---
id: 22
title: Validate Pipelines at Startup
status: Accepted
created: 2023-05-11
tags: [messaging, diagnostics]
---
# 22. Validate Pipelines at Startup

{LONG_BODY}""",
    "0023-scheduler-delay.md": """---
id: 23
title: Scheduler Delay
status: Proposed
created: 2023-06-02
tags: [scheduling]
---
# 23. Scheduler Delay

## Context

Delayed sends need a scheduler.
""",
}


def test_a_folder_with_a_100_kb_record_imports_whole_keeping_it_exactly(
    tmp_path, client
):
    assert 100_000 <= len(LONG_BODY.encode()) < 120_000

    report = run(write_folder(tmp_path / "adr", MESSAGING), "--log", "Brighter")

    assert "Decision records: 3 created, 0 updated, 0 unchanged." in report
    assert records() == {
        1: (
            "Record Architecture Decisions",
            "accepted",
            "",
            datetime.date(2019, 2, 12),
        ),
        22: (
            "Validate Pipelines at Startup",
            "accepted",
            "",
            datetime.date(2023, 5, 11),
        ),
        23: ("Scheduler Delay", "proposed", "", datetime.date(2023, 6, 2)),
    }
    long = record(22)
    assert long.body.encode() == LONG_BODY.encode()
    assert long.metadata == {"id": 22, "tags": ["messaging", "diagnostics"]}
    response = client.get(long.get_absolute_url())
    assert response.status_code == 200
    page = response.content.decode()
    assert page.count("<table>") == 90
    assert "We validate pipelines at startup." in page


def test_a_record_titled_only_in_its_front_matter_has_its_status_section_read(
    tmp_path,
):
    # Sites built from the folder (Jekyll, Docusaurus) take the title from the
    # front matter, so the file's headings start at ##.
    files = {
        **MESSAGING,
        "0024-schedule-with-the-transport.md": """---
id: 24
title: Schedule with the Transport
created: 2023-07-19
tags: [scheduling]
---

## Status

Accepted

## Context

Most transports can delay a message themselves.
""",
    }

    report = run(write_folder(tmp_path / "adr", files), "--log", "Brighter")

    assert "Decision records: 4 created, 0 updated, 0 unchanged." in report
    assert records()[24] == (
        "Schedule with the Transport",
        "accepted",
        "",
        datetime.date(2023, 7, 19),
    )
    assert record(24).body == (
        "## Context\n\nMost transports can delay a message themselves.\n"
    )


def test_a_file_named_by_its_date_with_no_title_line_is_titled_by_its_words(
    tmp_path,
):
    files = {
        **CITIZEN_SCIENCE,
        "2022-07-21-format-with-prettier.md": (
            "## Status\n\nAccepted\n\n## Context\n\nReviews argue about commas.\n"
        ),
    }

    report = run(write_folder(tmp_path / "adrs", files))

    assert "Decision records: 4 created, 0 updated, 0 unchanged." in report
    # Numbered after the folder's highest number.
    assert records()[4] == (
        "Format with prettier",
        "accepted",
        "",
        datetime.date(2022, 7, 21),
    )

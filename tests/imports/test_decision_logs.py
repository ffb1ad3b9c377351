"""Decision logs: each team's folder a log of its own, named at import, with
its own numbers and pages; the record's own decisions (the preface's
ADR-026) are never taken over. And folders as teams really write them:
numbers used twice, adr-NNN names at a folder's root, front matter that is
not a mapping, YAML front matter above an adr-tools body, no decision file
at all. Every folder here is written by the tests, in those shapes."""
# The folders' files keep the long lines their tools write.
# ruff: noqa: E501

import csv
import io
import json
from urllib.parse import urlencode

import pytest
from django.core.management import CommandError, call_command

from catalogue.models import DecisionLog, DecisionRecord, DecisionRelation, Reference
from formats import exports
from tests.factories import DecisionRecordFactory, png_bytes
from tests.html import soup_of
from tests.imports.test_madr_import import write_folder

pytestmark = pytest.mark.django_db


def run(folder, *options):
    out = io.StringIO()
    call_command("import_decisions", str(folder), *options, stdout=out)
    return out.getvalue()


def refused(folder, *options):
    with pytest.raises(CommandError) as raised:
        run(folder, *options)
    return str(raised.value)


# A team's folder that has an ADR-026 of its own, which names its ADR-027.
GOVUK = {
    "0026-use-terraform-workspaces.md": """# 26. Use Terraform workspaces

Date: 2019-03-12

## Status

Accepted

## Context

One state file per environment; see ADR-027.
""",
    "0027-split-the-state.md": """# 27. Split the state

Date: 2019-04-02

## Status

Accepted

## Context

Plans take too long.
""",
}


def test_a_team_folder_never_changes_what_the_records_own_references_lead_to(
    imported_seed, client, committed, tmp_path
):
    own = DecisionRecordFactory(number=26, title="Twenty-eight kinds of claim")
    index_before = client.get("/").content.decode()
    client.get("/")  # cached

    # The import expires every page as it commits: the index is made again.
    with committed():
        run(write_folder(tmp_path / "govuk", GOVUK), "--log", "GOV.UK AWS")

    index = client.get("/").content.decode()
    assert index == index_before
    assert 'href="/decisions/ADR-026/">ADR-026</a>' in index
    assert client.get("/decisions/ADR-026/").context["decision"] == own
    team = DecisionLog.objects.get(slug="govuk-aws")
    theirs = DecisionRecord.objects.get(log=team, number=26)
    assert theirs.get_absolute_url() == "/decisions/govuk-aws/ADR-026/"
    page = client.get("/decisions/govuk-aws/ADR-026/").content.decode()
    # Their ADR-027 is theirs.
    assert 'href="/decisions/govuk-aws/ADR-027/">ADR-027</a>' in page
    # The seed's documents naming ADR-032 and its preface's ADR-026 still name
    # the record's own log.
    assert set(
        Reference.objects.filter(document__isnull=False, prefix="ADR").values_list(
            "log__is_own", flat=True
        )
    ) == {True}
    assert [str(r) for r in theirs.references.all()] == ["ADR-027"]
    assert theirs.references.get().log == team


def test_the_same_folder_into_its_log_twice_changes_nothing(tmp_path):
    folder = write_folder(tmp_path / "govuk", GOVUK)
    run(folder, "--log", "GOV.UK AWS")

    report = run(folder, "--log", "gov.uk aws")

    assert "0 created, 0 updated, 2 unchanged" in report
    assert DecisionLog.objects.count() == 1
    assert DecisionLog.objects.get().format == "adr-tools"


def test_two_logs_number_alike_and_keep_their_own_pages(tmp_path, client):
    run(write_folder(tmp_path / "a", GOVUK), "--log", "Payments")
    run(write_folder(tmp_path / "b", GOVUK), "--log", "Search team", "--prefix", "SRCH")

    assert DecisionRecord.objects.filter(number=26).count() == 2
    assert client.get("/decisions/payments/ADR-026/").status_code == 200
    page = client.get("/decisions/search-team/SRCH-026/").content.decode()
    assert "SRCH-026" in page
    assert client.get("/decisions/search-team/ADR-026/").status_code == 404
    index = client.get("/decisions/payments/").content.decode()
    assert 'href="/decisions/search-team/">Search team</a>' in index


# Records written on parallel branches: two 0064s, which name each other by
# file, and a 0065 that names both.
TWINS = {
    "0063-cache-dependencies.md": "# 63. Cache dependencies\n\nDate: 2021-01-04\n\n## Status\n\nAccepted\n",
    "0064-pipeline-cache-type-key.md": """# 64. Pipeline cache type key

Date: 2021-02-01

## Status

Accepted

## Context

Written beside [the runner images](0064-use-the-runner-images.md).
""",
    "0064-use-the-runner-images.md": """# 64. Use the runner images

Date: 2021-02-02

## Status

Accepted

## Context

Written beside [the cache key](0064-pipeline-cache-type-key.md).
""",
    "0065-both.md": """# 65. Both

Date: 2021-03-01

## Status

Accepted

Amends [64. Pipeline cache type key](0064-pipeline-cache-type-key.md)

Amends [64. Use the runner images](0064-use-the-runner-images.md)
""",
}


def test_a_number_used_twice_imports_both_files_at_stable_addresses(tmp_path, client):
    folder = write_folder(tmp_path / "ci", TWINS)

    report = run(folder, "--log", "CI")

    twins = DecisionRecord.objects.filter(number=64).order_by("twin")
    assert [(d.label, d.source_name) for d in twins] == [
        ("ADR-064", "0064-pipeline-cache-type-key.md"),
        ("ADR-064 (2)", "0064-use-the-runner-images.md"),
    ]
    assert [d.get_absolute_url() for d in twins] == [
        "/decisions/ci/ADR-064/",
        "/decisions/ci/ADR-064/2/",
    ]
    assert (
        "0064-use-the-runner-images.md: number 64 is also "
        "0064-pipeline-cache-type-key.md's: a record of its own, the number's second"
    ) in report
    assert "4 created" in report
    first = client.get("/decisions/ci/ADR-064/").content.decode()
    second = client.get("/decisions/ci/ADR-064/2/").content.decode()
    link = 'href="{}" rel="noopener noreferrer">{}</a>'
    assert link.format("/decisions/ci/ADR-064/2/", "the runner images") in first
    assert link.format("/decisions/ci/ADR-064/", "the cache key") in second
    assert "ADR-064 (2)" in second
    assert sorted(
        (r.source.label, r.kind, r.target.label) for r in DecisionRelation.objects.all()
    ) == [
        ("ADR-065", "amends", "ADR-064"),
        ("ADR-065", "amends", "ADR-064 (2)"),
    ]
    # The same folder again: the same records at the same places.
    assert "0 created, 0 updated, 4 unchanged" in run(folder, "--log", "CI")
    assert [d.pk for d in twins] == [
        d.pk for d in DecisionRecord.objects.filter(number=64).order_by("twin")
    ]


# adr-tools at a repository's root: adr-NNN names beside the project's files.
ROOT_FOLDER = {
    "LICENSE.txt": "MIT License\n",
    "README.md": "# Module loader\n\nSee the decisions.\n",
    "adr-001-use-adrs.md": """# Architecture Decision Record: Use ADRs

## Status

Accepted.

## Context

Decisions get lost.
""",
    "ADR-004-module-loading.md": """# Architecture Decision Record: Module Structure & Loading

## Status

Proposed

## Context

Modules load in order; see adr-001-use-adrs.md.
""",
}


def test_adr_nnn_names_at_a_folders_root_are_decisions(tmp_path):
    report = run(write_folder(tmp_path / "loader", ROOT_FOLDER), "--log", "Loader")

    assert [
        (d.number, d.title, d.status, d.status_text)
        for d in DecisionRecord.objects.order_by("number")
    ] == [
        (1, "Use ADRs", "accepted", ""),
        (4, "Module Structure & Loading", "proposed", ""),
    ]
    assert "2 created" in report


# A team's own tagging convention on every file, over adr-tools titles.
TAGGED = {
    "0022-server-side-rendering.md": "---\ntag:Web Client\n---\n# 22. Server-Side Rendering\n\nDate: 2020-06-01\n\n## Status\n\nAccepted\n\n## Context\n\nFirst paint.\n",
    "0030-add-a-mediator.md": "---\ntag:Messaging\n---\n# 30. Add a Mediator to Brighter \n\nDate: 2020-07-01\n\n## Status\n\nAccepted\n",
}


def test_front_matter_that_is_not_a_mapping_is_read_and_kept_as_written(
    tmp_path, client
):
    report = run(write_folder(tmp_path / "brighter", TAGGED), "--log", "Brighter")

    records = {d.number: d for d in DecisionRecord.objects.all()}
    assert records[22].title == "Server-Side Rendering"
    assert records[30].title == "Add a Mediator to Brighter"
    assert records[22].metadata == {
        "tag": "Web Client",
        "front-matter": "tag:Web Client",
    }
    assert (
        "0022-server-side-rendering.md, line 2: the front matter is not a mapping "
        "(key: value); read as tag 'Web Client', and kept as written"
    ) in report
    page = client.get("/decisions/brighter/ADR-022/").content.decode()
    assert "<dt>Tag</dt><dd>Web Client</dd>" in page


# YAML front matter that a team's tooling adds above an adr-tools body which
# restates the title, the date and the status.
FRONT_OVER_BODY = {
    "0005-queue-per-tenant.md": """---
id: 5
title: One queue per tenant
status: accepted
author: Priya
created: 2023-05-02
summary: Tenants stop starving each other.
tags: [queues, tenancy]
---
# 5. A queue per tenant

Date: 2023-05-01

## Status

Proposed

## Context

Noisy neighbours.
""",
}


def test_front_matter_wins_over_the_body_with_a_note_where_they_disagree(tmp_path):
    report = run(write_folder(tmp_path / "queues", FRONT_OVER_BODY), "--log", "Queues")

    decision = DecisionRecord.objects.get()
    assert (decision.title, decision.status, str(decision.decided_on)) == (
        "One queue per tenant",
        "accepted",
        "2023-05-02",
    )
    assert decision.metadata == {
        "id": 5,
        "author": "Priya",
        "summary": "Tenants stop starving each other.",
        "tags": ["queues", "tenancy"],
    }
    assert decision.body == "## Context\n\nNoisy neighbours.\n"
    for said in [
        "the front matter's title 'One queue per tenant' is taken; the heading says 'A queue per tenant'",
        "the front matter's status 'accepted' is taken; the body says 'Proposed'",
        "the front matter's date 2023-05-02 is taken; the body says 2023-05-01",
    ]:
        assert said in report


@pytest.mark.parametrize(
    "files",
    [
        {},
        {"README.md": "# Decisions\n", "LICENSE.txt": "MIT\n", "notes.md": "# Notes\n"},
    ],
    ids=["empty", "no-decision-file"],
)
def test_a_folder_without_a_decision_file_is_refused_naming_what_was_looked_for(
    tmp_path, files
):
    folder = write_folder(tmp_path / "adr", files)

    message = refused(folder, "--log", "Nobody's")

    assert message.splitlines() == [
        f"Nothing was imported from {folder}:",
        "adr: holds no decision file: looked for NNNN-title.md "
        "(0001-use-markdown.md), adr-NNN.md or ADR-NNN-title.md "
        "(adr-001-use-adrs.md), YYYYMMDD-title.md (20200925-use-prettier.md), or "
        "any name, for a file with a status or a Context or Decision section",
    ]
    assert not DecisionLog.objects.exists()


def test_a_log_whose_address_another_has_is_refused(tmp_path):
    run(write_folder(tmp_path / "a", GOVUK), "--log", "GOV.UK AWS")

    message = refused(write_folder(tmp_path / "b", TAGGED), "--log", "GOVUK AWS")

    assert message == (
        f"Nothing was imported from {tmp_path / 'b'}: The log “GOV.UK AWS” has the "
        "address /decisions/govuk-aws/ already: import into “GOV.UK AWS”, or give "
        "the log another name."
    )
    assert DecisionLog.objects.count() == 1


def state():
    """Every log, and every record's content and place, by log and number."""
    return {
        "logs": sorted(
            DecisionLog.objects.values_list(
                "name", "slug", "prefix", "format", "is_own"
            )
        ),
        "records": sorted(
            (
                d.log.slug,
                d.number,
                d.twin,
                d.source_name,
                d.source_digest,
                d.is_public,
                json.dumps(d.content(), sort_keys=True, default=str),
            )
            for d in DecisionRecord.objects.all()
        ),
        "relations": sorted(
            (r.source.log.slug, r.source.label, r.kind, r.target.label)
            for r in DecisionRelation.objects.all()
        ),
    }


def test_import_export_import_into_an_empty_record_gives_the_same_logs(tmp_path):
    run(write_folder(tmp_path / "own", GOVUK))
    run(write_folder(tmp_path / "ci", TWINS), "--log", "CI")
    run(
        write_folder(tmp_path / "brighter", TAGGED),
        "--log",
        "Brighter",
        "--prefix",
        "BR",
    )
    run(write_folder(tmp_path / "queues", FRONT_OVER_BODY), "--log", "Queues")
    run(write_folder(tmp_path / "loader", ROOT_FOLDER), "--log", "Loader")
    before = state()

    call_command("export_decisions", str(tmp_path / "out"), stdout=io.StringIO())
    DecisionRelation.objects.all().delete()
    DecisionRecord.objects.all().delete()
    DecisionLog.objects.all().delete()
    run(tmp_path / "out")

    assert state() == before
    assert len(before["logs"]) == 5
    listed = json.loads((tmp_path / "out" / "decision-logs.json").read_text())
    assert [(entry["name"], entry["folder"]) for entry in listed] == [
        ("The anthology", "."),
        ("Brighter", "brighter"),
        ("CI", "ci"),
        ("Loader", "loader"),
        ("Queues", "queues"),
    ]


def test_a_logs_pages_read_before_a_reimport_show_the_change(
    tmp_path, client, committed
):
    folder = write_folder(tmp_path / "govuk", GOVUK)
    run(folder, "--log", "GOV.UK AWS")
    pages = [
        "/decisions/govuk-aws/",
        "/decisions/govuk-aws/?status=accepted",
        "/decisions/govuk-aws/ADR-026/",
        "/decisions/govuk-aws/feed/",
    ]
    for path in pages:
        client.get(path)
        assert "Use Terraform workspaces" in client.get(path).content.decode()
    renamed = GOVUK["0026-use-terraform-workspaces.md"].replace(
        "# 26. Use Terraform workspaces", "# 26. Use one workspace per account"
    )
    (folder / "0026-use-terraform-workspaces.md").write_text(renamed, encoding="utf-8")

    with committed():
        run(folder, "--log", "GOV.UK AWS")

    for path in pages:
        page = client.get(path).content.decode()
        assert "Use one workspace per account" in page, path
        assert "Use Terraform workspaces" not in page, path


def test_a_logs_index_filters_by_status(tmp_path, client):
    files = {
        **GOVUK,
        "0028-drop-the-bastion.md": "# 28. Drop the bastion\n\n## Status\n\nRejected\n",
        "0029-undecided.md": "# 29. Undecided\n",
        "0030-pin-the-runners.md": "# 30. Pin the runners\n\n## Status\n\nParked until [the review](https://github.com/alphagov/govuk-aws/issues/1492)\n",
        "0031-drop-nat.md": "# 31. Drop the NAT gateways\n\n## Status\n\nApproved\n",
    }
    run(write_folder(tmp_path / "govuk", files), "--log", "GOV.UK AWS")
    parked = (
        "Parked until [the review](https://github.com/alphagov/govuk-aws/issues/1492)"
    )

    def listed(query):
        page = soup_of(client.get(f"/decisions/govuk-aws/{query}"))
        return [cell.get_text() for cell in page.select("td.label")]

    def offered(query=""):
        page = soup_of(client.get(f"/decisions/govuk-aws/{query}"))
        return [
            (option["value"], option.get_text(), option.has_attr("selected"))
            for option in page.select("#status-filter option")
        ]

    # What the log's records state: ours in their order, "Approved" read as
    # accepted, then those kept only as written.
    assert offered() == [
        ("", "Any", False),
        ("none", "Not stated", False),
        ("accepted", "Accepted", False),
        ("rejected", "Rejected", False),
        (parked, "Parked until the review", False),
    ]
    assert listed("") == [
        "ADR-026",
        "ADR-027",
        "ADR-028",
        "ADR-029",
        "ADR-030",
        "ADR-031",
    ]
    assert listed("?status=accepted") == ["ADR-026", "ADR-027", "ADR-031"]
    assert listed("?status=rejected") == ["ADR-028"]
    assert listed("?status=none") == ["ADR-029"]
    assert listed(f"?{urlencode({'status': parked})}") == ["ADR-030"]
    # One of ours that no record states finds none, and stays chosen.
    assert listed("?status=deprecated") == []
    assert ("deprecated", "Deprecated", True) in offered("?status=deprecated")
    assert client.get("/decisions/govuk-aws/?status=maybe").status_code == 400
    assert client.get("/decisions/govuk-aws/?status=Parked").status_code == 400
    assert client.get("/decisions/nobody/").status_code == 404


def test_a_twins_image_is_served_at_its_own_address(tmp_path, client):
    files = dict(TWINS)
    files["0064-use-the-runner-images.md"] += "\n![The runners](img/runners.png)\n"
    folder = write_folder(tmp_path / "ci", files)
    (folder / "img").mkdir()
    (folder / "img" / "runners.png").write_bytes(png_bytes(width=30, height=10))
    run(folder, "--log", "CI")

    page = client.get("/decisions/ci/ADR-064/2/").content.decode()
    image = client.get("/decisions/ci/ADR-064/2/images/img/runners.png")

    assert 'src="/decisions/ci/ADR-064/2/images/img/runners.png?v=' in page
    assert (image.status_code, image["Content-Type"]) == (200, "image/png")
    assert image.content == png_bytes(width=30, height=10)
    assert client.get("/decisions/ci/ADR-064/images/img/runners.png").status_code == 404
    assert client.get("/decisions/ADR-064/2/images/img/runners.png").status_code == 404


def test_the_decision_records_csv_names_each_records_log(tmp_path):
    DecisionRecordFactory(number=26, title="Ours")
    run(write_folder(tmp_path / "ci", TWINS), "--log", "CI")

    rows = list(
        csv.reader(
            io.StringIO(
                b"".join(
                    exports.decision_record_chunks(DecisionRecord.objects.all())
                ).decode()
            )
        )
    )

    assert [row[:4] for row in rows] == [
        ["identifier", "log", "number", "title"],
        ["ADR-026", "anthology", "26", "Ours"],
        ["ADR-063", "ci", "63", "Cache dependencies"],
        ["ADR-064", "ci", "64", "Pipeline cache type key"],
        ["ADR-064 (2)", "ci", "64", "Use the runner images"],
        ["ADR-065", "ci", "65", "Both"],
    ]


def test_a_log_may_not_take_the_address_of_the_records_own_feed(tmp_path):
    message = refused(write_folder(tmp_path / "a", GOVUK), "--log", "Feed")

    assert message.endswith(
        "“Feed” would have the address /decisions/feed/, which is the record's own "
        "log's: give the log another name."
    )
    assert not DecisionLog.objects.exists()

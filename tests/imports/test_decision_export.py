"""export_decisions writes every decision log back in the shape it was read
in (MADR, MADR 2, adr-tools); importing them into an empty record gives the
same logs and records."""

import io

import pytest
from django.core.management import call_command

from catalogue.models import DecisionImage, DecisionRecord, DecisionRelation
from tests.factories import DecisionRecordFactory, png_bytes
from tests.imports.test_madr_import import (
    ADR_TOOLS,
    LOG4BRAINS,
    MADR_2,
    MADR_4,
    run,
    write_folder,
)

pytestmark = pytest.mark.django_db

# Statuses, relations and images a team's folder holds besides the formats'.
MIXED = {
    "0001-approved.md": "# `Approved` status\n\n* Status: Approved\n\n"
    "![A diagram, drawn](img/diagram.png)\n\nSee [the hold](0002-on-hold.md).\n",
    "0002-on-hold.md": "---\nstatus: on hold\ninformed: [Ops]\n---\n# On hold\n\n"
    "| left | right |\n|:-----|------:|\n| a | b |\n",
    "0003-partly.md": "# 3. Partly\n\n## Status\n\nPartly superseded\n\n"
    "Amends [1. Approved](0001-approved.md)\n\n"
    "Relates to [2. On hold](0002-on-hold.md)\n",
    "0004-linked.md": "---\nstatus: '[Accepted](https://example.org/pull/541)'\n"
    "date: 2024-05-01\n---\n# Linked\n\n<!-- optional -->\nText.\n",
    "0005-odd-date.md": "---\ndate: sometime in May\n---\n# Odd date\n",
}


def state():
    """Every record's content, name, relations and images, by number."""
    return {
        "records": [
            (d.number, d.source_name, d.source_digest, d.is_public, d.content())
            for d in DecisionRecord.objects.all()
        ],
        "relations": sorted(
            (r.source.number, r.kind, r.target.number)
            for r in DecisionRelation.objects.select_related("source", "target")
        ),
        "images": [
            (i.decision.number, i.name, i.content_type, bytes(i.data), i.digest)
            for i in DecisionImage.objects.select_related("decision")
        ],
    }


def export(folder):
    out = io.StringIO()
    call_command("export_decisions", str(folder), stdout=out)
    return out.getvalue()


@pytest.mark.parametrize(
    "files",
    [ADR_TOOLS, MADR_2, MADR_4, LOG4BRAINS, MIXED],
    ids=["adr-tools", "madr-2", "madr-4", "log4brains", "mixed"],
)
def test_import_export_import_into_an_empty_record_gives_the_same_records(
    tmp_path, files
):
    source = write_folder(tmp_path / "team", files)
    (source / "img").mkdir()
    (source / "img" / "diagram.png").write_bytes(png_bytes())
    run(source)
    before = state()

    export(tmp_path / "exported")
    DecisionRecord.objects.all().delete()
    run(tmp_path / "exported")

    assert state() == before
    assert before["records"]


def test_an_adr_tools_log_is_written_back_as_adr_tools_with_its_relations(
    tmp_path,
):
    run(write_folder(tmp_path / "team", ADR_TOOLS))

    report = export(tmp_path / "exported")

    assert (
        report == f"Wrote 4 decision records and 0 images to {tmp_path / 'exported'}.\n"
    )
    text = (tmp_path / "exported" / "0002-use-redis-for-caching.md").read_text(
        encoding="utf-8"
    )
    # What adr-tools' shape cannot say (the relations, named by file) is the
    # front matter's.
    assert text == (
        "---\n"
        "superseded-by:\n"
        "- 0004-use-memcached-instead.md\n"
        "amended-by:\n"
        "- 0003-tune-the-cache.md\n"
        "---\n"
        "# 2. Use Redis for caching\n"
        "\n"
        "Date: 2024-02-01\n"
        "\n"
        "## Status\n"
        "\n"
        "superseded\n"
        "\n"
        "## Context\n"
        "\n"
        "Pages are slow.\n"
    )


def test_export_writes_images_and_names_records_made_in_the_admin(tmp_path):
    folder = write_folder(tmp_path / "team", MIXED)
    (folder / "img").mkdir()
    (folder / "img" / "diagram.png").write_bytes(png_bytes())
    run(folder)
    DecisionRecordFactory(number=7, title="Made in the admin", body="Text.\n")
    DecisionRecordFactory(number=8, title="A draft", draft=True)

    export(tmp_path / "exported")

    names = sorted(
        str(path.relative_to(tmp_path / "exported"))
        for path in (tmp_path / "exported").rglob("*")
        if path.is_file()
    )
    assert names == [
        "0001-approved.md",
        "0002-on-hold.md",
        "0003-partly.md",
        "0004-linked.md",
        "0005-odd-date.md",
        "0007-made-in-the-admin.md",
        "decision-logs.json",
        "img/diagram.png",
    ]
    assert (tmp_path / "exported" / "img" / "diagram.png").read_bytes() == png_bytes()

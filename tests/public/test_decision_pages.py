"""An imported decision folder as readers see it: statuses as written,
relations on both records, images served from the record, links between
sibling files leading to their pages."""

import hashlib
import io

import pytest
from django.core.management import call_command

from catalogue.models import DecisionImage
from tests.factories import DecisionImageFactory, DecisionRecordFactory, png_bytes
from tests.html import facts_of, soup_of

pytestmark = pytest.mark.django_db

PNG = png_bytes()
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"></svg>'

TEAM_FOLDER = {
    "0001-use-the-cache.md": """---
status: Approved
informed: [Ops, Data team]
---
# Use the `cache` layer

![The cache, drawn](img/cache.png)

<!-- optional: Technical Story -->

| Option | Cost |
|:-------|-----:|
| Redis  | 2 × |

~~Memcached~~ was dropped: https://example.org/bench.

See [the outline](0002-networking-outline.md#context) and ADR-002.
""",
    "0002-networking-outline.md": """# 2. Networking outline

Date: 2024-02-01

## Status

Accepted

Amends [1. Use the cache layer](0001-use-the-cache.md)

## Context

Outline.
""",
}


@pytest.fixture
def imported(tmp_path):
    for name, text in TEAM_FOLDER.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "cache.png").write_bytes(PNG)
    call_command("import_decisions", str(tmp_path), stdout=io.StringIO())


def test_an_imported_record_shows_as_its_team_wrote_it(client, imported):
    soup = soup_of(client.get("/decisions/ADR-001/"))

    assert str(soup.h1) == "<h1>Use the <code>cache</code> layer</h1>"
    assert facts_of(soup) == [
        ("Status", "Approved (read as accepted)"),
        ("Date", "Not stated"),
        ("Informed", "Ops, Data team"),
        ("Amended by", "ADR-002: Networking outline"),
    ]
    body = soup.select_one(".body")
    image = body.img
    digest = hashlib.sha256(PNG).hexdigest()[:16]
    assert (image["src"], image["alt"]) == (
        f"/decisions/ADR-001/images/img/cache.png?v={digest}",
        "The cache, drawn",
    )
    assert "optional" not in body.decode()
    assert [(c.name, c.get("class")) for c in body.select("th, td")] == [
        ("th", ["align-left"]),
        ("th", ["align-right"]),
        ("td", ["align-left"]),
        ("td", ["align-right"]),
    ]
    assert body.select_one("td.align-right").get_text() == "2 ×"
    assert body.s.get_text() == "Memcached"
    assert [(a.get_text(), a["href"]) for a in body.select("a")] == [
        ("https://example.org/bench", "https://example.org/bench"),
        ("the outline", "/decisions/ADR-002/#context"),
        ("ADR-002", "/decisions/ADR-002/"),
    ]


def test_a_relation_shows_on_both_records_and_in_the_list(client, imported):
    other = soup_of(client.get("/decisions/ADR-002/"))
    listed = soup_of(client.get("/decisions/"))

    assert facts_of(other) == [
        ("Status", "Accepted"),
        ("Date", "1 February 2024"),
        ("Amends", "ADR-001: Use the cache layer"),
    ]
    assert [td.decode_contents() for td in listed.select("td.title")] == [
        "Use the <code>cache</code> layer",
        "Networking outline",
    ]


def test_relations_and_links_to_drafts_stay_hidden(client):
    draft = DecisionRecordFactory(number=9, draft=True, source_name="0009-draft.md")
    shown = DecisionRecordFactory(
        number=3, body="See [the draft](0009-draft.md).", superseded_by=draft
    )

    soup = soup_of(client.get(shown.get_absolute_url()))

    assert [term for term, _ in facts_of(soup)] == ["Status", "Date"]
    assert soup.select_one(".body a")["href"] == "0009-draft.md"


def test_a_stored_image_is_served_with_its_type_and_cached_for_good(client, imported):
    image = DecisionImage.objects.get()
    url = f"/decisions/ADR-001/images/img/cache.png?v={image.digest[:16]}"

    response = client.get(url)
    again = client.get(url, headers={"if-none-match": f'"{image.digest}"'})
    unversioned = client.get("/decisions/ADR-001/images/img/cache.png")

    assert (response.status_code, response["Content-Type"]) == (200, "image/png")
    assert response.content == PNG
    assert response["Cache-Control"] == "public, max-age=31536000, immutable"
    assert response["ETag"] == f'"{image.digest}"'
    assert again.status_code == 304
    assert unversioned["Cache-Control"] == "public, max-age=0, must-revalidate"


def test_an_svg_is_served_unable_to_run_anything(client):
    DecisionImageFactory(
        decision=DecisionRecordFactory(number=4),
        name="flow.svg",
        content_type="image/svg+xml",
        data=SVG,
    )

    response = client.get("/decisions/ADR-004/images/flow.svg")

    assert response["Content-Type"] == "image/svg+xml"
    assert response["Content-Security-Policy"] == (
        "default-src 'none'; style-src 'unsafe-inline'; sandbox"
    )


def test_a_drafts_image_is_not_served(client):
    DecisionImageFactory(
        decision=DecisionRecordFactory(number=5, draft=True), name="a.png"
    )

    assert client.get("/decisions/ADR-005/images/a.png").status_code == 404

"""A reader's request renders no Markdown, and a save renders a bounded amount.

A decision record's Markdown is rendered when it is saved and the HTML stored
with it; the pages read that HTML. The body has a size limit, and the
largest allowed body, in the shapes that cost the renderer most per
character, renders within a fixed budget of work: the Python calls the
renderer makes, counted, not timed.
"""

import importlib
import sys

import nh3
import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse
from markdown_it import MarkdownIt

import actions.decisions
from catalogue.markdown import render_markdown
from catalogue.models import DecisionRecord
from catalogue.models.decision import BODY_MAX_CHARACTERS
from public.links import link_names_in_html, place_files
from tests.factories import (
    DecisionImageFactory,
    DecisionRecordFactory,
    UserFactory,
    png_bytes,
)
from tests.public.test_query_counts import fill, public_pages

pytestmark = pytest.mark.django_db

# Shapes that cost markdown-it most per character (measured: a run of
# brackets about 95 calls a character, a table or headings 25 to 28; prose
# under 2), cut to the largest body allowed.
HOSTILE_BODIES = {
    "brackets": "[" * BODY_MAX_CHARACTERS,
    "wide table": (
        "|a" * 2000 + "|\n" + "|-" * 2000 + "|\n" + ("|a" * 2000 + "|\n") * 20
    )[:BODY_MAX_CHARACTERS],
    "headings": ("# a\n" * BODY_MAX_CHARACTERS)[:BODY_MAX_CHARACTERS],
}
# The work one save may do rendering a body: a hundred calls a character.
BUDGET = 100 * BODY_MAX_CHARACTERS

RICH_BODY = (
    "## Context\n\nNames LIT-001 and [the next](0002-next.md#why).\n\n"
    "| a | b |\n|:--|--:|\n| 1 | 2 |\n\n![The cache](img/cache.png) "
    "![Lost](img/lost.png) ![Remote](https://example.org/r.png)\n"
)


def calls(render, text):
    """The Python function calls ``render(text)`` makes."""
    made = 0

    def count(frame, event, arg):
        nonlocal made
        if event == "call":
            made += 1

    sys.setprofile(count)
    try:
        render(text)
    finally:
        sys.setprofile(None)
    return made


@pytest.mark.parametrize("shape", HOSTILE_BODIES)
def test_the_largest_allowed_body_renders_within_a_fixed_budget(shape):
    body = HOSTILE_BODIES[shape]
    assert len(body) == BODY_MAX_CHARACTERS

    assert calls(render_markdown, body) <= BUDGET


REQUEST_BODIES = {
    **HOSTILE_BODIES,
    "links": ("[a](0002-next.md) " * BODY_MAX_CHARACTERS)[:BODY_MAX_CHARACTERS],
    "names": ("LIT-1 " * BODY_MAX_CHARACTERS)[:BODY_MAX_CHARACTERS],
}


@pytest.mark.parametrize("shape", REQUEST_BODIES)
def test_a_decision_page_places_the_largest_stored_body_in_a_call_a_character(
    shape,
):
    stored = render_markdown(REQUEST_BODIES[shape])
    files = {"0002-next.md": "/decisions/ADR-002/"}

    def place(html):
        link_names_in_html(place_files(html, files=files, images={}), {})

    assert calls(place, stored) <= BODY_MAX_CHARACTERS


@pytest.fixture
def renders(monkeypatch):
    """Every call of the Markdown renderer and of the sanitiser, by name."""
    made = []
    for owner, name in [(MarkdownIt, "parse"), (MarkdownIt, "parseInline")]:
        original = getattr(owner, name)

        def counted(self, *args, _original=original, _name=name, **kwargs):
            made.append(_name)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(owner, name, counted)
    clean = nh3.clean
    monkeypatch.setattr(
        nh3,
        "clean",
        lambda *args, **kwargs: made.append("clean") or clean(*args, **kwargs),
    )
    return made


def test_no_public_page_request_renders_markdown(client, renders):
    fill(50)
    decision = DecisionRecord.objects.get(number=1, log__is_own=True)
    decision.title = "Use `Redis` *for* caching"
    decision.status_text = "Approved in [#12](https://example.org/pull/12)"
    decision.body = RICH_BODY
    decision.save()
    DecisionImageFactory(decision=decision, name="img/cache.png", data=png_bytes())
    DecisionRecordFactory(number=2, source_name="0002-next.md", body=RICH_BODY)
    renders.clear()

    for name, path, _ in public_pages():
        response = client.get(path)
        assert response.status_code == 200, name
    assert renders == []


def test_the_stored_html_is_placed_on_the_page(client):
    decision = DecisionRecordFactory(
        number=1, title="Use `Redis`", status_text="Approved", body=RICH_BODY
    )
    image = DecisionImageFactory(
        decision=decision, name="img/cache.png", data=png_bytes()
    )
    DecisionRecordFactory(number=2, source_name="0002-next.md")

    html = client.get(decision.get_absolute_url()).content.decode()

    image_url = reverse(
        "catalogue:decision-image",
        kwargs={"identifier": decision.identifier, "name": "img/cache.png"},
    )
    assert "<h1>Use <code>Redis</code></h1>" in html
    assert f'<img src="{image_url}?v={image.digest[:16]}" alt="The cache">' in html
    assert 'href="/decisions/ADR-002/#why"' in html
    # A picture the record does not hold shows as its words; one from
    # elsewhere is a link to it.
    assert " Lost " in html
    assert 'href="https://example.org/r.png"' in html
    assert '<td class="align-right">2</td>' in html


def test_a_published_edit_shows_its_new_html_on_pages_read_before(
    client, django_capture_on_commit_callbacks
):
    publisher = UserFactory(publisher=True)
    decision = DecisionRecordFactory(number=1, title="Old", body="Old *text*.")
    pages = [decision.get_absolute_url(), reverse("catalogue:decision-list")]
    for path in pages:
        client.get(path)
        client.get(path)  # Cached, where the page cache keeps it.

    decision.title, decision.body = "New `title`", "| a |\n|---|\n| new |\n"
    with django_capture_on_commit_callbacks(execute=True):
        actions.decisions.save_decision(
            decision=decision, user=publisher, supersedes=[]
        )
        actions.decisions.publish_decision(decision=decision, user=publisher)

    detail, listed = (client.get(path).content.decode() for path in pages)
    assert "New <code>title</code>" in detail
    assert "<td>new</td>" in detail
    assert "Old" not in detail
    assert "New <code>title</code>" in listed


def test_the_migration_renders_the_html_of_records_saved_before_it():
    decision = DecisionRecordFactory(
        title="Use `Redis`", status_text="*Approved*", body="## Context\n"
    )
    DecisionRecord.objects.filter(pk=decision.pk).update(
        title_html="", status_html="", body_html=""
    )
    name = "0015_render_stored_decision_markdown"
    migration = importlib.import_module(f"catalogue.migrations.{name}")
    state = MigrationExecutor(connection).loader.project_state(("catalogue", name))

    migration.render_stored(state.apps, None)

    decision.refresh_from_db()
    assert (decision.title_html, decision.status_html, decision.body_html) == (
        "Use <code>Redis</code>",
        "<em>Approved</em>",
        "<h2>Context</h2>\n",
    )

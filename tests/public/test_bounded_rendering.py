"""A reader's request renders no Markdown, and a save renders a bounded amount.

A decision record's Markdown is rendered when it is saved and the HTML stored
with it; the pages read that HTML. Rendering works in proportion to the text,
in the shapes that cost the renderer most per character too: the Python
calls the renderer makes, counted, not timed. A text longer than Markdown is
rendered to is shown as text, at the cost of escaping it.
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
from catalogue.markdown import MARKDOWN_MAX_CHARACTERS, render_markdown
from catalogue.models import DecisionRecord
from public.links import link_names_in_html, place_files
from tests.databases import WEB_LAYER
from tests.factories import (
    DecisionImageFactory,
    DecisionRecordFactory,
    UserFactory,
    png_bytes,
)
from tests.public.test_query_counts import fill, public_pages

pytestmark = [pytest.mark.django_db, WEB_LAYER]

SIZE = 50_000


def hostile(shape, size):
    """Shapes that cost markdown-it most per character (measured: a run of
    brackets about 95 calls a character, a table or headings 25 to 28; prose
    under 2), cut to ``size``."""
    return {
        "brackets": "[" * size,
        "wide table": (
            "|a" * 2000 + "|\n" + "|-" * 2000 + "|\n" + ("|a" * 2000 + "|\n") * 40
        )[:size],
        "headings": ("# a\n" * size)[:size],
    }[shape]


HOSTILE_SHAPES = ["brackets", "wide table", "headings"]
# The work one save may do rendering a body: a hundred calls a character.
CALLS_PER_CHARACTER = 100
# A team's long record (the longest seen is 97 KB): sections, lists, a table,
# links, code.
SECTION = (
    "## Context and problem statement\n\nThe outbox is swept every `5s`; see "
    "[ADR-12](0012-outbox.md) and <https://example.org/docs>.\n\n"
    "* one *point*\n* another **point**\n\n| option | cost |\n|---|--:|\n"
    "| poll | 3 |\n| push | 5 |\n\n```csharp\nvar x = new Sweeper();\n```\n\n"
)
LONG_RECORD = (SECTION * (100_000 // len(SECTION) + 1))[:100_000]
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


@pytest.mark.parametrize("shape", HOSTILE_SHAPES)
def test_rendering_works_in_proportion_to_the_text(shape):
    half, whole = (calls(render_markdown, hostile(shape, n)) for n in (SIZE // 2, SIZE))

    assert whole <= CALLS_PER_CHARACTER * SIZE
    # Twice the text, about twice the work: no shape grows faster.
    assert whole <= 2.2 * half


def test_a_long_record_renders_in_a_few_calls_a_character():
    assert calls(render_markdown, LONG_RECORD) <= 10 * len(LONG_RECORD)


def test_a_text_over_the_markdown_limit_costs_its_escaping_only():
    text = "[" * (MARKDOWN_MAX_CHARACTERS + 1)

    assert calls(render_markdown, text) < 10
    assert render_markdown(text).startswith('<pre class="as-written">[[[')


REQUEST_SHAPES = {
    "brackets": "[" * SIZE,
    "links": ("[a](0002-next.md) " * SIZE)[:SIZE],
    "names": ("LIT-1 " * SIZE)[:SIZE],
    "long record": LONG_RECORD,
}


@pytest.mark.parametrize("shape", REQUEST_SHAPES)
def test_a_decision_page_places_a_stored_body_in_a_call_a_character(shape):
    body = REQUEST_SHAPES[shape]
    stored = render_markdown(body)
    files = {"0002-next.md": "/decisions/ADR-002/"}

    def place(html):
        link_names_in_html(place_files(html, files=files, images={}), {})

    assert calls(place, stored) <= len(body)


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

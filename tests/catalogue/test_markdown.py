"""Decision records' Markdown, rendered safely and faithfully."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from catalogue.markdown import render_inline, render_markdown


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


def test_html_comments_are_dropped_and_other_html_shows_as_text():
    html = render_markdown(
        "<!-- optional -->\n\nKept <!-- inline --> text <b>bold</b>.\n\n"
        "<!-- a comment\nover lines -->\n"
    )

    assert html == "<p>Kept  text &lt;b&gt;bold&lt;/b&gt;.</p>\n"


def test_bare_urls_are_linked_and_strikethrough_struck():
    html = render_markdown("~~Old~~ see https://example.org/adr.")

    assert html == (
        '<p><s>Old</s> see <a href="https://example.org/adr" '
        'rel="noopener noreferrer">https://example.org/adr</a>.</p>\n'
    )


def test_table_alignment_is_a_class_not_a_style():
    html = render_markdown("| a | b | c | d |\n|:--|:-:|--:|---|\n| 1 | 2 | 3 | 4 |\n")

    assert "style" not in html
    assert '<th class="align-left">a</th>' in html
    assert '<td class="align-center">2</td>' in html
    assert '<td class="align-right">3</td>' in html
    assert "<td>4</td>" in html


def test_images_show_from_the_record_or_become_links():
    html = render_markdown(
        "![Stored](img/a.png) ![Remote](https://example.org/b.png) ![Lost](c.png)",
        images={"img/a.png": "/decisions/ADR-001/images/img/a.png?v=1"},
    )

    assert html == (
        '<p><img src="/decisions/ADR-001/images/img/a.png?v=1" alt="Stored"> '
        '<a href="https://example.org/b.png" rel="noopener noreferrer">Remote</a> '
        "Lost</p>\n"
    )


def test_links_to_sibling_files_lead_to_their_pages():
    html = render_markdown(
        "[Two](./0002-two.md#context) [Gone](0009-gone.md)",
        files={"0002-two.md": "/decisions/ADR-002/"},
    )

    assert 'href="/decisions/ADR-002/#context"' in html
    assert 'href="0009-gone.md"' in html


MARKDOWN_PIECES = st.sampled_from(
    [
        "[", "](", "![", "*", "**", "_", "`", "```", "~~~", "> ", "- ", "1. ",
        "| a |", "|---|", "<!--", "-->", "<b>", "&#", "&amp;", "\\", "\n",
        "\n\n", "    ", "http://e.org", "[x]: <", "0003-x.md", "img/a.png",
        "javascript:", "\x00", "\ud7ff", "#", "===",
    ]
)  # fmt: skip
TAG_RE = re.compile(r"<(/?)([a-z0-9]+)")


@given(st.lists(MARKDOWN_PIECES, max_size=60).map("".join))
def test_any_markdown_renders_to_allowed_tags_without_an_error(text):
    for html in (render_markdown(text), render_inline(text)):
        tags = {name for _, name in TAG_RE.findall(html)}
        assert tags <= {
            "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
            "ul", "ol", "li", "strong", "em", "code", "pre", "a", "table",
            "thead", "tbody", "tr", "th", "td", "del", "s", "img",
        }  # fmt: skip

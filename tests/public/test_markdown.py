"""Decision records' Markdown, rendered safely and faithfully."""

import pytest

from public.markdown import render_markdown


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

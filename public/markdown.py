"""Decision records' Markdown, rendered safely.

A maintained CommonMark parser (markdown-it-py) with raw HTML turned off, then
an allow-list sanitiser (nh3, Ammonia) over its output: nothing an author
writes reaches the page as markup we did not allow.
"""

import nh3
from django.utils.safestring import mark_safe
from markdown_it import MarkdownIt

ALLOWED_TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
    "ul", "ol", "li", "strong", "em", "code", "pre", "a", "table", "thead",
    "tbody", "tr", "th", "td", "del",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "th": {"style"}}
URL_SCHEMES = {"http", "https", "mailto"}

_parser = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def render_markdown(text):
    """HTML for ``text`` in Markdown: parsed, then sanitised; safe to show."""
    html = _parser.render(text)
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer",
    )
    return mark_safe(clean)  # sanitised by nh3 just above

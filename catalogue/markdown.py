"""Decision records' Markdown, rendered safely and as GitHub shows it.

A record's Markdown is rendered when it is saved, and the HTML is stored
with it (``DecisionRecord.save``): a reader's request reads HTML and renders
nothing. What changes after the save (which sibling records are public, the
images stored with the record) is placed into the stored HTML by
``public.links.place_files``, a pass over its links and images.

A maintained CommonMark parser (markdown-it-py) with tables, strikethrough and
bare URLs linked (linkify-it-py), then an allow-list sanitiser (nh3, Ammonia)
over its output: nothing an author writes reaches the page as markup we did
not allow. Between the two, the parsed tokens are adjusted for a decision's
folder and for the site's Content-Security-Policy:

- raw HTML shows as the text it is, except comments (``<!-- optional -->``,
  as the templates write), which are dropped, as GitHub drops them;
- a link to a sibling record's file (``0003-aws-networking.md``) leads to
  that record's page (where ``files`` names it; else it stays as written);
- an image of the record's folder is shown from the site (where ``images``
  names it; else it keeps its name in the folder); any other image becomes a
  link to it (the CSP loads images from the site only);
- a table column's alignment is a class (the CSP allows no inline style).
"""

import posixpath
import re
from html import escape
from urllib.parse import unquote, urlsplit

import nh3
from django.utils.safestring import mark_safe
from markdown_it import MarkdownIt
from markdown_it.token import Token

ALIGNMENTS = {"left", "center", "right"}
ALIGN_CLASSES = {f"align-{alignment}" for alignment in ALIGNMENTS}
ALLOWED_TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
    "ul", "ol", "li", "strong", "em", "code", "pre", "a", "table", "thead",
    "tbody", "tr", "th", "td", "del", "s", "img",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "ol": {"start"},
    "img": {"src", "alt", "title"},
}
ALLOWED_CLASSES = {"th": ALIGN_CLASSES, "td": ALIGN_CLASSES}
URL_SCHEMES = {"http", "https", "mailto"}
COMMENT_RE = re.compile(r"<!--.*?(?:-->|$)", re.S)
ALIGN_RE = re.compile(r"text-align:\s*(?P<alignment>\w+)")

_parser = MarkdownIt("commonmark", {"html": True, "linkify": True}).enable(
    ["table", "strikethrough", "linkify"]
)


# The longest text rendered as Markdown: ten times the longest record of the
# public decision folders read so far (97 KB). The renderer's work grows with
# the text, at most about a hundred calls a character; a longer text is kept,
# and shown as text.
MARKDOWN_MAX_CHARACTERS = 1_000_000


def render_markdown(text, *, files=None, images=None):
    """HTML for ``text`` in Markdown: parsed, then sanitised; safe to show. A
    text over ``MARKDOWN_MAX_CHARACTERS`` is shown as it is written, escaped.

    ``files`` maps a record file's name (``0003-x.md``) to its page's URL;
    ``images`` maps an image's name in the folder (``img/a.png``) to its URL;
    without ``images``, an image of the folder keeps its name, for the page
    to place it.
    """
    if len(text) > MARKDOWN_MAX_CHARACTERS:
        return mark_safe(f'<pre class="as-written">{escape(text)}</pre>\n')
    env = {"files": files or {}, "images": images}
    tokens = _parser.parse(text, env)
    _adjust(tokens, env)
    html = _parser.renderer.render(tokens, _parser.options, env)
    return _clean(html)


def render_inline(text, *, files=None):
    """HTML for one line of Markdown (a title, a status): code, emphasis, links."""
    env = {"files": files or {}, "images": {}}
    tokens = _parser.parseInline(text, env)
    _adjust(tokens, env)
    return _clean(_parser.renderer.render(tokens, _parser.options, env))


def _clean(html):
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        allowed_classes=ALLOWED_CLASSES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer",
    )
    return mark_safe(clean)  # sanitised by nh3 just above


def _adjust(tokens, env):
    for token in tokens:
        if token.type == "html_block":
            rest = COMMENT_RE.sub("", token.content).strip()
            token.content = f"<p>{escape(rest)}</p>\n" if rest else ""
        elif token.type in {"th_open", "td_open"}:
            _align_by_class(token)
        elif token.children:
            token.children = list(_adjust_inline(token.children, env))


def _adjust_inline(children, env):
    for child in children:
        if child.type == "html_inline":
            if not child.content.startswith("<!--"):
                child.content = escape(child.content)
                yield child
        elif child.type == "link_open":
            name, fragment = linked_file(child.attrGet("href") or "")
            if name in env["files"]:
                url = env["files"][name]
                child.attrSet("href", f"{url}#{fragment}" if fragment else url)
            yield child
        elif child.type == "image":
            yield from _image(child, env)
        else:
            yield child


def _image(token, env):
    src = token.attrGet("src") or ""
    name = image_name(src)
    alt = "".join(child.content for child in token.children or ())
    if name is not None and env["images"] is None:
        token.attrSet("src", name)
        yield token
        return
    if name in (env["images"] or {}):
        token.attrSet("src", env["images"][name])
        yield token
        return
    # An image from elsewhere is a link to it; a missing one, its alt text.
    text = Token("text", "", 0, content=alt or src)
    if name is not None:
        yield text
        return
    yield Token("link_open", "a", 1, attrs={"href": src})
    yield text
    yield Token("link_close", "a", -1)


def _align_by_class(token):
    match = ALIGN_RE.search(token.attrGet("style") or "")
    if match is None:
        return
    token.attrs.pop("style", None)
    if match["alignment"] in ALIGNMENTS:
        token.attrSet("class", f"align-{match['alignment']}")


def image_name(src):
    """The folder path an image's ``src`` names (``img/a.png``), or None for an
    image from elsewhere (a URL, an absolute path, outside the folder)."""
    parts = urlsplit(src)
    if parts.scheme or parts.netloc or not parts.path or parts.path.startswith("/"):
        return None
    name = posixpath.normpath(unquote(parts.path))
    if name.startswith("../") or name == "..":
        return None
    return name


# A sub-folder's own page: a decision kept as a folder of its own
# ("0001-authorization/README.md") is named by its folder.
INDEX_NAME_RE = re.compile(r"(?:readme|index)\.md", re.I)


def decision_name(name):
    """The name a decision file goes by: the last part of its path, or, for
    a sub-folder's own page (``0001-authorization/README.md``), its folder's
    name (``0001-authorization.md``)."""
    parts = name.rstrip("/").split("/")
    if (
        len(parts) > 1
        and INDEX_NAME_RE.fullmatch(parts[-1])
        and parts[-2] not in {"", ".", ".."}
    ):
        return f"{parts[-2]}.md"
    return parts[-1]


def linked_file(href):
    """The name of the decision file a relative link names (``0003-x.md``,
    ``../0003-x/README.md`` as ``0003-x.md``), and its fragment; (None, "")
    for a link elsewhere."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or not parts.path.lower().endswith(".md"):
        return None, ""
    return decision_name(posixpath.normpath(unquote(parts.path))), parts.fragment

"""Names of documents and decision records in text, linked for readers.

Every name that ``references.resolve`` found a public target for becomes a
link; a retired target says so, with its successor linked, and a name of an
old version says that a newer one exists. Names that point at nothing public
stay plain text. Source identifiers (``ARXIV-1604.06174``, ``DOI:…``) link
out to the arXiv abstract or the DOI resolver.
"""

import re
from bisect import bisect_right
from html import escape, unescape

from django.db.models import Q
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe

from catalogue.citations import identifier_url, identifiers_in
from catalogue.markdown import image_name, linked_file
from catalogue.models import DecisionRecord
from catalogue.references import names_in
from formats.madr import name_parts, references

TAG_RE = re.compile(r"(<[^>]*>)")
# A link or an image as the sanitiser writes them: the address first, quoted.
HREF_RE = re.compile(r'<a href="(?P<href>[^"]*)"')
IMG_RE = re.compile(r'<img src="(?P<src>[^"]*)"(?: alt="(?P<alt>[^"]*)")?[^>]*>')
# The tags that open and close a link.
LINK_TAG_RE = re.compile(r"<a[\s>][^>]*>|</a\s*>")


def link_names(text, targets):
    """HTML of ``text`` with every name of a public entry linked."""
    text = conditional_escape(text or "")
    # Names hold no character that HTML escapes: the escaped text is searched.
    return mark_safe(_link_escaped_text(text, targets))  # Escaped above.


def link_names_in_html(html, targets):
    """``link_names`` for safe HTML: names in its text are linked, except
    inside links already there. Names hold no character that HTML escapes, so
    the escaped text is searched as it is, once, with its tags blanked out: the
    work grows with the names found, not with the tags (a table's cells)."""
    html = str(html)
    text, in_links = _blank_tags(html)
    starts = [start for start, _ in in_links]
    parts, position = [], 0
    for start, end, link in _links(text, targets):
        before = bisect_right(starts, start) - 1
        if start < position or (before >= 0 and start < in_links[before][1]):
            continue
        parts.append(html[position:start])
        parts.append(link)
        position = end
    parts.append(html[position:])
    return mark_safe("".join(parts))  # Tags as given; text linked below.


def _blank_tags(html):
    """``html`` with each tag blanked out (spaces, as many as its characters:
    no name runs across one), and the ``(start, end)`` of each link's text."""
    in_links, depth, opened = [], 0, 0
    for tag in LINK_TAG_RE.finditer(html):
        if tag[0].startswith("</"):
            if depth == 1:
                in_links.append((opened, tag.start()))
            depth = max(0, depth - 1)
        else:
            opened = opened if depth else tag.end()
            depth += 1
    if depth:
        in_links.append((opened, len(html)))
    parts = TAG_RE.split(html)  # Text, then a tag, then text, …
    parts[1::2] = [" " * len(tag) for tag in parts[1::2]]
    return "".join(parts), in_links


def _link_escaped_text(text, targets):
    parts, position = [], 0
    for start, end, link in _links(text, targets):
        if start < position:
            continue
        parts.append(text[position:start])
        parts.append(link)
        position = end
    parts.append(text[position:])
    return "".join(parts)


def _links(text, targets):
    """``(start, end, link)`` for each name with a target and each source
    identifier in ``text``, in order (overlaps are the caller's to skip)."""
    links = [
        (name.start, name.end, _link(text[name.start : name.end], name, target))
        for name in names_in(text)
        if (target := targets.get(name.key)) is not None
    ]
    links += [
        (start, end, _source_link(text[start:end]))
        for start, end in identifiers_in(text)
    ]
    return sorted(links)


def _source_link(written):
    # ``written`` is escaped text; its address is made from the identifier.
    url = identifier_url(unescape(written))
    return f'<a class="source" href="{escape(url)}">{written}</a>'


def _link(written, name, target):
    # Plain string formatting of escaped values, as format_html does, at a
    # fraction of its cost for the thousand names of a long topic page.
    notes = []
    if name.version and name.version < target.version:
        notes.append(
            f'a newer version, <a href="{escape(target.url)}">v{target.version}</a>'
            ", exists"
        )
    if target.is_retired:
        note = escape(target.status_label.lower())
        if target.successor is not None:
            successor = target.successor
            notes.append(
                f'{note} by <a href="{escape(successor.url)}">'
                f"{escape(successor.label)}</a>"
            )
        else:
            notes.append(note)
    retired = " reference-retired" if target.is_retired else ""
    link = f'<a class="reference{retired}" href="{escape(target.url)}">{written}</a>'
    if not notes:
        return link
    return f'{link} <span class="reference-note">({"; ".join(notes)})</span>'


def decision_files(texts, log):
    """The pages of public decision records of ``log``, by the
    names of their files that ``texts`` link to (``0003-aws-networking.md``),
    so a link to a sibling file leads to its record, a twin's to that twin:
    by the file a record was imported from, else by the number the name
    starts with. One query, none without such links."""
    names = {ref for text in texts for ref in references(text) if isinstance(ref, str)}
    if not names:
        return {}
    numbered = {name: name_parts(name) or {} for name in names}
    numbered = {
        name: parts["number"] for name, parts in numbered.items() if "number" in parts
    }
    rows = DecisionRecord.objects.public().filter(
        Q(source_name__in=names) | Q(number__in=numbered.values(), twin=1),
        log=log,
    )
    by_name, by_number = {}, {}
    for record in rows:
        by_name[record.source_name] = record
        if record.twin == 1:
            by_number[record.number] = record
    files = {}
    for name in names:
        record = by_name.get(name) or by_number.get(numbered.get(name))
        if record is not None:
            files[name] = record.get_absolute_url()
    return files


def place_files(html, *, files, images):
    """A decision's stored HTML with its links to sibling files (``files``:
    name to page URL) and its images (``images``: name in the folder to URL)
    placed; an image of the folder that is not stored shows as its alt text.
    One pass over the links and images: nothing is rendered."""

    def link(match):
        name, fragment = linked_file(unescape(match["href"]))
        if name not in files:
            return match[0]
        url = files[name] + (f"#{fragment}" if fragment else "")
        return f'<a href="{escape(url)}"'

    def image(match):
        name = image_name(unescape(match["src"]))
        if name is None:
            return match[0]
        if name not in images:
            return match["alt"] or match["src"]
        return match[0].replace(match["src"], escape(images[name]), 1)

    html = HREF_RE.sub(link, str(html))
    return mark_safe(IMG_RE.sub(image, html))  # Addresses escaped above.

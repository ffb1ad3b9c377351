"""Cross-references: names of records (LIT-325, ADR-032, LIT-004 v2) in text.

Finding names is pure; turning them into links needs to know which records a
reader may see, which ``resolve`` looks up in a fixed number of queries for
any number of texts, so a page of 1,000 summaries costs the same as one.
"""

import re
from functools import lru_cache
from html import escape
from typing import NamedTuple

from django.urls import reverse
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe

# The look-behind follows the first letter rather than leading the pattern,
# so the search can skip to capital letters (a fifth of the time on a 1,000
# row page); it still looks at the character before the name.
NAME_RE = re.compile(
    r"(?P<prefix>[A-Z](?<![\w.:/-][A-Z])[A-Z0-9]*)-(?P<number>\d{3,})"
    r"(?: v(?P<version>[1-9]\d*))?(?![\w-]|\.\d)"
)


class Name(NamedTuple):
    """A name as written: ``LIT-004 v2`` is prefix LIT, number 4, version 2."""

    prefix: str
    number: int
    version: int | None
    start: int
    end: int

    @property
    def key(self):
        return (self.prefix, self.number)


class Target(NamedTuple):
    """A public record a name can point at."""

    label: str
    url: str
    status: str = ""
    status_label: str = ""
    version: int = 1
    successor: "Target | None" = None

    @property
    def is_retired(self):
        return self.status in {"superseded", "withdrawn", "deprecated"}


def find_names(text, prefixes=None):
    """Every name in ``text``, optionally only those with a known prefix."""
    names = _names(text or "")
    if prefixes is not None:
        return [name for name in names if name.prefix in prefixes]
    return list(names)


@lru_cache(maxsize=4096)
def _names(text):
    # Remembered: a page resolves its texts' names, then links them.
    return tuple(
        Name(
            prefix=match["prefix"],
            number=int(match["number"]),
            version=int(match["version"]) if match["version"] else None,
            start=match.start(),
            end=match.end(),
        )
        for match in NAME_RE.finditer(text)
    )


def link_names(text, targets):
    """HTML of ``text`` with every name of a public record linked.

    A name that points at nothing public stays plain text. A retired target
    says so, with its successor linked; a name of an old version says that a
    newer one exists.
    """
    text = conditional_escape(text or "")
    # Names hold no character that HTML escapes: the escaped text is searched.
    return mark_safe(_link_escaped_text(text, targets))  # Escaped above.


TAG_RE = re.compile(r"(<[^>]*>)")


def link_names_in_html(html, targets):
    """``link_names`` for safe HTML: names in its text are linked, except
    inside links already there. Names hold no character that HTML escapes, so
    the escaped text can be searched as it is."""
    parts, in_link = [], 0
    for part in TAG_RE.split(str(html)):
        if part.startswith("<"):
            if re.match(r"<a[\s>]", part):
                in_link += 1
            elif part.startswith("</a"):
                in_link = max(0, in_link - 1)
            parts.append(part)
        elif in_link:
            parts.append(part)
        else:
            parts.append(_link_escaped_text(part, targets))
    return mark_safe("".join(parts))  # Tags as given; text linked below.


def _link_escaped_text(text, targets):
    parts, position = [], 0
    for name in _names(text):
        target = targets.get(name.key)
        if target is None:
            continue
        parts.append(text[position : name.start])
        parts.append(_link(text[name.start : name.end], name, target))
        position = name.end
    parts.append(text[position:])
    return "".join(parts)


def _link(written, name, target):
    # Plain string formatting of escaped values: as format_html does, at a
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


def identifier_path(view_name):
    """A function giving the path of ``view_name`` for an identifier.

    One ``reverse()`` for any number of identifiers: a page of 1,000 rows
    would otherwise spend more time reversing than querying (issue 6).
    """
    sample = "X-000"
    head, tail = reverse(view_name, args=[sample]).split(sample)
    return lambda identifier: f"{head}{identifier}{tail}"


def resolve(texts):
    """Targets for the names in ``texts`` that point at public records.

    At most two queries, however many texts and names.
    """
    from catalogue.models import DecisionRecord, Document

    keys = {name.key for text in texts for name in _names(text or "")}
    targets = {}
    numbers = {number for prefix, number in keys if prefix == DecisionRecord.PREFIX}
    if numbers:
        records = DecisionRecord.objects.public().filter(number__in=numbers)
        resolver = _Targets(DecisionRecord, "catalogue:decision-detail")
        for record in records.select_related("superseded_by"):
            successor = record.superseded_by
            if successor is not None and successor.is_public:
                successor = resolver.target(
                    successor.PREFIX, successor.number, successor.status
                )
            else:
                successor = None
            targets[(record.PREFIX, record.number)] = resolver.target(
                record.PREFIX, record.number, record.status, successor=successor
            )
    documents = {key for key in keys if key[0] != DecisionRecord.PREFIX}
    if documents:
        # Rows, not models: a page of 1,000 summaries names about as many.
        rows = (
            Document.objects.public()
            .filter(
                registry__prefix__in={prefix for prefix, _ in documents},
                number__in={number for _, number in documents},
            )
            .values_list(
                "registry__prefix",
                "number",
                "status",
                "version",
                "superseded_by__registry__prefix",
                "superseded_by__number",
                "superseded_by__status",
                "superseded_by__version",
            )
        )
        resolver = _Targets(Document, "catalogue:document-detail")
        for prefix, number, status, version, *successor in rows:
            if (prefix, number) not in documents:
                continue
            if successor[0] is not None and successor[2] in Document.PUBLIC_STATUSES:
                successor = resolver.target(*successor)
            else:
                successor = None
            targets[(prefix, number)] = resolver.target(
                prefix, number, status, version, successor
            )
    return targets


class _Targets:
    """Targets of one model, with its URL reversed and labels translated once."""

    def __init__(self, model, view_name):
        from catalogue.models import format_identifier

        self.identifier = format_identifier
        self.path = identifier_path(view_name)
        self.labels = {value: str(label) for value, label in model.Status.choices}

    def target(self, prefix, number, status, version=1, successor=None):
        identifier = self.identifier(prefix, number)
        return Target(
            label=identifier,
            url=self.path(identifier),
            status=status,
            status_label=self.labels[status],
            version=version,
            successor=successor,
        )

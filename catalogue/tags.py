"""Tags as editors type them: a comma-separated list, one tag an entry.

``parse_tags("sequence parallelism, memory")`` is two tags, whatever the
spaces inside an entry; ``render_tags`` writes names back so that
``parse_tags`` reads the same names again. A tag holding a comma, or
starting with a double quote, is written in double quotes, a quote inside
doubled (``"Smith, Jones"``, ``\"\"\"quoted\"\" words\"``); every other name is
written as it is, without quotes. Quotes group an entry only when they open
it and close it: ``say "hi"`` is one tag, quotes and all.

taggit reads and writes the tags field through ``tags_from_string`` and
``string_from_tags`` (``TAGGIT_TAGS_FROM_STRING``, ``TAGGIT_STRING_FROM_TAGS``);
the CSV import and the bulk "Add the tag" read their cells with ``parse_tags``.
"""

from django.core.exceptions import ValidationError

QUOTE = '"'


def parse_tags(text):
    """The tag names ``text`` lists, in the order typed: each entry stripped
    of the spaces around it, empty entries left out, and a name typed again
    (in any case) kept once, as first typed."""
    names, seen = [], set()
    for entry in _entries(text or ""):
        name = entry.strip()
        if name and name.lower() not in seen:
            seen.add(name.lower())
            names.append(name)
    return names


def render_tags(names):
    """``names`` as an editor types them, ``", "`` between them."""
    return ", ".join(_rendered(name) for name in names)


def check_lengths(names, *, limit):
    """Refuse, naming it, a tag longer than ``limit`` characters (the tag
    table's own limit, which the caller reads)."""
    for name in names:
        if len(name) > limit:
            shown = f"{name[:40]}…" if len(name) > 40 else name
            raise ValidationError(
                f"The tag “{shown}” is {len(name)} characters long; a tag "
                f"holds at most {limit}.",
                code="tag_too_long",
            )


def tags_from_string(text):
    """taggit's reading of the tags field: the names, sorted, as taggit
    compares them with the tags a form started from."""
    return sorted(parse_tags(text))


def string_from_tags(tags):
    """taggit's writing of the tags field: ``tags`` (anything with a
    ``name``) as an editor types them."""
    return render_tags([tag.name for tag in tags])


def _rendered(name):
    if "," in name or name.startswith(QUOTE):
        return QUOTE + name.replace(QUOTE, QUOTE * 2) + QUOTE
    return name


def _entries(text):
    """Each comma-separated entry of ``text``; an entry opened and closed by
    double quotes (only spaces after the closing one) is what they hold."""
    start, end = 0, len(text)
    while start <= end:
        opening = start
        while opening < end and text[opening].isspace():
            opening += 1
        if opening < end and text[opening] == QUOTE:
            held, after = _quoted(text, opening)
            if after is not None:
                while after < end and text[after].isspace():
                    after += 1
                if after == end or text[after] == ",":
                    yield held
                    start = after + 1
                    continue
        comma = text.find(",", start)
        if comma < 0:
            comma = end
        yield text[start:comma]
        start = comma + 1


def _quoted(text, opening):
    """What the quotes opening at ``opening`` hold (``""`` read as one
    quote), and where the text after the closing one starts; ``(None,
    None)`` when they are never closed."""
    held, at, end = [], opening + 1, len(text)
    while at < end:
        if text[at] == QUOTE:
            if text[at + 1 : at + 2] == QUOTE:
                held.append(QUOTE)
                at += 2
                continue
            return "".join(held), at + 1
        held.append(text[at])
        at += 1
    return None, None

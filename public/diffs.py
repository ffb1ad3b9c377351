"""Two versions of a text compared word by word: pure functions, no database."""

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from django.utils.html import escape
from django.utils.safestring import mark_safe

# Words and the spaces between them, so joining the tokens gives back the text.
TOKEN_RE = re.compile(r"\S+|\s+")
ELEMENTS = {"delete": "del", "insert": "ins"}
EDGES_RE = re.compile(r"(\s*)(.*?)(\s*)", re.DOTALL)


@dataclass(frozen=True)
class Change:
    """A run of words: ``kind`` is "equal", "insert" or "delete"."""

    kind: str
    text: str


def word_diff(old, new):
    """The changes that turn ``old`` into ``new``, word by word.

    Joining the "equal" and "delete" runs gives ``old`` back exactly; joining
    the "equal" and "insert" runs gives ``new``.
    """
    old_words, new_words = TOKEN_RE.findall(old), TOKEN_RE.findall(new)
    matcher = SequenceMatcher(a=old_words, b=new_words, autojunk=False)
    changes = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            changes.append(Change("equal", "".join(old_words[i1:i2])))
            continue
        if tag in {"delete", "replace"}:
            changes.append(Change("delete", "".join(old_words[i1:i2])))
        if tag in {"insert", "replace"}:
            changes.append(Change("insert", "".join(new_words[j1:j2])))
    return changes


def render_word_diff(old, new):
    """``word_diff`` as HTML: deletions in <del>, insertions in <ins>, escaped.

    The spaces at either end of a change stay outside its element, so a
    deletion and the insertion beside it read as two words, and a marked
    run starts and ends with a word.
    """
    return mark_safe("".join(map(_render, word_diff(old, new))))  # Escaped below.


def _render(change):
    if change.kind == "equal":
        return escape(change.text)
    element = ELEMENTS[change.kind]
    before, core, after = EDGES_RE.fullmatch(change.text).groups()
    if not core:  # A change of spacing alone is marked as it is.
        before, core, after = "", change.text, ""
    return (
        f'{escape(before)}<{element} class="diff">{escape(core)}</{element}>'
        f"{escape(after)}"
    )

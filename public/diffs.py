"""Two versions of a text compared word by word: pure functions, no database."""

import re
from bisect import bisect_left
from collections import Counter
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


# The most token pairs one comparison may weigh. difflib's matcher can take
# time in the product of its inputs' lengths, so texts are compared in parts
# that stay under it, and a larger part is shown replaced as a whole.
PAIR_BUDGET = 250_000
SENTENCE_END_RE = re.compile(r"[.!?;:]['’\")\]]*$")


def word_diff(old, new):
    """The changes that turn ``old`` into ``new``, word by word.

    Joining the "equal" and "delete" runs gives ``old`` back exactly; joining
    the "equal" and "insert" runs gives ``new``. The work is bounded by the
    texts' length: the common start and end are matched directly, the rest
    sentence by sentence, and within a changed run of sentences word by word
    while the run is short enough (``PAIR_BUDGET``); a longer run is shown
    deleted and inserted whole.
    """
    a, b = TOKEN_RE.findall(old), TOKEN_RE.findall(new)
    start = _common_length(a, b)
    end = _common_length(a[start:][::-1], b[start:][::-1])
    changes = [Change("equal", "".join(a[:start]))]
    changes += _sentence_changes(a[start : len(a) - end], b[start : len(b) - end])
    changes.append(Change("equal", "".join(a[len(a) - end :])))
    return _merged(changes)


def _common_length(a, b):
    length = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        length += 1
    return length


def _sentences(tokens):
    """The tokens grouped into sentences, each ending after its closing mark."""
    sentences, current = [], []
    for token in tokens:
        current.append(token)
        if token.isspace() and len(current) > 1 and SENTENCE_END_RE.search(current[-2]):
            sentences.append("".join(current))
            current = []
    if current:
        sentences.append("".join(current))
    return sentences


def _sentence_changes(a, b):
    old, new = _sentences(a), _sentences(b)
    changes = []
    for tag, i1, i2, j1, j2 in _anchored_opcodes(old, new):
        if tag == "equal":
            changes.append(Change("equal", "".join(old[i1:i2])))
        else:
            old_run, new_run = "".join(old[i1:i2]), "".join(new[j1:j2])
            changes += _token_changes(
                TOKEN_RE.findall(old_run), TOKEN_RE.findall(new_run)
            )
    return changes


def _token_changes(a, b):
    changes = []
    for tag, i1, i2, j1, j2 in _opcodes(a, b):
        if tag == "equal":
            changes.append(Change("equal", "".join(a[i1:i2])))
            continue
        if tag in {"delete", "replace"}:
            changes.append(Change("delete", "".join(a[i1:i2])))
        if tag in {"insert", "replace"}:
            changes.append(Change("insert", "".join(b[j1:j2])))
    return changes


def _anchored_opcodes(a, b):
    """Opcodes for ``a`` and ``b`` anchored on the items each holds once, in
    the longest run both keep in order (patience diff): found in n log n
    time, however many items there are; the gaps between anchors are
    compared by ``_opcodes``."""
    anchors = _longest_increasing(_unique_pairs(a, b))
    opcodes, i, j = [], 0, 0
    for anchor_i, anchor_j in [*anchors, (len(a), len(b))]:
        for tag, i1, i2, j1, j2 in _opcodes(a[i:anchor_i], b[j:anchor_j]):
            opcodes.append((tag, i + i1, i + i2, j + j1, j + j2))
        if anchor_i < len(a):
            opcodes.append(("equal", anchor_i, anchor_i + 1, anchor_j, anchor_j + 1))
        i, j = anchor_i + 1, anchor_j + 1
    return opcodes


def _unique_pairs(a, b):
    """``(i, j)`` for each item at ``a[i]`` and ``b[j]`` found once in each."""
    in_a, in_b = Counter(a), Counter(b)
    where_in_b = {item: j for j, item in enumerate(b) if in_b[item] == 1}
    return [
        (i, where_in_b[item])
        for i, item in enumerate(a)
        if in_a[item] == 1 and item in where_in_b
    ]


def _longest_increasing(pairs):
    """The longest run of ``pairs`` (in ``i`` order) whose ``j`` increases."""
    tails, previous, ends = [], [None] * len(pairs), []
    for index, (_, j) in enumerate(pairs):
        at = bisect_left(tails, j)
        if at == len(tails):
            tails.append(j)
            ends.append(index)
        else:
            tails[at], ends[at] = j, index
        previous[index] = ends[at - 1] if at else None
    run, index = [], ends[-1] if ends else None
    while index is not None:
        run.append(pairs[index])
        index = previous[index]
    return run[::-1]


def _opcodes(a, b):
    """difflib's opcodes for ``a`` and ``b``, or one replacement when
    comparing them could weigh more than ``PAIR_BUDGET`` pairs."""
    if not a or not b or len(a) * len(b) > PAIR_BUDGET:
        if a == b:
            return [("equal", 0, len(a), 0, len(b))] if a else []
        return [("replace", 0, len(a), 0, len(b))]
    return SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()


def _merged(changes):
    """``changes`` without empty runs, neighbours of one kind joined."""
    merged = []
    for change in changes:
        if not change.text:
            continue
        if merged and merged[-1].kind == change.kind:
            merged[-1] = Change(change.kind, merged[-1].text + change.text)
        else:
            merged.append(change)
    return merged


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

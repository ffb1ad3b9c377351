"""People's names as the record compares, sorts and shows them.

An author position holds a CSL name, as written: a person as ``{family,
given}`` (``given`` may be initials, or missing when a citation names only the
family, ``Chen et al.``), an organisation as ``{literal}``. Two positions name
the same person only by evidence (``actions.people``); this module says which
names *could*:

- the *key* of a name is its exact spelling, folded: case, accents and
  punctuation aside, ``Yang Liu`` and ``yang liu`` share one;
- the *family* of a name is its family name folded (an organisation's whole
  name), what co-authors are compared by;
- two names are *variants* when one could be written for the other: the same
  family, and given names that agree as far as both go (``Y. Liu`` and
  ``Yang Liu``; ``Liu`` and ``Yang Liu``).

Particles are read as Zotero and citeproc-js read them: a lowercase particle
at the start of a family name (``van der Maaten``, ``de la Cruz``) is part of
the family name and of its key, and is demoted when sorting, so ``van der
Maaten`` is indexed under M; a capitalised one (``Del Balso``, ``Van Rossum``)
is part of the family name and sorts under its own letter.
"""

import functools
import re
import unicodedata

# Lowercase words citeproc-js treats as a non-dropping particle before a
# family name.
PARTICLES = frozenset(
    [
        "a",
        "af",
        "al",
        "auf",
        "d",
        "da",
        "das",
        "de",
        "dei",
        "del",
        "della",
        "dem",
        "den",
        "der",
        "des",
        "di",
        "dit",
        "do",
        "dos",
        "du",
        "el",
        "la",
        "le",
        "lo",
        "op",
        "san",
        "st",
        "ten",
        "ter",
        "uit",
        "van",
        "vande",
        "vanden",
        "vander",
        "von",
        "vom",
        "zu",
        "zum",
        "zur",
        "y",
    ]
)

_FOLD_DROP_RE = re.compile(r"[^\w\s]")
_SPACES_RE = re.compile(r"\s+")


@functools.lru_cache(maxsize=65536)
def fold(text):
    """``text`` as names are compared: accents dropped, case folded,
    punctuation read as space, spaces collapsed. ``Ø`` and ``ß`` fold as
    ``o`` and ``ss``."""
    text = text.replace("ø", "o").replace("Ø", "O").replace("ł", "l")
    text = text.replace("Ł", "L").replace("đ", "d").replace("Đ", "D")
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(char for char in decomposed if not unicodedata.combining(char))
    bare = _FOLD_DROP_RE.sub(" ", bare.casefold().replace("_", " "))
    return _SPACES_RE.sub(" ", bare).strip()


def is_organisation(name):
    return "literal" in name


def family_of(name):
    """The folded family name (an organisation's whole name)."""
    if is_organisation(name):
        return fold(name["literal"])
    return fold(name.get("family", ""))


def given_of(name):
    return "" if is_organisation(name) else fold(name.get("given", ""))


def name_key(name):
    """The name's exact spelling, folded: ``liu|yang``, ``org|wan team alibaba``."""
    if is_organisation(name):
        return f"org|{family_of(name)}"
    return f"{family_of(name)}|{given_of(name)}"


def _given_parts(name):
    return given_of(name).split()


def are_variants(one, other):
    """Whether ``one`` could be written for ``other``: the same family, and
    each given name agreeing with the other's as far as both go (an initial
    agrees with a name it begins). An organisation is a variant only of the
    same spelling, or of a family name alone spelled as it is."""
    if is_organisation(one) or is_organisation(other):
        if is_organisation(one) and is_organisation(other):
            return name_key(one) == name_key(other)
        return family_of(one) == family_of(other) and not (
            _given_parts(one) or _given_parts(other)
        )
    if family_of(one) != family_of(other):
        return False
    for mine, theirs in zip(_given_parts(one), _given_parts(other), strict=False):
        short, long = sorted((mine, theirs), key=len)
        if not long.startswith(short) or (len(short) > 1 and short != long):
            return False
    return True


def is_fuller(one, other):
    """Whether ``one`` spells more of the name than ``other``."""
    return len(given_of(one).replace(" ", "")) > len(given_of(other).replace(" ", ""))


def display_name(name):
    """The name as a page shows it: ``Yang Liu``, ``Laurens van der Maaten``,
    ``Rajbhandari``, ``Wan Team, Alibaba``."""
    if is_organisation(name):
        return name["literal"].strip()
    given = name.get("given", "").strip()
    family = name.get("family", "").strip()
    return f"{given} {family}" if given else family


def split_particle(family):
    """``("van der", "Maaten")`` for ``van der Maaten``; ``("", family)`` when
    the name opens with no lowercase particle (``Del Balso``)."""
    words = family.split()
    particles = []
    while len(words) > 1 and words[0] in PARTICLES:
        particles.append(words.pop(0))
    return " ".join(particles), " ".join(words)


def sort_name(name):
    """The name as an index sorts it: ``Maaten, Laurens van der``, ``Del
    Balso, Franco``, ``Wan Team, Alibaba``."""
    if is_organisation(name):
        return name["literal"].strip()
    particle, family = split_particle(name.get("family", "").strip())
    given = " ".join(part for part in (name.get("given", "").strip(), particle) if part)
    return f"{family}, {given}" if given else family


def sort_key(name):
    """``sort_name`` folded, for ordering an index."""
    return fold(sort_name(name))


def index_letter(sort_name_text):
    """The letter an index files a sort name under: its first letter,
    accents dropped, or ``#`` for a digit or a symbol."""
    folded = fold(sort_name_text)
    first = folded[:1].upper()
    return first if first.isalpha() and first.isascii() else "#"

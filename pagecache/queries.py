"""The query parameters a cached page reads, and their one spelling.

A page is stored under its address, so every spelling of one query would be
a cache entry of its own: ``page=1``, ``page=01``, ``page=%31``, ``page=+1``,
``page=1%20``, ``page=1&page=1``. The site says what each page reads
(``PAGE_CACHE_PARAMETERS`` returns a ``Parameters``), and a request spelling
its query otherwise is redirected to the canonical spelling before the cache
is read: each value percent-encoded one way (as HTML forms and Django's
``QueryDict.urlencode`` write it: a space is ``+``), numbers in plain
digits, a parameter read once given once (its last value, as Django reads
it), each value of a set once, empty values and the parameters the page does
not read (``utm_source``) left out. Parameters keep the order they came in:
the site's own links write them in the order its pages read them (the page
last), and a form in the order of its fields, so sorting them would redirect
every link a reader follows; the orders of one query are as many as the
page's parameters allow, a bound of the page's own.

A ``strict`` page (an API's list) refuses what it cannot read instead: it
is redirected only to re-spell what it would read alike, and is left to
refuse an unknown, empty, repeated or unreadable parameter itself.
"""

import re
from urllib.parse import urlencode

# A whole number as people and programs write one: a sign, leading zeros and
# spaces around it (a "+" in a query is a space). Long enough for any page
# or year, short enough to stay a machine integer.
NUMBER_RE = re.compile(r"\s*\+?\s*([0-9]{1,18})\s*")


def canonical_number(value):
    """``value`` as plain digits if it is a whole number, else None."""
    match = NUMBER_RE.fullmatch(value)
    return None if match is None else str(int(match[1]))


class Parameters:
    """The query parameters a page reads: ``text`` (as written), ``numbers``
    (whole numbers), ``sets`` (repeatable, their order meaningless)."""

    def __init__(self, text=(), numbers=(), sets=(), *, strict=False):
        self.text = frozenset(text)
        self.numbers = frozenset(numbers)
        self.sets = frozenset(sets)
        self.strict = strict

    @property
    def names(self):
        return self.text | self.numbers | self.sets

    def __or__(self, other):
        return Parameters(
            self.text | other.text,
            self.numbers | other.numbers,
            self.sets | other.sets,
            strict=self.strict or other.strict,
        )

    def canonical(self, query):
        """The canonical spelling of ``query`` (a QueryDict) for this page, or
        None when a strict page is to refuse it as it is."""
        if self.strict and self._refused(query):
            return None
        pairs = []
        for name in query:
            if name not in self.names:
                continue
            values = [value for value in query.getlist(name) if value != ""]
            if name in self.sets:
                values = list(dict.fromkeys(values))
            elif values:
                values = [values[-1]]
                if name in self.numbers:
                    values = [canonical_number(values[0]) or values[0]]
            pairs += [(name, value) for value in values]
        return urlencode(pairs)

    def _refused(self, query):
        for name, values in query.lists():
            if name not in self.names or "" in values:
                return True
            if name not in self.sets and len(values) > 1:
                return True
        return False

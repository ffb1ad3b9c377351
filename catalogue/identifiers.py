"""Permanent identifiers: ``LIT-004`` is number 4 of the registry LIT.

``Identifier`` is the one value object for them: it parses every spelling the
site meets (a URL, a cell of the topic page format, a CSV cell, what a reader
types in a search box), prints the permanent form, and is the URL converter's
value. Every pattern that reads an identifier is built here, from the same
parts, so they cannot drift apart.
"""

import re

from django.urls import reverse

PREFIX = r"[A-Z][A-Z0-9]*"
# A number is printed with at least three digits (LIT-004, LIT-1234).
NUMBER = r"[0-9]{3,}"
VERSION = r"[1-9][0-9]*"
# The highest number a registry can hold: the database's integer column.
MAX_NUMBER = 2**31 - 1

IDENTIFIER_RE = re.compile(rf"(?P<prefix>{PREFIX})-(?P<number>{NUMBER})")
# An identifier as a list prints it: the version is shown from v2 on.
LABEL_RE = re.compile(rf"{IDENTIFIER_RE.pattern}(?: v(?P<version>{VERSION}))?")
# A name in running text. The look-behind follows the first letter rather than
# leading the pattern, so the search can skip to capital letters; it still
# looks at the character before the name, so "ARXIV-1604" inside
# "x.ARXIV-1604" or "DOI:LIT-004" is not a name.
NAME_IN_TEXT_RE = re.compile(
    r"(?P<prefix>[A-Z](?<![\w.:/-][A-Z])[A-Z0-9]*)"
    rf"-(?P<number>{NUMBER})(?: v(?P<version>{VERSION}))?(?![\w-]|\.\d)"
)
# What a person types: any case, a space, a dash or nothing between prefix and
# number, padded or not, perhaps a version ("lit 4", "LIT4", "lit-0004 v2").
TYPED_RE = re.compile(
    r"(?P<prefix>[A-Za-z][A-Za-z0-9]*?)[\s-]*(?P<number>[0-9]+)(?:\s*v[0-9]+)?"
)
# Longer input is never an identifier, and is not matched at all: the typed
# pattern's quantifiers overlap.
TYPED_MAX_LENGTH = 40


def permanent_form(prefix, number):
    """``LIT-004``: a prefix and a number as an identifier prints them, as a
    plain string (for the thousand links of a long page)."""
    return f"{prefix}-{number:03d}"


class Identifier(str):
    """A permanent identifier: the string ``LIT-004``, with its parts.

    It is a string, so it prints, compares and reverses URLs as the permanent
    form does; ``prefix`` and ``number`` are its parts.
    """

    def __new__(cls, prefix, number):
        identifier = super().__new__(cls, permanent_form(prefix, number))
        identifier.prefix = prefix
        identifier.number = number
        return identifier

    def __reduce__(self):
        return (Identifier, (self.prefix, self.number))

    @property
    def key(self):
        """``(prefix, number)``: how references and lookups key a record."""
        return (self.prefix, self.number)

    def label(self, version=1):
        """The identifier as listed: ``LIT-004 v4``, the version from v2 on."""
        return f"{self} v{version}" if version > 1 else str(self)

    @classmethod
    def parse(cls, text):
        """The identifier ``text`` spells, padded or not (``LIT-0004`` is LIT-004).

        Raise ValueError for anything else, a number the registry could not
        hold included.
        """
        match = IDENTIFIER_RE.fullmatch(text)
        if match is None:
            raise ValueError(f"{text!r} is not an identifier such as LIT-004.")
        return cls._of(match["prefix"], match["number"])

    @classmethod
    def parse_label(cls, text):
        """``(identifier, version)`` from a listed label, ``LIT-004 v4``.

        The identifier must be spelled in its permanent form; the version is 1
        when none is shown. Raise ValueError otherwise.
        """
        match = LABEL_RE.fullmatch(text)
        if match is None:
            raise ValueError(f"{text!r} is not a label such as LIT-004 v4.")
        identifier = cls._of(match["prefix"], match["number"])
        if identifier != text.split(" ", 1)[0]:
            raise ValueError(f"{text!r} is not spelled as LIT-004 is.")
        return identifier, int(match["version"] or 1)

    @classmethod
    def parse_typed(cls, text):
        """The identifier a person typed (``lit 4``, ``LIT4``), or None."""
        text = text.strip()
        if len(text) > TYPED_MAX_LENGTH:
            return None
        match = TYPED_RE.fullmatch(text)
        if match is None:
            return None
        try:
            return cls._of(match["prefix"].upper(), match["number"])
        except ValueError:
            return None

    @classmethod
    def _of(cls, prefix, digits):
        number = int(digits)
        if number > MAX_NUMBER:
            raise ValueError(f"{prefix}-{digits} is beyond any registry's numbers.")
        return cls(prefix, number)


class IdentifierConverter:
    """``<identifier:identifier>`` in a URL: the view gets an ``Identifier``.

    A padded spelling (``LIT-0004``) matches too; the view redirects it to the
    permanent one.
    """

    regex = f"{PREFIX}-{NUMBER}"

    def to_python(self, value):
        return Identifier.parse(value)

    def to_url(self, value):
        return str(value)


def identifier_path(view_name, log=None):
    """A function giving the path of ``view_name`` for an identifier; with
    ``log`` (a decision log's slug), of that log's page of the same name.

    One ``reverse()`` for any number of identifiers: a page of 1,000 rows
    links each of them.
    """
    sample = "X-000"
    if log is None:
        url = reverse(view_name, args=[sample])
    else:
        app, _, name = view_name.rpartition(":")
        url = reverse(f"{app}:log-{name}", kwargs={"log": log, "identifier": sample})
    head, tail = url.split(sample)
    return lambda identifier: f"{head}{identifier}{tail}"

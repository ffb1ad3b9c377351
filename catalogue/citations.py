"""Citations as the record prints them: parsed into fields, rendered back.

Every summary opens with its citation: the authors, the year in parentheses,
an optional locator, a full stop, then the summary's own text. The locator is
an identifier (``ARXIV-1604.06174``, ``DOI:10.1109/TAC.2003.812781``), an
identifier followed by a note (``ARXIV-2105.05720 — CoCoNet (ASPLOS 2022)``,
``ARXIV-2511.14124 (SoCC ‘25)``), or a venue alone (``OSDI ‘20``)::

    Chen et al. (2016), ARXIV-1604.06174. Gradient checkpointing: ...
    Jiang et al. (2020), OSDI ‘20. BytePS: ...
    CoreWeave (2025). Fits a ...

Rendering the parsed fields gives back exactly the text that was parsed, so
the record stores fields (for filtering by year, and for BibTeX) and still
prints every summary as the editors wrote it.
"""

import re
from dataclasses import dataclass
from urllib.parse import quote

from django.core.exceptions import ValidationError

IDENTIFIER_SCHEMES = {
    "ARXIV-": "https://arxiv.org/abs/{}",
    "DOI:": "https://doi.org/{}",
}

_SCHEMES = "|".join(re.escape(scheme) for scheme in IDENTIFIER_SCHEMES)

# Authors run up to the first " (YYYY)"; the locator runs up to the first full
# stop that ends the citation (one followed by a space or by the end of text),
# so the dots inside "ARXIV-1604.06174" stay part of it.
SUMMARY_RE = re.compile(
    r"(?P<authors>\S.*?) \((?P<year>\d{4})\)"
    r"(?:, (?P<locator>\S.*?))?"
    r"\.(?: (?P<text>\S.*))?",
    re.DOTALL,
)
LOCATOR_RE = re.compile(
    rf"(?P<identifier>(?:{_SCHEMES})\S+)(?: (?P<note>\S.*))?", re.DOTALL
)
IDENTIFIER_RE = re.compile(rf"(?:{_SCHEMES})\S+")
# A source identifier in running text: not inside a longer word, and without
# the punctuation that follows it in a sentence ("ARXIV-1604.06174." or
# "(DOI:10.1109/TAC.2003.812781)").
IDENTIFIER_IN_TEXT_RE = re.compile(rf"(?<![\w.:/-])(?:{_SCHEMES})\S*[\w/]")
YEAR_IN_PARENS_RE = re.compile(r" \(\d{4}\)")
ET_AL_RE = re.compile(r"(?P<names>.+?) et al\.")
NAME_SEPARATOR_RE = re.compile(r", | and ")


@dataclass(frozen=True)
class Citation:
    """A citation's fields. ``render()`` prints it as the record does."""

    authors: str
    year: int
    identifier: str = ""
    note: str = ""

    def render(self):
        """The citation without its closing full stop."""
        return render_citation(self.authors, self.year, self.identifier, self.note)

    def validate(self):
        """Raise ValidationError unless the fields render to a parseable text.

        These are exactly the conditions under which parsing the rendered
        citation gives back the same fields.
        """
        errors = {}
        if not self.authors or self.authors != self.authors.strip():
            errors["authors"] = ValidationError(
                "Authors must be given, without spaces at either end.",
                code="authors_blank",
            )
        elif YEAR_IN_PARENS_RE.search(self.authors):
            errors["authors"] = ValidationError(
                "Authors cannot contain a year in parentheses.", code="authors_year"
            )
        if not 1000 <= self.year <= 9999:
            errors["year"] = ValidationError(
                "The year must have four digits.", code="year_digits"
            )
        if self.identifier and not IDENTIFIER_RE.fullmatch(self.identifier):
            errors["identifier"] = ValidationError(
                "An identifier reads ARXIV-2104.04473 or DOI:10.1109/TAC.1986.1104412.",
                code="identifier_form",
            )
        note = self.note
        if note and (note != note.strip() or ". " in note or note.endswith(".")):
            errors["note"] = ValidationError(
                "The note cannot contain a full stop followed by a space, end with a "
                "full stop, or have spaces at either end: the full stop ends the "
                "citation.",
                code="note_full_stop",
            )
        elif note and not self.identifier and IDENTIFIER_RE.match(note):
            errors["note"] = ValidationError(
                "A note that opens with an identifier belongs in the identifier field.",
                code="note_identifier",
            )
        if errors:
            raise ValidationError(errors)


def author_names(authors):
    """The names in an authors text, and whether it ends in "et al.".

    ``Chen et al.`` is (["Chen"], True); ``Jadbabaie, Lin and Morse`` three
    names; ``Wan Team, Alibaba`` (no "and") one corporate name. What follows
    "et al." (an affiliation, as in ``Zheng et al., Tsinghua and NVIDIA``) is
    not a name and is left out.
    """
    match = ET_AL_RE.match(authors)
    if match:
        return NAME_SEPARATOR_RE.split(match["names"]), True
    if " and " in authors:
        return NAME_SEPARATOR_RE.split(authors), False
    return [authors], False


def identifier_value(identifier, scheme):
    """What follows ``scheme`` ("ARXIV-", "DOI:") in an identifier, or ""."""
    return identifier.removeprefix(scheme) if identifier.startswith(scheme) else ""


# Other spellings of a source identifier that editors paste, and the record's.
SPELLINGS = [
    (
        re.compile(
            r"(?:https?://)?(?:www\.)?arxiv\.org/(?:abs|pdf)/(\S+?)(?:\.pdf)?", re.I
        ),
        "ARXIV-",
    ),
    (re.compile(r"arxiv:\s*(\S+)", re.I), "ARXIV-"),
    (re.compile(r"(?:https?://)?(?:dx\.)?doi\.org/(\S+)", re.I), "DOI:"),
    (re.compile(r"doi:\s*(\S+)", re.I), "DOI:"),
]
ARXIV_VERSION_RE = re.compile(r"v\d+$")


def spelled_as_recorded(text):
    """A source identifier in the record's spelling (``ARXIV-1604.06174``,
    ``DOI:10.1109/…``) from one an editor pasted: ``arXiv:1604.06174``, an
    arXiv or doi.org address. Anything else is returned as it is."""
    text = text.strip()
    for pattern, scheme in SPELLINGS:
        match = pattern.fullmatch(text)
        if match:
            return f"{scheme}{match[1]}"
    return text


def source_key(identifier):
    """What two spellings of one source have in common: ``arxiv:1604.06174``
    for ``ARXIV-1604.06174v2``, ``doi:10.1109/tac.2003.812781`` for any case of
    the DOI (DOIs ignore case). Empty for a venue or nothing."""
    identifier = spelled_as_recorded(identifier)
    if arxiv := identifier_value(identifier, "ARXIV-"):
        return f"arxiv:{ARXIV_VERSION_RE.sub('', arxiv).lower()}"
    if doi := identifier_value(identifier, "DOI:"):
        return f"doi:{doi.lower()}"
    return ""


def identifier_pdf_url(identifier):
    """Where the cited work's PDF is, when the identifier says: arXiv's."""
    arxiv_id = identifier_value(identifier, "ARXIV-")
    return f"https://arxiv.org/pdf/{arxiv_id}" if arxiv_id else ""


# What a DOI may hold that an address may not (``<``, ``>``, ``#``, ``%``, ``?``,
# spaces, quotes, braces) is percent-encoded; the characters RFC 3986 allows
# in a path are kept, so ``10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>``
# stays readable and still resolves. A semicolon is encoded too: RIS readers
# split a ``UR`` at it, as a list of addresses.
PATH_SAFE = "/:@!$&'()*+,=~"


def doi_url(doi):
    """The DOI resolver's address of ``doi``, percent-encoded as an address must be."""
    return f"https://doi.org/{quote(doi, safe=PATH_SAFE)}"


def identifier_url(identifier):
    """The address of an identifier's source, or "" for a venue or nothing."""
    if doi := identifier_value(identifier, "DOI:"):
        return doi_url(doi)
    for scheme, template in IDENTIFIER_SCHEMES.items():
        if identifier.startswith(scheme):
            return template.format(quote(identifier.removeprefix(scheme), safe="/"))
    return ""


def identifier_display(identifier):
    """An identifier as its community writes it: ``arXiv:1604.06174``, a DOI as
    its resolver's address (``https://doi.org/10.1109/…``, unencoded, as
    Crossref's display guidelines show it). Anything else as it is."""
    if arxiv := identifier_value(identifier, "ARXIV-"):
        return f"arXiv:{arxiv}"
    if doi := identifier_value(identifier, "DOI:"):
        return f"https://doi.org/{doi}"
    return identifier


def identifiers_in(text):
    """``(start, end)`` of each source identifier in running ``text``."""
    return [match.span() for match in IDENTIFIER_IN_TEXT_RE.finditer(text)]


def parse_citation(locator_text):
    """Split a locator into identifier and note."""
    match = LOCATOR_RE.fullmatch(locator_text)
    if match:
        return match["identifier"], match["note"] or ""
    return "", locator_text


def split_summary(summary):
    """Split a summary cell into its citation and its text.

    Raise ValueError when the cell does not open with a citation.
    """
    match = SUMMARY_RE.fullmatch(summary)
    if match is None:
        raise ValueError(
            "the summary must open with a citation: "
            "'Authors (Year), IDENTIFIER. Text' or 'Authors (Year). Text'"
        )
    identifier, note = parse_citation(match["locator"] or "")
    citation = Citation(
        authors=match["authors"],
        year=int(match["year"]),
        identifier=identifier,
        note=note,
    )
    try:
        citation.validate()
    except ValidationError as error:
        raise ValueError(" ".join(error.messages)) from error
    return citation, match["text"] or ""


def join_summary(citation, text):
    """The summary cell: the citation, its full stop, then the text."""
    return cited_summary(
        citation.authors, citation.year, citation.identifier, citation.note, text
    )


def render_citation(authors, year, identifier="", note=""):
    """A citation's fields as ``Citation.render()`` prints them."""
    text = f"{authors} ({year})"
    # The identifier, the note, or both with a space between.
    locator = f"{identifier} {note}" if identifier and note else identifier or note
    return f"{text}, {locator}" if locator else text


def cited_summary(authors, year, identifier, note, text):
    """``join_summary`` from a citation's fields, without a ``Citation``: a
    topic page prints a thousand summaries."""
    rendered = f"{render_citation(authors, year, identifier, note)}."
    return f"{rendered} {text}" if text else rendered


# The full author list. Each author is a CSL name: a person as
# ``{"family": "Chen", "given": "Tianqi"}``, an organisation as
# ``{"literal": "Wan Team, Alibaba"}``, taken whole and never split.
# Editors write it one author a line: ``Chen, Tianqi`` or ``{CoreWeave}``.
ORGANISATION_LINE_RE = re.compile(r"\{(?P<name>[^{}]*\S[^{}]*)\}")


def author_line(author):
    """One author as an editor writes it: ``Chen, Tianqi`` or ``{CoreWeave}``."""
    if "literal" in author:
        return f"{{{author['literal']}}}"
    if author.get("given"):
        return f"{author['family']}, {author['given']}"
    return author["family"]


def author_lines(authors):
    """The author list as editors write it, one author a line."""
    return "\n".join(author_line(author) for author in authors)


# The author list in one line: each author as editors write one (``Chen,
# Tianqi``, an organisation braced whole, ``{Wan Team, Alibaba}``), separated
# by semicolons; a semicolon inside braces is the organisation's own.
AUTHOR_SEPARATOR = "; "


def author_list_cell(authors):
    """``[{"family": "Chen", "given": "Tianqi"}, ...]`` in one line, as the
    staff CSV's author_list cell holds it."""
    return AUTHOR_SEPARATOR.join(author_line(author) for author in authors)


def parse_author_line(line):
    """One line of an author list as a CSL name; ValueError when it is not one."""
    line = line.strip()
    organisation = ORGANISATION_LINE_RE.fullmatch(line)
    if organisation:
        return {"literal": organisation["name"].strip()}
    if any(char in line for char in "{}"):
        raise ValueError("braces hold an organisation's whole name: {CoreWeave}")
    family, comma, given = (part.strip() for part in line.partition(","))
    if not family or (comma and not given) or "," in given:
        raise ValueError(
            "a person reads ‘Family, Given’ (one comma), an organisation "
            "‘{Name, as written}’"
        )
    return {"family": family, "given": given} if given else {"family": family}


def parse_author_lines(text):
    """An author list from an editor's lines; blank lines are skipped.

    Raise ValidationError naming the line of each problem.
    """
    authors, errors = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            authors.append(parse_author_line(line))
        except ValueError as error:
            errors.append(
                ValidationError(
                    f"Line {number} (‘{line.strip()}’): {error}.", code="author_line"
                )
            )
    if errors:
        raise ValidationError(errors)
    return authors


def author_short_name(author):
    """How a citation names an author: the family name, or the organisation."""
    return author.get("literal") or author["family"]


def derived_authors(authors):
    """The citation's authors text from a full list, as the record prints it:
    ``Chen``, ``Chen and Guestrin``, ``Chen et al.`` from three on."""
    names = [author_short_name(author) for author in authors]
    if len(names) > 2:
        return f"{names[0]} et al."
    return " and ".join(names)


def cited_authors(authors_text):
    """The authors a citation's text names, as CSL names, and whether that is
    all of them (no "et al.").

    A name in a list (``Chen et al.``, ``Jadbabaie, Lin and Morse``) is a
    person's family name, taken whole (``Del Balso``); a citation naming one
    author alone (``CoreWeave``, ``Wan Team, Alibaba``) may name an
    organisation, so that name is kept whole as a literal.
    """
    names, et_al = author_names(authors_text)
    if len(names) == 1 and not et_al:
        return [{"literal": names[0]}], True
    return [{"family": name} for name in names], not et_al

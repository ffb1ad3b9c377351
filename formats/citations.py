r"""Documents as reference-manager entries: BibTeX, RIS, CSL-JSON, and the
``citation_*`` meta tags of a document's page.

Each document is one entry keyed by its permanent identifier (``LIT-004``),
so a key never changes when the text does. arXiv identifiers become
``eprint``/``archiveprefix``, DOIs ``doi``. The editors' summary is our
reading of the work, not its abstract, so it goes in an annotation, labelled
as ours: BibTeX's ``annote``, a second RIS ``N1`` note, CSL-JSON's
``annote``. The four hold the same facts.

Authors: the full list when the record holds it (persons by family and
given name, organisations whole). When only the citation's "Chen et al." is
known, the named authors are persons with a family name, and each format
says the list goes on in its own words: BibTeX ``and others`` (BibTeX's and
biber's own word for it); RIS and CSL-JSON the named authors and a note that
the list is incomplete; the meta tags the named authors only. CSL has no way
to say "et al." in data (the schema leaves it open): ``{"literal":
"others"}``, pandoc's reading of BibTeX's word, is a name to citeproc-js,
Zotero's engine ("Goyal & others"), and pandoc's APA runs it into the name
before it ("Goyalothers"). Never is "Chen et al." or "others" one person's
name. RIS and the meta tags write each name ``Family, Given`` (``Del
Balso,`` for a family name alone, an organisation as ``Wan Team
Alibaba,``): Zotero's translators
split a name at its first comma and read a name without one as given names
then a family name. BibTeX writes every letter outside ASCII as a LaTeX
accent (``{\L}ukasz``, ``M{\"{u}}ller``), which classic BibTeX styles
abbreviate right and biber and pandoc read back as the letter. Venue and
type: ``@inproceedings``/``booktitle``,
``@article``/``journal``, RIS ``CONF``/``JOUR`` with ``T2``, CSL
``paper-conference``/``article-journal`` with ``container-title``; a preprint
is ``@misc`` with its ``eprint``, RIS ``GEN``, CSL ``article``.

arXiv publishes a preprint, so a preprint's CSL ``publisher`` is arXiv and its
``number`` the arXiv identifier, as Zotero's preprint type maps its repository
and archive ID. A work of any other type was published elsewhere, and arXiv
only keeps a copy: CSL's ``archive`` and ``archive_location``, never its
publisher.
"""

import json
import re
import unicodedata

from django.db.models import Prefetch
from django.http import HttpResponse

from catalogue.citations import doi_url
from catalogue.models import Document, PublicationType

FORMATS = {
    "bib": "application/x-bibtex; charset=utf-8",
    "ris": "application/x-research-info-systems; charset=utf-8",
    "json": "application/vnd.citationstyles.csl+json; charset=utf-8",
}

LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "%": r"\%",
    "&": r"\&",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
LATEX_RE = re.compile("|".join(re.escape(char) for char in LATEX_SPECIALS))


# Per publication type: BibTeX entry type and venue field, RIS type and
# venue tag, CSL type. A type not known is exported as it always was.
TYPES = {
    PublicationType.PREPRINT: ("misc", "howpublished", "GEN", "T2", "article"),
    PublicationType.CONFERENCE_PAPER: (
        "inproceedings",
        "booktitle",
        "CONF",
        "T2",
        "paper-conference",
    ),
    PublicationType.JOURNAL_ARTICLE: (
        "article",
        "journal",
        "JOUR",
        "T2",
        "article-journal",
    ),
    PublicationType.REPORT: ("techreport", "institution", "RPRT", "PB", "report"),
    PublicationType.UNKNOWN: ("misc", "howpublished", "GEN", "T2", "article"),
}
MONTHS = [
    "jan",
    "feb",
    "mar",
    "apr",
    "may",
    "jun",
    "jul",
    "aug",
    "sep",
    "oct",
    "nov",
    "dec",
]
# The LaTeX accent of each combining mark a Latin letter is written with.
ACCENTS = {
    "\u0300": "`",
    "\u0301": "'",
    "\u0302": "^",
    "\u0303": "~",
    "\u0304": "=",
    "\u0306": "u",
    "\u0307": ".",
    "\u0308": '"',
    "\u030a": "r",
    "\u030b": "H",
    "\u030c": "v",
    "\u0323": "d",
    "\u0327": "c",
    "\u0328": "k",
}
# Letters of their own, not a letter and an accent.
LATEX_LETTERS = {
    "Ł": r"{\L}",
    "ł": r"{\l}",
    "Ø": r"{\O}",
    "ø": r"{\o}",
    "ß": r"{\ss}",
    "Æ": r"{\AE}",
    "æ": r"{\ae}",
    "Œ": r"{\OE}",
    "œ": r"{\oe}",
    "ı": r"{\i}",
}
NON_ASCII_RE = re.compile(r"[^\x00-\x7f]")
LINE_BREAK_RE = re.compile(r"\s*[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]+\s*")


def one_line(text):
    """``text`` with every line break, and the spaces around it, as one space."""
    return LINE_BREAK_RE.sub(" ", text).strip()


def work_url(document):
    """The cited work's address: its arXiv page, else its DOI's, percent-encoded."""
    if document.arxiv_id:
        return document.source_url
    if document.work_doi:
        return doi_url(document.work_doi)
    return ""


def source_fields(document):
    """``{"eprint": ..., "doi": ...}``: what identifies the work, as known."""
    fields = {}
    if document.arxiv_id:
        fields["eprint"] = document.arxiv_id
    if document.work_doi:
        fields["doi"] = document.work_doi
    return fields


def annotation(document):
    """The editors' summary, labelled as the anthology's, then what the
    document supersedes and what supersedes it; or ""."""
    if not document.summary:
        return ""
    summary = " ".join(document.summary.split("\n"))
    return " ".join(
        filter(
            None,
            [
                f"Anthology summary ({document.label}): {summary}",
                succession_note(document),
            ],
        )
    )


def succession_note(document):
    """ "Supersedes LIT-098. Superseded by LIT-784.", as the document's page
    says it, or "". What it supersedes is read from ``supersedes``, which a
    download prefetches (public documents only)."""
    said = []
    older = [doc.identifier for doc in document.supersedes.all()]
    if older:
        said.append(f"Supersedes {', '.join(older)}.")
    if document.superseded_by_id:
        said.append(f"Superseded by {document.superseded_by.identifier}.")
    return " ".join(said)


def incomplete_authors_note(document):
    """What RIS says of an author list known only as far as the citation goes."""
    return f"Authors: {document.authors}; the full author list is not recorded."


def issued(document):
    """The publication date as CSL date parts: [[2016, 4, 21]], or the year."""
    if document.publication_date:
        return [int(part) for part in document.publication_date.split("-")]
    return [document.year]


def plain_reference(document):
    """The document as a reference list prints it, in plain text:
    ``Chen et al. (2016). Training Deep Nets with Sublinear Memory Cost.
    arXiv:1604.06174.``"""
    parts = [f"{document.authors} ({document.year})", document.title]
    if document.venue:
        parts.append(document.venue)
    if document.arxiv_id:
        parts.append(f"arXiv:{document.arxiv_id}")
    elif document.work_doi:
        parts.append(f"doi:{document.work_doi}")
    if document.citation_note:
        parts.append(document.citation_note)
    return " ".join(part if part[-1] in ".?!" else f"{part}." for part in parts)


# BibTeX counts escaped braces too: an unbalanced \{ or \} would end a
# field early, so text whose braces do not pair takes the brace macros.
UNPAIRED_BRACES = {"{": r"\textbraceleft{}", "}": r"\textbraceright{}"}


def braces_pair(text):
    depth = 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def latex_letter(char):
    """A letter outside ASCII as BibTeX's special character ``{\'{e}}``: one
    letter to classic BibTeX's ``purify$`` and ``format.name$``, so an
    abbreviated given name keeps its whole first letter. Other characters
    (‘ — × CJK) are kept as they are."""
    if char in LATEX_LETTERS:
        return LATEX_LETTERS[char]
    base, *marks = unicodedata.normalize("NFD", char)
    if not (marks and base.isascii() and base.isalpha()):
        return char
    if not all(mark in ACCENTS for mark in marks):
        return char
    text = {"i": r"\i", "j": r"\j"}.get(base, base)
    for mark in marks:
        text = f"\\{ACCENTS[mark]}{{{text}}}"
    return f"{{{text}}}"


def latex(text):
    """Text on one line with LaTeX's special characters escaped and accented
    letters written as LaTeX accents; other Unicode is kept (UTF-8)."""
    text = one_line(text)
    specials = LATEX_SPECIALS
    if not braces_pair(text):
        specials = {**LATEX_SPECIALS, **UNPAIRED_BRACES}
    text = LATEX_RE.sub(lambda match: specials[match[0]], text)
    return NON_ASCII_RE.sub(lambda match: latex_letter(match[0]), text)


def bibtex_name(author):
    """One author for BibTeX: ``{Chen}, {Tianqi}``, an organisation braced
    whole, so that neither a comma nor an "and" in it splits it."""
    if "literal" in author:
        return f"{{{latex(author['literal'])}}}"
    if author.get("given"):
        return f"{{{latex(author['family'])}}}, {{{latex(author['given'])}}}"
    return f"{{{latex(author['family'])}}}"


def bibtex_authors(document):
    authors, complete = document.known_authors
    names = " and ".join(bibtex_name(author) for author in authors)
    return names if complete else f"{names} and others"


def bibtex_entry(document):
    entry_type, venue_field, *_ = TYPES[document.publication_type]
    fields = {
        "author": bibtex_authors(document),
        # Double braces keep the title's capitals.
        "title": f"{{{latex(document.title)}}}",
        "year": str(document.year),
    }
    month = document.publication_date[5:7]
    if document.venue:
        fields[venue_field] = latex(document.venue)
    source = source_fields(document)
    if "eprint" in source:
        fields.update(eprint=latex(source["eprint"]), archiveprefix="arXiv")
    if "doi" in source:
        fields["doi"] = latex(source["doi"])
    if url := work_url(document):
        # An address is verbatim to biber and pandoc (and inside \url): it is
        # percent-encoded already, so it holds no brace to escape.
        fields["url"] = url
    if document.citation_note:
        fields["note"] = latex(document.citation_note)
    if document.summary:
        fields["annote"] = latex(annotation(document))
    lines = [f"  {name} = {{{value}}}" for name, value in fields.items()]
    if month:
        # A month is BibTeX's macro (``mar``), which every style prints as
        # its own month name; ``{3}`` would be printed as "3".
        lines.insert(3, f"  month = {MONTHS[int(month) - 1]}")
    body = ",\n".join(lines)
    return f"@{entry_type}{{{document.identifier},\n{body}\n}}\n"


def family_first(author, separators=","):
    """One author as ``Family, Given``, the form RIS and the ``citation_author``
    tag are read in: Zotero splits at the first comma, and reads a name
    without one as given names then a family name. So a family name alone is
    ``Del Balso,`` and an organisation ``Wan Team Alibaba,``, its own commas
    (and any other ``separators``) left out so that none splits it."""

    def part(text):
        for separator in separators:
            text = text.replace(separator, "")
        return one_line(text)

    if "literal" in author:
        return f"{part(author['literal'])},"
    given = part(author.get("given", ""))
    return f"{part(author['family'])}, {given}".rstrip()


def ris_name(author):
    """One author for RIS: ``Family, Given``."""
    return family_first(author)


def ris_entry(document):
    _, _, ris_type, venue_tag, _ = TYPES[document.publication_type]
    authors, complete = document.known_authors
    lines = [("TY", ris_type), ("ID", document.identifier)]
    lines.extend(("AU", ris_name(author)) for author in authors)
    lines += [("TI", document.title), ("PY", str(document.year))]
    if document.publication_date:
        lines.append(("DA", document.publication_date.replace("-", "/")))
    if document.venue:
        lines.append((venue_tag, document.venue))
    source = source_fields(document)
    if "eprint" in source:
        lines.append(("AN", f"arXiv:{source['eprint']}"))
    if "doi" in source:
        lines.append(("DO", source["doi"]))
    if url := work_url(document):
        lines.append(("UR", url))
    if not complete:
        lines.append(("N1", incomplete_authors_note(document)))
    if document.citation_note:
        lines.append(("N1", document.citation_note))
    if document.summary:
        lines.append(("N1", annotation(document)))
    lines.append(("ER", ""))
    # A value's line break would start a line of its own, read as a tag
    # (``ER  -`` ending the record early): every value is one line.
    return "".join(f"{tag}  - {one_line(value)}\r\n" for tag, value in lines)


def csl_authors(document):
    """The authors the record knows, and nothing that reads as a name for the
    rest: an incomplete list says so in the item's ``note``."""
    authors, _ = document.known_authors
    return [dict(author) for author in authors]


def csl_note(document):
    """The citation's note, then, for an incomplete author list, that it is."""
    _, complete = document.known_authors
    notes = [document.citation_note]
    if not complete:
        notes.append(incomplete_authors_note(document))
    return "\n".join(note for note in notes if note)


def csl_item(document):
    *_, csl_type = TYPES[document.publication_type]
    item = {
        "id": document.identifier,
        "type": csl_type,
        "title": document.title,
        "author": csl_authors(document),
        "issued": {"date-parts": [issued(document)]},
    }
    if document.venue:
        item["container-title"] = document.venue
    source = source_fields(document)
    if "eprint" in source:
        # The number with its scheme, as arXiv asks a preprint to be cited.
        number = f"arXiv:{source['eprint']}"
        if document.publication_type == PublicationType.PREPRINT:
            item.update(publisher="arXiv", number=number)
        else:
            item.update(archive="arXiv", archive_location=number)
    if "doi" in source:
        item["DOI"] = source["doi"]
    if url := work_url(document):
        item["URL"] = url
    if note := csl_note(document):
        item["note"] = note
    if document.summary:
        item["annote"] = annotation(document)
    return item


def highwire_name(author):
    """One author for a ``citation_author`` tag: ``Family, Given``. Zotero
    splits a tag's content at semicolons too, so they are left out."""
    return family_first(author, separators=",;")


# The work's type as Dublin Core's ``DC.type``, in the words of the COAR
# resource types; a type not known is Zotero's generic "document". Zotero's
# Embedded Metadata translator passes ``DC.*`` tags to its RDF translator,
# whose detectType takes a dc:type that names a Zotero item type as it is
# ("if (isNaN(parseInt(type)) && ZU.itemTypeExists(type)) t.dc = type":
# preprint, report, document) and otherwise reads it without case or spaces
# ("conferencepaper", "journalarticle"); its HighWire tags
# (citation_conference_title, citation_journal_title,
# citation_technical_report_institution) say the same where there is a venue.
# Without one, a page with a citation_title is a journal article to it.
DC_TYPES = {
    PublicationType.PREPRINT: "preprint",
    PublicationType.CONFERENCE_PAPER: "conference paper",
    PublicationType.JOURNAL_ARTICLE: "journal article",
    PublicationType.REPORT: "report",
    PublicationType.UNKNOWN: "document",
}


def meta_tags(document):
    """A document page's ``citation_*`` meta tags, as (name, content) pairs,
    in the order Google Scholar's inclusion guidelines list them, then the
    work's type as ``DC.type``.

    The ``citation_author`` tags name the authors the record knows: every one
    when the list is recorded, else those the citation names (the first, for
    "Chen et al."); none is invented. A preprint's repository is its
    publisher (``citation_publisher``: arXiv) and its arXiv identifier its
    number (``citation_technical_report_number``), which Zotero's Embedded
    Metadata translator maps to ``publisher`` and ``number``, a preprint's
    repository and archive ID; it reads no ``citation_arxiv_id``. The work's
    address (its arXiv page, else its DOI's) is ``citation_public_url``,
    Zotero's URL of the item.
    """
    authors, _ = document.known_authors
    tags = [("citation_title", document.title)]
    tags += [("citation_author", highwire_name(author)) for author in authors]
    date = document.publication_date.replace("-", "/") or str(document.year)
    tags += [("citation_publication_date", date), ("citation_date", date)]
    venue_tag = {
        PublicationType.CONFERENCE_PAPER: "citation_conference_title",
        PublicationType.JOURNAL_ARTICLE: "citation_journal_title",
        PublicationType.REPORT: "citation_technical_report_institution",
    }.get(document.publication_type)
    if document.venue and venue_tag:
        tags.append((venue_tag, document.venue))
    if document.arxiv_id:
        tags += [
            ("citation_arxiv_id", document.arxiv_id),
            ("citation_pdf_url", document.pdf_url),
        ]
    if document.work_doi:
        tags.append(("citation_doi", document.work_doi))
    if document.arxiv_id and document.publication_type == PublicationType.PREPRINT:
        tags += [
            ("citation_publisher", "arXiv"),
            ("citation_technical_report_number", f"arXiv:{document.arxiv_id}"),
        ]
    if url := work_url(document):
        tags.append(("citation_public_url", url))
    tags.append(("DC.type", DC_TYPES[document.publication_type]))
    return [(name, one_line(content)) for name, content in tags]


def render(documents, fmt):
    """The documents as one file in ``fmt`` ("bib", "ris" or "json")."""
    if fmt == "bib":
        return "\n".join(bibtex_entry(document) for document in documents)
    if fmt == "ris":
        return "\r\n".join(ris_entry(document) for document in documents)
    if fmt == "json":
        items = [csl_item(document) for document in documents]
        return json.dumps(items, ensure_ascii=False, indent=2) + "\n"
    raise ValueError(f"unknown citation format {fmt!r}")


def citation_response(documents, fmt, filename, *, keep_withdrawn=False):
    """A download of ``documents`` (a queryset) in ``fmt``, in number order.

    Withdrawn documents are left out of a file of several; a withdrawn
    document's own file (``keep_withdrawn``) still holds it. The caller
    chooses who sees what: readers get ``Document.objects.public()``.
    """
    if not keep_withdrawn:
        documents = documents.exclude(status=Document.Status.WITHDRAWN)
    public = Document.objects.public().select_related("registry")
    documents = (
        documents.in_number_order()
        .select_related("superseded_by__registry")
        .prefetch_related(Prefetch("supersedes", queryset=public))
    )
    text = render(documents, fmt)
    response = HttpResponse(text, content_type=FORMATS[fmt])
    response["Content-Disposition"] = f'attachment; filename="{filename}.{fmt}"'
    return response

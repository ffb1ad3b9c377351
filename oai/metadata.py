"""A document as a record's metadata, in the formats harvesters ask for.

``oai_dc`` is the protocol's own, flat Dublin Core. MODS (3.7) is the richer
one: the Library of Congress's bibliographic schema, which library discovery
systems and repositories (DSpace, EPrints) read, and which says what Dublin
Core cannot: each author's family and given names in order, that the list is
incomplete ("et al."), the venue as the host item, the DOI and arXiv
identifiers by type, the successor of a superseded document, and the ORCID
iD of each author the record has verified (``nameIdentifier``, new in 3.6).
"""

from dataclasses import dataclass
from xml.etree.ElementTree import Element, SubElement

XSI = "http://www.w3.org/2001/XMLSchema-instance"
DC = "http://purl.org/dc/elements/1.1/"
OAI_DC = "http://www.openarchives.org/OAI/2.0/oai_dc/"
MODS = "http://www.loc.gov/mods/v3"


@dataclass(frozen=True)
class Format:
    prefix: str
    schema: str
    namespace: str
    build: object
    # Whether the format writes the verified ORCID iDs of the authors
    # (``Facts.orcids``), which cost their page a query.
    orcids: bool = False


def _add(parent, tag, text="", **attributes):
    element = SubElement(parent, tag, attributes)
    if text:
        element.text = str(text)
    return element


def _root(tag, namespace, schema, **attributes):
    return Element(
        tag,
        {f"{{{XSI}}}schemaLocation": f"{namespace} {schema}", **attributes},
    )


def _date(document):
    """When the cited work was published, as precisely as known."""
    return document.publication_date or str(document.year)


def _person(author):
    """A CSL name as Dublin Core writes a person: ``Chen, Tianqi``."""
    if "literal" in author:
        return author["literal"]
    return ", ".join(part for part in (author["family"], author.get("given")) if part)


def dublin_core(document, facts):
    """``document`` as oai_dc: the cited work, with the document's page as its
    identifier. No description: the editors' summary is the anthology's
    reading of the work, not its abstract (the citation exports' rule), and
    harvesters read a description as the abstract; the record holds none
    from the source."""
    root = _root(f"{{{OAI_DC}}}dc", OAI_DC, OAI_DC_FORMAT.schema)
    _add(root, f"{{{DC}}}title", document.title)
    authors, _complete = document.known_authors
    for author in authors:
        _add(root, f"{{{DC}}}creator", _person(author))
    for subject in facts.subjects:
        _add(root, f"{{{DC}}}subject", subject)
    _add(root, f"{{{DC}}}date", _date(document))
    _add(root, f"{{{DC}}}type", "Text")
    if document.publication_type:
        _add(root, f"{{{DC}}}type", document.get_publication_type_display())
    _add(root, f"{{{DC}}}identifier", facts.page_url)
    for url in facts.work_urls:
        _add(root, f"{{{DC}}}identifier", url)
    if document.venue:
        _add(root, f"{{{DC}}}source", document.venue)
    if facts.successor_url:
        _add(root, f"{{{DC}}}relation", facts.successor_url)
    return root


def mods(document, facts):
    """``document`` as a MODS 3.7 record."""
    m = f"{{{MODS}}}"
    root = _root(f"{m}mods", MODS, MODS_FORMAT.schema, version="3.7")
    _add(_add(root, f"{m}titleInfo"), f"{m}title", document.title)
    authors, complete = document.known_authors
    for position, author in enumerate(authors):
        _mods_name(root, author, facts.orcids.get(position, ""))
    if not complete:
        _add(_add(root, f"{m}name"), f"{m}etal", "et al.")
    _add(root, f"{m}typeOfResource", "text")
    if document.publication_type:
        _add(root, f"{m}genre", document.get_publication_type_display())
    origin = _add(root, f"{m}originInfo")
    _add(origin, f"{m}dateIssued", _date(document), encoding="w3cdtf", keyDate="yes")
    # The editors' summary is the anthology's reading of the work, not its
    # abstract: a note labelled as the anthology's, as the citation exports
    # write it (BibTeX's annote, CSL-JSON's annote).
    if document.summary:
        _add(
            root,
            f"{m}note",
            f"Anthology summary ({facts.label}): "
            + " ".join(document.summary.split("\n")),
            displayLabel="Anthology summary",
        )
    _add(root, f"{m}note", document.citation.render(), type="preferred citation")
    for subject in facts.subjects:
        _add(_add(root, f"{m}subject"), f"{m}topic", subject)
    if document.venue:
        host = _add(root, f"{m}relatedItem", type="host")
        _add(_add(host, f"{m}titleInfo"), f"{m}title", document.venue)
    if facts.successor_url:
        successor = _add(root, f"{m}relatedItem", type="succeeding")
        _add(_add(successor, f"{m}location"), f"{m}url", facts.successor_url)
    if doi := document.work_doi:
        _add(root, f"{m}identifier", doi, type="doi")
    if arxiv := document.arxiv_id:
        _add(root, f"{m}identifier", arxiv, type="arxiv")
    _add(root, f"{m}identifier", facts.page_url, type="uri")
    location = _add(root, f"{m}location")
    _add(location, f"{m}url", facts.page_url, usage="primary display")
    record = _add(root, f"{m}recordInfo")
    _add(record, f"{m}recordIdentifier", facts.label)
    return root


def _mods_name(root, author, orcid=""):
    """One author as written, with ``orcid`` (an iD's address) when the
    record has verified the person's ORCID iD."""
    m = f"{{{MODS}}}"
    if "literal" in author:
        name = _add(root, f"{m}name", type="corporate")
        _add(name, f"{m}namePart", author["literal"])
    else:
        name = _add(root, f"{m}name", type="personal")
        _add(name, f"{m}namePart", author["family"], type="family")
        if author.get("given"):
            _add(name, f"{m}namePart", author["given"], type="given")
    if orcid:
        _add(name, f"{m}nameIdentifier", orcid, type="orcid")
    role = _add(name, f"{m}role")
    _add(role, f"{m}roleTerm", "aut", type="code", authority="marcrelator")


OAI_DC_FORMAT = Format(
    prefix="oai_dc",
    schema="http://www.openarchives.org/OAI/2.0/oai_dc.xsd",
    namespace=OAI_DC,
    build=dublin_core,
)
MODS_FORMAT = Format(
    prefix="mods",
    schema="http://www.loc.gov/standards/mods/v3/mods-3-7.xsd",
    namespace=MODS,
    build=mods,
    orcids=True,
)
FORMATS = {format.prefix: format for format in (OAI_DC_FORMAT, MODS_FORMAT)}
NAMESPACES = {"oai_dc": OAI_DC, "dc": DC, "mods": MODS, "xsi": XSI}

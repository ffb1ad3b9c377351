"""What arXiv and Crossref know of a work, by its identifier.

An editor pastes an arXiv id, a DOI, or an arXiv or doi.org address; the
arXiv API (Atom) or Crossref's REST API (JSON) answers with the title, the
authors, the date, the venue and the type. Every way the answer can fail
(no network, a timeout, an unknown identifier, a rate limit, an answer that
cannot be read, or one about another work) is a ``LookupFailed`` with a
message for the editor and a ``code``; nothing is half-filled.

Found works are kept in Django's cache (Redis when ``REDIS_URL`` is set, so
every instance shares them) for ``METADATA_CACHE_SECONDS``: the parsed
metadata is what is reused, and neither service sends validators worth
revalidating against. Failures are never kept.
"""

import re
from dataclasses import asdict, dataclass, field
from urllib.parse import quote
from xml.etree.ElementTree import ParseError

from defusedxml import ElementTree
from defusedxml.common import DefusedXmlException
from django.conf import settings
from django.core.cache import cache
from nameparser import HumanName

from catalogue.citations import (
    derived_authors,
    identifier_value,
    source_key,
    spelled_as_recorded,
)
from catalogue.models import PublicationType
from catalogue.text import cleaned
from sources import transport
from sources.cleaning import plain_text, with_subtitle
from sources.transport import LookupFailed

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"
ARXIV_ID_RE = re.compile(r"(?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?")
DOI_RE = re.compile(r"10\.\d{4,9}/\S+")
ARXIV_VERSION_RE = re.compile(r"v\d+$")
# Parts of a path that lead elsewhere in it: no DOI we look up holds one.
DOT_SEGMENTS = {".", ".."}
# Crossref's work types, as the record's publication types.
CROSSREF_TYPES = {
    "journal-article": PublicationType.JOURNAL_ARTICLE,
    "proceedings-article": PublicationType.CONFERENCE_PAPER,
    "posted-content": PublicationType.PREPRINT,
    "report": PublicationType.REPORT,
}


@dataclass(frozen=True)
class WorkMetadata:
    """A work as a source describes it, in the record's fields."""

    source_identifier: str
    title: str
    year: int
    author_list: list = field(default_factory=list)
    publication_date: str = ""
    venue: str = ""
    publication_type: str = ""
    doi: str = ""

    def __post_init__(self):
        # What a service sends, nobody typed: a character no text of the
        # record may hold (a control character, a noncharacter) is dropped,
        # so the form it fills and the proposal it makes can be saved.
        for name, value in asdict(self).items():
            object.__setattr__(self, name, cleaned(value))

    @property
    def authors(self):
        """The citation's authors text, derived from the list."""
        return derived_authors(self.author_list)

    def bibliography(self):
        """The fields a document's bibliography takes from this work."""
        return {
            "author_list": self.author_list,
            "venue": self.venue,
            "publication_type": self.publication_type,
            "publication_date": self.publication_date,
            "doi": self.doi,
        }

    def form_fields(self):
        """Everything a new document's form can be filled with."""
        return {
            "title": self.title,
            "authors": self.authors,
            "year": self.year,
            "source_identifier": self.source_identifier,
            **self.bibliography(),
        }


def recorded_identifier(text):
    """``ARXIV-1604.06174`` or ``DOI:10.…`` from what an editor pasted: an
    arXiv id or address, a DOI or a doi.org address. LookupFailed otherwise."""
    text = text.strip()
    if ARXIV_ID_RE.fullmatch(text):
        text = f"ARXIV-{text}"
    elif DOI_RE.fullmatch(text):
        text = f"DOI:{text}"
    identifier = spelled_as_recorded(text)
    arxiv_id = identifier_value(identifier, "ARXIV-")
    doi = identifier_value(identifier, "DOI:")
    if (arxiv_id and ARXIV_ID_RE.fullmatch(arxiv_id)) or (
        doi and DOI_RE.fullmatch(doi) and not DOT_SEGMENTS & set(doi.split("/"))
    ):
        return identifier
    raise LookupFailed(
        f"‘{text}’ is not an arXiv id (1604.06174), a DOI (10.1109/TAC.2003.812781) "
        "or an arXiv or doi.org address.",
        code="not_an_identifier",
    )


def look_up(text):
    """What arXiv or Crossref knows of the work ``text`` names: WorkMetadata,
    from the cache when it was found before. Raise LookupFailed."""
    identifier = recorded_identifier(text)
    key = f"metadata:{source_key(identifier)}"
    found = cache.get(key)
    if found is None:
        found = fetch(identifier)
        cache.set(key, asdict(found), settings.METADATA_CACHE_SECONDS)
        return found
    return WorkMetadata(**found)


def fetch(identifier):
    """Ask the source ``identifier`` belongs to; no cache. An arXiv id names
    the work, in its latest version, whatever version was pasted."""
    if arxiv_id := identifier_value(identifier, "ARXIV-"):
        return fetch_arxiv(ARXIV_VERSION_RE.sub("", arxiv_id))
    return fetch_crossref(identifier_value(identifier, "DOI:"))


def user_agent():
    """A polite User-Agent: who we are and where to write (Crossref asks it)."""
    return f"anthology/1.0 (metadata lookup; mailto:{settings.METADATA_MAILTO})"


def get(service, url, params=None):
    """GET ``url`` from ``service`` through the one bounded transport."""
    return transport.get(service, url, params=params, user_agent=user_agent())


def _failed_status(service, response, what):
    if response.status_code == 404:
        return LookupFailed(f"{service} knows no {what}.", code="not_found")
    return LookupFailed(
        f"{service} answered {response.status_code} for {what}; try again later.",
        code="service_error",
    )


# arXiv


def fetch_arxiv(arxiv_id):
    response = get("arXiv", settings.METADATA_ARXIV_URL, {"id_list": arxiv_id})
    if response.status_code != 200:
        raise _failed_status("arXiv", response, f"paper {arxiv_id}")
    try:
        feed = ElementTree.fromstring(response.content)
    except (ParseError, DefusedXmlException, RecursionError) as error:
        raise LookupFailed(
            f"arXiv's answer for {arxiv_id} could not be read (malformed XML: "
            f"{error}).",
            code="malformed",
        ) from None
    entry = feed.find(f"{ATOM}entry")
    if entry is None or _text(entry, "id").startswith("http://arxiv.org/api/errors"):
        raise LookupFailed(f"arXiv knows no paper {arxiv_id}.", code="not_found")
    return _arxiv_work(arxiv_id, entry)


def _text(element, name, namespace=ATOM):
    found = element.find(f"{namespace}{name}")
    return " ".join((found.text or "").split()) if found is not None else ""


def _arxiv_work(arxiv_id, entry):
    answered = _text(entry, "id").rsplit("/abs/", 1)[-1]
    if ARXIV_VERSION_RE.sub("", answered) != ARXIV_VERSION_RE.sub("", arxiv_id):
        raise LookupFailed(
            f"arXiv answered for {arxiv_id} with another paper, {answered}: nothing "
            "was filled in.",
            code="other_work",
        )
    published = _text(entry, "published")
    title = _text(entry, "title")
    if not re.match(r"\d{4}-\d{2}-\d{2}", published) or not title:
        raise LookupFailed(
            f"arXiv's answer for {arxiv_id} has no title or no publication date.",
            code="malformed",
        )
    return WorkMetadata(
        source_identifier=f"ARXIV-{arxiv_id}",
        title=title,
        year=int(published[:4]),
        author_list=[
            person_name(_text(author, "name"))
            for author in entry.findall(f"{ATOM}author")
        ],
        publication_date=published[:10],
        venue=_text(entry, "journal_ref", ARXIV),
        publication_type=PublicationType.PREPRINT,
        doi=_text(entry, "doi", ARXIV),
    )


def person_name(name):
    """A name as arXiv prints it (``Tianqi Chen``) as a CSL name."""
    parsed = HumanName(name)
    given = " ".join(part for part in (parsed.first, parsed.middle) if part)
    if not parsed.last:
        return {"literal": name}
    family = f"{parsed.last}, {parsed.suffix}" if parsed.suffix else parsed.last
    return {"family": family, "given": given} if given else {"family": family}


# Crossref


def fetch_crossref(doi):
    # The DOI is one part of the path: "?" and "#" in it are percent-encoded,
    # and recorded_identifier refused "." and ".." parts.
    url = f"{settings.METADATA_CROSSREF_URL.rstrip('/')}/works/{quote(doi, safe='/')}"
    response = get("Crossref", url, {"mailto": settings.METADATA_MAILTO})
    if response.status_code != 200:
        raise _failed_status("Crossref", response, f"DOI {doi}")
    try:
        work = response.json()["message"]
        return _crossref_work(doi, work)
    except (
        ValueError,
        KeyError,
        TypeError,
        IndexError,
        AttributeError,
        RecursionError,
    ) as error:
        raise LookupFailed(
            f"Crossref's answer for DOI {doi} could not be read (malformed JSON: "
            f"{error.__class__.__name__} {error}).",
            code="malformed",
        ) from None


def _crossref_work(doi, work):
    answered = work["DOI"]
    if answered.lower() != doi.lower():
        raise LookupFailed(
            f"Crossref answered for DOI {doi} with another work, {answered}: "
            "nothing was filled in.",
            code="other_work",
        )
    parts = (work.get("issued") or {}).get("date-parts") or [[None]]
    parts = [int(part) for part in parts[0] if part is not None]
    title = with_subtitle(_first(work, "title"), _first(work, "subtitle"))
    if not parts or not title:
        raise LookupFailed(
            f"Crossref's answer for DOI {doi} has no title or no date.",
            code="malformed",
        )
    return WorkMetadata(
        source_identifier=f"DOI:{doi}",
        title=title,
        year=parts[0],
        author_list=[crossref_name(author) for author in work.get("author", [])],
        publication_date="-".join(
            f"{part:02d}" if index else str(part) for index, part in enumerate(parts)
        ),
        venue=plain_text(_first(work, "container-title")),
        publication_type=CROSSREF_TYPES.get(work.get("type"), PublicationType.UNKNOWN),
        doi=answered,
    )


def _first(work, key):
    """The first of a Crossref list of strings (``title``, ``subtitle``,
    ``container-title``), or ""."""
    return (work.get(key) or [""])[0]


def crossref_name(author):
    """A Crossref contributor as a CSL name; an organisation comes as ``name``."""
    if "family" not in author:
        return {"literal": author["name"]}
    if author.get("given"):
        return {"family": author["family"], "given": author["given"]}
    return {"family": author["family"]}

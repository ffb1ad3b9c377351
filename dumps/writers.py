"""Each format of a dump, written document by document from a chunked query.

The entries are the site's own: BibTeX, RIS and CSL-JSON are
``formats.citations``' entries, joined as its ``render`` joins them (a dump's
file is what a download of the same documents would hold), and JSON Lines
are the API's ``DocumentSerializer``, one compact document a line. Only what
a reader may see goes in: ``Document.objects.public()`` and the published
text (a pending revision is a row of its own, never read here); the citation
files leave withdrawn documents out, as every citation file of several
documents does, and the JSON Lines keep them with their status, as the API
lists them.
"""

import json
from dataclasses import dataclass

from django.db.models import Prefetch
from rest_framework.utils.encoders import JSONEncoder

from api.serializers import DocumentSerializer
from api.views import document_rows
from catalogue.models import Document
from formats import citations

# Documents read from the database at a time: memory follows this, not the
# size of the record.
CHUNK_SIZE = 500


def citation_documents():
    """The public documents a citation file of the whole record holds, in
    number order, with what their entries read (as ``citation_response``
    reads them)."""
    public = Document.objects.public().select_related("registry")
    return (
        Document.objects.public()
        .exclude(status=Document.Status.WITHDRAWN)
        .in_number_order()
        .select_related("superseded_by__registry")
        .prefetch_related(Prefetch("supersedes", queryset=public))
    )


def api_documents():
    """The public documents as the API lists them to a reader, in number order."""
    return document_rows(Document.objects.public()).order_by(
        "registry__prefix", "number"
    )


def bibtex_lines(documents):
    for index, document in enumerate(documents):
        yield ("\n" if index else "") + citations.bibtex_entry(document)


def ris_lines(documents):
    for index, document in enumerate(documents):
        yield ("\r\n" if index else "") + citations.ris_entry(document)


def csl_json_lines(documents):
    """One JSON array, as ``citations.render`` writes it, an item at a time."""
    empty = True
    for document in documents:
        item = json.dumps(citations.csl_item(document), ensure_ascii=False, indent=2)
        yield ("[\n" if empty else ",\n") + "\n".join(
            f"  {line}" for line in item.split("\n")
        )
        empty = False
    yield "[]\n" if empty else "\n]\n"


def json_lines(documents):
    for document in documents:
        data = DocumentSerializer(document).data
        yield (
            json.dumps(data, cls=JSONEncoder, ensure_ascii=False, separators=(",", ":"))
            + "\n"
        )


@dataclass(frozen=True)
class Format:
    """A file of every dump: its ``name`` in the dump, what it holds, its
    documents' query and the writer of its text."""

    key: str
    name: str
    label: str
    media_type: str
    documents: object
    lines: object


FORMATS = (
    Format(
        "bibtex",
        "anthology.bib.gz",
        "BibTeX",
        "application/x-bibtex",
        citation_documents,
        bibtex_lines,
    ),
    Format(
        "ris",
        "anthology.ris.gz",
        "RIS",
        "application/x-research-info-systems",
        citation_documents,
        ris_lines,
    ),
    Format(
        "csl-json",
        "anthology.csl.json.gz",
        "CSL-JSON",
        "application/vnd.citationstyles.csl+json",
        citation_documents,
        csl_json_lines,
    ),
    Format(
        "jsonl",
        "anthology.jsonl.gz",
        "JSON Lines (the API's documents)",
        "application/jsonl",
        api_documents,
        json_lines,
    ),
)
BY_NAME = {fmt.name: fmt for fmt in FORMATS}


class Counted:
    """An iterator over ``documents`` that counts what it gave."""

    def __init__(self, documents):
        self.documents = documents
        self.count = 0

    def __iter__(self):
        for document in self.documents.iterator(chunk_size=CHUNK_SIZE):
            self.count += 1
            yield document

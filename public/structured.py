"""What a page says about itself to machines: schema.org JSON-LD and COinS.

Every page names its place in the site (a ``BreadcrumbList``). A document's
page describes the cited work as a ``ScholarlyArticle`` (its authors as far
as the record knows them, each the record links to a person naming that
person's page, its date, its identifiers as ``PropertyValue``s,
its venue, ``sameAs`` its arXiv or DOI address) and the page itself as the
record's ``WebPage`` about it, whose ``description`` is the editor's summary:
the summary is the anthology's reading, never the work's abstract. A topic's
page is a ``CollectionPage`` whose main entity is the ``ItemList`` of its
documents; a person's page is a ``ProfilePage`` about the ``Person``
(``sameAs`` their ORCID iD's address once an editor verified it); the full
index describes the record as a ``Dataset``. Every
address is under the canonical origin (``SITE_URL``).

COinS (a ``<span class="Z3988">`` per row of a list) carry each document's
citation as an OpenURL, which Zotero and other reference managers read from
list pages: its type as the OpenURL format and genre, every author the record
knows, its date, and its DOI and arXiv identifier.
"""

import json
from html import escape

from django.urls import reverse
from django.utils.safestring import mark_safe

from catalogue.addresses import absolute_url, site_origin
from catalogue.citations import (
    cited_authors,
    doi_url,
    identifier_url,
    identifier_value,
)
from catalogue.identifiers import identifier_path
from catalogue.models import PublicationType
from formats.citations import family_first

SCHEMA = "https://schema.org"
SITE_NAME = "Anthology"
# JSON inside <script> must not close the element or open a comment.
SCRIPT_ESCAPES = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026"}


def json_ld(data):
    """``data`` as a ``<script type="application/ld+json">`` element."""
    text = json.dumps({"@context": SCHEMA, **data}, ensure_ascii=False)
    return mark_safe(
        f'<script type="application/ld+json">{text.translate(SCRIPT_ESCAPES)}</script>'
    )


def breadcrumbs(trail):
    """A ``BreadcrumbList`` of ``trail``, (name, path) pairs from the index."""
    return {
        "@type": "BreadcrumbList",
        "itemListElement": [
            {
                "@type": "ListItem",
                "position": position,
                "name": name,
                "item": absolute_url(path),
            }
            for position, (name, path) in enumerate(trail, start=1)
        ],
    }


def index_trail(*steps):
    return [("Full index", reverse("catalogue:index")), *steps]


def document_trail(document):
    topic = document.topic
    steps = [(topic.name, topic.get_absolute_url())] if topic else []
    return index_trail(*steps, (document.identifier, document.get_absolute_url()))


def person(author):
    """A CSL name as a schema.org ``Person`` or ``Organization``."""
    if "literal" in author:
        return {"@type": "Organization", "name": author["literal"]}
    given = author.get("given", "")
    names = {"familyName": author["family"]}
    if given:
        names["givenName"] = given
    return {"@type": "Person", "name": f"{given} {author['family']}".strip(), **names}


def identifiers(document):
    """The work's identifiers as ``PropertyValue``s, and their addresses."""
    values = []
    if document.arxiv_id:
        values.append(("arXiv", document.arxiv_id, document.source_url))
    if document.work_doi:
        values.append(("DOI", document.work_doi, doi_url(document.work_doi)))
    return [
        {"@type": "PropertyValue", "propertyID": scheme, "value": value, "url": url}
        for scheme, value, url in values
    ]


VENUE_TYPES = {
    PublicationType.JOURNAL_ARTICLE: "Periodical",
    PublicationType.CONFERENCE_PAPER: "Book",
}


def person_reference(person_page):
    """What names the person of a person's page: their node there."""
    url = absolute_url(person_page)
    return {"@id": f"{url}#person", "url": url}


def scholarly_article(document, page_url):
    """The cited work, as far as the record knows it; each author the record
    links to a person (``current_authorships``, read with the document)
    names the person's page."""
    authors, _ = document.known_authors
    pages = {
        authorship.position: authorship.person.get_absolute_url()
        for authorship in getattr(document, "current_authorships", ())
    }
    ids = identifiers(document)
    work = {
        "@type": "ScholarlyArticle",
        "@id": f"{page_url}#work",
        "name": document.title,
        "headline": document.title[:110],
        "author": [
            {**person(author), **person_reference(pages[position])}
            if position in pages
            else person(author)
            for position, author in enumerate(authors)
        ],
        "datePublished": document.publication_date or str(document.year),
    }
    if ids:
        work["identifier"] = ids
        work["sameAs"] = [value["url"] for value in ids]
    if document.venue:
        work["isPartOf"] = {
            "@type": VENUE_TYPES.get(document.publication_type, "CreativeWork"),
            "name": document.venue,
        }
    return work


def document_graph(document, page_url):
    """A document page: the record's page about the work, and the work."""
    page = {
        "@type": "WebPage",
        "@id": page_url,
        "url": page_url,
        "name": f"{document.identifier}: {document.title}",
        "description": document.summary,
        "about": {"@id": f"{page_url}#work"},
        "isPartOf": site(),
        "breadcrumb": breadcrumbs(document_trail(document)),
    }
    return {"@graph": [page, scholarly_article(document, page_url)]}


def version_graph(document, version, page_url):
    trail = document_trail(document)
    trail.append((f"v{version.number}", page_url))
    return {
        "@type": "WebPage",
        "@id": page_url,
        "url": page_url,
        "name": f"{document.identifier} v{version.number}: {version.title}",
        "isPartOf": site(),
        "breadcrumb": breadcrumbs(trail),
    }


def topic_graph(topic, rows, page_url):
    """A topic page: a collection whose main entity lists its documents."""
    # One reverse() for the thousand rows of a long topic page.
    path = identifier_path("catalogue:document-detail")
    origin = site_origin()
    items = [
        {
            "@type": "ListItem",
            "position": position,
            "name": f"{name}: {row.title}",
            "url": f"{origin}{path(name)}",
        }
        for position, row in enumerate(rows, start=1)
        for name in [row.name]
    ]
    return {
        "@type": "CollectionPage",
        "@id": page_url,
        "url": page_url,
        "name": topic.name,
        "description": topic.scope,
        "isPartOf": site(),
        "breadcrumb": breadcrumbs(index_trail((topic.name, topic.get_absolute_url()))),
        "mainEntity": {
            "@type": "ItemList",
            "numberOfItems": len(items),
            "itemListElement": items,
        },
    }


def person_graph(person_record, page_url):
    """A person's page: a profile page whose main entity is the person (an
    organisation, for a name of one), ``sameAs`` their ORCID iD's address
    once an editor verified it."""
    entity = {
        **person(person_record.name),
        "@id": f"{page_url}#person",
        "url": page_url,
    }
    if person_record.affiliation and entity["@type"] == "Person":
        entity["affiliation"] = {
            "@type": "Organization",
            "name": person_record.affiliation,
        }
    if person_record.is_verified:
        entity["identifier"] = {
            "@type": "PropertyValue",
            "propertyID": "ORCID",
            "value": person_record.orcid,
        }
        entity["sameAs"] = [person_record.orcid_url]
    trail = index_trail(
        ("People", reverse("catalogue:people")),
        (person_record.display_name, person_record.get_absolute_url()),
    )
    return {
        "@type": "ProfilePage",
        "@id": page_url,
        "url": page_url,
        "name": person_record.display_name,
        "isPartOf": site(),
        "breadcrumb": breadcrumbs(trail),
        "mainEntity": entity,
    }


def site():
    return {
        "@type": "WebSite",
        "@id": absolute_url(reverse("catalogue:index")),
        "name": SITE_NAME,
    }


def index_graph(page_url):
    """The full index: the record, described as a data set."""
    return {
        "@graph": [
            {
                "@type": "Dataset",
                "@id": f"{page_url}#record",
                "name": "Anthology: a curated record of machine-learning research",
                "description": (
                    "Editors' summaries of machine-learning papers and reports, "
                    "each opening with its citation, filed by topic and revised "
                    "in published versions."
                ),
                "url": page_url,
                "isAccessibleForFree": True,
                "distribution": [
                    {
                        "@type": "DataDownload",
                        "encodingFormat": "application/atom+xml",
                        "contentUrl": absolute_url(reverse("catalogue:feed")),
                    }
                ],
            },
            {**site(), "url": page_url},
            {
                "@type": "WebPage",
                "@id": f"{page_url}#page",
                "url": page_url,
                "name": "Full index",
                "about": {"@id": f"{page_url}#record"},
                "breadcrumb": breadcrumbs(index_trail()),
            },
        ]
    }


def page_graph(name, path):
    """Any other page: its place in the site."""
    page_url = absolute_url(path)
    trail = index_trail() if path == reverse("catalogue:index") else None
    return {
        "@type": "WebPage",
        "@id": page_url,
        "url": page_url,
        "name": name,
        "isPartOf": site(),
        "breadcrumb": breadcrumbs(trail or index_trail((name, path))),
    }


# COinS: the citation as an OpenURL ContextObject (Z39.88-2004) in a span.
# Zotero's COinS translator reads a span with Zotero.Utilities
# .parseContextObject (zotero/utilities, openurl.js), whose rules these follow:
# - the type: "rft_val_fmt=info:ofi/fmt:kev:mtx:journal" is a journal article;
#   "…:mtx:book" with "rft.genre=proceeding" a conference paper, with
#   "rft.genre=report" a report, with "rft.genre=document" a document; a
#   preprint is a journal-format "rft.genre=preprint", which Zotero reads as
#   a journal article until "rft.type=preprint" (a Dublin Core key it reads in
#   any format, "if (Zotero.Utilities.Item.itemTypeExists(value))") makes it
#   a preprint, so that key comes after the title;
# - the title: "rft.atitle" for a journal article or a conference paper,
#   "rft.btitle" for a report, "rft.title" for a document (and a preprint,
#   read while it is a journal article, takes "rft.atitle");
# - every author: "rft.au", split at its first comma into family and given
#   names ("cleanAuthor(value, type, value.indexOf(',') !== -1)"), so each
#   is written "Family, Given" as the citation_author tags are;
# - identifiers: "rft_id=info:doi/…" is the DOI, an "https://" rft_id the
#   address (Zotero reads no info:arxiv/, other resolvers do).
COINS_TYPES = {
    PublicationType.PREPRINT: ("journal", "preprint", "rft.atitle"),
    PublicationType.CONFERENCE_PAPER: ("book", "proceeding", "rft.atitle"),
    PublicationType.JOURNAL_ARTICLE: ("journal", "article", "rft.atitle"),
    PublicationType.REPORT: ("book", "report", "rft.btitle"),
    PublicationType.UNKNOWN: ("book", "document", "rft.title"),
}
COINS_VENUE_KEYS = {
    PublicationType.CONFERENCE_PAPER: "rft.btitle",
    PublicationType.JOURNAL_ARTICLE: "rft.jtitle",
    PublicationType.REPORT: "rft.pub",
}


def coins(row):
    """A ``<span class="Z3988">`` holding a table row's citation."""
    citation = row.citation
    kind = row.publication_type
    fmt, genre, title_key = COINS_TYPES[kind]
    authors = row.author_list or cited_authors(citation.authors)[0]
    fields = [
        ("ctx_ver", "Z39.88-2004"),
        ("rft_val_fmt", f"info:ofi/fmt:kev:mtx:{fmt}"),
        ("rft.genre", genre),
        (title_key, row.title),
        *(("rft.au", family_first(author, separators=",;")) for author in authors),
        ("rft.date", row.publication_date or str(citation.year)),
    ]
    if row.venue and kind in COINS_VENUE_KEYS:
        fields.append((COINS_VENUE_KEYS[kind], row.venue))
    if doi := row.doi or identifier_value(citation.identifier, "DOI:"):
        fields.append(("rft_id", f"info:doi/{doi}"))
    if arxiv := identifier_value(citation.identifier, "ARXIV-"):
        fields += [
            ("rft_id", f"info:arxiv/{arxiv}"),
            ("rft_id", identifier_url(citation.identifier)),
        ]
    if kind == PublicationType.PREPRINT:
        fields.append(("rft.type", "preprint"))
    return f'<span class="Z3988" title="{escape(form_encoded(fields))}"></span>'


# What ``urllib.parse.quote_plus`` writes for each byte of a value's UTF-8:
# letters, digits and "_.-~" as they are, a space as "+", any other byte as
# "%XX".
_FORM_BYTES = [
    chr(byte)
    if chr(byte).isascii() and (chr(byte).isalnum() or chr(byte) in "_.-~")
    else "+"
    if byte == 0x20
    else f"%{byte:02X}"
    for byte in range(256)
]


def form_encoded(fields):
    """``urllib.parse.urlencode(fields)``, ``fields`` being pairs of text: the
    same characters, written by one translation of each text (its UTF-8 read
    as Latin-1, one character a byte) rather than a call a byte. A table of
    rows writes the COinS of every row it stores."""
    return "&".join(f"{_form_text(key)}={_form_text(value)}" for key, value in fields)


def _form_text(text):
    text = str(text)
    if not text.isascii():
        text = text.encode().decode("latin-1")
    return text.translate(_FORM_BYTES)

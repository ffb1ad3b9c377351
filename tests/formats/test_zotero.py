"""The pages as Zotero saves them: its Embedded Metadata translator on every
document page, its COinS translator on a topic page's rows, run unmodified
(tests/clients/zotero.py), and the page metadata's rules those translators
read, asserted without them."""

from urllib.parse import parse_qsl

import pytest
from bs4 import BeautifulSoup

from catalogue.models import Document, Topic
from tests.clients import zotero
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db

# The Zotero item type each publication type is saved as.
ITEM_TYPES = {
    "preprint": "preprint",
    "conference_paper": "conferencePaper",
    "journal_article": "journalArticle",
    "report": "report",
    "": "document",
}


@pytest.fixture
def every_type(module_seed, db):
    """Beside the seed (preprints, and one of a type not known), one document
    of each other type, full author lists among them, with DOIs and arXiv
    identifiers, filed under the seed's topic."""
    topic = Topic.objects.get(slug="distributed-optimization")
    return [
        DocumentFactory(
            number=981,
            title="BytePS: A Unified Architecture",
            authors="Jiang et al.",
            author_list=[
                {"family": "Jiang", "given": "Yimin"},
                {"family": "Zhu", "given": "Yibo"},
                {"literal": "Wan Team, Alibaba"},
            ],
            venue="OSDI ‘20",
            publication_type="conference_paper",
            source_identifier="ARXIV-2005.00001",
            topic=topic,
            published=True,
        ),
        DocumentFactory(
            number=982,
            title="Coordination of groups of mobile autonomous agents",
            authors="Jadbabaie, Lin and Morse",
            author_list=[
                {"family": "Jadbabaie", "given": "A."},
                {"family": "Lin", "given": "Jie"},
                {"family": "Morse", "given": "A.S."},
            ],
            venue="IEEE Transactions on Automatic Control",
            publication_type="journal_article",
            year=2003,
            source_identifier="DOI:10.1109/TAC.2003.812781",
            topic=topic,
            published=True,
        ),
        DocumentFactory(
            number=983,
            title="Fleet report",
            authors="CoreWeave",
            author_list=[{"literal": "CoreWeave"}],
            venue="CoreWeave",
            publication_type="report",
            source_identifier="",
            topic=topic,
            published=True,
        ),
    ]


def documents():
    return list(Document.objects.public().in_number_order())


def last_names(document):
    """The names Zotero should keep: family names, organisations whole less
    their commas (as the page writes them)."""
    authors, _ = document.known_authors
    return [
        author.get("family") or author["literal"].replace(",", "") for author in authors
    ]


def page(client, document):
    response = client.get(document.get_absolute_url())
    assert response.status_code == 200
    return response.content.decode()


# Zotero's translators themselves (skipped, under CI too, without checkouts).


def test_embedded_metadata_saves_each_document_as_its_type(client, every_type):
    for document in documents():
        url = f"http://testserver{document.get_absolute_url()}"
        (item,) = zotero.translate("Embedded Metadata", url, page(client, document))

        assert item["itemType"] == ITEM_TYPES[document.publication_type], (
            document.identifier
        )
        assert [c["lastName"] for c in item["creators"]] == last_names(document)
        assert "abstractNote" not in item, (document.identifier, item)
        if document.work_doi:
            assert item["DOI"] == document.work_doi
        if document.arxiv_id and document.publication_type == "preprint":
            assert item["archiveID"] == f"arXiv:{document.arxiv_id}"
            assert item["repository"] == "arXiv"
        elif document.arxiv_id:
            assert item["url"] == f"https://arxiv.org/abs/{document.arxiv_id}"


def test_coins_translator_saves_each_row_as_its_type(client, every_type):
    topic = Topic.objects.get(slug="distributed-optimization")
    listed = list(Document.objects.public().in_topic(topic).in_number_order())
    html = client.get(topic.get_absolute_url()).content.decode()

    items = zotero.translate(
        "COinS", f"http://testserver{topic.get_absolute_url()}", html
    )

    # parseContextObject() reads "+" and "%2B" alike as a space
    # (value.replace(/\+|%2[bB]/g, " ")): "ZeRO++" cannot reach Zotero whole.
    assert [item["title"] for item in items] == [
        doc.title.replace("+", " ") for doc in listed
    ]
    for document, item in zip(listed, items, strict=True):
        assert item["itemType"] == ITEM_TYPES[document.publication_type], (
            document.identifier
        )
        assert [c["lastName"] for c in item["creators"]] == last_names(document)
        if document.work_doi:
            assert item["DOI"] == document.work_doi
        if document.arxiv_id:
            assert item["url"] == f"https://arxiv.org/abs/{document.arxiv_id}"


# The rules those translators read, asserted on every page without them.


def metas(soup, name):
    return [tag["content"] for tag in soup.find_all("meta", attrs={"name": name})]


def test_document_pages_say_their_type_and_no_description(client, every_type):
    for document in documents():
        soup = BeautifulSoup(page(client, document), "html.parser")
        kind = document.publication_type

        # Embedded Metadata.js, init(): a DC.* tag is passed to RDF.js, whose
        # detectType() takes a dc:type naming an item type
        # ("ZU.itemTypeExists(type)": preprint, report, document) or reads it
        # without case and spaces ("conferencepaper", "journalarticle").
        (dc_type,) = metas(soup, "DC.type")
        assert dc_type.replace(" ", "").lower() == ITEM_TYPES[kind].lower()
        # addLowQualityMetadata(): "if (!newItem.abstractNote) newItem
        # .abstractNote = ... meta[name="description" i]"; RDF.js importItem():
        # abstractNote from og:description.
        assert metas(soup, "description") == []
        assert soup.find("meta", property="og:description") is None
        assert metas(soup, "twitter:description")
        # processHighwireCreators(): one author a citation_author tag.
        assert [name.split(",")[0] for name in metas(soup, "citation_author")] == (
            last_names(document)
        )
        # HIGHWIRE_MAPPINGS: citation_publisher -> publisher (a preprint's
        # repository), citation_technical_report_number -> number (its
        # archive ID); no translator reads citation_arxiv_id.
        if document.arxiv_id and kind == "preprint":
            assert metas(soup, "citation_publisher") == ["arXiv"]
            assert metas(soup, "citation_technical_report_number") == [
                f"arXiv:{document.arxiv_id}"
            ]
        else:
            assert metas(soup, "citation_publisher") == []
        # init(): citation_journal_title makes a journal article,
        # citation_conference_title a conference paper,
        # citation_technical_report_institution a report.
        if kind != "preprint" and kind:
            assert metas(
                soup,
                {
                    "conference_paper": "citation_conference_title",
                    "journal_article": "citation_journal_title",
                    "report": "citation_technical_report_institution",
                }[kind],
            ) == [document.venue]


def test_topic_rows_coins_say_type_every_author_and_identifiers(client, every_type):
    topic = Topic.objects.get(slug="distributed-optimization")
    listed = list(Document.objects.public().in_topic(topic).in_number_order())
    soup = BeautifulSoup(client.get(topic.get_absolute_url()).content, "html.parser")
    spans = [parse_qsl(span["title"]) for span in soup.select("span.Z3988")]
    # openurl.js, parseContextObject(): rft_val_fmt journal is a journal
    # article; book with rft.genre=proceeding a conference paper, report a
    # report, document a document; rft.type naming an item type sets it.
    formats = {
        "preprint": ("journal", "preprint"),
        "conference_paper": ("book", "proceeding"),
        "journal_article": ("journal", "article"),
        "report": ("book", "report"),
        "": ("book", "document"),
    }

    assert len(spans) == len(listed) > 60
    kinds = set()
    for document, pairs in zip(listed, spans, strict=True):
        fields = dict(pairs)
        kind = document.publication_type
        kinds.add(kind)
        assert (
            fields["rft_val_fmt"].removeprefix("info:ofi/fmt:kev:mtx:"),
            fields["rft.genre"],
        ) == formats[kind]
        # "rft.au": cleanAuthor(value, type, value.indexOf(",") !== -1).
        names = [value for key, value in pairs if key == "rft.au"]
        assert [name.split(",")[0] for name in names] == last_names(document)
        ids = [value for key, value in pairs if key == "rft_id"]
        if document.work_doi:
            assert f"info:doi/{document.work_doi}" in ids
        if document.arxiv_id:
            assert f"https://arxiv.org/abs/{document.arxiv_id}" in ids
        if kind == "preprint":
            # rft.type after the title: "rft.atitle" is read only while the
            # item is still a journal article.
            keys = [key for key, _ in pairs]
            assert keys.index("rft.type") > keys.index("rft.atitle")
            assert fields["rft.type"] == "preprint"
    assert kinds == set(formats)

"""The staff CSV's citation and author list are the record's own: each cell
is what ``catalogue.citations`` prints for the document, whatever its text
holds and whichever way it was written (a save, a bulk import, a restore)."""

import copy
import csv
import io

import pytest
from django.urls import reverse

import actions.documents
from actions.batch import DocumentWrite, DocumentWriter
from catalogue.citations import author_list_cell, render_citation
from catalogue.models import Document
from formats.exports import neutralise
from tests.factories import (
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
    UserFactory,
    factory_publisher,
)

pytestmark = pytest.mark.django_db

# Many authors, as a consortium paper lists them: people with and without
# given names, particles, typographic apostrophes, organisations whose names
# hold commas and semicolons (braced whole in the cell).
MANY_AUTHORS = [
    *(
        {"family": f"O’Brien-{n}", "given": f"Siobhán {n}"}
        if n % 3
        else {"family": f"van der Berg {n}"}
        for n in range(1, 60)
    ),
    {"literal": "Wan Team, Alibaba"},
    {"literal": "Lab; Group “Alpha”"},
]

# (fields, citation as the record prints it): typographic quotes and dashes,
# an identifier alone, a note alone, neither, a DOI, a would-be formula.
DOCUMENTS = [
    (
        {
            "authors": "O’Brien and D’Souza",
            "year": 2025,
            "source_identifier": "ARXIV-2511.14124",
            "citation_note": "(SoCC ‘25)",
            "author_list": MANY_AUTHORS,
        },
        "O’Brien and D’Souza (2025), ARXIV-2511.14124 (SoCC ‘25)",
    ),
    (
        {
            "authors": "Zheng et al., Tsinghua and NVIDIA",
            "year": 2021,
            "source_identifier": "ARXIV-2105.05720",
            "citation_note": "— CoCoNet “ASPLOS” 2022",
        },
        "Zheng et al., Tsinghua and NVIDIA (2021), ARXIV-2105.05720 — CoCoNet "
        "“ASPLOS” 2022",
    ),
    (
        {
            "authors": "Jiang et al.",
            "year": 2020,
            "source_identifier": "",
            "citation_note": "OSDI ‘20",
        },
        "Jiang et al. (2020), OSDI ‘20",
    ),
    (
        {
            "authors": "CoreWeave",
            "year": 2025,
            "source_identifier": "",
            "citation_note": "",
            "author_list": [],
        },
        "CoreWeave (2025)",
    ),
    (
        {
            "authors": "Jadbabaie, Lin and Morse",
            "year": 2003,
            "source_identifier": "DOI:10.1109/TAC.2003.812781",
            "citation_note": "",
            "author_list": [
                {"family": "Jadbabaie", "given": "A."},
                {"family": "Lin"},
                {"family": "Morse", "given": "A. S."},
            ],
        },
        "Jadbabaie, Lin and Morse (2003), DOI:10.1109/TAC.2003.812781",
    ),
    (
        {
            "authors": '=HYPERLINK("x")',
            "year": 2024,
            "source_identifier": "",
            "citation_note": "",
            "author_list": [{"literal": "@Group"}],
        },
        '=HYPERLINK("x") (2024)',
    ),
]


@pytest.fixture
def staff_client(client):
    client.force_login(UserFactory(editor=True))
    return client


def exported(client):
    """The documents' CSV rows by identifier."""
    response = client.get(reverse("catalogue:export-documents"))
    text = b"".join(response.streaming_content).decode("utf-8")
    return {row["identifier"]: row for row in csv.DictReader(io.StringIO(text))}


def printed(document):
    """The citation and the author list as ``catalogue.citations`` prints
    them, neutralised as every cell is."""
    citation = render_citation(
        document.authors,
        document.year,
        document.source_identifier,
        document.citation_note,
    )
    return neutralise(citation), neutralise(author_list_cell(document.author_list))


@pytest.mark.parametrize(("fields", "citation"), DOCUMENTS)
def test_export_cells_are_the_citation_and_author_list_the_record_prints(
    staff_client, fields, citation
):
    document = DocumentFactory(**fields, published=True)

    row = exported(staff_client)[str(document.identifier)]

    assert (row["citation"], row["author_list"]) == printed(document)
    assert row["citation"] == neutralise(citation)


def test_many_authors_are_one_cell_in_order_organisations_braced(staff_client):
    document = DocumentFactory(author_list=MANY_AUTHORS)

    cell = exported(staff_client)[str(document.identifier)]["author_list"]

    assert cell.startswith(
        "O’Brien-1, Siobhán 1; O’Brien-2, Siobhán 2; van der Berg 3;"
    )
    assert cell.endswith("; {Wan Team, Alibaba}; {Lab; Group “Alpha”}")
    assert cell.count("; ") == len(MANY_AUTHORS) - 1 + 1  # One inside braces.


def test_an_edit_published_reaches_the_export(staff_client):
    document = DocumentFactory(published=True)
    exported(staff_client)  # Read once before the change.

    actions.documents.edit_document(
        document=document,
        user=factory_publisher(),
        changes={
            "authors": "D’Souza et al.",
            "citation_note": "(NSDI ‘26)",
            "author_list": [{"family": "D’Souza", "given": "Ana"}],
        },
    )
    actions.documents.publish(document=document, user=factory_publisher())
    document.refresh_from_db()

    row = exported(staff_client)[str(document.identifier)]
    assert row["citation"] == (
        f"D’Souza et al. ({document.year}), {document.source_identifier} (NSDI ‘26)"
    )
    assert row["author_list"] == "D’Souza, Ana"


def test_a_bulk_write_reaches_the_export(staff_client):
    writer = DocumentWriter(note="Imported.", via="import_index list.txt")
    new = DocumentFactory.build(
        registry=RegistryFactory(),
        topic=TopicFactory(),
        status=Document.Status.ACTIVE,
        authors="Narayanan et al.",
        year=2021,
        source_identifier="",
        citation_note="SC ‘21",
        author_list=[{"family": "Narayanan", "given": "Deepak"}, {"literal": "NVIDIA"}],
    )
    writer.create([DocumentWrite(new)])
    document = Document.objects.get(pk=new.pk)
    before = copy.copy(document)
    changed = copy.copy(document)
    changed.year, changed.source_identifier = 2022, "ARXIV-2104.04473"
    changed.author_list = [{"family": "Narayanan"}]
    writer.update([DocumentWrite(changed, before=before)])

    row = exported(staff_client)[str(document.identifier)]

    assert row["citation"] == "Narayanan et al. (2022), ARXIV-2104.04473 SC ‘21"
    assert row["author_list"] == "Narayanan"

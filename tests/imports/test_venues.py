"""A citation's venue and type, read at import from what it already says,
and carried by every export."""

import json

import pytest
from django.urls import reverse

from catalogue.models import Document, PublicationType, Venue
from catalogue.venues import read_venue
from formats.citations import render

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("identifier", "note", "read"),
    [
        ("", "OSDI ‘20", ("OSDI ‘20", "conference_paper")),
        ("", "FAST ‘21", ("FAST ‘21", "conference_paper")),
        ("ARXIV-2511.14124", "(SoCC ‘25)", ("SoCC ‘25", "conference_paper")),
        (
            "ARXIV-2105.05720",
            "— CoCoNet (ASPLOS 2022)",
            ("ASPLOS 2022", "conference_paper"),
        ),
        (
            "DOI:10.1109/TAC.2003.812781",
            "",
            ("IEEE Transactions on Automatic Control", "journal_article"),
        ),
        ("ARXIV-1604.06174", "", ("", "preprint")),
        # A venue's name without its year, or inside another word, is not it.
        ("", "the OSDI paper", ("", "")),
        ("", "FASTER ‘21", ("", "")),
        ("DOI:10.1145/3132747.3132785", "", ("", "")),
    ],
)
def test_a_citation_says_its_venue_and_type(identifier, note, read):
    assert read_venue(identifier, note, list(Venue.objects.all())) == read


def test_the_seed_imports_with_venues_and_types(imported_seed):
    documents = {document.identifier: document for document in Document.objects.all()}

    assert (documents["LIT-051"].venue, documents["LIT-051"].publication_type) == (
        "OSDI ‘20",
        PublicationType.CONFERENCE_PAPER,
    )
    assert (documents["LIT-059"].venue, documents["LIT-059"].publication_type) == (
        "FAST ‘21",
        PublicationType.CONFERENCE_PAPER,
    )
    for identifier in ["LIT-285", "LIT-325"]:
        assert (
            documents[identifier].venue,
            documents[identifier].publication_type,
        ) == ("IEEE Transactions on Automatic Control", "journal_article")
    # An arXiv citation is a preprint, unless its note names where it appeared.
    arxiv = [d for d in documents.values() if d.source_identifier.startswith("ARXIV-")]
    assert {d.publication_type for d in arxiv if not d.venue} == {"preprint"}
    assert {(d.venue, d.publication_type) for d in arxiv if d.venue} == {
        (d.venue, "conference_paper") for d in arxiv if d.venue
    }
    # The citation is still printed as the page printed it.
    assert documents["LIT-051"].citation.render() == "Jiang et al. (2020), OSDI ‘20"


def test_exports_carry_the_venue_and_type_read_at_import(imported_seed):
    documents = Document.objects.filter(number__in=[51, 285]).in_number_order()

    bib = render(documents, "bib")
    ris = render(documents, "ris")
    (osdi, tac) = json.loads(render(documents, "json"))

    assert "@inproceedings{LIT-051," in bib
    assert "booktitle = {OSDI ‘20}" in bib
    assert "@article{LIT-285," in bib
    assert "journal = {IEEE Transactions on Automatic Control}" in bib
    assert "TY  - CONF\r\nID  - LIT-051" in ris and "T2  - OSDI ‘20" in ris
    assert (osdi["type"], osdi["container-title"]) == ("paper-conference", "OSDI ‘20")
    assert (tac["type"], tac["container-title"]) == (
        "article-journal",
        "IEEE Transactions on Automatic Control",
    )


def test_an_editor_adds_a_venue_in_the_admin_and_the_next_import_reads_it(
    admin_client, seed_path
):
    url = reverse("admin:catalogue_venue_add")
    response = admin_client.post(
        url,
        {
            "name": "Jiang",
            "slug": "jiang",
            "full_name": "Not a venue, to show the table is what is read",
            "kind": "report",
            "doi_prefix": "",
        },
    )
    assert response.status_code == 302
    venue = Venue.objects.get(name="Jiang")

    assert read_venue("", "Jiang ‘20", [venue]) == ("Jiang ‘20", "report")

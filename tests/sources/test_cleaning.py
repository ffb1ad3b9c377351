"""Titles as Crossref and arXiv send them: subtitles joined, markup and
entities read as the text they stand for, white space as one space."""

import io

import pytest
from django.core.management import call_command

from sources.cleaning import plain_text, with_subtitle
from sources.metadata import look_up
from tests.factories import DocumentFactory


def test_a_crossref_subtitle_is_joined_to_its_title_with_a_colon(metadata_sources):
    work = look_up("10.5555/kdd.2016.boosting")

    assert work.title == "Boosted trees at scale: A Scalable Tree Boosting System"
    assert work.venue == (
        "Proceedings of the 22nd International Conference on Knowledge Discovery "
        "& Data Mining"
    )
    assert work.publication_type == "conference_paper"


def test_a_title_ending_in_a_colon_takes_the_subtitle_after_it(metadata_sources):
    work = look_up("10.5555/colon.subtitle")

    assert work.title == "Pipelines: Keeping every stage busy"


def test_jats_markup_is_dropped_and_its_text_kept(metadata_sources):
    work = look_up("10.5555/jats.markup")

    assert work.title == "Sparse k-means for GPU clusters: H2 & O2 tracing"
    assert work.venue == "Journal of Parallel & Distributed Learning"


def test_an_old_style_arxiv_id_gives_the_preprint_with_plain_white_space(
    metadata_sources,
):
    work = look_up("arXiv:cs/0112017")

    assert work.form_fields() == {
        "title": "Learning to Schedule Parallel Work: a Note on Queues & Stealing",
        "authors": "Santos and Mensah",
        "year": 2001,
        "source_identifier": "ARXIV-cs/0112017",
        "author_list": [
            {"family": "Santos", "given": "Maria"},
            {"family": "Mensah", "given": "Kofi"},
        ],
        "venue": "",
        "publication_type": "preprint",
        "publication_date": "2001-12-14",
        "doi": "",
    }


@pytest.mark.parametrize(
    ("sent", "read"),
    [
        ("Sparse <i>k</i>-means", "Sparse k-means"),
        ("<scp>GPU</scp> kernels", "GPU kernels"),
        ("H<sub>2</sub>O", "H2O"),
        ("<jats:italic>In situ</jats:italic> training", "In situ training"),
        ("Data &amp; Mining &#8212; &ldquo;fast&rdquo;", "Data & Mining — “fast”"),
        ("A &lt;b&gt; tag, written out", "A <b> tag, written out"),
        ("x < y and y > z", "x < y and y > z"),
        ("  wrapped\n   over\tlines ", "wrapped over lines"),
        ("Typographic ‘quotes’ × 2 ≈ 3", "Typographic ‘quotes’ × 2 ≈ 3"),
        ("", ""),
    ],
)
def test_plain_text_keeps_what_the_markup_says(sent, read):
    assert plain_text(sent) == read


@pytest.mark.parametrize(
    ("title", "subtitle", "cited"),
    [
        (
            "XGBoost",
            "A Scalable Tree Boosting System",
            "XGBoost: A Scalable Tree Boosting System",
        ),
        ("XGBoost:", "A System", "XGBoost: A System"),
        ("Is it enough?", "A study", "Is it enough? A study"),
        ("XGBoost: A System", "A System", "XGBoost: A System"),
        ("XGBoost", "", "XGBoost"),
    ],
)
def test_a_subtitle_is_joined_once(title, subtitle, cited):
    assert with_subtitle(title, subtitle) == cited


@pytest.mark.django_db
def test_enrichment_proposes_the_venue_without_its_entities(metadata_sources):
    document = DocumentFactory(
        number=21, source_identifier="DOI:10.5555/jats.markup", published=True
    )
    call_command("enrich_metadata", stdout=io.StringIO())

    revision = document.pending_revision()
    assert revision.venue == "Journal of Parallel & Distributed Learning"
    assert revision.author_list == [{"family": "Li", "given": "Chen"}]


@pytest.mark.django_db
def test_a_document_citing_an_old_style_arxiv_id_links_to_its_abstract_and_pdf(
    client,
):
    document = DocumentFactory(
        number=22,
        authors="Santos and Mensah",
        year=2001,
        source_identifier="ARXIV-cs/0112017",
        published=True,
    )

    page = client.get(document.get_absolute_url()).content.decode()

    assert (
        'Santos and Mensah (2001), <a href="https://arxiv.org/abs/cs/0112017">'
        "arXiv:cs/0112017</a>." in page
    )
    assert '<a class="button" href="https://arxiv.org/pdf/cs/0112017">PDF</a>' in page
    assert "eprint = {cs/0112017}" in page

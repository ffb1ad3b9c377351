"""Duplicates caught on entry: one source twice is refused, a title close to
another's is questioned; the pairs already in the record are listed."""

import pytest
from django.urls import reverse

from catalogue.citations import source_key
from catalogue.duplicates import likely_pairs
from catalogue.models import Document
from catalogue.trigrams import similarity
from tests.factories import DocumentFactory, RegistryFactory
from tests.html import form_data, soup_of

pytestmark = pytest.mark.django_db

ADD = "admin:catalogue_document_add"


@pytest.mark.parametrize(
    ("spelling", "key"),
    [
        ("ARXIV-1604.06174", "arxiv:1604.06174"),
        ("arXiv:1604.06174v2", "arxiv:1604.06174"),
        ("https://arxiv.org/abs/1604.06174v3", "arxiv:1604.06174"),
        ("https://arxiv.org/pdf/1604.06174.pdf", "arxiv:1604.06174"),
        ("DOI:10.1109/TAC.2003.812781", "doi:10.1109/tac.2003.812781"),
        ("https://doi.org/10.1109/tac.2003.812781", "doi:10.1109/tac.2003.812781"),
        ("doi: 10.1109/TAC.2003.812781", "doi:10.1109/tac.2003.812781"),
        ("OSDI ‘20", ""),
    ],
)
def test_every_spelling_of_a_source_has_one_key(spelling, key):
    assert source_key(spelling) == key


def test_similarity_is_pg_trgms():
    # pg_trgm: similarity('word', 'two words') = 4 shared of 11 trigrams.
    assert similarity("word", "two words") == pytest.approx(4 / 11)
    assert similarity("Sublinear memory", "sublinear MEMORY") == 1.0
    assert similarity("", "anything") == 0.0


def new_document(admin_client, **fields):
    registry = RegistryFactory()
    page = admin_client.get(reverse(ADD))
    data = form_data(page)
    data.update(
        {
            "registry": registry.pk,
            "authors": "Chen et al.",
            "year": "2016",
            "title": "A new title",
            "summary": "Summary.",
            **fields,
        }
    )
    return admin_client.post(reverse(ADD), data)


def test_a_second_document_citing_one_source_is_refused_with_a_link(admin_client):
    first = DocumentFactory(
        number=4, source_identifier="ARXIV-1604.06174", published=True
    )

    response = new_document(
        admin_client, source_identifier="https://arxiv.org/abs/1604.06174v2"
    )

    assert response.status_code == 200
    errors = soup_of(response).select_one(".field-source_identifier .errorlist")
    assert errors.a["href"] == reverse(
        "admin:catalogue_document_change", args=[first.pk]
    )
    assert Document.objects.count() == 1


def test_a_pasted_spelling_is_stored_as_the_record_spells_it(admin_client):
    response = new_document(admin_client, source_identifier="arXiv:2104.04473")

    assert response.status_code == 302
    assert Document.objects.get().source_identifier == "ARXIV-2104.04473"


def test_a_title_close_to_another_is_questioned_until_the_editor_says_so(
    admin_client,
):
    DocumentFactory(
        number=4, title="Training Deep Nets with Sublinear Memory Cost", published=True
    )
    title = "Training deep nets with sub-linear memory cost"

    questioned = new_document(admin_client, title=title, source_identifier="")
    assert questioned.status_code == 200
    box = soup_of(questioned).select_one(".similar-titles")
    assert "LIT-004" in box.get_text()
    assert Document.objects.count() == 1

    saved = new_document(
        admin_client, title=title, source_identifier="", _allow_similar_title="1"
    )
    assert saved.status_code == 302
    assert Document.objects.count() == 2


def test_the_pairs_in_the_record_are_listed(admin_client):
    one = DocumentFactory(
        number=1, source_identifier="ARXIV-1604.06174", published=True
    )
    two = DocumentFactory(
        number=2, source_identifier="ARXIV-1604.06174v2", published=True
    )
    three = DocumentFactory(
        number=3, title="Pipeline parallelism at scale", published=True
    )
    four = DocumentFactory(
        number=4, title="Pipeline parallelism, at scale", published=True
    )
    DocumentFactory(number=5, title="Something else entirely", published=True)

    pairs = [(pair.first, pair.second) for pair in likely_pairs()]
    page = soup_of(admin_client.get(reverse("admin:catalogue_document_duplicates")))

    assert pairs == [(one, two), (three, four)]
    assert len(page.select("table.duplicates tbody tr")) == 2

"""Cross-references: the names a text makes, found, resolved and stored."""

import pytest

from catalogue.models import Document
from catalogue.references import find_names, resolve
from tests.factories import (
    DecisionRecordFactory,
    DocumentFactory,
)


def names_in(text, prefixes=None):
    return [
        (name.prefix, name.number, name.version) for name in find_names(text, prefixes)
    ]


def test_names_are_found_with_their_versions():
    text = "Builds on LIT-004 v2 and LIT-1234; see ADR-032. Not LIT-12 or XLIT-004x."

    assert names_in(text) == [
        ("LIT", 4, 2),
        ("LIT", 1234, None),
        ("ADR", 32, None),
    ]


def test_identifiers_of_other_schemes_are_not_names():
    text = "Chen et al. (2016), ARXIV-1604.06174. DOI:10.1109/TAC-2003.812781."

    assert names_in(text) == []
    assert names_in("ARXIV-1604 and LIT-004", prefixes={"LIT", "ADR"}) == [
        ("LIT", 4, None)
    ]


pytestmark = pytest.mark.django_db


def test_resolving_names_costs_two_queries_however_many(django_assert_num_queries):
    for number in range(1, 31):
        DocumentFactory(number=number, published=True)
    for number in range(1, 6):
        DecisionRecordFactory(number=number)
    texts = [f"LIT-{n:03d} and ADR-{n % 5 + 1:03d}" for n in range(1, 40)]

    with django_assert_num_queries(2):
        targets = resolve(texts)

    assert len(targets) == 30 + 5


def test_import_records_the_references_of_the_seed(imported_seed):
    document = Document.objects.get(number=418)

    assert [str(reference) for reference in document.references.all()] == ["ADR-032"]

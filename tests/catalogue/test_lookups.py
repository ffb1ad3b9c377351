import pytest
from django.db.models import F

from catalogue.lookups import AnyOf
from catalogue.models import Document
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def documents():
    return [DocumentFactory(number=number) for number in (3, 7, 12)]


def test_any_of_finds_what_in_finds(documents):
    wanted = {7, 12, 40, None}

    found = Document.objects.filter(AnyOf(F("number"), wanted)).order_by("number")

    assert list(found) == list(
        Document.objects.filter(number__in=wanted).order_by("number")
    )
    assert list(found) == documents[1:]


def test_any_of_nothing_finds_nothing(documents):
    assert list(Document.objects.filter(AnyOf(F("number"), {None}))) == []
    assert list(Document.objects.filter(AnyOf(F("number"), []))) == []


def test_any_of_sends_the_numbers_as_one_array_on_postgresql(
    documents, django_assert_num_queries
):
    with django_assert_num_queries(1) as captured:
        found = list(
            Document.objects.filter(AnyOf(F("number"), range(1, 1001))).order_by(
                "number"
            )
        )

    assert found == documents
    sql = captured.captured_queries[0]["sql"]
    if captured.connection.vendor == "postgresql":
        assert '"number" = ANY(\'{1,2,3,4,' in sql
    else:
        assert '"number" IN (1, 2, 3, 4,' in sql

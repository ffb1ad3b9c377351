"""The admin's document list is counted from an estimate when large."""

import pytest
from django.db import connection

from catalogue.models import Document
from editorial.admin import paginators
from editorial.admin.paginators import EstimatedCountPaginator
from tests.factories import DocumentFactory

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="PostgreSQL's statistics"
    ),
]


def analyse():
    # ANALYZE counts this transaction's own rows as live.
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE catalogue_document")


def test_a_large_unfiltered_list_is_counted_from_the_estimate_in_one_query(
    monkeypatch, django_assert_num_queries
):
    monkeypatch.setattr(paginators, "ESTIMATE_ABOVE", 20)
    DocumentFactory.create_batch(30, published=True)
    analyse()
    DocumentFactory.create_batch(5, published=True)  # Not yet in the statistics.

    with django_assert_num_queries(1):
        count = EstimatedCountPaginator(Document.objects.order_by("pk"), 10).count

    assert count == 30


def test_a_small_list_and_a_filtered_one_are_counted_exactly(
    monkeypatch, django_assert_num_queries
):
    DocumentFactory.create_batch(30, published=True)
    analyse()
    DocumentFactory.create_batch(5, draft=True)
    documents = Document.objects.order_by("pk")

    with django_assert_num_queries(1):
        assert EstimatedCountPaginator(documents, 10).count == 35
    monkeypatch.setattr(paginators, "ESTIMATE_ABOVE", 20)
    drafts = documents.filter(status=Document.Status.DRAFT)
    assert EstimatedCountPaginator(drafts, 10).count == 5

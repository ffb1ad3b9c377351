"""The sitemap index costs the same whatever the record's size: it counts
each section's pages and dates it by its latest change, reading no row of
the section itself."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import DecisionRecordFactory, DocumentFactory

pytestmark = pytest.mark.django_db

SECTION_TABLES = ['"catalogue_document"', '"catalogue_decisionrecord"']


def test_the_sitemap_index_reads_no_row_of_its_sections(client):
    DocumentFactory.create_batch(30, published=True)
    DecisionRecordFactory.create_batch(3)

    with CaptureQueriesContext(connection) as queries:
        index = client.get("/sitemap.xml")

    assert index.status_code == 200
    reads = [
        query["sql"]
        for query in queries.captured_queries
        if query["sql"].startswith("SELECT")
        and any(table in query["sql"].split(" WHERE ")[0] for table in SECTION_TABLES)
    ]
    assert reads
    assert all("COUNT(" in sql or "MAX(" in sql for sql in reads), reads

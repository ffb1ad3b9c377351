"""A real harvester (oaipmh-scythe, the maintained successor of Sickle)
harvests the whole record from the running site, then incrementally from the
time of its last harvest, and sees exactly what changed: a publication, a
published revision and a withdrawal, as a deleted record."""

from datetime import UTC, datetime, timedelta

import pytest
from oaipmh_scythe import Scythe
from oaipmh_scythe.config import HTTPConfig

import actions.documents
from catalogue.models import Document
from oai import records
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db(transaction=True)

HOST = "oai:anthology.invalid"


@pytest.fixture
def harvester(live_server, monkeypatch):
    # Two records a page, so every harvest follows resumption tokens.
    monkeypatch.setattr(records, "PAGE_SIZE", 2)
    config = HTTPConfig(timeout=30)
    with Scythe(f"{live_server.url}/oai/", http_config=config) as scythe:
        yield scythe


def harvest(scythe, **arguments):
    """``{identifier: record}`` of a ListRecords harvest, every page of it."""
    found = {}
    for record in scythe.list_records(**arguments):
        assert record.header.identifier not in found  # Each record once.
        found[record.header.identifier] = record
    return found


def response_date(scythe):
    """The repository's time, as the harvester keeps it for its next harvest."""
    response = scythe.harvest({"verb": "Identify"})
    return response.xml.findtext("{*}responseDate")


def test_a_harvester_sees_the_whole_record_then_exactly_the_changes(
    harvester, editorial_groups, publisher, editor
):
    for number in range(1, 5):
        DocumentFactory(number=number, tags=["memory"], published=True)
    draft = DocumentFactory(number=5, draft=True, title="Not yet")
    DocumentFactory(number=6, in_review=True)
    # The record was built an hour before its first harvest.
    Document.objects.update(updated_at=datetime.now(UTC) - timedelta(hours=1))

    whole = harvest(harvester, metadata_prefix="oai_dc")
    as_mods = harvest(harvester, metadata_prefix="mods")
    assert (
        sorted(whole) == sorted(as_mods) == [f"{HOST}:LIT-00{n}" for n in range(1, 5)]
    )
    revised = Document.objects.get(number=2)
    assert whole[f"{HOST}:LIT-002"].metadata["title"] == [revised.title]
    assert whole[f"{HOST}:LIT-002"].metadata["subject"][-1] == "memory"
    since = response_date(harvester)

    actions.documents.publish(document=draft, user=publisher)
    actions.documents.edit_document(
        document=revised, user=editor, changes={"title": "A revised title"}
    )
    actions.documents.publish(document=revised, user=publisher)
    actions.documents.withdraw(
        document=Document.objects.get(number=3), user=publisher, reason="Retracted."
    )
    changes = harvest(harvester, metadata_prefix="oai_dc", from_=since)

    assert sorted(changes) == [f"{HOST}:LIT-002", f"{HOST}:LIT-003", f"{HOST}:LIT-005"]
    assert changes[f"{HOST}:LIT-002"].metadata["title"] == ["A revised title"]
    assert changes[f"{HOST}:LIT-005"].metadata["title"] == ["Not yet"]
    assert changes[f"{HOST}:LIT-003"].deleted
    assert not changes[f"{HOST}:LIT-002"].deleted
    identifiers = [
        header.identifier
        for header in harvester.list_identifiers(metadata_prefix="mods", from_=since)
    ]
    assert sorted(identifiers) == sorted(changes)

"""A record's datestamp moves whenever what the record shows changes, and
only then: a harvest from the time before a change finds it."""

from datetime import UTC, datetime

import pytest
from taggit.models import Tag

import actions.documents
import actions.filing
from catalogue.models import Document
from tests.factories import DocumentFactory
from tests.oai.oai import ask, headers, identifiers

pytestmark = pytest.mark.django_db

HOST = "oai:anthology.invalid"
LONG_AGO = datetime(2020, 1, 1, tzinfo=UTC)


@pytest.fixture
def aged(publisher):
    """LIT-004 public, LIT-005 its possible successor, LIT-006 withdrawn, a
    draft LIT-008; all last changed long ago."""
    documents = {
        "public": DocumentFactory(number=4, tags=["memory"], published=True),
        "successor": DocumentFactory(number=5, published=True),
        "withdrawn": DocumentFactory(number=6, withdrawn=True),
        "draft": DocumentFactory(number=8, draft=True),
    }
    Document.objects.update(updated_at=LONG_AGO)
    return documents


def changed_since_long_ago(client):
    tree = ask(
        client,
        verb="ListIdentifiers",
        metadataPrefix="oai_dc",
        **{"from": "2020-01-01T00:00:01Z"},
    )
    return [] if tree.find(".//{*}error") is not None else identifiers(tree)


def publish_first(documents, publisher, editor):
    actions.documents.publish(document=documents["draft"], user=publisher)
    return "LIT-008"


def publish_revision(documents, publisher, editor):
    document = documents["public"]
    actions.documents.edit_document(
        document=document, user=editor, changes={"summary": "Revised."}
    )
    actions.documents.publish(document=document, user=publisher)
    return "LIT-004"


def publish_new_filing(documents, publisher, editor):
    document = documents["public"]
    actions.documents.edit_document(
        document=document, user=editor, changes={"tags": ["memory", "new"]}
    )
    actions.documents.publish(document=document, user=publisher)
    return "LIT-004"


def withdraw(documents, publisher, editor):
    actions.documents.withdraw(document=documents["public"], user=publisher)
    return "LIT-004"


def reinstate(documents, publisher, editor):
    actions.documents.reinstate(document=documents["withdrawn"], user=publisher)
    return "LIT-006"


def supersede(documents, publisher, editor):
    actions.documents.supersede(
        document=documents["public"], successor=documents["successor"], user=publisher
    )
    return "LIT-004"


def merge_tags(documents, publisher, editor):
    actions.filing.merge_tags(
        tags=list(Tag.objects.filter(name="memory")),
        into="Checkpointing",
        user=publisher,
    )
    return "LIT-004"


@pytest.mark.parametrize(
    "change",
    [
        publish_first,
        publish_revision,
        publish_new_filing,
        withdraw,
        reinstate,
        supersede,
        merge_tags,
    ],
)
def test_a_change_readers_see_moves_the_datestamp(
    client, aged, publisher, editor, change
):
    assert changed_since_long_ago(client) == []

    changed = change(aged, publisher, editor)

    assert changed_since_long_ago(client) == [f"{HOST}:{changed}"]
    tree = ask(
        client,
        verb="GetRecord",
        identifier=f"{HOST}:{changed}",
        metadataPrefix="oai_dc",
    )
    assert headers(tree)[0][1] > "2020-01-01T00:00:00Z"


def test_a_pending_revision_moves_no_datestamp(client, aged, editor):
    actions.documents.edit_document(
        document=aged["public"], user=editor, changes={"title": "Pending"}
    )

    assert changed_since_long_ago(client) == []

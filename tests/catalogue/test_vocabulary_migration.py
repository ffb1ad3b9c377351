"""The migration that brings the vocabulary counts the words of the public
documents already in the record, and of no draft, as the actions would."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from catalogue.models.vocabulary import document_words

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = ("catalogue", "0025_corrections")
AFTER = ("catalogue", "0026_vocabulary")


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)


def migrate_to(target):
    migrate([target])
    return MigrationExecutor(connection).loader.project_state(target).apps


@pytest.fixture(autouse=True)
def latest_schema_after():
    """The tests after this one find every migration applied."""
    yield
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


def test_the_public_documents_words_are_counted_and_no_drafts(client):
    old = migrate_to(BEFORE)
    Registry = old.get_model("catalogue", "Registry")
    Document = old.get_model("catalogue", "Document")
    registry = Registry.objects.create(prefix="LIT", name="Reading list")
    texts = {
        "active": ("Pipeline parallelism", [{"family": "Narayanan"}]),
        "withdrawn": ("Pipeline bubbles", []),
        "draft": ("Zyxwvut secret", [{"family": "Hidden"}]),
    }
    for number, (status, (title, authors)) in enumerate(texts.items(), start=1):
        Document.objects.create(
            registry=registry,
            number=number,
            title=title,
            authors="Someone",
            year=2020,
            summary="Stages.",
            author_list=authors,
            status=status,
        )

    new = migrate_to(AFTER)

    Word = new.get_model("catalogue", "Word")
    DocumentWords = new.get_model("catalogue", "DocumentWords")
    assert dict(Word.objects.values_list("word", "frequency")) == {
        "pipeline": 2,
        "parallelism": 1,
        "bubbles": 1,
        "narayanan": 1,
        "someone": 2,
        "stages": 2,
    }
    assert DocumentWords.objects.count() == 2
    assert set(DocumentWords.objects.get(document__number=1).words.split()) == (
        document_words(["Pipeline parallelism", "Someone", "", "", "Stages.", []])
        | {"narayanan"}
    )

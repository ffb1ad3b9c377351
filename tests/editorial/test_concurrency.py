"""Editors and bulk actions changing the same documents at the same moment.

Row locks serialise them; these tests hold one transaction open until the
other is blocked on its lock, so the interleaving is forced, not hoped for.
"""

import threading

import pytest
from django.db import connection, connections, transaction

import actions.documents
from catalogue.models import Document
from tests.factories import DocumentFactory, RegistryFactory, TopicFactory, UserFactory

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="SQLite has no row locks: two transactions cannot overlap there",
    ),
    pytest.mark.django_db(transaction=True),
]


def run_together(holder, other):
    """Run ``holder`` in a transaction that stays open until ``other``, started
    meanwhile in its own thread, waits for a lock; then let both finish."""
    holding, errors = threading.Event(), []

    def first():
        try:
            with transaction.atomic():
                holder()
                holding.set()
                wait_until_another_transaction_waits_for_a_lock()
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)
            holding.set()
        finally:
            connections.close_all()

    def second():
        try:
            other()
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    threads[0].start()
    holding.wait(10)
    threads[1].start()
    for thread in threads:
        thread.join(30)
    assert errors == []


def bulk(verb, documents):
    """What the admin's bulk actions do: every row in one transaction."""
    with transaction.atomic():
        for document in documents:
            verb(document)


@pytest.fixture
def people(editorial_groups):
    return UserFactory(editor=True), UserFactory(editor=True)


def test_an_editor_and_a_bulk_tagging_both_keep_their_tags(people):
    editor, other = people
    documents = [DocumentFactory(number=n, published=True) for n in (1, 2, 3)]
    documents[1].tags.add("memory")

    run_together(
        lambda: actions.documents.edit_document(
            document=documents[1],
            user=editor,
            changes={"summary": "Sharper.", "tags": ["memory", "sharding"]},
        ),
        lambda: bulk(
            lambda d: actions.documents.add_tags(
                document=d, user=other, names=["reviewed"]
            ),
            documents,
        ),
    )

    states = [
        actions.documents.editable_state(d) for d in Document.objects.order_by("number")
    ]
    assert [state["tags"] for state in states] == [
        ["reviewed"],
        ["memory", "reviewed", "sharding"],
        ["reviewed"],
    ]
    assert states[1]["summary"] == "Sharper."


def test_two_bulk_actions_on_the_same_documents_both_apply_whole(people):
    editor, other = people
    documents = [DocumentFactory(number=n, published=True) for n in (1, 2, 3)]
    topic = TopicFactory()

    run_together(
        lambda: bulk(
            lambda d: actions.documents.edit_document(
                document=d, user=editor, changes={"topic": topic}
            ),
            documents,
        ),
        lambda: bulk(
            lambda d: actions.documents.add_tags(
                document=d, user=other, names=["queue"]
            ),
            reversed(documents),
        ),
    )

    states = [
        actions.documents.editable_state(d) for d in Document.objects.order_by("number")
    ]
    assert [(state["topic"], state["tags"]) for state in states] == [
        (topic.pk, ["queue"])
    ] * 3


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="SQLite has no row locks: two transactions cannot overlap there",
)
@pytest.mark.django_db(transaction=True)
def test_two_editors_creating_documents_at_once_get_different_numbers():
    registry = RegistryFactory()
    DocumentFactory(registry=registry, number=783, topic=None, published=True)
    editor = UserFactory(is_superuser=True)
    first_holds_lock, numbers, errors = threading.Event(), [], []

    def create(hold):
        try:
            with transaction.atomic():
                document = actions.documents.save_document(
                    document=DocumentFactory.build(
                        registry=registry, number=None, topic=None, draft=True
                    ),
                    user=editor,
                )
                numbers.append(document.number)
                if hold:
                    first_holds_lock.set()
                    wait_until_another_transaction_waits_for_a_lock()
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)
        finally:
            connections.close_all()

    first = threading.Thread(target=create, args=(True,))
    second = threading.Thread(target=create, args=(False,))
    first.start()
    first_holds_lock.wait(10)
    second.start()
    first.join(30)
    second.join(30)

    assert errors == []
    assert sorted(numbers) == [784, 785]
    assert sorted(Document.objects.values_list("number", flat=True)) == [
        783,
        784,
        785,
    ]


def wait_until_another_transaction_waits_for_a_lock():
    """Hold the transaction open until the other one is blocked on our lock."""
    with connection.cursor() as cursor:
        for _ in range(200):
            # Statistics are read once per transaction unless cleared.
            cursor.execute("SELECT pg_stat_clear_snapshot()")
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE wait_event_type = 'Lock' AND datname = current_database()"
            )
            if cursor.fetchone()[0]:
                return
            threading.Event().wait(0.05)

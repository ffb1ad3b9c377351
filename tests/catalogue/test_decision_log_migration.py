"""The migration to decision logs keeps the record's decisions where they
were: in the record's own log, at the same numbers and addresses, with the
references naming them."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = ("catalogue", "0015_render_stored_decision_markdown")
AFTER = ("catalogue", "0016_decision_logs")


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


def test_existing_decisions_move_into_the_records_own_log_unchanged(client):
    old = migrate_to(BEFORE)
    Record = old.get_model("catalogue", "DecisionRecord")
    Reference = old.get_model("catalogue", "Reference")
    first = Record.objects.create(
        number=26,
        title="One list of topics",
        body="See ADR-059.",
        body_html="<p>See ADR-059.</p>\n",
        published_at="2025-01-02T00:00:00Z",
    )
    Record.objects.create(
        number=59, title="Unfiled is evidence", published_at="2025-01-03T00:00:00Z"
    )
    Reference.objects.create(decision_id=first.pk, prefix="ADR", number=59)

    new = migrate_to(AFTER)

    Log = new.get_model("catalogue", "DecisionLog")
    own = Log.objects.get()
    assert (own.name, own.slug, own.prefix, own.is_own) == (
        "The anthology",
        "anthology",
        "ADR",
        True,
    )
    Record = new.get_model("catalogue", "DecisionRecord")
    assert sorted(Record.objects.values_list("number", "twin", "log", "title")) == [
        (26, 1, own.pk, "One list of topics"),
        (59, 1, own.pk, "Unfiled is evidence"),
    ]
    Reference = new.get_model("catalogue", "Reference")
    assert list(Reference.objects.values_list("prefix", "number", "log")) == [
        ("ADR", 59, own.pk)
    ]
    # The pages are read by today's code, on today's schema.
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
    assert client.get("/decisions/ADR-026/").status_code == 200
    assert (
        'href="/decisions/ADR-059/">ADR-059</a>'
        in client.get("/decisions/ADR-026/").content.decode()
    )
    if connection.vendor == "sqlite":
        # The search still finds them, by their log's prefix.
        assert "ADR-059" in client.get("/search/?q=unfiled").content.decode()

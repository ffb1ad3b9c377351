"""A client mirrors the record through the API: a first sync takes every
row, a second from the first's ``until`` takes exactly what changed between
them (never a draft nor a pending revision), and ``/api/removed/`` what left
readers' view. Pages follow in (modification time, id) order and a row
changed while a client walks them is neither shown twice nor skipped."""

from datetime import UTC, datetime, timedelta, timezone

import psycopg
import pytest
from django.db import connection

import actions.decisions
import actions.documents
import actions.filing
from catalogue.models import DecisionRecord, Document
from tests.api.test_parameters import assert_problem
from tests.factories import (
    DecisionRecordFactory,
    DocumentFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

EPOCH = "1970-01-01T00:00:00Z"


def walk(client, path, since, *, name="modified_since", page_size=1):
    """Every page of a sync from ``since``: (identifiers, until, pages)."""
    response = client.get(path, {name: since, "page_size": page_size}, follow=True)
    rows, pages = [], 0
    while True:
        assert response.status_code == 200, response.content[:300]
        body = response.json()
        rows += [row.get("identifier", row.get("slug")) for row in body["results"]]
        pages += 1
        if body["next"] is None:
            return rows, body["until"], pages
        assert response["Link"] == f'<{body["next"]}>; rel="next"'
        response = client.get(body["next"])


@pytest.fixture
def publisher():
    return UserFactory(publisher=True)


def test_a_second_sync_sees_exactly_one_publication_revision_and_withdrawal(
    client, public_record, publisher, django_assert_num_queries
):
    cited, citing = public_record["cited"], public_record["citing"]
    waiting = DocumentFactory(number=12, topic=public_record["topic"])
    pending = DocumentFactory(number=15, published=True)
    everything, until, _ = walk(client, "/api/documents/", EPOCH)
    assert sorted(everything) == ["LIT-004", "LIT-007", "LIT-015"]

    actions.documents.publish(document=waiting, user=publisher)
    actions.documents.edit_document(
        document=cited, user=publisher, changes={"title": "Sublinear memory, again"}
    )
    actions.documents.publish(document=cited, user=publisher)
    actions.documents.withdraw(document=citing, user=publisher, reason="Retracted.")
    # What readers never see: a new draft, and a public document's edit held
    # as a pending revision.
    DocumentFactory(number=20, title="Another draft")
    actions.documents.edit_document(
        document=pending, user=publisher, changes={"title": "Not yet"}
    )

    # The documents, their tags, their author positions; on PostgreSQL first
    # the sync's end, by the transactions still open.
    with django_assert_num_queries(3 + (connection.vendor == "postgresql")):
        first = client.get(
            "/api/documents/", {"modified_since": until, "page_size": 1}, follow=True
        )
    changed, second_until, pages = walk(client, "/api/documents/", until)
    assert sorted(changed) == ["LIT-004", "LIT-007", "LIT-012"]
    assert pages == 3
    rows = {row["identifier"]: row for row in first.json()["results"]}
    assert len(rows) == 1
    # Each row as readers see it now: the revision published, the withdrawal.
    mirror = {
        row["identifier"]: row
        for row in client.get(
            "/api/documents/", {"modified_since": until}, follow=True
        ).json()["results"]
    }
    assert mirror["LIT-004"]["title"] == "Sublinear memory, again"
    assert mirror["LIT-004"]["version"] == 2
    assert mirror["LIT-007"]["status"] == "withdrawn"
    assert "Not yet" not in str(mirror)

    removed = client.get("/api/removed/", {"since": until}).json()["results"]
    assert [(r["kind"], r["change"], r["identifier"]) for r in removed] == [
        ("document", "withdrawn", "LIT-007")
    ]
    # Nothing changed since the second sync.
    assert walk(client, "/api/documents/", second_until)[0] == []
    assert client.get("/api/removed/", {"since": second_until}).json()["results"] == []


def test_a_sync_page_costs_the_same_queries_at_any_depth(
    client, public_record, django_assert_num_queries
):
    for number in range(20, 30):
        DocumentFactory(number=number, published=True)
    first = client.get(
        "/api/documents/", {"modified_since": EPOCH, "page_size": 3}, follow=True
    ).json()
    # The documents, then their tags, then their author positions.
    with django_assert_num_queries(3):
        deeper = client.get(first["next"])
    assert deeper.status_code == 200
    assert len(deeper.json()["results"]) == 3


def test_a_row_changed_during_a_sync_is_neither_repeated_nor_skipped(
    client, public_record, publisher
):
    later = [DocumentFactory(number=n, published=True) for n in (30, 31, 32)]
    first = client.get(
        "/api/documents/", {"modified_since": EPOCH, "page_size": 2}, follow=True
    ).json()
    seen = [row["identifier"] for row in first["results"]]
    # A row already read and a row not read yet both change mid-sync.
    already = Document.objects.get(number=int(seen[0].split("-")[1]))
    actions.documents.withdraw(document=already, user=publisher)
    actions.documents.withdraw(document=later[-1], user=publisher)

    response = client.get(first["next"])
    while True:
        body = response.json()
        seen += [row["identifier"] for row in body["results"]]
        if body["next"] is None:
            break
        response = client.get(body["next"])

    assert len(seen) == len(set(seen))
    assert later[-1].identifier not in seen
    # The next sync gives both, as they are now.
    again, _, _ = walk(client, "/api/documents/", body["until"])
    assert sorted(again) == sorted([already.identifier, later[-1].identifier])
    assert sorted([*seen, later[-1].identifier]) == sorted(
        d.identifier for d in Document.objects.public()
    )


def test_topics_and_decision_records_sync_by_their_changes(
    client, public_record, publisher
):
    _, until, _ = walk(client, "/api/topics/", EPOCH)
    _, decisions_until, _ = walk(client, "/api/decision-logs/anthology/records/", EPOCH)
    topic = public_record["topic"]
    topic.scope = "parallelism and sharding"
    actions.filing.save(obj=topic, user=UserFactory(is_superuser=True))
    draft = DecisionRecordFactory(number=27, published_at=None)
    actions.decisions.publish_decision(decision=draft, user=publisher)
    DecisionRecordFactory(number=28, published_at=None, title="Still a draft")
    # An edit of a published record is held as its pending revision.
    held = DecisionRecord.objects.get(number=26)
    held.title = "Not yet decided again"
    assert actions.decisions.save_decision(decision=held, user=publisher, supersedes=[])

    assert walk(client, "/api/topics/", until)[0] == ["distributed"]
    assert walk(client, "/api/decision-logs/anthology/records/", decisions_until)[
        0
    ] == ["ADR-027"]


def test_what_was_deleted_is_listed_once_published(client, public_record):
    admin = UserFactory(is_superuser=True)
    start = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    gone = TopicFactory(name="Gone", slug="gone")
    published = DecisionRecordFactory(number=40)
    draft = DecisionRecordFactory(number=41, published_at=None)
    actions.filing.delete(objs=[gone], user=admin)
    actions.decisions.delete_decisions(decisions=[published, draft], user=admin)
    assert not DecisionRecord.objects.filter(number__in=[40, 41]).exists()

    rows, _, pages = walk(client, "/api/removed/", start, name="since")

    assert rows == ["gone", "ADR-040"]
    assert pages == 2
    removed = client.get("/api/removed/", {"since": start}).json()["results"]
    assert removed[1]["log"] == "anthology"
    assert removed[1]["kind"] == "decision_record"


@pytest.mark.parametrize(
    "value",
    [
        "yesterday",
        "2026-12-07",
        "2026-12-07T04:00:00",  # no offset: RFC 3339 requires one
        "2026-12-07T04:00:00 00:00",  # a "+" sent unencoded
        "2026-13-45T04:00:00Z",
        "2026-12-07T25:00:00Z",
        "9" * 40,
    ],
)
def test_a_time_that_is_no_rfc_3339_timestamp_is_refused_naming_it(
    client, public_record, value
):
    assert_problem(
        client.get("/api/documents/", {"modified_since": value}, follow=True),
        400,
        "modified_since",
    )
    assert_problem(client.get("/api/removed/", {"since": value}), 400, "since")


@pytest.mark.parametrize("offset", ["-17:21", "+23:59"])
def test_any_offset_rfc_3339_allows_is_read_as_its_instant(
    client, public_record, offset
):
    """PostgreSQL refuses offsets beyond ±15:59, which RFC 3339 allows."""
    gone = TopicFactory(name="Gone", slug="gone")
    actions.filing.delete(objs=[gone], user=UserFactory(is_superuser=True))
    sign = -1 if offset[0] == "-" else 1
    hours, minutes = map(int, offset[1:].split(":"))
    zone = timezone(sign * timedelta(hours=hours, minutes=minutes))

    def removed_since(moment):
        spelled = moment.astimezone(zone).strftime("%Y-%m-%dT%H:%M:%S.%f") + offset
        response = client.get("/api/removed/", {"since": spelled})
        assert response.status_code == 200, response.content[:300]
        return [row["identifier"] for row in response.json()["results"]]

    now = datetime.now(UTC)
    assert removed_since(now - timedelta(minutes=5)) == ["gone"]
    assert removed_since(now + timedelta(minutes=5)) == []


def test_an_offset_taking_the_instant_before_year_one_is_refused(client, public_record):
    assert_problem(
        client.get("/api/removed/", {"since": "0001-01-01T00:00:00+01:00"}),
        400,
        "since",
    )


def test_the_removed_list_needs_its_since(client, public_record):
    assert_problem(client.get("/api/removed/"), 400, "since")


def test_a_sync_cursor_is_read_only_as_written(client, public_record):
    first = client.get(
        "/api/documents/", {"modified_since": EPOCH, "page_size": 1}, follow=True
    ).json()
    tampered = first["next"].replace("cursor=", "cursor=x")
    assert_problem(client.get(tampered, follow=True), 400, "cursor")
    # A sync's cursor read by a list that is not syncing.
    plain = first["next"].replace("modified_since=1970-01-01T00%3A00%3A00Z&", "")
    assert_problem(client.get(plain, follow=True), 400, "cursor")


@pytest.mark.database(
    "postgresql", reason="PostgreSQL runs several writing transactions at once"
)
def test_a_sync_ends_before_a_transaction_still_open(client, public_record):
    """A row stamped inside a transaction open as a sync starts is shown only
    once committed: the sync ends at that transaction's start, so the next
    sync has the row."""
    settings = connection.settings_dict
    with psycopg.connect(
        dbname=settings["NAME"],
        user=settings["USER"],
        password=settings["PASSWORD"],
        host=settings["HOST"],
        port=settings["PORT"] or 5432,
    ) as other:
        other.execute("SELECT 1")  # Its transaction opens, and stays open.
        (started,) = other.execute(
            "SELECT xact_start FROM pg_stat_activity WHERE pid = pg_backend_pid()"
        ).fetchone()

        body = client.get(
            "/api/documents/", {"modified_since": EPOCH}, follow=True
        ).json()

    assert body["until"] == started.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")

"""The desk's statistics in the admin: what editors did, week by week, read
from the version rows, held revisions, notices, audit trail and jobs."""

from datetime import timedelta

import pytest
from auditlog.models import LogEntry
from django.urls import reverse
from django.utils import timezone

import actions.documents
from catalogue.models import Revision
from editorial.admin.csv_import import IMPORT_JOB
from editorial.admin.folder_import import FOLDER_JOB
from editorial.admin.page_import import PAGE_JOB
from editorial.statistics import IMPORT_JOBS, WEEKS, submission_waits, week_starts
from jobs.models import Job
from tests.factories import DocumentFactory, UserFactory
from tests.html import soup_of

pytestmark = pytest.mark.django_db

STATISTICS = "/admin/statistics/"


def table(response, slug):
    """The rows of the chart ``slug``'s table, each a list of cell texts."""
    figure = soup_of(response).select_one(f"figure#{slug}")
    assert figure.select_one("svg") is not None
    return [
        [cell.get_text() for cell in row.select("th, td")]
        for row in figure.select("tbody tr")
    ]


def column(rows, header_index):
    return [row[header_index] for row in rows]


@pytest.fixture
def desk_record(editor, publisher):
    """A document submitted three days before its publication, another still
    in review, a revision held two days before it was published, another
    held still, one discarded, a withdrawal, and imports by two people."""
    submitted = DocumentFactory(number=1, draft=True)
    actions.documents.submit_for_review(document=submitted, user=editor)
    entry = next(
        entry
        for entry in LogEntry.objects.get_for_object(submitted)
        if entry.changes.get("status", [None, None])[1] == "in_review"
    )
    actions.documents.publish(document=submitted, user=publisher)
    published_at = submitted.versions.get().published_at
    LogEntry.objects.filter(pk=entry.pk).update(
        timestamp=published_at - timedelta(days=3)
    )

    waiting = DocumentFactory(number=2, draft=True)
    actions.documents.submit_for_review(document=waiting, user=editor)

    revised = DocumentFactory(number=3, published=True)
    actions.documents.edit_document(
        document=revised, user=editor, changes={"title": "Second thoughts"}
    )
    actions.documents.publish(document=revised, user=publisher)
    revision = Revision.objects.get(document=revised)
    Revision.objects.filter(pk=revision.pk).update(
        created_at=revision.published_at - timedelta(days=2)
    )
    actions.documents.edit_document(
        document=revised, user=editor, changes={"title": "Third thoughts"}
    )
    discarded = DocumentFactory(number=4, published=True)
    actions.documents.edit_document(
        document=discarded, user=editor, changes={"title": "Dropped"}
    )
    actions.documents.discard_revision(document=discarded, user=publisher)
    actions.documents.withdraw(document=discarded, user=publisher, reason="Wrong.")

    ada, grace = UserFactory(username="ada"), UserFactory(username="grace")
    for user, function in [(ada, IMPORT_JOB), (ada, PAGE_JOB), (grace, IMPORT_JOB)]:
        Job.objects.create(title="Import", function=function, created_by=user)
    Job.objects.create(title="Not an import", function="jobs.tests.other")


def test_the_desk_statistics_add_up_what_the_desk_did(client, editor, desk_record):
    client.force_login(editor)
    response = client.get(STATISTICS)

    throughput = table(response, "throughput")
    assert len(throughput) == WEEKS
    # Week, first publications, their median days, revisions published,
    # their median days: LIT-001 waited three days in review; LIT-003 and
    # LIT-004 were published straight from their drafts.
    assert [row[1:3] for row in throughput if row[1] != "0"] == [["3", "0.0"]]
    assert [row[3:5] for row in throughput if row[3] != "0"] == [["1", "2.0"]]
    documents, revisions = submission_waits(week_starts(timezone.now()))
    assert sorted(wait for week in documents for wait in week) == [0.0, 0.0, 3.0]
    assert [wait for week in revisions for wait in week] == [2.0]

    revisions = table(response, "revisions")
    totals = [sum(int(n) for n in column(revisions, i)) for i in range(1, 5)]
    # Held: three (one published, one pending, one discarded); published one;
    # discarded one; one withdrawal.
    assert totals == [3, 1, 1, 1]

    queues = table(response, "queues")
    assert queues[-1][1:] == ["1", "1"]

    imports = soup_of(response).select_one("figure#imports thead").get_text(" ")
    assert "ada" in imports and "grace" in imports
    rows = table(response, "imports")
    assert [sum(int(n) for n in column(rows, i)) for i in (1, 2)] == [2, 1]


def test_a_document_still_in_review_is_in_the_queue_each_week_since(client, editor):
    waiting = DocumentFactory(number=2, draft=True)
    actions.documents.submit_for_review(document=waiting, user=editor)
    LogEntry.objects.get_for_object(waiting).filter(changes__has_key="status").update(
        timestamp=waiting.created_at - timedelta(weeks=3)
    )
    client.force_login(editor)

    queues = table(client.get(STATISTICS), "queues")

    in_review = [row[1] for row in queues]
    assert in_review[-3:] == ["1", "1", "1"]
    assert in_review[: WEEKS - 5] == ["0"] * (WEEKS - 5)


def test_the_imports_counted_are_the_admins_import_jobs():
    assert IMPORT_JOBS == [IMPORT_JOB, PAGE_JOB, FOLDER_JOB]


def test_staff_without_the_audit_trail_may_not_see_the_statistics(client):
    client.force_login(UserFactory())

    assert client.get(STATISTICS).status_code == 403


def test_the_desk_links_its_statistics_for_those_who_may_read_them(client, editor):
    client.force_login(editor)

    desk = soup_of(client.get(reverse("admin:index")))

    assert desk.select_one(f'a[href="{STATISTICS}"]') is not None

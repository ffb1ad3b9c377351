"""Scheduled changes: a publisher schedules a publication, a withdrawal or a
reinstatement on the document's schedule page; readers see the document as
it is until the time; then a runner (the workers' chore, ``run_schedules``,
or the next request without workers) makes the change through the same
action as the button, audited as the publisher's by the schedule; a schedule
whose step now fails is marked failed with the reason; one no runner took
in time is flagged on the desk and by ``/health/ready/``; two runners run a
schedule once."""

import datetime
import io
import threading

import pytest
from auditlog.models import LogEntry
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import connection, connections
from django.urls import reverse
from django.utils import timezone

import actions.documents
from actions import schedules
from catalogue.models import Document, DocumentNotice, Schedule
from jobs import middleware
from tests.factories import DocumentFactory, UserFactory
from tests.html import form_data, soup_of

pytestmark = pytest.mark.django_db

DESK = "/admin/"


def soon(hours=1):
    return timezone.now() + datetime.timedelta(hours=hours)


def schedule_url(document):
    return reverse("admin:catalogue_document_schedule", args=[document.pk])


def pending(document, publisher, title="A revised title"):
    """``document`` with a pending revision retitling it."""
    actions.documents.edit_document(
        document=document, user=publisher, changes={"title": title}
    )
    return document.pending_revision()


def post_schedule(client, document, kind, at, **fields):
    """The schedule page's form, filled in as a publisher does, and sent."""
    page = client.get(schedule_url(document))
    data = form_data(page, "form.schedule-form")
    local = timezone.localtime(at)
    data.update(kind=kind, at=local.strftime("%Y-%m-%dT%H:%M"), **fields)
    return client.post(schedule_url(document), data)


@pytest.fixture
def signed_in(client, publisher):
    client.force_login(publisher)
    return client


def test_the_schedule_page_names_the_site_time_zone_and_offers_what_may_be_done(
    signed_in, filed, publisher
):
    document = filed["document"]
    pending(document, publisher)

    soup = soup_of(signed_in.get(schedule_url(document)))

    help_text = soup.select_one("form.schedule-form .help").get_text()
    assert "In the site's time zone, UTC." in help_text
    offered = [field["value"] for field in soup.select("input[name=kind]")]
    # A public document with a pending revision: publish it, or withdraw it.
    assert offered == ["publish", "withdraw"]


def test_a_scheduled_revision_leaves_the_live_version_until_its_time(
    signed_in, client, filed, publisher, committed, django_assert_num_queries
):
    document = filed["document"]
    revision = pending(document, publisher)
    at = soon().replace(second=0, microsecond=0)
    reader = type(client)()
    page = document.get_absolute_url()
    reader.get(page)
    reader.get(page)  # Cached now.

    response = post_schedule(
        signed_in, document, "publish", at, note="Retitled, as the authors did."
    )

    assert response.status_code == 302
    planned = Schedule.objects.get()
    assert (planned.kind, planned.at, planned.revision) == ("publish", at, revision)
    assert planned.scheduled_by == publisher
    # Before its time: nothing runs, and readers get the cached page.
    with committed():
        assert schedules.run_due(now=at - datetime.timedelta(seconds=1)) == 0
    with django_assert_num_queries(0):
        before = reader.get(page).content.decode()
    assert "Old title" in before
    assert "A revised title" not in before

    with committed():
        assert schedules.run_due(now=at) == 1

    after = reader.get(page).content.decode()
    assert "A revised title" in after
    planned.refresh_from_db()
    assert (planned.state, planned.outcome) == ("done", "Published LIT-004 v2.")
    document.refresh_from_db()
    assert document.version == 2
    version = document.versions.get(number=2)
    assert (version.published_by, version.note) == (
        publisher,
        "Retitled, as the authors did.",
    )
    entry = LogEntry.objects.get_for_object(document).order_by("-pk").first()
    assert entry.actor == publisher
    assert entry.additional_data == {"via": f"the scheduler (schedule {planned.pk})"}


def test_a_first_publication_runs_as_the_publish_button_and_once(
    client, filed, publisher, committed
):
    draft = DocumentFactory(
        number=12, draft=True, topic=filed["first"], title="A scheduled draft"
    )
    at = soon()
    schedules.schedule(document=draft, kind="publish", at=at, user=publisher)
    topic_page = filed["first"].get_absolute_url()
    client.get(topic_page)
    assert "A scheduled draft" not in client.get(topic_page).content.decode()

    with committed():
        schedules.run_due(now=at)
    again = schedules.run_due(now=at)

    assert again == 0
    draft.refresh_from_db()
    assert draft.status == Document.Status.ACTIVE
    assert list(draft.versions.values_list("number", "published_by")) == [
        (1, publisher.pk)
    ]
    assert "A scheduled draft" in client.get(topic_page).content.decode()


def test_a_withdrawal_and_a_reinstatement_run_with_their_notices(
    filed, publisher, committed, client
):
    document = filed["document"]
    at = soon()
    schedules.schedule(
        document=document,
        kind="withdraw",
        at=at,
        user=publisher,
        reason="Retracted by its authors.",
    )

    with committed():
        schedules.run_due(now=at)

    document.refresh_from_db()
    assert document.status == Document.Status.WITHDRAWN
    assert (
        "Retracted by its authors."
        in client.get(document.get_absolute_url()).content.decode()
    )
    later = soon(2)
    schedules.schedule(document=document, kind="reinstate", at=later, user=publisher)
    with committed():
        schedules.run_due(now=later)
    document.refresh_from_db()
    assert document.status == Document.Status.ACTIVE
    kinds = list(
        DocumentNotice.objects.filter(document=document)
        .order_by("at", "pk")
        .values_list("kind", flat=True)
    )
    assert kinds == ["withdrawn", "reinstated"]


def test_a_schedule_whose_step_now_fails_is_marked_failed_with_the_reason(
    signed_in, filed, publisher, committed
):
    document = filed["document"]
    at = soon()
    schedules.schedule(
        document=document, kind="withdraw", at=at, user=publisher, reason="Gone."
    )
    # Withdrawn by hand meanwhile.
    actions.documents.withdraw(document=document, user=publisher, reason="Earlier.")

    with committed():
        schedules.run_due(now=at)

    planned = Schedule.objects.get()
    assert planned.state == "failed"
    assert planned.outcome == (
        "LIT-004 is withdrawn: only an active or superseded document can be withdrawn."
    )
    document.refresh_from_db()
    assert document.withdrawal_reason == "Earlier."
    rows = soup_of(signed_in.get(DESK)).select("#content-main tr.schedule.failed")
    assert [" ".join(row.get_text(" ").split()) for row in rows] == [
        f"LIT-004 Withdraw {timezone.localtime(at):%-d %b %Y, %H:%M} UTC "
        f"{publisher.username} Failed {planned.outcome}"
    ]


def test_an_edit_after_scheduling_stops_the_publication(filed, publisher, committed):
    document = filed["document"]
    pending(document, publisher)
    at = soon()
    schedules.schedule(document=document, kind="publish", at=at, user=publisher)
    pending(document, publisher, title="Edited again, unseen by the publisher")

    with committed():
        schedules.run_due(now=at)

    planned = Schedule.objects.get()
    assert (planned.state, planned.outcome) == (
        "failed",
        "LIT-004 was edited after its publication was scheduled: review the edit "
        "and schedule it again.",
    )
    document.refresh_from_db()
    assert (document.title, document.version) == ("Old title", 1)


def test_a_discarded_revision_fails_its_schedule(filed, publisher, committed):
    document = filed["document"]
    pending(document, publisher)
    at = soon()
    schedules.schedule(document=document, kind="publish", at=at, user=publisher)
    actions.documents.discard_revision(document=document, user=publisher)

    with committed():
        schedules.run_due(now=at)

    assert Schedule.objects.get().outcome == (
        "The pending revision of LIT-004 scheduled for publication was published "
        "or discarded since."
    )


def test_a_time_already_passed_is_refused_with_nothing_written(signed_in, filed):
    past = timezone.now() - datetime.timedelta(minutes=5)

    response = post_schedule(
        signed_in, filed["document"], "withdraw", past, reason="Gone."
    )

    assert response.status_code == 200
    assert (
        "has passed: schedule LIT-004 for a time still to come, or take the step now."
        in response.content.decode()
    )
    assert not Schedule.objects.exists()


def test_a_publication_with_nothing_to_publish_is_not_offered_nor_taken(
    signed_in, filed, publisher
):
    document = filed["document"]  # Public, with no pending revision.

    response = post_schedule(signed_in, document, "publish", soon())

    assert response.status_code == 200
    assert "Select a valid choice." in response.content.decode()
    assert not Schedule.objects.exists()
    with pytest.raises(ValidationError) as refused:
        schedules.schedule(document=document, kind="publish", at=soon(), user=publisher)
    assert refused.value.code == "nothing_to_publish"


def test_a_second_schedule_of_the_same_change_is_refused(filed, publisher):
    document = filed["document"]
    schedules.schedule(
        document=document, kind="withdraw", at=soon(), user=publisher, reason="A."
    )

    with pytest.raises(ValidationError) as refused:
        schedules.schedule(
            document=document, kind="withdraw", at=soon(2), user=publisher, reason="B"
        )

    assert refused.value.code == "schedule_waiting"
    assert Schedule.objects.count() == 1


def test_the_desk_lists_what_is_scheduled_and_cancels_it(
    signed_in, filed, publisher, committed
):
    document = filed["document"]
    pending(document, publisher)
    at = soon()
    planned = schedules.schedule(
        document=document, kind="publish", at=at, user=publisher
    )

    desk = soup_of(signed_in.get(DESK))
    row = desk.select_one("#content-main tr.schedule.waiting")
    assert "LIT-004" in row.get_text()
    assert "late" not in row["class"]
    response = signed_in.post(
        reverse("admin:catalogue_document_cancel_schedule", args=[document.pk]),
        {"schedule": planned.pk, "next": DESK},
    )

    assert response.status_code == 302
    assert response["Location"] == DESK
    planned.refresh_from_db()
    assert (planned.state, planned.cancelled_by) == ("cancelled", publisher)
    with committed():
        assert schedules.run_due(now=at) == 0
    document.refresh_from_db()
    assert document.version == 1
    assert not soup_of(signed_in.get(DESK)).select("#content-main tr.schedule")


def test_an_editor_may_neither_schedule_nor_cancel(client, filed, publisher, editor):
    document = filed["document"]
    planned = schedules.schedule(
        document=document, kind="withdraw", at=soon(), user=publisher, reason="A."
    )
    client.force_login(editor)

    shown = client.get(schedule_url(document))
    cancelled = client.post(
        reverse("admin:catalogue_document_cancel_schedule", args=[document.pk]),
        {"schedule": planned.pk},
    )

    assert (shown.status_code, cancelled.status_code) == (403, 403)
    planned.refresh_from_db()
    assert planned.state == "waiting"


def late(planned, minutes=10):
    """Move ``planned``'s time back, as if every runner had been down since."""
    Schedule.objects.filter(pk=planned.pk).update(
        at=timezone.now() - datetime.timedelta(minutes=minutes)
    )


@pytest.mark.redis  # The readiness page also asks the queue.
def test_a_late_schedule_is_flagged_on_the_desk_and_by_readiness(
    signed_in, client, filed, publisher, settings
):
    document = filed["document"]
    planned = schedules.schedule(
        document=document, kind="withdraw", at=soon(), user=publisher, reason="A."
    )
    assert client.get("/health/ready/").json()["schedules"] == "ok"
    late(planned)
    planned.refresh_from_db()

    ready = client.get("/health/ready/")
    row = soup_of(signed_in.get(DESK)).select_one("#content-main tr.schedule")

    assert ready.status_code == 503
    assert ready.json()["schedules"] == (
        f"failing: 1 scheduled change not run, due since {schedules.when(planned.at)}"
    )
    assert "late" in row["class"]
    assert "Late: not run" in row.get_text()


def test_a_schedule_not_yet_late_is_not_flagged(client, filed, publisher, settings):
    settings.SCHEDULE_LATE_SECONDS = 3600
    planned = schedules.schedule(
        document=filed["document"],
        kind="withdraw",
        at=soon(),
        user=publisher,
        reason="A.",
    )
    late(planned, minutes=10)

    assert schedules.readiness() == "ok"


def test_a_runner_that_takes_a_schedule_leaves_nothing_for_another(
    filed, publisher, committed
):
    planned = schedules.schedule(
        document=filed["document"],
        kind="withdraw",
        at=soon(),
        user=publisher,
        reason="A.",
    )
    at = planned.at

    with committed():
        first = schedules.run(planned.pk, now=at)
    second = schedules.run(planned.pk, now=at)

    assert (first.state, second) == ("done", None)
    assert DocumentNotice.objects.filter(kind="withdrawn").count() == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.database(
    "postgresql", reason="two runners at once, each on its own connection"
)
def test_two_runners_at_once_run_a_schedule_once(editorial_groups):
    publisher = UserFactory(publisher=True)
    document = DocumentFactory(number=4, title="Old title", published=True)
    planned = schedules.schedule(
        document=document,
        kind="withdraw",
        at=soon(),
        user=publisher,
        reason="Retracted.",
    )
    claimed = threading.Event()
    original = schedules._perform
    results = {}

    def held(planned, via):
        # The first runner holds its claim until the second waits on it.
        claimed.set()
        with connection.cursor() as cursor:
            for _ in range(600):
                cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted")
                if cursor.fetchone()[0]:
                    results["second waited"] = True
                    break
                threading.Event().wait(0.05)
        return original(planned, via)

    def runner(name):
        try:
            results[name] = schedules.run(planned.pk, now=planned.at)
        finally:
            connections.close_all()

    schedules._perform = held
    try:
        first = threading.Thread(target=runner, args=("first",))
        first.start()
        claimed.wait(timeout=60)
        second = threading.Thread(target=runner, args=("second",))
        second.start()
        first.join(timeout=120)
        second.join(timeout=120)
    finally:
        schedules._perform = original

    assert results.pop("second waited")  # The two overlapped.
    ran = {name: result for name, result in results.items() if result is not None}
    assert list(ran) == ["first"]
    assert ran["first"].state == "done"
    assert DocumentNotice.objects.filter(document=document).count() == 1
    assert Document.objects.get(pk=document.pk).status == Document.Status.WITHDRAWN


def test_run_schedules_runs_the_due_ones_and_says_what_each_did(
    filed, publisher, committed
):
    document = filed["document"]
    planned = schedules.schedule(
        document=document, kind="withdraw", at=soon(), user=publisher, reason="A."
    )
    waiting = schedules.schedule(
        document=DocumentFactory(number=9, published=True),
        kind="withdraw",
        at=soon(),
        user=publisher,
        reason="B.",
    )
    late(planned, minutes=1)
    out = io.StringIO()

    with committed():
        call_command("run_schedules", stdout=out)

    assert out.getvalue() == f"Schedule {planned.pk}: Withdrew LIT-004.\n"
    waiting.refresh_from_db()
    assert waiting.state == "waiting"


@pytest.mark.django_db(transaction=True)
def test_without_workers_the_next_request_runs_a_due_schedule(
    editorial_groups, client, settings, monkeypatch
):
    # Committed for real: the run's expiry lands as the request goes on.
    publisher = UserFactory(publisher=True)
    document = DocumentFactory(number=4, title="Old title", published=True)
    settings.JOBS_IN_PROCESS = settings.JOBS_CHORES_IN_PROCESS = True
    settings.JOBS_CHORE_SECONDS = 0  # Every request does the chores.
    monkeypatch.setitem(middleware._last, "at", None)
    pending(document, publisher)
    planned = schedules.schedule(
        document=document, kind="publish", at=soon(), user=publisher
    )
    page = document.get_absolute_url()
    client.get(page)
    client.get(page)  # Cached.
    late(planned, minutes=1)

    shown = client.get(page).content.decode()

    assert "A revised title" in shown
    assert Schedule.objects.get().state == "done"

"""Candidate topics at the editors' desk: recomputed in a background job,
listed with their members and nearest topic; a publisher makes one a topic
(its documents move, each move audited, the pages fresh) or dismisses it, and
a dismissed group is not offered again."""

import io

import pytest
from auditlog.models import LogEntry
from django.core.management import call_command
from django.urls import reverse

import actions.documents
from catalogue.models import CandidateTopic, Document, Topic
from jobs import queue
from jobs.models import Job
from similarity.queueing import CANDIDATES_JOB
from tests.factories import DocumentFactory, TopicFactory

pytestmark = pytest.mark.django_db

FOLDING = "Protein folding structure prediction from amino acid sequences"
CANDIDATES = reverse("admin:catalogue_topic_candidates")
DECIDE = reverse("admin:catalogue_topic_candidate")


@pytest.fixture
def unplaced():
    """Six documents filed under federated learning, four unfiled ones on
    protein folding."""
    topic = TopicFactory(name="Federated learning", slug="federated")
    for n in range(6):
        DocumentFactory(
            number=10 + n,
            topic=topic,
            title=f"Federated averaging on phones, round {n}",
            summary="Clients train locally; the server averages their updates.",
            published=True,
        )
    return [
        DocumentFactory(
            number=40 + n,
            topic=None,
            title=f"{FOLDING}, study {n}",
            summary=f"Folding structure of proteins, predicted ({n}).",
            published=True,
        )
        for n in range(4)
    ]


def client_of(client, user):
    client.force_login(user)
    return client


def decide(client, candidate, **fields):
    return client.post(DECIDE, {"candidate": str(candidate.pk), **fields})


def test_a_publisher_recomputes_the_candidates_and_an_editor_sees_them(
    client, editor, publisher, unplaced, settings
):
    settings.JOBS_IN_PROCESS = True

    assert client_of(client, publisher).post(CANDIDATES).status_code == 302
    page = client_of(client, editor).get(CANDIDATES).content.decode()

    [candidate] = CandidateTopic.objects.open()
    assert Job.objects.get(function=CANDIDATES_JOB).state == Job.State.FINISHED
    assert {"folding", "protein", "structure"} & set(candidate.terms)
    assert candidate.nearest_topic.name == "Federated learning"
    assert sorted(m.document.number for m in candidate.members.all()) == [
        40,
        41,
        42,
        43,
    ]
    assert candidate.name in page
    assert "LIT-040" in page
    # Editors see them; publishers recompute and decide.
    assert "Make it a topic" not in page
    assert "Recompute the candidates" not in page


def test_an_editor_may_not_recompute_the_candidates(client, editor, unplaced):
    response = client_of(client, editor).post(CANDIDATES)

    assert response.status_code == 403
    assert not Job.objects.filter(function=CANDIDATES_JOB).exists()


@pytest.mark.redis  # Queued in the test Redis, on the related-work queue.
def test_the_candidates_wait_on_the_related_work_queue(
    client, publisher, unplaced, settings
):
    related = queue.get_queue(settings.JOBS_RELATED_QUEUE)
    related.empty()
    settings.RQ_QUEUES = {
        name: {**found, "ASYNC": True} for name, found in settings.RQ_QUEUES.items()
    }
    try:
        client_of(client, publisher).post(CANDIDATES)

        job = Job.objects.get(function=CANDIDATES_JOB)
        assert related.job_ids == [str(job.pk)]
        assert queue.get_queue().job_ids == []
    finally:
        related.empty()


def test_a_publisher_makes_a_candidate_a_topic_and_its_documents_move(
    client, publisher, unplaced, committed
):
    call_command("recompute_candidates", stdout=io.StringIO())
    candidate = CandidateTopic.objects.open().get()
    unfiled_page = reverse("catalogue:unfiled")
    client.get(unfiled_page)
    assert FOLDING in client.get(unfiled_page).content.decode()  # cached
    client = client_of(client, publisher)
    since = LogEntry.objects.order_by("-pk").values_list("pk", flat=True).first()

    with committed():
        response = decide(
            client, candidate, name="Protein structure", scope="folding", _make="1"
        )

    assert response.status_code == 302
    topic = Topic.objects.get(name="Protein structure")
    assert topic.scope == "folding"
    assert list(
        Document.objects.filter(topic=topic)
        .order_by("number")
        .values_list("number", flat=True)
    ) == [40, 41, 42, 43]
    moved = LogEntry.objects.filter(
        pk__gt=since, content_type__model="document", actor=publisher
    )
    assert sorted(int(entry.object_pk) for entry in moved) == sorted(
        document.pk for document in unplaced
    )
    candidate.refresh_from_db()
    assert (candidate.state, candidate.topic) == (CandidateTopic.State.MADE, topic)
    assert FOLDING not in client.get(unfiled_page).content.decode()
    assert FOLDING in client.get(topic.get_absolute_url()).content.decode()


def test_a_dismissed_group_is_not_offered_again(client, publisher, unplaced):
    call_command("recompute_candidates", stdout=io.StringIO())
    candidate = CandidateTopic.objects.open().get()
    client = client_of(client, publisher)

    decide(client, candidate, _dismiss="1")
    out = io.StringIO()
    call_command("recompute_candidates", stdout=out)

    assert not CandidateTopic.objects.open().exists()
    assert "(1 already decided)" in out.getvalue()


def test_an_editor_may_not_decide(client, editor, unplaced):
    call_command("recompute_candidates", stdout=io.StringIO())
    candidate = CandidateTopic.objects.open().get()

    response = decide(client_of(client, editor), candidate, name="X", _make="1")

    assert response.status_code == 403
    assert not Topic.objects.filter(name="X").exists()


def test_a_member_with_a_pending_revision_refuses_the_move_naming_it(
    client, publisher, unplaced
):
    call_command("recompute_candidates", stdout=io.StringIO())
    candidate = CandidateTopic.objects.open().get()
    actions.documents.edit_document(
        document=unplaced[1], user=publisher, changes={"title": "Held title"}
    )

    response = decide(
        client_of(client, publisher), candidate, name="Proteins", _make="1"
    )

    said = [str(m) for m in response.wsgi_request._messages]
    assert said == [
        "LIT-041 has a pending revision: publish or discard it first; nothing was "
        "moved."
    ]
    assert not Topic.objects.filter(name="Proteins").exists()
    assert Document.objects.filter(topic__isnull=True).count() == 4


def test_a_taken_name_is_refused(client, publisher, unplaced):
    call_command("recompute_candidates", stdout=io.StringIO())
    candidate = CandidateTopic.objects.open().get()

    response = decide(
        client_of(client, publisher), candidate, name="federated learning", _make="1"
    )

    said = [str(m) for m in response.wsgi_request._messages]
    assert said == ["There is already a topic named “federated learning”."]


def test_the_desk_counts_the_open_candidates(client, editor, unplaced):
    call_command("recompute_candidates", stdout=io.StringIO())

    page = client_of(client, editor).get(reverse("admin:index")).content.decode()

    assert "Candidate topics" in page
    assert CANDIDATES in page

"""Related work as readers get it: recomputed when documents change (a
background job) or by command, stored, shown on the document page with its
reasons at a fixed cost in queries, from public text only, and the page made
fresh when its list changes."""

import io

import pytest
from bs4 import BeautifulSoup
from django.core.management import call_command

import actions.documents
from catalogue.models import RelatedDocument
from jobs.models import Job
from similarity.queueing import RELATED_JOB
from tests.factories import DocumentFactory, TopicFactory

pytestmark = pytest.mark.django_db

PIPELINE = "Micro-batches fill the pipeline bubble of pipeline parallel training."


def related_on_page(client, document):
    page = BeautifulSoup(client.get(document.get_absolute_url()).content, "lxml")
    return [
        " ".join(item.get_text(" ", strip=True).split())
        for item in page.select(".related-work li")
    ]


@pytest.fixture
def told(settings):
    """Changes tell related work of the documents they change, from the
    first (the record's own documents are published after this)."""
    settings.RECORD_CHANGED = "similarity.queueing.documents_changed"


@pytest.fixture
def record():
    topic = TopicFactory(name="Distributed optimization", slug="distributed")
    cited = DocumentFactory(
        number=4, topic=topic, title="Sublinear memory", published=True
    )
    first = DocumentFactory(
        number=16,
        topic=topic,
        title="GPipe pipeline parallelism",
        summary=f"Builds on LIT-004. {PIPELINE}",
        tags=["pipelining", "memory"],
        published=True,
    )
    second = DocumentFactory(
        number=98,
        topic=topic,
        title="PipeMare asynchronous pipeline parallelism",
        summary=f"After LIT-004. {PIPELINE}",
        tags=["pipelining", "memory"],
        published=True,
    )
    draft = DocumentFactory(
        number=99, topic=topic, title="GPipe pipeline draft", summary=PIPELINE
    )
    return {"cited": cited, "first": first, "second": second, "draft": draft}


def test_the_document_page_lists_related_work_with_its_reasons(client, record):
    call_command("recompute_related", stdout=io.StringIO())

    assert related_on_page(client, record["first"]) == [
        "LIT-098 : PipeMare asynchronous pipeline parallelism (cites LIT-004 as this "
        "does; shares 2 tags; same topic; similar title and summary)",
        "LIT-004 : Sublinear memory (cited by this; same topic)",
    ]
    assert related_on_page(client, record["cited"])[0].endswith(
        "(cites this; same topic)"
    )


def test_drafts_are_never_related_work(client, record):
    call_command("recompute_related", stdout=io.StringIO())

    related = RelatedDocument.objects.values_list("related__number", flat=True)
    assert 99 not in set(related)
    assert not RelatedDocument.objects.filter(document=record["draft"]).exists()


def test_a_pending_revisions_text_is_never_read(client, record, publisher):
    lone = DocumentFactory(
        number=200, title="Federated averaging", summary="Phones.", published=True
    )
    actions.documents.edit_document(
        document=lone,
        user=publisher,
        changes={"title": "GPipe pipeline parallelism", "summary": PIPELINE},
    )

    call_command("recompute_related", stdout=io.StringIO())

    assert not RelatedDocument.objects.filter(document=lone).exists()
    assert not RelatedDocument.objects.filter(related=lone).exists()


def test_the_cached_page_is_fresh_once_its_related_work_is_stored(
    client, record, committed
):
    path = record["first"].get_absolute_url()
    client.get(path)
    assert "No related work is known yet." in client.get(path).content.decode()

    with committed():
        call_command("recompute_related", stdout=io.StringIO())

    assert "PipeMare" in client.get(path).content.decode()


def test_the_page_costs_one_query_for_its_related_work_however_long(
    client, record, django_assert_num_queries
):
    # A document page's queries, its author positions with their people one,
    # its corrections one.
    with django_assert_num_queries(11) as before:
        client.get(record["second"].get_absolute_url())
    call_command("recompute_related", stdout=io.StringIO())
    with django_assert_num_queries(len(before.captured_queries)):
        response = client.get(record["first"].get_absolute_url())
    assert response.status_code == 200
    assert len(response.context["related"]) == 2


@pytest.mark.django_db(transaction=True)
def test_publishing_a_document_recomputes_its_related_work_in_a_job(
    record, told, publisher, settings
):
    settings.JOBS_IN_PROCESS = True
    call_command("recompute_related", stdout=io.StringIO())
    draft = record["draft"]

    # Outside a request (a command, a shell) the job waits for a web process
    # or for recompute_related, which runs it.
    actions.documents.publish(document=draft, user=publisher)
    waiting = Job.objects.get(function=RELATED_JOB, state=Job.State.QUEUED)
    assert waiting.arguments["documents"] == [draft.pk]
    assert not RelatedDocument.objects.filter(document=draft).exists()
    call_command("recompute_related", stdout=io.StringIO())

    waiting.refresh_from_db()
    assert waiting.state == Job.State.FINISHED
    assert RelatedDocument.objects.filter(document=draft).exists()
    # Its neighbours' lists hold it now.
    assert RelatedDocument.objects.filter(
        document=record["first"], related=draft
    ).exists()


@pytest.mark.django_db(transaction=True)
def test_a_withdrawn_document_leaves_every_list(record, told, publisher, settings):
    settings.JOBS_IN_PROCESS = True
    call_command("recompute_related", stdout=io.StringIO())
    assert RelatedDocument.objects.filter(related=record["second"]).exists()

    actions.documents.withdraw(
        document=record["second"], user=publisher, reason="Retracted."
    )
    call_command("recompute_related", stdout=io.StringIO())

    assert not RelatedDocument.objects.filter(related=record["second"]).exists()
    assert not RelatedDocument.objects.filter(document=record["second"]).exists()


def test_until_related_work_is_recomputed_no_page_shows_a_withdrawn_document_in_it(
    client, record, publisher, committed
):
    call_command("recompute_related", stdout=io.StringIO())
    first, second = record["first"], record["second"]
    for document in (first, second):
        client.get(document.get_absolute_url())
    assert related_on_page(client, first)[0].startswith("LIT-098 : PipeMare")
    assert related_on_page(client, second)

    with committed():
        actions.documents.withdraw(document=second, user=publisher, reason="Why.")

    # The stored lists still hold it: only the pages are told.
    assert RelatedDocument.objects.filter(related=second).exists()
    assert [line[:7] for line in related_on_page(client, first)] == ["LIT-004"]
    assert related_on_page(client, second) == []


def test_a_retitled_document_is_retitled_at_once_in_the_related_work_listing_it(
    client, record, publisher, committed
):
    call_command("recompute_related", stdout=io.StringIO())
    first, second = record["first"], record["second"]
    client.get(first.get_absolute_url())
    assert "PipeMare asynchronous" in related_on_page(client, first)[0]

    with committed():
        actions.documents.edit_document(
            document=second,
            user=publisher,
            changes={"title": "PipeMare, asynchronous pipelines"},
        )
        actions.documents.publish(document=second, user=publisher)

    assert "PipeMare, asynchronous pipelines" in related_on_page(client, first)[0]


def test_the_command_recomputes_named_documents_and_refuses_unknown_ones(record):
    out = io.StringIO()
    call_command("recompute_related", "LIT-016", stdout=out)

    assert "lists changed" in out.getvalue()
    [job] = Job.objects.filter(function=RELATED_JOB)
    assert (job.state, job.arguments) == (
        Job.State.FINISHED,
        {"documents": [record["first"].pk]},
    )
    assert RelatedDocument.objects.filter(document=record["first"]).exists()
    with pytest.raises(Exception, match="LIT-777: no such document"):
        call_command("recompute_related", "LIT-777", stdout=io.StringIO())

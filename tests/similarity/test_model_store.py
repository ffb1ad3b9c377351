"""The related-work model kept between jobs: a change's recomputation reads
only the documents it names, and answers as a whole recomputation would
while the change brings no word the record did not hold at the last whole
recomputation; a word new since counts for nothing until the next one."""

import random

import pytest
from django.db import transaction

import actions.documents
from catalogue.models import Document, RelatedDocument
from similarity import compute, store
from similarity.corpus import public_entries
from similarity.jobs import recompute_related
from tests.factories import DocumentFactory, TopicFactory

pytestmark = pytest.mark.django_db

WORDS = [
    "pipeline",
    "parallel",
    "training",
    "memory",
    "gradient",
    "sparse",
    "attention",
    "transformer",
    "optimizer",
    "schedule",
    "batch",
    "kernel",
    "fusion",
    "quantized",
    "checkpoint",
    "activation",
    "compression",
    "bandwidth",
    "latency",
    "shard",
    "tensor",
]


@pytest.fixture(scope="module")
def made_record(module_db):
    """Forty public documents of words drawn from one pool, on two topics,
    some tagged, some naming LIT-001, one naming the draft LIT-041, which
    holds words of the pool only: made once for the module (``module_db``),
    each test's changes rolled back; their primary keys, in number order."""
    with module_db():
        documents, draft = make_record()
        return [document.pk for document in documents], draft.pk


@pytest.fixture
def record(made_record, db):
    """The forty documents and the draft, read afresh for each test."""
    pks, draft = made_record
    documents = Document.objects.in_bulk(pks)
    return [documents[pk] for pk in pks], Document.objects.get(pk=draft)


def make_record():
    rng = random.Random(3)
    topics = [
        TopicFactory(name="Systems", slug="systems"),
        TopicFactory(name="Models", slug="models"),
    ]
    documents = [
        DocumentFactory(
            number=number,
            topic=topics[number % 2],
            title=" ".join(rng.sample(WORDS, 3)).capitalize(),
            summary=("Builds on LIT-001. " if number % 5 == 0 else "")
            + ("Before LIT-041. " if number == 2 else "")
            + " ".join(rng.sample(WORDS, 6))
            + ".",
            tags=rng.sample(["memory", "speed", "scale"], rng.randint(0, 2)),
            published=True,
        )
        for number in range(1, 41)
    ]
    draft = DocumentFactory(
        number=41,
        topic=topics[0],
        title="Pipeline memory checkpoint",
        summary="Builds on LIT-001. Gradient compression, tensor shard.",
    )
    return documents, draft


def whole():
    return compute.related(compute.build(public_entries()))


def stored_lists():
    return sorted(
        RelatedDocument.objects.values_list(
            "document_id", "related_id", "rank", "score"
        )
    )


def test_a_change_without_new_words_answers_as_the_whole_recomputation(
    record, publisher
):
    documents, draft = record
    recompute_related()
    assert store.load() is not None

    actions.documents.edit_document(
        document=documents[6],
        user=publisher,
        changes={"title": "Sparse attention kernel fusion"},
    )
    actions.documents.publish(document=documents[6], user=publisher)
    # LIT-001, named by eight documents kept as they were.
    actions.documents.edit_document(
        document=documents[0],
        user=publisher,
        changes={"summary": "Latency of tensor shard compression."},
    )
    actions.documents.publish(document=documents[0], user=publisher)
    actions.documents.publish(document=draft, user=publisher)
    actions.documents.withdraw(document=documents[9], user=publisher, reason="Why.")
    changed = [documents[6].pk, documents[0].pk, draft.pk, documents[9].pk]
    model = store.updated(changed)

    assert compute.related(model) == whole()
    assert draft.pk in model.row_of and documents[9].pk not in model.row_of
    assert [entry.pk for entry in model.entries if documents[0].pk in entry.cites] == [
        entry.pk for entry in public_entries() if documents[0].pk in entry.cites
    ]
    assert len(model.cites[:, model.row_of[documents[0].pk]].nonzero()[0]) == 8
    assert model.entries[model.row_of[draft.pk]].cites == {documents[0].pk}
    assert model.entries[model.row_of[documents[1].pk]].cites == {draft.pk}


class Undone(Exception):
    pass


def test_a_changes_job_stores_what_it_stores_without_a_model_kept(record, publisher):
    _, draft = record
    recompute_related()
    actions.documents.publish(document=draft, user=publisher)

    try:
        with transaction.atomic():
            recompute_related(documents=[draft.pk])
            kept = stored_lists()
            raise Undone
    except Undone:
        pass
    store.path().unlink()
    recompute_related(documents=[draft.pk])

    assert stored_lists() == kept
    assert RelatedDocument.objects.filter(document=draft).exists()


def test_references_follow_documents_into_and_out_of_the_public_record(
    record, publisher
):
    documents, draft = record
    recompute_related()
    actions.documents.withdraw(document=documents[0], user=publisher, reason="Why.")
    actions.documents.publish(document=draft, user=publisher)

    model = store.updated([documents[0].pk, draft.pk])

    assert documents[0].pk not in model.row_of
    assert all(documents[0].pk not in entry.cites for entry in model.entries)
    assert model.entries[model.row_of[documents[1].pk]].cites == {draft.pk}
    assert compute.related(model) == whole()


def test_words_new_since_the_whole_recomputation_count_only_at_the_next(
    record, publisher
):
    documents, _ = record
    recompute_related()
    for document in documents[20:22]:
        actions.documents.edit_document(
            document=document,
            user=publisher,
            changes={"title": "Zymurgy quokka", "summary": "Zymurgy quokka."},
        )
        actions.documents.publish(document=document, user=publisher)
    pair = {documents[20].pk, documents[21].pk}

    changed = compute.related(store.updated(sorted(pair)))
    full = whole()

    # The whole recomputation relates the two by their text alone; the
    # change's, to which both words are unknown, gives them no text at all.
    assert {r.pk for r in full[documents[20].pk]} >= pair - {documents[20].pk}
    assert changed[documents[20].pk] != full[documents[20].pk]
    assert "zymurgy" not in store.load().counted
    for pk in pair:
        assert all("similar title and summary" not in r.reasons for r in changed[pk])
    # The two share no other word with the record: every other document's
    # list is the same either way.
    assert {pk: found for pk, found in changed.items() if pk not in pair} == {
        pk: found for pk, found in full.items() if pk not in pair
    }


def test_a_file_missing_unreadable_or_of_another_schema_is_rebuilt(
    record, publisher, monkeypatch
):
    documents, _ = record
    assert store.updated([documents[0].pk]) is None  # nothing stored yet

    store.path().parent.mkdir(parents=True)
    store.path().write_bytes(b"not a model")
    assert store.load() is None
    recompute_related(documents=[documents[0].pk])
    assert store.load() is not None

    monkeypatch.setattr(store, "SCHEMA", store.SCHEMA + 1)
    assert store.load() is None


def test_a_change_nobody_told_of_is_read_since_the_mark(record, publisher):
    _, draft = record
    recompute_related()
    actions.documents.publish(document=draft, user=publisher)

    model = store.updated([])

    assert draft.pk in model.row_of
    assert compute.related(model) == whole()


def test_a_change_reads_the_documents_it_names_in_six_queries(
    record, publisher, django_assert_num_queries
):
    documents, _ = record
    recompute_related()
    actions.documents.edit_document(
        document=documents[3],
        user=publisher,
        changes={"title": "Gradient batch schedule"},
    )
    actions.documents.publish(document=documents[3], user=publisher)
    recompute_related(documents=[documents[3].pk])  # the mark moves past it

    # The mark, what was saved since, the documents, their tags and their
    # references, and the count of public documents.
    with django_assert_num_queries(6):
        store.updated([documents[3].pk])

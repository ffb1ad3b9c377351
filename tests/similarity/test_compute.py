"""Related work and candidate topics from values: what relates two documents,
the reasons a reader is given, and the groups the unplaced documents form."""

from similarity import compute
from similarity.compute import Entry

PIPELINE = "Pipeline parallel schedules\nMicro-batches fill the pipeline bubble."


def entries(*given):
    return [
        Entry(pk=n, identifier=f"LIT-{n:03d}", **fields)
        for n, fields in enumerate(given, start=1)
    ]


def related_of(record, pk):
    return compute.related(compute.build(record))[pk]


def test_documents_citing_the_same_one_are_related_with_that_reason():
    record = entries(
        {"topic": None, "text": "Gradient checkpointing", "cites": frozenset({3})},
        {"topic": None, "text": "Rematerialisation policy", "cites": frozenset({3})},
        {"topic": None, "text": "Sublinear memory cost"},
    )

    [first, second] = related_of(record, 1)

    assert (first.pk, first.reasons) == (3, ["cited by this"])
    assert (second.pk, second.reasons) == (2, ["cites LIT-003 as this does"])


def test_a_document_cited_is_related_to_the_one_citing_it():
    record = entries(
        {"topic": None, "text": "Ring all-reduce"},
        {"topic": None, "text": "Tensor fusion", "cites": frozenset({1})},
    )

    [related] = related_of(record, 1)

    assert (related.pk, related.reasons) == (2, ["cites this"])


def test_shared_tags_and_similar_text_are_reasons_and_topic_alone_is_none():
    record = entries(
        {"topic": 7, "text": PIPELINE, "tags": frozenset({1, 2, 3})},
        {"topic": 7, "text": PIPELINE, "tags": frozenset({1, 2, 3})},
        {"topic": 7, "text": "Federated averaging over phones"},
    )

    [related] = related_of(record, 1)

    assert related.pk == 2
    assert related.reasons == [
        "shares 3 tags",
        "same topic",
        "similar title and summary",
    ]


def test_the_nearest_come_first_and_at_most_five():
    record = entries(
        *[{"topic": None, "text": PIPELINE + f" variant{n}"} for n in range(8)],
        {"topic": None, "text": PIPELINE, "cites": frozenset({1})},
    )

    found = related_of(record, 9)

    assert len(found) == compute.RELATED_COUNT
    assert found[0].pk == 1
    assert [r.score for r in found] == sorted((r.score for r in found), reverse=True)


def test_an_empty_record_and_a_lone_document_have_no_related_work():
    assert compute.related(compute.build([])) == {}
    assert compute.related(compute.build(entries({"topic": None, "text": "the"}))) == {
        1: []
    }


def test_an_empty_record_and_a_lone_document_have_no_candidates():
    assert compute.candidates(compute.build([])) == []
    assert (
        compute.candidates(compute.build(entries({"topic": None, "text": "the"}))) == []
    )


def group_texts(words, count):
    return [
        {"topic": None, "text": f"{' '.join(words)} study {n}"} for n in range(count)
    ]


def test_unfiled_documents_alike_form_a_candidate_named_by_their_terms():
    filed = [
        {"topic": 1, "text": f"federated learning on phones round {n}"}
        for n in range(6)
    ]
    unfiled = group_texts(["protein", "folding", "structure"], 4)
    record = entries(*filed, *unfiled, {"topic": None, "text": "a lone tokenizer"})

    [group] = compute.candidates(compute.build(record))

    assert sorted(pk for pk, _, _ in group.members) == [7, 8, 9, 10]
    assert set(group.terms) == {"protein", "folding", "structure"}
    assert group.nearest_topic == 1
    assert all(filed_fit is None for _, _, filed_fit in group.members)


def test_a_document_filed_with_low_fit_joins_the_candidates():
    filed = [
        {"topic": 1, "text": f"federated learning on phones round {n}"}
        for n in range(6)
    ]
    misfiled = {"topic": 1, "text": "protein folding structure misfiled"}
    record = entries(*filed, misfiled, *group_texts(["protein", "folding"], 3))

    [group] = compute.candidates(compute.build(record))

    members = {pk: filed_fit for pk, _, filed_fit in group.members}
    assert 7 in members
    assert members[7] is not None and members[7] < compute.LOW_FIT


def test_groups_smaller_than_three_are_no_candidates():
    record = entries(*group_texts(["protein", "folding"], 2))

    assert compute.candidates(compute.build(record)) == []

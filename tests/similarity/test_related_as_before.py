"""Related work found without comparing every pair is the related work the
comparison of every pair found: the same documents in the same order, with
the same reasons and scores, on generated records with known groups and on
the records that make a neighbour search go wrong (ties, a tag on every
document, documents with no words, citation cycles, an empty record).

The whole-row computation the record used before is kept here, as it was,
as the reference. It took a document's last places among equal scores in
whatever order a partial sort left them; the rule it stated, and the search
keeps, is document order: ``expected`` applies it to the reference's scores.
"""

import random

import numpy as np
import pytest

from similarity import compute, quality
from similarity.compute import (
    CITES_WEIGHT,
    CO_CITES_WEIGHT,
    RELATED_COUNT,
    SIMILAR_TEXT,
    TAG_WEIGHT,
    TOPIC_WEIGHT,
    Entry,
    Related,
)

# The reference: every document's scores against the whole record, 256 rows
# at a time, as the record computed them before.

BLOCK = 256


def reference_related(model, pks=None, count=RELATED_COUNT):
    total = len(model.entries)
    if pks is None:
        rows = np.arange(total)
    else:
        rows = np.array(sorted(model.row_of[pk] for pk in pks if pk in model.row_of))
    answer = {}
    cited_by = model.cites.T.tocsr()
    for start in range(0, len(rows), BLOCK):
        block = rows[start : start + BLOCK]
        scores, text, shared_tags = reference_scores(model, block, cited_by)
        for n, row in enumerate(block):
            answer[model.entries[row].pk] = reference_nearest(
                model, row, scores[n], text[n], shared_tags[n], count
            )
    return answer


def reference_scores(model, block, cited_by):
    text = (model.text[block] @ model.text.T).toarray()
    direct = (model.cites[block] + cited_by[block]).toarray()
    shared_cited = (model.cites[block] @ cited_by).toarray()
    shared_tags = (model.tags[block] @ model.tags.T).toarray()
    same_topic = (model.topics[block][:, None] == model.topics[None, :]) & (
        model.topics[block][:, None] >= 0
    )
    linked = (direct > 0) | (shared_cited > 0) | (shared_tags > 0)
    scores = (
        text
        + CITES_WEIGHT * np.minimum(direct, 1)
        + CO_CITES_WEIGHT * np.minimum(shared_cited, 2)
        + TAG_WEIGHT * np.minimum(shared_tags, 3)
        + TOPIC_WEIGHT * same_topic
    )
    scores[~(linked | (text >= SIMILAR_TEXT))] = 0
    scores[np.arange(len(block)), block] = 0
    return scores, text, shared_tags


def reference_nearest(model, row, scores, text, shared_tags, count):
    found = min(count, int(np.count_nonzero(scores)))
    if not found:
        return []
    top = np.argpartition(-scores, found - 1)[:found]
    top = sorted(top, key=lambda j: (-scores[j], j))
    entry = model.entries[row]
    return [
        Related(
            model.entries[j].pk,
            float(scores[j]),
            reference_reasons(model, entry, model.entries[j], text[j], shared_tags[j]),
        )
        for j in top
    ]


def reference_reasons(model, entry, other, text, shared_tags):
    reasons = []
    if other.pk in entry.cites:
        reasons.append("cited by this")
    if entry.pk in other.cites:
        reasons.append("cites this")
    both = sorted(
        model.entries[model.row_of[pk]].identifier for pk in entry.cites & other.cites
    )
    if both:
        more = f" and {len(both) - 1} more" if len(both) > 1 else ""
        reasons.append(f"cites {both[0]}{more} as this does")
    tags = int(shared_tags)
    if tags:
        reasons.append("shares a tag" if tags == 1 else f"shares {tags} tags")
    if entry.topic is not None and entry.topic == other.topic:
        reasons.append("same topic")
    if text >= SIMILAR_TEXT:
        reasons.append("similar title and summary")
    return reasons


def expected(model, count=RELATED_COUNT):
    """The reference's lists with its stated rule for equal scores (document
    order), taken from its scores of every pair."""
    answer = {}
    cited_by = model.cites.T.tocsr()
    rows = np.arange(len(model.entries))
    for start in range(0, len(rows), BLOCK):
        block = rows[start : start + BLOCK]
        scores, text, shared_tags = reference_scores(model, block, cited_by)
        for n, row in enumerate(block):
            top = sorted(np.flatnonzero(scores[n]), key=lambda j: (-scores[n][j], j))
            entry = model.entries[row]
            answer[entry.pk] = [
                (
                    model.entries[j].pk,
                    float(scores[n][j]),
                    reference_reasons(
                        model, entry, model.entries[j], text[n][j], shared_tags[n][j]
                    ),
                )
                for j in top[:count]
            ]
    return answer


def as_tuples(lists):
    return {
        pk: [(r.pk, r.score, r.reasons) for r in found] for pk, found in lists.items()
    }


def assert_same(found, wanted):
    """The same documents, order and reasons; scores within 1e-6."""
    assert found.keys() == wanted.keys()
    for pk, lines in wanted.items():
        assert [(other, reasons) for other, _, reasons in found[pk]] == [
            (other, reasons) for other, _, reasons in lines
        ], pk
        assert [score for _, score, _ in found[pk]] == pytest.approx(
            [score for _, score, _ in lines], abs=1e-6
        )


def assert_as_before(entries):
    """``compute.related`` gives every document the reference's list, by its
    stated rule for equal scores; and the reference's own lists differ from
    it at most in which of the documents tied at the last place it kept."""
    model = compute.build(entries)
    wanted = expected(model)

    assert_same(as_tuples(compute.related(model)), wanted)
    before = as_tuples(reference_related(model))
    for pk, lines in wanted.items():
        last = lines[-1][1] if lines else None
        assert [line for line in before[pk] if line[1] != last] == [
            line for line in lines if line[1] != last
        ]
        assert [line[1] for line in before[pk]] == [line[1] for line in lines]
    return wanted


# Records

WORDS = [f"w{n:03d}" for n in range(300)]
ZIPF = np.cumsum([1 / rank for rank in range(1, len(WORDS) + 1)])


def zipf_text(rng, count):
    return " ".join(rng.choices(WORDS, cum_weights=ZIPF, k=count))


def sample_shaped(documents, *, seed=3, tags=8, topics=6):
    """Documents as the sample generator writes them: words drawn by Zipf's
    law from a small vocabulary (most pairs share some), a few tags each from
    a handful (each on many documents), a topic each but some, one earlier
    document cited by most."""
    rng = random.Random(seed)
    entries = []
    for pk in range(1, documents + 1):
        cites = {rng.randint(1, pk - 1)} if pk > 1 and rng.random() < 0.8 else set()
        entries.append(
            Entry(
                pk=pk,
                identifier=f"SLIT-{pk:03d}",
                topic=None if pk % 30 == 7 else rng.randint(1, topics),
                text=f"{zipf_text(rng, 7)}\n{zipf_text(rng, 30)}",
                tags=frozenset(rng.sample(range(tags), rng.randint(0, 3))),
                cites=frozenset(cites),
            )
        )
    return entries


def grouped_with_links(seed=11):
    """The quality check's generated groups, with tags and references: a
    group's documents share a tag and cite its first document."""
    entries, group_of = quality.generated_entries(groups=8, size=20, removed=2)
    rng = random.Random(seed)
    first = {}
    for entry in entries:
        first.setdefault(group_of[entry.pk], entry.pk)
    return [
        Entry(
            pk=entry.pk,
            identifier=entry.identifier,
            topic=entry.topic,
            text=entry.text,
            tags=frozenset({group_of[entry.pk], 100 + rng.randint(0, 2)}),
            cites=frozenset({first[group_of[entry.pk]]} - {entry.pk})
            if rng.random() < 0.5
            else frozenset(),
        )
        for entry in entries
    ]


def entry(pk, text="", topic=None, tags=(), cites=()):
    return Entry(
        pk=pk,
        identifier=f"LIT-{pk:03d}",
        topic=topic,
        text=text,
        tags=frozenset(tags),
        cites=frozenset(cites),
    )


def test_related_work_is_as_before_on_a_sample_shaped_record():
    assert_as_before(sample_shaped(700))


def test_related_work_is_as_before_on_groups_with_tags_and_references():
    assert_as_before(grouped_with_links())


def test_documents_tied_past_the_last_place_give_way_in_document_order():
    # Twelve documents alike in every way: each one's five are the first
    # five others, whatever order a search meets them in.
    record = [
        entry(pk, "pipeline bubble schedules", topic=1, tags=[1]) for pk in range(1, 13)
    ]

    wanted = assert_as_before(record)

    assert [other for other, _, _ in wanted[12]] == [1, 2, 3, 4, 5]
    assert [other for other, _, _ in wanted[1]] == [2, 3, 4, 5, 6]


def test_a_tag_on_every_document_without_words_relates_them_in_document_order():
    record = [entry(pk, "", topic=pk % 2, tags=[7]) for pk in range(1, 40)]

    wanted = assert_as_before(record)

    # The same topic first (a tag and a topic), then the others.
    assert [other for other, _, _ in wanted[2]] == [4, 6, 8, 10, 12]


def test_a_tag_on_every_document_among_words_and_references_is_as_before():
    record = [
        Entry(
            pk=e.pk,
            identifier=e.identifier,
            topic=e.topic,
            text=e.text,
            tags=e.tags | {99},
            cites=e.cites,
        )
        for e in sample_shaped(300, seed=8, tags=3)
    ]
    assert_as_before(record)


def test_citation_cycles_documents_without_words_and_stop_words_alone_are_as_before():
    record = [
        entry(1, "ring all-reduce bandwidth", cites=[2]),
        entry(2, "tree all-reduce latency", cites=[3]),
        entry(3, "all-reduce in hierarchies", cites=[1]),
        entry(4, "", cites=[1, 2, 3]),
        entry(5, "", cites=[1, 2, 3]),
        entry(6, "the and of", topic=1),
        entry(7, "the and of", topic=1),
        entry(8, ""),
        entry(9, "ring bandwidth", topic=1, tags=[1]),
        entry(10, "", topic=1, tags=[1]),
    ]

    wanted = assert_as_before(record)

    assert wanted[8] == []
    # A topic alone, or stop words alone, relates nothing.
    assert wanted[6] == []


def test_an_empty_record_and_a_lone_document_have_none():
    assert compute.related(compute.build([])) == {}
    assert_as_before([])
    assert_as_before([entry(1, "pipeline bubble", topic=1, tags=[1])])


def test_a_search_started_narrow_widens_until_each_list_is_settled(monkeypatch):
    monkeypatch.setattr(compute, "FIRST_CANDIDATES", 1)
    monkeypatch.setattr(compute, "WIDER", 2)
    record = sample_shaped(250, seed=5)
    record += [entry(300 + pk, "", topic=1, tags=[1]) for pk in range(30)]

    assert_as_before(record)


def test_the_related_work_of_some_documents_is_theirs_in_the_whole_record():
    record = sample_shaped(400, seed=4)
    model = compute.build(record)
    some = [3, 50, 51, 399, 12345]

    found = as_tuples(compute.related(model, some))

    assert found.keys() == {3, 50, 51, 399}
    assert_same(
        found, {pk: lines for pk, lines in expected(model).items() if pk in found}
    )


def test_a_record_of_stop_words_alone_has_no_related_work():
    record = [entry(1, "the"), entry(2, "and of the")]

    assert compute.related(compute.build(record)) == {1: [], 2: []}
    assert_as_before(record)

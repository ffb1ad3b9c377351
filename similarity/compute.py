"""Related work and candidate topics, computed from values: no database here.

Text similarity is TF-IDF over each document's title and summary (scikit-learn's
``TfidfVectorizer``: sublinear term frequencies, English stop words, words
found in more than half the record dropped) compared by cosine similarity,
with scipy's sparse matrices. It runs on CPU, gives the same answer on
PostgreSQL and SQLite (the database only hands over the text), needs no model
downloaded at run time, and at 100,000 short summaries fits in seconds.

A document's related work is scored from what it shares with each other one:

- a reference in either direction (it cites the other, or is cited by it);
- a document both cite ("cites LIT-004 as this does");
- tags;
- its topic;
- the cosine similarity of their title and summary.

A topic alone never makes a document related: something else must be shared.

Candidate topics are groups of the unfiled documents, and of those filed with
low fit to their topic (cosine similarity to the topic's centroid), linked when
each is among the other's nearest and similar enough; a group is named by its
most telling terms (its centroid's heaviest terms, less the record's own).
"""

import hashlib
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import connected_components
from sklearn.feature_extraction.text import TfidfVectorizer

# How many related documents each page lists.
RELATED_COUNT = 5
# Weights of what two documents share, added to their text similarity.
CITES_WEIGHT = 1.0
CO_CITES_WEIGHT = 0.5
TAG_WEIGHT = 0.2
TOPIC_WEIGHT = 0.15
# Text at least this similar is said to be so, and is enough to relate.
SIMILAR_TEXT = 0.1
# Rows compared at once: a block of this many rows by the whole record.
BLOCK = 256

# A filed document is a candidate for another topic below this fit to its own.
LOW_FIT = 0.08
# At most this many documents are grouped, the unfiled first, then those
# with the lowest fit.
MOST_UNPLACED = 5000
# Topics need this many documents before a member's fit to them means much.
FIT_TOPIC_SIZE = 5
# Two candidates are linked when each is among the other's nearest this many,
# at least this similar; groups smaller than GROUP_SIZE are left out.
GROUP_NEIGHBOURS = 5
GROUP_SIMILARITY = 0.2
GROUP_SIZE = 3
NAME_TERMS = 3


@dataclass(frozen=True)
class Entry:
    """A public document as the computation needs it."""

    pk: int
    identifier: str
    topic: int | None
    text: str
    tags: frozenset = frozenset()
    cites: frozenset = frozenset()  # pks of the public documents it names


@dataclass
class Related:
    pk: int
    score: float
    reasons: list


@dataclass
class Group:
    members: list  # (pk, fit to the group, fit to its filed topic or None)
    terms: list
    nearest_topic: int | None
    nearest_similarity: float

    @property
    def name(self):
        return ", ".join(self.terms)

    @property
    def members_key(self):
        return members_key(pk for pk, _, _ in self.members)


def members_key(pks):
    joined = ",".join(str(pk) for pk in sorted(pks))
    return hashlib.sha256(joined.encode()).hexdigest()


@dataclass
class Model:
    """The record's documents as matrices, rows in ``entries`` order."""

    entries: list
    vectorizer: TfidfVectorizer
    text: sparse.csr_matrix  # TF-IDF, rows of unit length
    cites: sparse.csr_matrix  # cites[i, j]: i names j
    tags: sparse.csr_matrix  # tags[i, t]: i is tagged t
    topics: np.ndarray  # topic pk, -1 when unfiled
    row_of: dict = field(default_factory=dict)


def build(entries):
    """The model of ``entries``: their text vectorised, their links as matrices."""
    entries = list(entries)
    row_of = {entry.pk: row for row, entry in enumerate(entries)}
    count = len(entries)
    vectorizer = TfidfVectorizer(
        sublinear_tf=True,
        stop_words="english",
        max_df=0.5 if count > 20 else 1.0,
        token_pattern=r"(?u)\b[^\W\d_][\w-]*[^\W_]\b",
        dtype=np.float32,
    )
    try:
        text = vectorizer.fit_transform(entry.text for entry in entries)
    except ValueError:  # no words at all: an empty record, or stop words only
        text = sparse.csr_matrix((count, 0), dtype=np.float32)
    cites = _links(
        ((row, row_of[pk]) for row, e in enumerate(entries) for pk in e.cites),
        count,
        count,
        exclude_diagonal=True,
    )
    tag_ids = {}
    tag_pairs = [
        (row, tag_ids.setdefault(tag, len(tag_ids)))
        for row, entry in enumerate(entries)
        for tag in entry.tags
    ]
    tags = _links(tag_pairs, count, len(tag_ids))
    topics = np.array(
        [-1 if entry.topic is None else entry.topic for entry in entries],
        dtype=np.int64,
    )
    return Model(entries, vectorizer, text.tocsr(), cites, tags, topics, row_of)


def _links(pairs, rows, columns, exclude_diagonal=False):
    pairs = [
        (i, j)
        for i, j in pairs
        if i is not None and j is not None and not (exclude_diagonal and i == j)
    ]
    data = np.ones(len(pairs), dtype=np.float32)
    i = [pair[0] for pair in pairs]
    j = [pair[1] for pair in pairs]
    matrix = sparse.csr_matrix((data, (i, j)), shape=(rows, columns))
    matrix.data[:] = 1  # a name twice is one reference
    return matrix


def related(model, pks=None, count=RELATED_COUNT):
    """Each document's related work (``pks``' only, if given): {pk: [Related]},
    nearest first."""
    total = len(model.entries)
    if pks is None:
        rows = np.arange(total)
    else:
        rows = np.array(sorted(model.row_of[pk] for pk in pks if pk in model.row_of))
    answer = {}
    cited_by = model.cites.T.tocsr()
    for start in range(0, len(rows), BLOCK):
        block = rows[start : start + BLOCK]
        scores, text, shared_tags = _scores(model, block, cited_by)
        for n, row in enumerate(block):
            answer[model.entries[row].pk] = _nearest(
                model, row, scores[n], text[n], shared_tags[n], count
            )
    return answer


def _scores(model, block, cited_by):
    """The scores of rows ``block`` against every document, and their parts."""
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


def _nearest(model, row, scores, text, shared_tags, count):
    found = min(count, int(np.count_nonzero(scores)))
    if not found:
        return []
    top = np.argpartition(-scores, found - 1)[:found]
    # Nearest first; equal scores in document order, so the list is stable.
    top = sorted(top, key=lambda j: (-scores[j], j))
    entry = model.entries[row]
    return [
        Related(
            model.entries[j].pk,
            float(scores[j]),
            _reasons(model, entry, model.entries[j], text[j], shared_tags[j]),
        )
        for j in top
    ]


def _reasons(model, entry, other, text, shared_tags):
    """What ``entry`` and ``other`` share, one phrase each, as the page says."""
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


# Candidate topics


def _unit_rows(matrix):
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
    norms[norms == 0] = 1
    return sparse.diags(1 / norms) @ matrix


def topic_sums(model):
    """Each topic's documents summed: (topic pks, matrix of sums)."""
    filed = model.topics >= 0
    topic_pks = np.unique(model.topics[filed])
    if not len(topic_pks):
        return topic_pks, sparse.csr_matrix((0, model.text.shape[1]))
    index = np.searchsorted(topic_pks, model.topics[filed])
    rows = np.flatnonzero(filed)
    membership = sparse.csr_matrix(
        (np.ones(len(rows), dtype=np.float32), (index, rows)),
        shape=(len(topic_pks), len(model.entries)),
    )
    return topic_pks, (membership @ model.text).tocsr()


def filed_fits(model, topic_pks, sums):
    """Each filed document's cosine similarity to the centroid of the other
    documents of its topic (NaN when unfiled): a document is never measured
    against itself."""
    fits = np.full(len(model.entries), np.nan, dtype=np.float32)
    filed = np.flatnonzero(model.topics >= 0)
    if not len(filed):
        return fits
    own = sums[np.searchsorted(topic_pks, model.topics[filed])]
    vectors = model.text[filed]
    dot = np.asarray(vectors.multiply(own).sum(axis=1)).ravel()
    own_norm = np.asarray(own.multiply(own).sum(axis=1)).ravel()
    self_norm = np.asarray(vectors.multiply(vectors).sum(axis=1)).ravel()
    rest = np.sqrt(np.maximum(own_norm - 2 * dot + self_norm, 0))
    rest[rest == 0] = 1
    fits[filed] = (dot - self_norm) / rest
    return fits


def candidates(model, progress=None):
    """The candidate topics of the record: [Group], largest first."""
    topic_pks, sums = topic_sums(model)
    centroids = _unit_rows(sums).tocsr() if len(topic_pks) else sums
    sizes = dict(zip(*np.unique(model.topics, return_counts=True), strict=True))
    filed_fit = filed_fits(model, topic_pks, sums)
    unplaced = [
        row
        for row in range(len(model.entries))
        if model.topics[row] < 0
        or (sizes[model.topics[row]] >= FIT_TOPIC_SIZE and filed_fit[row] < LOW_FIT)
    ]
    # The unfiled first, then the worst placed: grouping compares each pair.
    unplaced.sort(key=lambda row: (model.topics[row] >= 0, filed_fit[row], row))
    unplaced = sorted(unplaced[:MOST_UNPLACED])
    if progress:
        progress(1, 3)
    groups = _group(model, np.array(unplaced, dtype=np.int64))
    if progress:
        progress(2, 3)
    answer = []
    # A group's name is the terms it holds more of than the record's mean;
    # an empty record has no mean, and no groups to name.
    mean = np.asarray(model.text.mean(axis=0)).ravel() if len(model.entries) else None
    terms = model.vectorizer.get_feature_names_out() if model.text.shape[1] else []
    for rows in groups:
        centroid = np.asarray(model.text[rows].mean(axis=0)).ravel()
        telling = np.argsort(-(centroid - mean))[:NAME_TERMS]
        fits = model.text[rows] @ (centroid / (np.linalg.norm(centroid) or 1))
        nearest, similarity = None, 0.0
        if centroids.shape[0]:
            to_topics = centroids @ (centroid / (np.linalg.norm(centroid) or 1))
            best = int(np.argmax(to_topics))
            nearest, similarity = int(topic_pks[best]), float(to_topics[best])
        members = sorted(
            (
                (
                    model.entries[row].pk,
                    float(fit),
                    None if np.isnan(filed_fit[row]) else float(filed_fit[row]),
                )
                for row, fit in zip(rows, np.ravel(fits), strict=True)
            ),
            key=lambda member: (-member[1], member[0]),
        )
        answer.append(
            Group(
                members,
                [str(terms[t]) for t in telling if centroid[t] > 0],
                nearest,
                similarity,
            )
        )
    if progress:
        progress(3, 3)
    return sorted(answer, key=lambda group: (-len(group.members), group.name))


def _group(model, rows):
    """Groups of ``rows``: linked when each is among the other's nearest
    ``GROUP_NEIGHBOURS`` and at least ``GROUP_SIMILARITY`` alike."""
    count = len(rows)
    if count < GROUP_SIZE:
        return []
    vectors = model.text[rows]
    nearest = sparse.lil_matrix((count, count), dtype=np.int8)
    for start in range(0, count, BLOCK):
        similar = (vectors[start : start + BLOCK] @ vectors.T).toarray()
        for n, scores in enumerate(similar):
            scores[start + n] = 0
            k = min(GROUP_NEIGHBOURS, count - 1)
            for j in np.argpartition(-scores, k - 1)[:k]:
                if scores[j] >= GROUP_SIMILARITY:
                    nearest[start + n, j] = 1
    nearest = nearest.tocsr()
    mutual = nearest.multiply(nearest.T)
    found, labels = connected_components(mutual, directed=False)
    groups = [rows[labels == label] for label in range(found)]
    return [group for group in groups if len(group) >= GROUP_SIZE]

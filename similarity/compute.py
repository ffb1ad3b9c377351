"""Related work and candidate topics, computed from values: no database here.

Text similarity is TF-IDF over each document's title and summary (scikit-learn's
``CountVectorizer`` and ``TfidfTransformer``: sublinear term frequencies,
English stop words, words found in more than half the record dropped)
compared by cosine similarity, with scipy's sparse matrices. It runs on CPU,
gives the same answer on PostgreSQL and SQLite (the database only hands over
the text), needs no model downloaded at run time, and at 100,000 short
summaries fits in seconds. Each document's count of each word is kept with
the model (``assemble`` weighs them), so that a change is applied to a model
without counting the whole record again (``similarity.store``).

A document's related work is scored from what it shares with each other one:

- a reference in either direction (it cites the other, or is cited by it);
- a document both cite ("cites LIT-004 as this does");
- tags;
- its topic;
- the cosine similarity of their title and summary.

A topic alone never makes a document related: something else must be shared.
The nearest are found without scoring every pair (``related``): a sparse
product whose rows bound the score from above picks each document's
candidates (sparse_dot_topn keeps the highest of each row), and they are
scored exactly, as every pair once was.

Candidate topics are groups of the unfiled documents, and of those filed with
low fit to their topic (cosine similarity to the topic's centroid), linked when
each is among the other's nearest and similar enough; a group is named by its
most telling terms (its centroid's heaviest terms, less the record's own).
"""

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import connected_components
from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer
from sparse_dot_topn import sp_matmul_topn

# How many related documents each page lists.
RELATED_COUNT = 5
# Weights of what two documents share, added to their text similarity.
CITES_WEIGHT = 1.0
CO_CITES_WEIGHT = 0.5
TAG_WEIGHT = 0.2
TOPIC_WEIGHT = 0.15
# Text at least this similar is said to be so, and is enough to relate.
SIMILAR_TEXT = 0.1
# Each document is first scored against this many with the highest bounds,
# then WIDER times as many while its last place could be taken by one left out.
FIRST_CANDIDATES = 24
WIDER = 8
# How much a computed bound may fall short of the score it bounds (rounding).
BOUND_SLACK = 1e-4
# Pairs scored at once, and rows searched at once (pairs over width).
PAIR_BLOCK = 200_000
CANDIDATE_PAIRS = 400_000
# Threads of the neighbour search.
THREADS = 2
# Rows compared at once in grouping: a block of this many rows by the others.
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
    words: np.ndarray  # the text's columns, in order
    text: sparse.csr_matrix  # TF-IDF, rows of unit length
    cites: sparse.csr_matrix  # cites[i, j]: i names j
    tags: sparse.csr_matrix  # tags[i, t]: i is tagged t
    topics: np.ndarray  # topic pk, -1 when unfiled
    row_of: dict = field(default_factory=dict)
    bounds: tuple | None = None  # see _bounds
    # Every word of the record (``counted``'s columns) and each document's
    # count of each: what ``assemble`` weighs, kept so that a change can be
    # applied without reading the rest of the record again (``similarity.store``).
    counted: np.ndarray | None = None
    counts: sparse.csr_matrix | None = None


def counter(vocabulary=None):
    """What turns a text into counts of its words (English stop words left
    out): every word found, or only those of ``vocabulary``."""
    return CountVectorizer(
        stop_words="english",
        token_pattern=r"(?u)\b[^\W\d_][\w-]*[^\W_]\b",
        dtype=np.float32,
        vocabulary=vocabulary,
    )


class Entries(Sequence):
    """A model's documents as ``Entry`` values, each made when it is asked
    for from the model's arrays, without its text (counted already)."""

    def __init__(self, pks, identifiers, topics, tags, tag_values, cites):
        self.pks = pks  # int64, one per row
        self.identifiers = identifiers  # a list of str
        self.topics = topics  # -1 when unfiled
        self.tags = tags  # rows by tag_values
        self.tag_values = tag_values
        self.cites = cites  # rows by rows

    def __len__(self):
        return len(self.pks)

    def __getitem__(self, row):
        if isinstance(row, slice):
            return [self[n] for n in range(*row.indices(len(self)))]
        row = range(len(self))[row]
        topic = int(self.topics[row])
        tags = self.tag_values[
            self.tags.indices[self.tags.indptr[row] : self.tags.indptr[row + 1]]
        ]
        cites = self.pks[
            self.cites.indices[self.cites.indptr[row] : self.cites.indptr[row + 1]]
        ]
        return Entry(
            pk=int(self.pks[row]),
            identifier=self.identifiers[row],
            topic=None if topic < 0 else topic,
            text="",
            tags=frozenset(tags.tolist()),
            cites=frozenset(cites.tolist()),
        )


def build(entries):
    """The model of ``entries``: their text vectorised, their links as matrices."""
    entries = list(entries)
    found = counter()
    try:
        counts = found.fit_transform(entry.text for entry in entries).tocsr()
        counted = found.get_feature_names_out()
    except ValueError:  # no words at all: an empty record, or stop words only
        counts = sparse.csr_matrix((len(entries), 0), dtype=np.float32)
        counted = np.array([], dtype=str)
    row_of = {entry.pk: row for row, entry in enumerate(entries)}
    cites = [
        (row, row_of[pk])
        for row, entry in enumerate(entries)
        for pk in entry.cites
        if pk in row_of
    ]
    tags = [(row, tag) for row, entry in enumerate(entries) for tag in entry.tags]
    return assemble(
        pks=np.array([entry.pk for entry in entries], dtype=np.int64),
        identifiers=[entry.identifier for entry in entries],
        topics=np.array(
            [-1 if entry.topic is None else entry.topic for entry in entries],
            dtype=np.int64,
        ),
        tags=tags,
        cites=cites,
        counts=counts,
        counted=counted,
    )


def assemble(*, pks, identifiers, topics, tags, cites, counts, counted):
    """The model of the documents ``pks`` (in this order, with ``identifiers``
    and ``topics``, -1 when unfiled), tagged as ``tags`` says ((row, tag)
    pairs), naming each other as ``cites`` says ((row, row) pairs), whose words
    ``counts`` holds: a row per document, a column per word of ``counted``, in
    alphabetical order. The text is TF-IDF of the words found in at least one
    and at most half of them (all of them, in a record of 20 or fewer), with
    sublinear term frequencies, as scikit-learn's ``TfidfVectorizer`` weighs
    them."""
    count = len(pks)
    counts = counts.tocsr()
    counts.sort_indices()
    found_in = np.bincount(counts.indices, minlength=counts.shape[1])
    most = 0.5 * count if count > 20 else count
    kept = np.flatnonzero((found_in >= 1) & (found_in <= most))
    if len(kept):
        text = TfidfTransformer(sublinear_tf=True).fit_transform(counts[:, kept])
    else:
        text = sparse.csr_matrix((count, 0), dtype=np.float32)
    cites = _links(cites, count, count, exclude_diagonal=True)
    tag_rows, tag_values = _pairs(tags, object)
    tag_values, tag_columns = (
        np.unique(tag_values, return_inverse=True) if len(tags) else ([], [])
    )
    tags = _links(
        (np.asarray(tag_rows, dtype=np.int64), np.asarray(tag_columns, dtype=np.int64)),
        count,
        len(tag_values),
    )
    text = text.tocsr()
    # Each pair's similarity is summed in the terms' order, whoever sums it.
    text.sort_indices()
    entries = Entries(pks, identifiers, topics, tags, np.asarray(tag_values), cites)
    return Model(
        entries,
        counted[kept],
        text,
        cites,
        tags,
        topics,
        dict(zip(pks.tolist(), range(count), strict=True)),
        counted=counted,
        counts=counts,
    )


def _pairs(pairs, dtype=np.int64):
    """(rows, columns) of ``pairs``: a list of pairs, or two arrays already."""
    if isinstance(pairs, tuple):
        return pairs
    rows = np.array([pair[0] for pair in pairs], dtype=np.int64)
    columns = np.array([pair[1] for pair in pairs], dtype=dtype)
    return rows, columns


def _links(pairs, rows, columns, exclude_diagonal=False):
    """A matrix of ones at ``pairs`` ((row, column) pairs, or two arrays)."""
    i, j = _pairs(pairs)
    i = np.asarray(i, dtype=np.int64)
    j = np.asarray(j, dtype=np.int64)
    if exclude_diagonal:
        i, j = i[i != j], j[i != j]
    data = np.ones(len(i), dtype=np.float32)
    matrix = sparse.csr_matrix((data, (i, j)), shape=(rows, columns))
    matrix.data[:] = 1  # a name twice is one reference
    return matrix


def related(model, pks=None, count=RELATED_COUNT):
    """Each document's related work (``pks``' only, if given): {pk: [Related]},
    nearest first, equal scores in document order.

    No document is compared with every other: each is scored exactly against
    its nearest by an upper bound of the score (``_bounds``) and those it
    cites or is cited by, and that is its answer once its last place scores
    above the bound of every document left out; otherwise it is searched
    again among more (and, at worst, among every document sharing anything
    with it)."""
    if pks is None:
        rows = np.arange(len(model.entries))
    else:
        rows = np.array(
            sorted(model.row_of[pk] for pk in pks if pk in model.row_of),
            dtype=np.int64,
        )
    answer = {}
    width = FIRST_CANDIDATES
    while len(rows):
        width = min(width, len(model.entries))
        unsettled = []
        for start in range(0, len(rows), max(1, CANDIDATE_PAIRS // (width + 1))):
            block = rows[start : start + max(1, CANDIDATE_PAIRS // (width + 1))]
            found, left = _related_among_nearest(model, block, width, count)
            answer.update(found)
            unsettled.append(left)
        rows = np.concatenate(unsettled)
        width *= WIDER
    return answer


def _bounds(model):
    """The matrices whose product bounds each pair's score from above, and its
    transpose: a document's text, its cited documents, its tags and its topic
    side by side, each weighted by the square root of its weight, so that the
    product of two rows is their text similarity plus each weight times what
    they share (uncapped, and whether or not it relates them). A direct
    reference is not a product of rows: those pairs are scored apart."""
    if model.bounds is None:
        count = len(model.entries)
        filed = np.flatnonzero(model.topics >= 0)
        topic_pks, topic_columns = np.unique(model.topics[filed], return_inverse=True)
        topics = sparse.csr_matrix(
            (np.ones(len(filed), dtype=np.float32), (filed, topic_columns)),
            shape=(count, len(topic_pks)),
        )
        bounds = sparse.hstack(
            [
                model.text,
                model.cites * np.float32(np.sqrt(CO_CITES_WEIGHT)),
                model.tags * np.float32(np.sqrt(TAG_WEIGHT)),
                topics * np.float32(np.sqrt(TOPIC_WEIGHT)),
            ],
            format="csr",
            dtype=np.float32,
        )
        model.bounds = (bounds, bounds.T.tocsr(), model.cites.T.tocsr())
    return model.bounds


def _related_among_nearest(model, rows, width, count):
    """The related work of ``rows`` found among each one's ``width`` highest
    bounds and its direct references: ({pk: [Related]}, the rows it could not
    settle)."""
    bounds, transposed, cited_by = _bounds(model)
    total = len(model.entries)
    nearest = sp_matmul_topn(
        bounds[rows], transposed, top_n=min(width + 1, total), n_threads=THREADS
    )
    kept = np.diff(nearest.indptr)
    # A row with fewer kept than asked holds every document with any bound;
    # the others are settled only if none left out could take a place.
    full = (kept == width + 1) & (width + 1 < total)
    lowest = np.full(len(rows), -np.inf)
    if kept.any():
        lowest[kept > 0] = np.minimum.reduceat(
            nearest.data[: nearest.indptr[-1]], nearest.indptr[:-1][kept > 0]
        )
    direct = (model.cites[rows] + cited_by[rows]).tocsr()
    own = np.repeat(np.arange(len(rows)), kept)
    pairs = np.unique(
        np.concatenate(
            [
                own * total + nearest.indices[: nearest.indptr[-1]],
                np.repeat(np.arange(len(rows)), np.diff(direct.indptr)) * total
                + direct.indices,
            ]
        )
    )
    owner, columns = np.divmod(pairs, total)
    scores, text, shared_tags = _pair_scores(model, rows[owner], columns)
    answer, unsettled = {}, []
    bounds_of = np.searchsorted(owner, np.arange(len(rows) + 1))
    for n, row in enumerate(rows):
        mine = slice(bounds_of[n], bounds_of[n + 1])
        chosen = _top(scores[mine], columns[mine], count)
        last = scores[mine][chosen[-1]] if len(chosen) == count else 0.0
        if full[n] and not last > lowest[n] + BOUND_SLACK:
            unsettled.append(row)
            continue
        entry = model.entries[row]
        answer[entry.pk] = [
            Related(
                model.entries[columns[mine][j]].pk,
                float(scores[mine][j]),
                _reasons(
                    model,
                    entry,
                    model.entries[columns[mine][j]],
                    text[mine][j],
                    shared_tags[mine][j],
                ),
            )
            for j in chosen
        ]
    return answer, np.array(unsettled, dtype=np.int64)


def _top(scores, columns, count):
    """Positions of the ``count`` highest positive ``scores``, highest first,
    equal scores in document order (``columns`` ascending)."""
    positive = np.flatnonzero(scores > 0)
    order = np.lexsort((columns[positive], -scores[positive]))
    return positive[order[:count]]


def _pair_scores(model, rows, columns):
    """Each pair's score, text similarity and tags shared, exactly as the
    whole-row computation gives them: the text similarity summed term by term
    in the terms' order, in single precision, as a sparse product does."""
    text = _pair_products(model.text, rows, columns)
    if not len(rows):
        return np.zeros(0), text, np.zeros(0, dtype=np.float32)
    direct = np.asarray(
        model.cites[rows, columns] + model.cites[columns, rows], dtype=np.float32
    ).ravel()
    shared_cited = _pair_products(model.cites, rows, columns)
    shared_tags = _pair_products(model.tags, rows, columns)
    same_topic = (model.topics[rows] == model.topics[columns]) & (
        model.topics[rows] >= 0
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
    scores[rows == columns] = 0
    return scores, text, shared_tags


def _pair_products(matrix, rows, columns):
    """The dot product of each pair of ``matrix``'s rows, accumulated in the
    matrix's precision in the order of its (sorted) columns."""
    found = np.zeros(len(rows), dtype=matrix.dtype)
    for start in range(0, len(rows), PAIR_BLOCK):
        products = matrix[rows[start : start + PAIR_BLOCK]].multiply(
            matrix[columns[start : start + PAIR_BLOCK]]
        )
        products = products.tocsr()
        products.sort_indices()
        lengths = np.diff(products.indptr)
        part = np.zeros(len(lengths), dtype=matrix.dtype)
        for place in range(int(lengths.max(initial=0))):
            has = np.flatnonzero(lengths > place)
            part[has] += products.data[products.indptr[has] + place]
        found[start : start + PAIR_BLOCK] = part
    return found


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
    terms = model.words
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

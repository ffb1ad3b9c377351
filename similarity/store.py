"""The related-work model kept between jobs, so that one change's
recomputation reads only what changed.

A whole-record recomputation stores its model (``save``) in one file under
``RELATED_MODEL_DIR``: every public document's pk, identifier, topic, tags
and the public documents it names, each one's count of every word found in
the record then, and a mark of what it reflects (the database, and the
latest ``updated_at`` of its documents, read before the record was). A
change's recomputation (``updated``) loads it, reads again only the
documents named by the job and those saved since the mark (at its time too),
drops those no longer public, adds those now public (and their names in the
documents naming them), and weighs the words again over the whole record
(``compute.assemble``), then stores the result for the next change.

The words are those of the last whole recomputation: a word no public
document held then counts for nothing (not in similarity, not in the record's
word weights) until the next one. Every other word is weighed over the
record as it is now, so the model is the one a whole recomputation would
build whenever the documents changed since hold no new word.

The file is written by this module only, to a name of its own and renamed
into place (a reader sees the old file or the new, whole); it is read with
``numpy.load(allow_pickle=False)``, arrays of numbers and strings only. A file
missing, unreadable, of another ``SCHEMA`` or of another database, or one
that no longer counts the record's public documents, is not used, nor is one
when more than ``MOST_CHANGED`` of its documents are to be read again: the
job builds the model from the whole record and stores it.
"""

import logging
import os
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np
from django.conf import settings
from django.db import connection
from django.db.models import Max
from scipy import sparse

from catalogue.models import RELATED_STATUSES, Document
from similarity import compute
from similarity.corpus import changed_entries, citing

logger = logging.getLogger(__name__)

# What the file holds and how; another number is another format, not read.
SCHEMA = 1
NAME = "related-model.npz"
# A change of more than this share of the stored documents reads the whole
# record again (and weighs its new words) rather than changing the model.
MOST_CHANGED = 0.1


def path():
    return Path(settings.RELATED_MODEL_DIR) / NAME


def _database():
    return f"{connection.vendor}:{connection.settings_dict['NAME']}"


def mark():
    """What a model read from now on reflects at least: every document saved
    up to the latest ``updated_at`` (None: no documents)."""
    latest = Document.objects.aggregate(latest=Max("updated_at"))["latest"]
    return None if latest is None else latest.isoformat()


def save(model, since):
    """Store ``model``, read after the mark ``since``, replacing the last."""
    entries = model.entries
    directory = path().parent
    directory.mkdir(parents=True, exist_ok=True)
    tag_values = np.asarray(entries.tag_values)
    arrays = {
        "schema": np.array([SCHEMA]),
        "database": np.array([_database()]),
        "mark": np.array(["" if since is None else since]),
        "pks": entries.pks,
        "identifiers": np.array(entries.identifiers, dtype=str),
        "topics": entries.topics,
        # Tags are stored by their pks, and in a record of no tags as numbers.
        "tag_values": tag_values.astype(np.int64) if tag_values.size else tag_values,
        **_matrix("tags", entries.tags),
        **_matrix("cites", entries.cites),
        **_matrix("counts", model.counts),
        "counted": np.asarray(model.counted, dtype=str),
    }
    handle, written = tempfile.mkstemp(dir=directory, prefix=".related-", suffix=".npz")
    try:
        with os.fdopen(handle, "wb") as file:
            np.savez(file, **arrays)
        os.replace(written, path())
    except BaseException:
        Path(written).unlink(missing_ok=True)
        raise


def _matrix(name, matrix):
    return {
        f"{name}_data": matrix.data,
        f"{name}_indices": matrix.indices,
        f"{name}_indptr": matrix.indptr,
        f"{name}_shape": np.array(matrix.shape, dtype=np.int64),
    }


def _read_matrix(found, name):
    return sparse.csr_matrix(
        (found[f"{name}_data"], found[f"{name}_indices"], found[f"{name}_indptr"]),
        shape=tuple(int(n) for n in found[f"{name}_shape"]),
    )


@dataclass
class Stored:
    """What ``save`` stored: the documents' arrays as ``compute.Entries``
    holds them, their counts of the words ``counted``, and the mark."""

    entries: compute.Entries
    counts: sparse.csr_matrix
    counted: np.ndarray
    since: str | None


def load():
    """What ``save`` stored for this database (``Stored``), or None when there
    is no such file to use."""
    try:
        with np.load(path(), allow_pickle=False) as found:
            if int(found["schema"][0]) != SCHEMA:
                return None
            if str(found["database"][0]) != _database():
                return None
            pks = found["pks"]
            entries = compute.Entries(
                pks,
                found["identifiers"].tolist(),
                found["topics"],
                _read_matrix(found, "tags"),
                found["tag_values"],
                _read_matrix(found, "cites"),
            )
            stored = Stored(
                entries,
                _read_matrix(found, "counts"),
                found["counted"],
                str(found["mark"][0]) or None,
            )
    except FileNotFoundError:
        return None
    except Exception:  # any file we cannot read is one we do not use
        logger.warning("Related-work model at %s not read", path(), exc_info=True)
        return None
    count = len(pks)
    if (
        stored.counts.shape != (count, len(stored.counted))
        or entries.cites.shape != (count, count)
        or entries.tags.shape != (count, len(entries.tag_values))
        or len(entries.identifiers) != count
        or len(entries.topics) != count
    ):
        return None
    return stored


def updated(pks):
    """The model of the record as it is now, from the stored one and the
    documents ``pks`` (and any saved since its mark) read again, stored for
    the next change; None when there is no stored model to use."""
    stored = load()
    if stored is None:
        return None
    old = stored.entries
    now = mark()
    changed = set(pks)
    if stored.since is not None:
        changed |= set(
            Document.objects.filter(
                updated_at__gte=datetime.fromisoformat(stored.since)
            ).values_list("pk", flat=True)
        )
    if len(changed) > max(len(old), 1) * MOST_CHANGED:
        return None  # reading most of the record again: read all of it
    kept = np.flatnonzero(~np.isin(old.pks, np.array(sorted(changed), dtype=np.int64)))
    known = dict(
        zip([old.identifiers[row] for row in kept], old.pks[kept].tolist(), strict=True)
    )
    fresh = changed_entries(changed, known)
    public = len(kept) + len(fresh)
    if public != Document.objects.filter(status__in=RELATED_STATUSES).count():
        return None  # documents changed that nobody said: read the record again
    # Rows are in pk order, the kept ones first, then the fresh: ``source``.
    source_pks = np.concatenate(
        [old.pks[kept], np.array([entry.pk for entry in fresh], dtype=np.int64)]
    )
    order = np.argsort(source_pks, kind="stable")
    pks = source_pks[order]
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    new_row = np.full(len(old), -1, dtype=np.int64)
    new_row[kept] = position[: len(kept)]
    fresh_rows = position[len(kept) :]

    rows_of = _rows_in(pks)
    # A document read again is still named by the documents kept.
    named_row = new_row.copy()
    again = _rows_in(old.pks)([entry.pk for entry in fresh])
    named_row[again[again >= 0]] = fresh_rows[again >= 0]
    cites = _cites(old, fresh, (new_row, named_row), fresh_rows, rows_of)
    tags = _tags(old, fresh, new_row, fresh_rows)
    counted = stored.counted
    if len(counted):
        fresh_counts = compute.counter(counted.tolist()).transform(
            entry.text for entry in fresh
        )
    else:
        fresh_counts = sparse.csr_matrix((len(fresh), 0), dtype=np.float32)
    counts = sparse.vstack(
        [stored.counts[kept], fresh_counts.astype(np.float32)], format="csr"
    )
    topics = np.concatenate(
        [
            old.topics[kept],
            np.array(
                [-1 if entry.topic is None else entry.topic for entry in fresh],
                dtype=np.int64,
            ),
        ]
    )
    identifiers = [old.identifiers[row] for row in kept] + [
        entry.identifier for entry in fresh
    ]
    model = compute.assemble(
        pks=pks,
        identifiers=[identifiers[n] for n in order],
        topics=topics[order],
        tags=tags,
        cites=cites,
        counts=counts[order],
        counted=counted,
    )
    save(model, now)
    return model


def _rows_in(pks):
    """What finds the rows of pks among ``pks`` (sorted): -1 when absent."""

    def rows_of(found_pks):
        found_pks = np.asarray(found_pks, dtype=np.int64)
        if not len(pks):
            return np.full(len(found_pks), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(pks, found_pks), len(pks) - 1)
        return np.where(pks[at] == found_pks, at, -1)

    return rows_of


def _cites(old, fresh, new_rows, fresh_rows, rows_of):
    """(rows, rows they name) of the model changed: the stored references of
    documents kept (``new_rows``: the new row of each kept, and of each still
    public), the fresh documents' own, and those of documents kept naming a
    document now public."""
    new_row, named_row = new_rows
    cites = old.cites.tocoo()
    cite_rows, cite_columns = [new_row[cites.row]], [named_row[cites.col]]
    for n, entry in enumerate(fresh):
        named = rows_of(sorted(entry.cites))
        cite_rows.append(np.full(len(named), fresh_rows[n]))
        cite_columns.append(named)
    was_public = set(old.pks.tolist())
    arrived = {
        entry.identifier: entry.pk for entry in fresh if entry.pk not in was_public
    }
    for pk, names in (citing(arrived) if arrived else {}).items():
        named = rows_of(sorted(arrived[name] for name in names))
        cite_rows.append(np.full(len(named), rows_of([pk])[0]))
        cite_columns.append(named)
    cite_rows, cite_columns = np.concatenate(cite_rows), np.concatenate(cite_columns)
    linked = (cite_rows >= 0) & (cite_columns >= 0)
    return cite_rows[linked], cite_columns[linked]


def _tags(old, fresh, new_row, fresh_rows):
    """(rows, tags) of the model changed: the stored tags of documents kept,
    and the fresh documents' own."""
    tags = old.tags.tocoo()
    tag_values = np.asarray(old.tag_values)
    tag_rows = [new_row[tags.row]]
    tag_named = [tag_values[tags.col].tolist()]
    for n, entry in enumerate(fresh):
        tag_rows.append(np.full(len(entry.tags), fresh_rows[n]))
        tag_named.append(sorted(entry.tags))
    tag_rows = np.concatenate(tag_rows)
    tag_named = np.array([tag for each in tag_named for tag in each], dtype=object)
    tagged = tag_rows >= 0
    return tag_rows[tagged], tag_named[tagged]


def rebuilt(entries, since):
    """The model of ``entries`` (the whole record, read after the mark
    ``since``), stored."""
    model = compute.build(entries)
    save(model, since)
    return model

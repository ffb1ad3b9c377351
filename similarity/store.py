"""The related-work model kept between jobs, so that one change's
recomputation reads only what changed.

A whole-record recomputation stores its model (``save``) in one file under
``RELATED_MODEL_DIR``: every public document's pk, identifier, topic, tags
and the public documents it names, each one's count of every word found in
the record then, and a mark of what it reflects (the database, and the
latest ``updated_at`` of its documents, read before the record was). A
change's recomputation (``updated``) loads it, reads again only the
documents named by the job and those saved since the mark, drops those no
longer public, adds those now public (and their names in the documents
naming them), and weighs the words again over the whole record
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
that no longer counts the record's public documents, is not used: the job
builds the model from the whole record and stores it.
"""

import logging
import os
import tempfile
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
    tags = [sorted(entry.tags) for entry in entries]
    cites = [sorted(entry.cites) for entry in entries]
    arrays = {
        "schema": np.array([SCHEMA]),
        "database": np.array([_database()]),
        "mark": np.array(["" if since is None else since]),
        "pks": np.array([entry.pk for entry in entries], dtype=np.int64),
        "identifiers": np.array([entry.identifier for entry in entries], dtype=str),
        "topics": model.topics,
        "tags_indptr": np.cumsum([0] + [len(each) for each in tags], dtype=np.int64),
        "tags": np.array([tag for each in tags for tag in each], dtype=np.int64),
        "cites_indptr": np.cumsum([0] + [len(each) for each in cites], dtype=np.int64),
        "cites": np.array([pk for each in cites for pk in each], dtype=np.int64),
        "counted": np.asarray(model.counted, dtype=str),
        "counts_data": model.counts.data,
        "counts_indices": model.counts.indices,
        "counts_indptr": model.counts.indptr,
        "counts_shape": np.array(model.counts.shape, dtype=np.int64),
    }
    handle, written = tempfile.mkstemp(dir=directory, prefix=".related-", suffix=".npz")
    try:
        with os.fdopen(handle, "wb") as file:
            np.savez(file, **arrays)
        os.replace(written, path())
    except BaseException:
        Path(written).unlink(missing_ok=True)
        raise


def load():
    """(entries, counts, counted, mark) as ``save`` stored them for this
    database, or None when there is no such file to use. Entries carry no
    text: it is counted already."""
    try:
        with np.load(path(), allow_pickle=False) as found:
            if int(found["schema"][0]) != SCHEMA:
                return None
            if str(found["database"][0]) != _database():
                return None
            pks = found["pks"].tolist()
            identifiers = found["identifiers"].tolist()
            topics = found["topics"].tolist()
            tags_at, tags = found["tags_indptr"].tolist(), found["tags"].tolist()
            cites_at, cites = found["cites_indptr"].tolist(), found["cites"].tolist()
            counted = found["counted"]
            shape = tuple(int(n) for n in found["counts_shape"])
            counts = sparse.csr_matrix(
                (found["counts_data"], found["counts_indices"], found["counts_indptr"]),
                shape=shape,
            )
            since = str(found["mark"][0]) or None
    except FileNotFoundError:
        return None
    except Exception:  # any file we cannot read is one we do not use
        logger.warning("Related-work model at %s not read", path(), exc_info=True)
        return None
    if shape != (len(pks), len(counted)):
        return None
    entries = [
        compute.Entry(
            pk=pk,
            identifier=identifiers[row],
            topic=None if topics[row] < 0 else topics[row],
            text="",
            tags=frozenset(tags[tags_at[row] : tags_at[row + 1]]),
            cites=frozenset(cites[cites_at[row] : cites_at[row + 1]]),
        )
        for row, pk in enumerate(pks)
    ]
    return entries, counts, counted, since


def updated(pks):
    """The model of the record as it is now, from the stored one and the
    documents ``pks`` (and any saved since its mark) read again, stored for
    the next change; None when there is no stored model to use."""
    loaded = load()
    if loaded is None:
        return None
    entries, counts, counted, since = loaded
    now = mark()
    changed = set(pks)
    if since is not None:
        changed |= set(
            Document.objects.filter(
                updated_at__gt=datetime.fromisoformat(since)
            ).values_list("pk", flat=True)
        )
    if len(changed) > max(len(entries), 1) * MOST_CHANGED:
        return None  # reading most of the record again: read all of it
    kept = [row for row, entry in enumerate(entries) if entry.pk not in changed]
    known = {entries[row].identifier: entries[row].pk for row in kept}
    fresh = changed_entries(changed, known)
    stored = {entry.pk for entry in entries}
    public = {entries[row].pk for row in kept} | {entry.pk for entry in fresh}
    if len(public) != Document.objects.filter(status__in=RELATED_STATUSES).count():
        return None  # documents changed that nobody said: read the record again
    # Documents now public are named by documents kept as they were.
    arrived = {entry.identifier: entry.pk for entry in fresh if entry.pk not in stored}
    naming = citing(arrived) if arrived else {}
    left = stored - public
    order = {}
    for row in kept:
        entry = entries[row]
        cites = entry.cites
        if left and cites & left:
            cites = cites - left
        if entry.pk in naming:
            cites = cites | {arrived[name] for name in naming[entry.pk]} - {entry.pk}
        if cites is not entry.cites:
            entry = compute.Entry(
                entry.pk, entry.identifier, entry.topic, "", entry.tags, cites
            )
        order[entry.pk] = (entry, row)
    fresh_counts = (
        compute.counter(list(counted)).transform(entry.text for entry in fresh)
        if len(counted)
        else sparse.csr_matrix((len(fresh), 0), dtype=np.float32)
    )
    for n, entry in enumerate(fresh):
        order[entry.pk] = (entry, len(entries) + n)
    chosen = [order[pk] for pk in sorted(order)]
    rows = np.array([row for _, row in chosen], dtype=np.int64)
    every = sparse.vstack([counts, fresh_counts.astype(np.float32)], format="csr")
    model = compute.assemble([entry for entry, _ in chosen], every[rows], counted)
    save(model, now)
    return model


def rebuilt(entries, since):
    """The model of ``entries`` (the whole record, read after the mark
    ``since``), stored."""
    model = compute.build(entries)
    save(model, since)
    return model

"""Related work and candidate topics, recomputed as background jobs
(``jobs.runner``), named by ``similarity.queueing``, which queues them.

A whole-record job reads the whole public record (``corpus``), computes
(``compute``), keeps the model for the next change (``store``) and stores
what it found through ``actions.related``, which expires the pages whose
related work changed; a change's job reads only what changed into the model
kept (``store.updated``), or the whole record when none can be used.

This module brings NumPy, SciPy and scikit-learn with ``compute``: a job's
process imports it by the job's name, a worker on the related-work queue as
it starts (``JOBS_WORKER_IMPORTS``); nothing else of the site imports it.
"""

from actions.related import store_candidates, store_related
from catalogue.models import RelatedDocument
from jobs import runner
from similarity import compute, store
from similarity.corpus import public_entries
from similarity.queueing import (
    RELATED_COALESCE,
    RELATED_JOB,
    merge_related,
    related_title,
)

# A RECORD_CHANGED setting written before the hook moved to
# similarity.queueing names it here.
from similarity.queueing import documents_changed as documents_changed


def recompute_related_here(pks):
    """Recompute the related work of the documents ``pks`` (None: of every
    document) in this process, now, as the coalesced job: with whatever
    changes were left waiting for it (by a command, or by a web process that
    ended). Returns the job, finished or failed (or running elsewhere, if a
    worker took it meanwhile)."""
    job = runner.request(
        coalesce=RELATED_COALESCE,
        function=RELATED_JOB,
        arguments={"documents": pks},
        merge=merge_related,
        title=related_title,
        here=True,
    )
    runner.run(str(job.pk))
    job.refresh_from_db()
    return job


def affected(model, pks):
    """The documents whose related work a change to ``pks`` may change: them,
    those whose list holds one of them, and those they name or are named by."""
    pks = set(pks)
    found = set(pks)
    found |= set(
        RelatedDocument.objects.filter(related_id__in=pks).values_list(
            "document_id", flat=True
        )
    )
    for pk in pks:
        row = model.row_of.get(pk)
        if row is not None:
            found |= {model.entries[j].pk for j in model.cites[row].indices}
            found |= {model.entries[j].pk for j in model.cites[:, row].nonzero()[0]}
    return found


def recompute_related(*, documents=None):
    """Recompute and store the related work of ``documents`` (pks) and of the
    documents ``affected`` by them; of every document when None."""
    model = None if documents is None else store.updated(documents)
    if model is None:
        since = store.mark()
        model = store.rebuilt(public_entries(), since)
    targets = None if documents is None else affected(model, documents)
    found = compute.related(model, targets)
    if targets is not None:
        # A document that became public (or changed its text) enters the
        # lists of the documents its own list names: theirs are computed too.
        neighbours = {r.pk for related in found.values() for r in related} - targets
        found.update(compute.related(model, neighbours))
        targets |= neighbours
    lists = {
        pk: [(r.pk, r.score, r.reasons) for r in related]
        for pk, related in found.items()
    }
    if targets is None:
        # Documents no longer public keep no list.
        stale = RelatedDocument.objects.exclude(document_id__in=list(lists))
        lists.update({key: [] for key in stale.values_list("document_id", flat=True)})
    else:
        lists.update({pk: [] for pk in targets if pk not in lists})
    changed = store_related(lists=lists, via="recompute_related")
    return (
        f"Related work of {len(found)} documents computed; {changed} lists changed.",
        None,
    )


def recompute_candidates():
    """Recompute the candidate topics, reporting progress in three steps."""
    entries = public_entries()
    runner.progress(0, 3)
    model = compute.build(entries)
    groups = compute.candidates(model, progress=runner.progress)
    made = store_candidates(groups=groups, via="recompute_candidates")
    members = sum(len(group.members) for group in groups)
    return (
        f"{len(made)} candidate topics of {members} documents "
        f"({len(groups) - len(made)} already decided).",
        None,
    )

"""Related work and candidate topics as the rest of the site asks for them:
the jobs' names, the hook that queues a recomputation once documents change
(``RECORD_CHANGED``), and the open candidates the admin lists.

It imports none of what the jobs compute with (NumPy, SciPy, scikit-learn):
those come with ``similarity.jobs``, which a job's process imports by the
job's name, and a worker on the related-work queue as it starts
(``JOBS_WORKER_IMPORTS``). A web process or a command starts without them.
"""

import logging

from django.conf import settings

from catalogue.models import CandidateTopic
from jobs import runner

logger = logging.getLogger(__name__)

RELATED_JOB = "similarity.jobs.recompute_related"
CANDIDATES_JOB = "similarity.jobs.recompute_candidates"
# One candidate recomputation at a time: each replaces the open candidates.
CANDIDATES_LOCK = "candidate-topics"
# Related work is recomputed by coalesced jobs (``runner.request``): one runs,
# one waits, holding every document changed since the running one began.
RELATED_COALESCE = "related-work"


def related_title(arguments):
    documents = arguments["documents"]
    if documents is None:
        return "Related work of every document"
    return f"Related work of {len(documents)} changed document(s)"


def merge_related(waiting, asked):
    """One recomputation for both: of every document if either is, else of
    the documents of both."""
    if waiting["documents"] is None or asked["documents"] is None:
        return {"documents": None}
    return {"documents": sorted({*waiting["documents"], *asked["documents"]})}


def documents_changed(pks):
    """What ``actions.pages`` tells once a change commits: recompute the
    related work of the documents ``pks`` (None: of every document) in the
    background, on the related-work queue, added to the recomputation
    already waiting if there is one; a queue that cannot take the job is
    logged, and the next change or ``recompute_related`` makes up for it."""
    try:
        runner.request(
            coalesce=RELATED_COALESCE,
            function=RELATED_JOB,
            arguments={"documents": pks},
            merge=merge_related,
            title=related_title,
            queue_name=settings.JOBS_RELATED_QUEUE,
        )
    except runner.QueueUnavailable as error:
        logger.warning("Related work not recomputed: %s", error)


def open_candidates():
    """The open candidates with their members and nearest topic, for the admin
    page: three queries."""
    return (
        CandidateTopic.objects.open()
        .select_related("nearest_topic")
        .prefetch_related("members__document__registry", "members__document__topic")
        .order_by("pk")
    )

"""The checks of the sources: ``check_sources``.

Each public document's identifiers are looked at where they come from:
arXiv's newest version and a withdrawal comment (``arxiv``), Crossref's
notices of retraction and correction (``crossref``), whether the DOI still
resolves (``doi``), and the links of summaries and of published decision
records (``links``). What a check finds is proposed as a correction
(``actions.corrections.propose``), never edited into the record; a finding
names the state of the source (``arxiv:2403.00026:v3``), so one already
proposed, or declined, is not proposed again until the source changes.

The record is read in chunks by key (``in_chunks``), each chunk's findings
already proposed in one query, so memory and the number of queries follow
the chunk, not the record. One service failing (a malformed answer, a
batch refused) is reported and the rest goes on; a service that limits us
or is down (429, 5xx, no answer) is not asked again in the same run, and
the other checks go on.
"""

from sources.checks import arxiv, crossref, doi, links
from sources.checks.base import (
    SERVICES,
    Report,
    Run,
    public_decisions,
    public_documents,
)
from sources.checks.pacing import Clock

__all__ = ["SERVICES", "check_sources"]


def check_sources(*, only=None, limit=None, clock=None, progress=None):
    """Run the checks ``only`` names (every one by default) over the public
    documents (the first ``limit``) and the published decision records;
    returns the Report. ``progress(done, total)`` hears of each step."""
    services = [service for service in SERVICES if not only or service in only]
    documents = public_documents(limit)
    decisions = public_decisions(limit)
    run = Run(documents, decisions, clock or Clock(), Report())
    run.report.documents = documents.count()
    if "links" in services:
        run.report.decisions = decisions.count()
    checks = {
        "arxiv": arxiv.check,
        "crossref": crossref.check,
        "doi": doi.check,
        "links": links.check,
    }
    for done, service in enumerate(services):
        if progress:
            progress(done, len(services))
        checks[service](run)
    if progress:
        progress(len(services), len(services))
    return run.report

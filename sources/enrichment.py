"""Enrich the record from what arXiv and Crossref know: ``enrich_metadata``.

For each document citing an arXiv id or a DOI, the lookup's author list,
venue, type, date and DOI are compared with the document's; what differs
(and what the source knows) is proposed, never written over public text: a
public document gets it as its pending revision, for a publisher to publish
or discard, as the workflow holds an editor's edit; an unpublished one is
edited in place, as an editor's edit would be. A document that already has a
pending revision is left as its editor left it. All lookups come first, then
every write in one transaction.
"""

from dataclasses import dataclass, field

from django.db import transaction

import actions.documents
from actions.steps import audited
from catalogue.models import Document
from sources.metadata import LookupFailed, look_up

VIA = "enrich_metadata"
# Failures that say the service, not the document, is the trouble: the rest of
# that service's documents are not asked about in the same run.
SERVICE_DOWN = {"unreachable", "timeout", "rate_limited"}


@dataclass
class Proposal:
    """What one document would take from its source."""

    document: Document
    changes: dict
    source: str

    @property
    def names(self):
        return ", ".join(
            str(Document._meta.get_field(name).verbose_name) for name in self.changes
        )


@dataclass
class EnrichmentReport:
    proposed: list = field(default_factory=list)
    updated: list = field(default_factory=list)
    unchanged: list = field(default_factory=list)
    kept: list = field(default_factory=list)
    unmatched: list = field(default_factory=list)

    def lines(self, *, dry_run=False):
        would = "would be " if dry_run else ""
        for proposal in self.proposed:
            yield (
                f"{proposal.document.identifier}: {proposal.names} {would}proposed "
                "as a pending revision"
            )
        for proposal in self.updated:
            yield (
                f"{proposal.document.identifier}: {proposal.names} {would}filled in "
                "(not yet published, so edited in place)"
            )
        for proposal in self.kept:
            yield (
                f"{proposal.document.identifier}: has a pending revision, left as "
                f"its editor left it; not proposed: {proposal.names}"
            )
        for document, message in self.unmatched:
            yield f"{document.identifier}: could not be matched: {message}"
        yield (
            f"{len(self.proposed)} {would}proposed, {len(self.updated)} {would}"
            f"filled in, {len(self.unchanged)} already up to date, "
            f"{len(self.kept)} kept for a pending revision, "
            f"{len(self.unmatched)} not matched."
        )


def documents_to_enrich(registry=None):
    """Documents whose source identifier is an arXiv id or a DOI."""
    documents = Document.objects.exclude(source_key="").in_number_order()
    if registry:
        documents = documents.filter(registry__prefix__iexact=registry)
    return documents


def service_of(document):
    return "arXiv" if document.arxiv_id else "Crossref"


def differences(document, work):
    """The fields ``work`` knows and ``document`` does not say the same of."""
    return {
        name: value
        for name, value in work.bibliography().items()
        if value and getattr(document, name) != value
    }


def enrich(*, documents, user=None, dry_run=False):
    """Look up every document of ``documents``; propose what differs.
    Returns an EnrichmentReport; with ``dry_run`` nothing is written."""
    report = EnrichmentReport()
    proposals = []
    down = {}
    for document in documents:
        service = service_of(document)
        if service in down:
            report.unmatched.append((document, f"not asked: {down[service]}"))
            continue
        try:
            work = look_up(document.source_identifier)
        except LookupFailed as error:
            report.unmatched.append((document, error.message))
            if error.code in SERVICE_DOWN:
                down[service] = error.message
            continue
        changes = differences(document, work)
        if not changes:
            report.unchanged.append(document)
            continue
        proposals.append(Proposal(document, changes, work.source_identifier))
    with transaction.atomic(), audited(user, VIA):
        for proposal in proposals:
            _propose(proposal, user, report, dry_run)
        if dry_run:
            transaction.set_rollback(True)
    return report


def _propose(proposal, user, report, dry_run):
    """Edit the document as an editor would (``edit_document``): in place
    while unpublished, as a pending revision once public; one that already
    has a pending revision is left to its editor."""
    document = Document.objects.select_for_update().get(pk=proposal.document.pk)
    if document.is_public and document.pending_revision() is not None:
        report.kept.append(proposal)
        return
    (report.proposed if document.is_public else report.updated).append(proposal)
    actions.documents.edit_document(
        document=document,
        user=user,
        changes=proposal.changes,
        note=f"Metadata from {proposal.source}, proposed by {VIA}.",
        via=VIA,
    )

"""What the checks of the sources share: the report, a run, the record read
in chunks, a finding proposed once."""

import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db.models import Q

import actions.corrections
from catalogue.models import Correction, DecisionRecord, Document
from catalogue.text import cleaned
from sources.checks.pacing import Clock

VIA = "check_sources"
SERVICES = ["arxiv", "crossref", "doi", "links"]
NAMES = {"arxiv": "arXiv", "crossref": "Crossref", "doi": "doi.org", "links": "links"}
ORIGINS = {
    "arxiv": Correction.Origin.ARXIV,
    "crossref": Correction.Origin.CROSSREF,
    "doi": Correction.Origin.DOI,
    "links": Correction.Origin.LINKS,
}
# Failures that say the service, not the document, is the trouble.
SERVICE_DOWN = {"unreachable", "timeout", "rate_limited"}
# Lines of findings and failures a report keeps; past them it counts.
MAX_LINES = 50
FINDING_MAX = Correction._meta.get_field("finding").max_length
CHUNK = 500


@dataclass
class Report:
    """What a run did, by service: kept as counts, and the first
    ``MAX_LINES`` lines of what it found and what failed."""

    documents: int = 0
    decisions: int = 0
    requests: Counter = field(default_factory=Counter)
    proposed: Counter = field(default_factory=Counter)
    already: Counter = field(default_factory=Counter)
    failures: Counter = field(default_factory=Counter)
    stopped: dict = field(default_factory=dict)
    refused: int = 0
    kept: list = field(default_factory=list)
    left: int = 0

    def note(self, line):
        if len(self.kept) < MAX_LINES:
            self.kept.append(line)
        else:
            self.left += 1

    def failed(self, service, message):
        self.failures[service] += 1
        self.note(f"{NAMES[service]}: {message}")

    def stop(self, service, message):
        """``service`` is not asked again in this run."""
        self.failed(service, f"{message} Not asked again in this run.")
        self.stopped[service] = message

    def summary(self):
        proposed = sum(self.proposed.values())
        already = sum(self.already.values())
        failures = sum(self.failures.values())
        return (
            f"{self.documents:,} documents and {self.decisions:,} decision records "
            f"checked: {proposed:,} findings proposed, {already:,} already "
            f"proposed, {failures:,} failures."
        )

    def lines(self, services=SERVICES):
        yield from self.kept
        if self.left:
            yield f"… and {self.left:,} more lines."
        for service in services:
            yield (
                f"{NAMES[service]}: {self.requests[service]:,} requests, "
                f"{self.proposed[service]:,} proposed, {self.already[service]:,} "
                f"already proposed, {self.failures[service]:,} failures"
                + (" (stopped)" if service in self.stopped else "")
                + "."
            )
        if self.refused:
            yield (
                f"links: {self.refused:,} not asked: their host is at a private, "
                "loopback or link-local address (SOURCES_LINKS_PRIVATE is off)."
            )
        yield self.summary()


@dataclass
class Run:
    """One run of the checks: what it reads, its clock and its report."""

    documents: object
    decisions: object
    clock: Clock
    report: Report
    started_at: object = None

    def __post_init__(self):
        self.started_at = self.clock.wall()


def public_documents(limit=None):
    """The public documents a run checks (the first ``limit`` by key), with
    only the fields the checks read."""
    documents = Document.objects.public().select_related("registry")
    if limit:
        last = (
            documents.order_by("pk").values_list("pk", flat=True)[limit - 1 : limit]
        ).first()
        if last is not None:
            documents = documents.filter(pk__lte=last)
    return documents.only(
        "pk", "number", "status", "version", "source_identifier", "doi", "registry"
    )


def public_decisions(limit=None):
    decisions = DecisionRecord.objects.public()
    if limit:
        last = (
            decisions.order_by("pk").values_list("pk", flat=True)[limit - 1 : limit]
        ).first()
        if last is not None:
            decisions = decisions.filter(pk__lte=last)
    return decisions.only("pk", "number", "twin", "published_at", "log")


def with_doi(documents):
    """Documents whose work has a DOI (``Document.work_doi``)."""
    return documents.filter(Q(doi__gt="") | Q(source_key__startswith="doi:"))


def in_chunks(queryset, size=CHUNK):
    """``queryset`` a chunk of ``size`` rows at a time, by key: one query a
    chunk, however large the record."""
    last = 0
    while True:
        chunk = list(queryset.filter(pk__gt=last).order_by("pk")[:size])
        if not chunk:
            return
        yield chunk
        last = chunk[-1].pk


def known_findings(targets, prefix):
    """The findings starting with ``prefix`` already proposed for each of
    ``targets`` (documents, or decision records): {pk: {finding}}, one query."""
    whose = "document" if isinstance(targets[0], Document) else "decision"
    rows = Correction.objects.filter(
        **{f"{whose}__in": targets}, finding__startswith=prefix
    ).values_list(f"{whose}_id", "finding")
    found = {}
    for pk, finding in rows:
        found.setdefault(pk, set()).add(finding)
    return found


def finding_key(*parts):
    """A finding's key from its parts, within the field's length (a long
    address is named by its digest)."""
    key = ":".join(parts)
    if len(key) <= FINDING_MAX:
        return key
    digest = hashlib.sha256(key.encode()).hexdigest()
    return f"{parts[0]}:sha256:{digest}:{parts[-1]}"


def label(target):
    return str(target.identifier if isinstance(target, Document) else target.label)


def propose(run, service, target, *, finding, note, known, **proposal):
    """Propose ``finding`` on ``target`` unless it is among ``known`` (or
    proposed meanwhile): counted as proposed, or already proposed."""
    report = run.report
    if finding in known:
        report.already[service] += 1
        return None
    # A note and changes read from a service's answer, which nobody typed:
    # a character no text of the record may hold is dropped, not refused.
    note, proposal = cleaned(note), cleaned(proposal)
    try:
        correction = actions.corrections.propose(
            target=target,
            note=note,
            origin=ORIGINS[service],
            finding=finding,
            via=VIA,
            **proposal,
        )
    except ValidationError as error:
        report.failed(
            service, f"{label(target)}: not proposed: {' '.join(error.messages)}"
        )
        return None
    if correction is None:
        report.already[service] += 1
    else:
        report.proposed[service] += 1
        report.note(f"{label(target)}: {first_line(note)}")
    return correction


def first_line(text):
    return re.split(r"\n", text.strip(), maxsplit=1)[0]

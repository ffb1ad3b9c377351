"""Cross-references: names of documents and decision records in text.

``LIT-325``, ``ADR-032`` and ``LIT-004 v2`` in a summary, a decision record or
the preface name other entries of the record. Finding names is pure;
``resolve`` looks up which of them a reader may open, in a fixed number of
queries for any number of texts, so a page of 1,000 summaries costs the same
as one; ``write_references`` stores the names a text makes as ``Reference``
rows, so "Referenced by" is one query.
"""

from functools import lru_cache
from typing import NamedTuple

from django.db import transaction
from django.db.models import FilteredRelation, Q

from catalogue.identifiers import NAME_IN_TEXT_RE, Identifier, identifier_path
from catalogue.models import (
    PUBLIC_STATUSES,
    DecisionRecord,
    DecisionRelation,
    DecisionStatus,
    Document,
    DocumentStatus,
    Reference,
    Registry,
)

RETIRED_STATUSES = {
    DocumentStatus.SUPERSEDED,
    DocumentStatus.WITHDRAWN,
    DecisionStatus.DEPRECATED,
    DecisionStatus.REJECTED,
}


class Name(NamedTuple):
    """A name as written: ``LIT-004 v2`` is prefix LIT, number 4, version 2."""

    prefix: str
    number: int
    version: int | None
    start: int
    end: int

    @property
    def key(self):
        return (self.prefix, self.number)


class Target(NamedTuple):
    """A public document or decision record a name can point at."""

    label: str
    url: str
    status: str = ""
    status_label: str = ""
    version: int = 1
    successor: "Target | None" = None

    @property
    def is_retired(self):
        return self.status in RETIRED_STATUSES


def find_names(text, prefixes=None):
    """Every name in ``text``, optionally only those with a known prefix."""
    names = names_in(text or "")
    if prefixes is not None:
        return [name for name in names if name.prefix in prefixes]
    return list(names)


@lru_cache(maxsize=4096)
def names_in(text):
    """The names in ``text``, remembered: a page resolves its texts' names,
    then links them."""
    return tuple(
        Name(
            prefix=match["prefix"],
            number=int(match["number"]),
            version=int(match["version"]) if match["version"] else None,
            start=match.start(),
            end=match.end(),
        )
        for match in NAME_IN_TEXT_RE.finditer(text)
    )


def write_references(*, documents=(), decisions=()):
    """Rewrite the references the texts of these documents and decisions make.

    A name counts when its prefix is a registry's or the decision records'
    (so ``ARXIV-1604`` is not one) and it is not the text's own.
    """
    with transaction.atomic():
        prefixes = {*Registry.objects.values_list("prefix", flat=True)}
        prefixes.add(DecisionRecord.PREFIX)
        Reference.objects.filter(document__in=[d.pk for d in documents]).delete()
        Reference.objects.filter(decision__in=[d.pk for d in decisions]).delete()
        sources = [("document", document) for document in documents]
        sources += [("decision", decision) for decision in decisions]
        rows = []
        for field, source in sources:
            named = {
                (name.prefix, name.number, name.version)
                for name in find_names(source.reference_text, prefixes)
                if name.key != source.identifier.key
            }
            rows.extend(
                Reference(
                    prefix=prefix, number=number, version=version, **{field: source}
                )
                for prefix, number, version in sorted(named, key=str)
            )
        Reference.objects.bulk_create(rows)


def broken_names(text):
    """The names in ``text`` that point at nothing public, each once, in order
    of first appearance: what editors must mend in a text that keeps no
    ``Reference`` rows, as the preface does not. At most three queries."""
    prefixes = {*Registry.objects.values_list("prefix", flat=True)}
    prefixes.add(DecisionRecord.PREFIX)
    targets = resolve([text])
    broken = {}
    for name in find_names(text, prefixes):
        if name.key not in targets:
            broken.setdefault(name.key, Identifier(*name.key))
    return list(broken.values())


def resolve(texts):
    """Targets for the names in ``texts`` that point at public documents and
    decision records, keyed by ``(prefix, number)``.

    At most two queries, however many texts and names.
    """
    keys = {name.key for text in texts for name in names_in(text or "")}
    numbers = {number for prefix, number in keys if prefix == DecisionRecord.PREFIX}
    documents = {key for key in keys if key[0] != DecisionRecord.PREFIX}
    targets = {}
    if numbers:
        targets.update(_decision_targets(numbers))
    if documents:
        targets.update(_document_targets(documents))
    return targets


def _decision_targets(numbers):
    # Rows, not models; one row per successor, the lowest-numbered public one
    # named in the link's note.
    supersession = FilteredRelation(
        "inverse_relations",
        condition=Q(inverse_relations__kind=DecisionRelation.Kind.SUPERSEDES),
    )
    rows = (
        DecisionRecord.objects.public()
        .filter(number__in=numbers)
        .annotate(supersession=supersession)
        .order_by("number", "supersession__source__number")
        .values_list(
            "number",
            "status",
            "supersession__source__number",
            "supersession__source__status",
            "supersession__source__published_at",
        )
    )
    targets = _Targets(DecisionRecord, "catalogue:decision-detail")
    statuses, successors = {}, {}
    for number, status, *successor in rows:
        statuses[number] = status
        if successor[2] is not None and number not in successors:
            successors[number] = targets.target(DecisionRecord.PREFIX, *successor[:2])
    for number, status in statuses.items():
        yield (
            (DecisionRecord.PREFIX, number),
            targets.target(
                DecisionRecord.PREFIX,
                number,
                status,
                successor=successors.get(number),
            ),
        )


def _document_targets(keys):
    # Rows, not models: a page of 1,000 summaries names about as many.
    rows = (
        Document.objects.public()
        .filter(
            registry__prefix__in={prefix for prefix, _ in keys},
            number__in={number for _, number in keys},
        )
        .values_list(
            "registry__prefix",
            "number",
            "status",
            "version",
            "superseded_by__registry__prefix",
            "superseded_by__number",
            "superseded_by__status",
            "superseded_by__version",
        )
    )
    targets = _Targets(Document, "catalogue:document-detail")
    for prefix, number, status, version, *successor in rows:
        if (prefix, number) not in keys:
            continue
        if successor[0] is not None and successor[2] in PUBLIC_STATUSES:
            successor = targets.target(*successor)
        else:
            successor = None
        yield (
            (prefix, number),
            targets.target(prefix, number, status, version, successor),
        )


class _Targets:
    """Targets of one model, with its URL reversed and labels translated once."""

    def __init__(self, model, view_name):
        self.path = identifier_path(view_name)
        self.labels = {value: str(label) for value, label in model.Status.choices}

    def target(self, prefix, number, status, version=1, successor=None):
        identifier = Identifier(prefix, number)
        return Target(
            label=identifier,
            url=self.path(identifier),
            status=status,
            status_label=self.labels[status],
            version=version,
            successor=successor,
        )

"""Cross-references: names of documents and decision records in text.

``LIT-325``, ``ADR-032`` and ``LIT-004 v2`` in a summary, a decision record or
the preface name other entries of the record. A decision record's name
resolves in the naming text's own decision log (the record's own for a
document or the preface; its log for a decision record), in the record's
own log for its prefix (ADR), or in another log its prefix names (the first
made of that prefix), so importing a team's folder never changes what the
record's own ADR-026 leads to. Finding names is pure;
``resolve`` looks up which of them a reader may open, in a fixed number of
queries for any number of texts, so a page of 1,000 summaries costs the same
as one; ``write_references`` stores the names a text makes as ``Reference``
rows, so "Referenced by" is one query.
"""

from functools import lru_cache
from typing import NamedTuple

from django.db import transaction
from django.db.models import F, FilteredRelation, Q

from catalogue.identifiers import (
    NAME_IN_TEXT_RE,
    Identifier,
    identifier_path,
    permanent_form,
)
from catalogue.lookups import AnyOf
from catalogue.models import (
    OWN_LOG,
    PUBLIC_STATUSES,
    DecisionLog,
    DecisionRecord,
    DecisionRelation,
    DecisionStatus,
    Document,
    DocumentStatus,
    Reference,
    Registry,
)

# The record's own log's prefix: a document's or the preface's ADR-026.
OWN_PREFIX = OWN_LOG["prefix"]
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

    A name counts when its prefix is a registry's or a decision log's (so
    ``ARXIV-1604`` is not one) and it is not the text's own; a decision
    record's name keeps the log it resolves in.
    """
    with transaction.atomic():
        rows = reference_rows(documents=documents, decisions=decisions)
        Reference.objects.filter(document__in=[d.pk for d in documents]).delete()
        Reference.objects.filter(decision__in=[d.pk for d in decisions]).delete()
        Reference.objects.bulk_create(rows)


def reference_rows(*, documents=(), decisions=()):
    """The references the texts of these documents and decisions make, as
    unsaved rows (``write_references`` writes them in place of the old)."""
    registries = {*Registry.objects.values_list("prefix", flat=True)}
    logs = list(DecisionLog.objects.order_by("-is_own", "pk"))
    sources = [("document", document, None) for document in documents]
    sources += [("decision", decision, decision.log) for decision in decisions]
    named = []
    for field, source, context in sources:
        in_logs = {OWN_PREFIX, *(log.prefix for log in logs)}
        if context is not None:
            in_logs.add(context.prefix)
        found = {
            (name.prefix, name.number, name.version)
            for name in find_names(source.reference_text, registries | in_logs)
            if name.key != source.identifier.key
        }
        named.append((field, source, context, sorted(found, key=str)))
    _with_own_log(logs, named, registries)
    rows = []
    for field, source, context, found in named:
        in_logs = _logs_by_prefix(logs, context)
        rows.extend(
            Reference(
                prefix=prefix,
                number=number,
                version=version,
                log=in_logs.get(prefix) if prefix not in registries else None,
                **{field: source},
            )
            for prefix, number, version in found
        )
    return rows


def _with_own_log(logs, named, registries):
    """Add the record's own log to ``logs`` when a text names one of its
    records before it exists: a document's ADR-026 is the own log's, made
    for it."""
    if any(log.is_own for log in logs) or OWN_PREFIX in registries:
        return
    if any(
        prefix == OWN_PREFIX
        for _, _, context, found in named
        if context is None or context.prefix != OWN_PREFIX
        for prefix, _, _ in found
    ):
        own, _ = DecisionLog.objects.get_or_create(is_own=True, defaults=OWN_LOG)
        logs.insert(0, own)


def _logs_by_prefix(logs, context):
    """``{prefix: log}``: the log each decision prefix names from a text of
    the log ``context`` (None: the record's own)."""
    found = {}
    for log in logs:
        found.setdefault(log.prefix, log)
    own = next((log for log in logs if log.is_own), None)
    if own is not None:
        found[own.prefix] = own
    if context is not None:
        found[context.prefix] = context
    return found


def broken_names(text):
    """The names in ``text`` that point at nothing public, each once, in order
    of first appearance: what editors must mend in a text that keeps no
    ``Reference`` rows, as the preface does not. At most four queries."""
    prefixes = {*Registry.objects.values_list("prefix", flat=True)}
    prefixes.update(DecisionLog.objects.values_list("prefix", flat=True))
    prefixes.add(OWN_PREFIX)
    targets = resolve([text])
    broken = {}
    for name in find_names(text, prefixes):
        if name.key not in targets:
            broken.setdefault(name.key, Identifier(*name.key))
    return list(broken.values())


def resolve(texts, log=None):
    """Targets for the names in ``texts`` that point at public documents and
    decision records, keyed by ``(prefix, number)``; decision records' names
    resolve in ``log`` (None: the record's own log) first.

    At most two queries, however many texts and names; a name neither of
    the text's log's prefix nor a public document's is looked for among the
    other logs in the second.
    """
    keys = {name.key for text in texts for name in names_in(text or "")}
    in_log = {OWN_PREFIX, log.prefix if log is not None else OWN_PREFIX}
    decisions = {key for key in keys if key[0] in in_log}
    documents = keys - decisions
    targets = {}
    if documents:
        targets.update(_document_targets(documents))
    decisions |= documents - set(targets)
    if decisions:
        targets.update(_decision_targets(decisions, log))
    return targets


def _decision_targets(keys, log):
    # Rows, not models; one row per successor, the lowest-numbered public one
    # named in the link's note. A number names the first of its files.
    supersession = FilteredRelation(
        "inverse_relations",
        condition=Q(inverse_relations__kind=DecisionRelation.Kind.SUPERSEDES),
    )
    rows = (
        DecisionRecord.objects.public()
        .filter(
            twin=1,
            number__in={number for _, number in keys},
            log__prefix__in={prefix for prefix, _ in keys},
        )
        .annotate(supersession=supersession)
        .order_by("log_id", "number", "supersession__source__number")
        .values_list(
            "log_id",
            "log__prefix",
            "log__is_own",
            "log__slug",
            "number",
            "status",
            "supersession__source__number",
            "supersession__source__status",
            "supersession__source__published_at",
        )
    )
    chosen = {}
    for log_id, prefix, is_own, slug, number, *rest in rows:
        rank = _rank(prefix, log_id, is_own, log)
        key = (prefix, number)
        if key in keys and rank < chosen.get(key, ((99,),))[0]:
            chosen[key] = (rank, log_id, slug if not is_own else None, [])
        if key in chosen and chosen[key][1] == log_id:
            chosen[key][3].append(rest)
    for key, (_, _, slug, found) in chosen.items():
        targets = _Targets(DecisionRecord, "catalogue:decision-detail", slug)
        status, successor = found[0][0], None
        if found[0][3] is not None:
            successor = targets.target(key[0], found[0][1], found[0][2])
        yield key, targets.target(*key, status, successor=successor)


def _rank(prefix, log_id, is_own, log):
    """Which log a name of ``prefix`` means first: the text's own, the
    record's own, then the first made of that prefix."""
    if log is not None and log_id == log.pk and prefix == log.prefix:
        return (0, 0)
    if is_own and (log is None or prefix != log.prefix):
        return (1, 0)
    if prefix in {OWN_PREFIX, log.prefix if log is not None else OWN_PREFIX}:
        return (99,)
    return (2, log_id)


def _document_targets(keys):
    # Rows, not models: a page of 1,000 summaries names about as many.
    rows = (
        Document.objects.public()
        .filter(
            AnyOf(F("number"), {number for _, number in keys}),
            registry__prefix__in={prefix for prefix, _ in keys},
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
    """Targets of one model, with its URL reversed and labels translated once;
    a decision log's (``log``: its slug) at its own addresses."""

    def __init__(self, model, view_name, log=None):
        self.path = identifier_path(view_name, log=log)
        self.labels = {value: str(label) for value, label in model.Status.choices}

    def target(self, prefix, number, status, version=1, successor=None):
        # A plain string rather than an Identifier: a page of 1,000 summaries
        # makes as many targets.
        label = permanent_form(prefix, number)
        return Target(
            label=label,
            url=self.path(label),
            status=status,
            status_label=self.labels[status],
            version=version,
            successor=successor,
        )

"""A team's folder of decision records, in and back out.

``import_decisions`` reads a folder (``formats.madr``) into a decision log of
the record, all or nothing: the record's own, or a team's named at import;
``export_decisions`` writes every log's published records back, each log in
the shape it was read in, with their images and a list of the logs, so that
importing that folder into an empty record gives the same logs and records.
"""

import datetime
import hashlib
import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db.models import Q
from django.utils import timezone
from django.utils.text import slugify

import actions.decisions
from actions.batch import bulk_change
from catalogue.models import (
    DecisionLog,
    DecisionRecord,
    DecisionRelation,
    content_digest,
)
from formats.folders import OutsideFolder, within
from formats.madr import (
    RELATION_KEYS,
    decision_name,
    format_decision,
    name_parts,
    parse_folder,
)
from formats.problems import ImportRefused, Problem
from imports import progress
from imports.topic_page import ImportReport

KIND = "Decision records"
# The list of logs an export writes beside their folders.
LOGS_FILE = "decision-logs.json"


@dataclass
class _Match:
    """A file of the folder and the record it describes (unsaved if new)."""

    parsed: object
    decision: DecisionRecord
    is_new: bool
    outcome: str = "unchanged"

    @property
    def applies(self):
        """Whether the file's content is taken now (not an editor's later
        change, nor held for a publisher)."""
        return self.outcome not in {"kept as edited", "held"}


def import_decisions(folder, *, log=None, prefix=None, user=None, via=None, shown=None):
    """Create or update the decision records of a folder of Markdown files in
    the decision log named ``log`` (made if new, with ``prefix``), or in the
    record's own log; the audit trail names ``user`` and says what imported
    the folder (``via``: the command and the folder, unless told). Problems
    name the folder as ``shown`` (its own name, unless told).

    A folder an export wrote (it holds ``decision-logs.json``), imported into
    no named log, brings back every log it lists, each from its folder. Each
    entry of that list is checked before anything is read: its folder must be
    a folder inside this one (a path leading elsewhere, absolute, through
    ``..`` or a link, is never read), its name and prefix what ``open_log``
    takes (``actions.decisions.check_log``, which the admin's form asks too).
    An entry that is not is left out, with a note naming the entry and its
    field, and the other logs are imported; a list of which no entry can be
    read is refused whole.

    All or nothing: a folder in which no file reads as a decision raises
    ImportRefused and nothing is written; what a file says that the record
    cannot hold as a field is kept as written, with a note in the report.
    New records are published (the folder is the team's own record). A record
    an editor changed since its last import keeps the editor's text when its
    file changed too; a re-import of the same folder changes nothing.
    Relations are kept once, whichever file states them.
    """
    folder = Path(folder)
    via = via or f"import_decisions {folder}"
    listed = _logs_file(folder)
    with bulk_change(user=user, via=via):
        if log is None and listed is not None:
            report = ImportReport(notes=[])
            entries = _listed_logs(folder, listed, report)
            for entry in entries:
                # Each log's folder is read without the others' inside it.
                skip = [
                    other["path"].relative_to(entry["path"]).as_posix()
                    for other in entries
                    if other["path"] != entry["path"]
                    and other["path"].is_relative_to(entry["path"])
                ]
                _import_log(
                    entry["path"],
                    entry,
                    user=user,
                    via=via,
                    report=report,
                    skip=skip,
                    shown=entry["shown"],
                )
            return report
        entry = {"name": log, "prefix": prefix}
        return _import_log(folder, entry, user=user, via=via, shown=shown)


def _logs_file(folder):
    """The folder's ``decision-logs.json``, or None: a link to a file outside
    the folder is not its list."""
    try:
        listed = within(folder, LOGS_FILE)
    except OutsideFolder:
        return None
    return listed if listed.is_file() else None


# The fields of an entry of decision-logs.json, as export_decisions writes
# them; prefix and format may be left out (ADR, and the files' own shape).
LOG_FIELDS = ("name", "prefix", "format", "folder")
REQUIRED_LOG_FIELDS = ("name", "folder")


def _listed_logs(folder, listed, report):
    """The entries of ``listed`` that can be imported, each with the
    ``path`` of its folder inside ``folder``; those that cannot, noted in
    ``report`` by entry and field. ImportRefused when the file is not a list
    of logs, or none of its entries can be imported."""
    try:
        entries = json.loads(listed.read_text(encoding="utf-8"))
    except (ValueError, RecursionError) as error:
        raise ImportRefused(
            [Problem(0, f"is not a list of decision logs: {error}", file=LOGS_FILE)]
        ) from None
    if not isinstance(entries, list) or not entries:
        raise ImportRefused(
            [
                Problem(
                    0,
                    "is not a list of decision logs: a JSON list of objects "
                    f"with {', '.join(LOG_FIELDS)}",
                    file=LOGS_FILE,
                )
            ]
        )
    taken, problems, addresses = [], [], {}
    for number, entry in enumerate(entries, start=1):
        try:
            checked = _listed_log(folder, entry)
            # Two names of one address would be one log's, the second refused
            # after the first was imported.
            slug = slugify(actions.decisions.log_name(checked["name"]))
            other = addresses.setdefault(slug, checked["name"].casefold())
            if slug and other != checked["name"].casefold():
                raise _EntryRefused(
                    entry,
                    "name",
                    f"gives the address /decisions/{slug}/, another entry's",
                )
            taken.append(checked)
        except _EntryRefused as error:
            problems.append(
                Problem(
                    0,
                    f"entry {number}{error.named}, {error.field}: {error.message}; "
                    "the log is left out",
                    file=LOGS_FILE,
                )
            )
    if not taken:
        raise ImportRefused(problems)
    report.notes.extend(problems)
    return taken


class _EntryRefused(Exception):
    def __init__(self, entry, field, message):
        name = entry.get("name") if isinstance(entry, dict) else None
        self.named = f" (“{name}”)" if isinstance(name, str) and name else ""
        self.field, self.message = field, message
        super().__init__(message)


def _listed_log(folder, entry):
    """One entry of decision-logs.json, checked (``import_decisions``)."""
    if not isinstance(entry, dict):
        raise _EntryRefused(
            entry, "entry", f"is not an object with {', '.join(LOG_FIELDS)}"
        )
    for key in LOG_FIELDS:
        value = entry.get(key)
        if key in REQUIRED_LOG_FIELDS and value is None:
            raise _EntryRefused(entry, key, "is missing")
        if value is not None and not isinstance(value, str):
            raise _EntryRefused(entry, key, "is not text")
    place = entry["folder"]
    try:
        path = within(folder, place)
    except OutsideFolder as error:
        raise _EntryRefused(entry, "folder", f"“{place}” is refused: {error}") from None
    if not path.is_dir():
        raise _EntryRefused(entry, "folder", f"“{place}” is not a folder in it")
    try:
        actions.decisions.check_log(
            name=entry["name"],
            prefix=entry.get("prefix") or None,
            log_format=entry.get("format") or None,
        )
    except ValidationError as error:
        fields = error.error_dict if hasattr(error, "error_dict") else {"name": [error]}
        field, errors = next(iter(fields.items()))
        message = " ".join(message for e in errors for message in e.messages)
        raise _EntryRefused(entry, field, message) from None
    return {
        **{key: entry.get(key) or "" for key in LOG_FIELDS},
        "path": path,
        "shown": f"{place.rstrip('/')}/" if place != "." else "the folder's top",
    }


def _import_log(folder, entry, *, user, via, report=None, skip=(), shown=None):
    parsed_files, problems, notes = parse_folder(folder, skip=skip, shown=shown)
    report = report or ImportReport(notes=[])
    report.notes.extend(notes)
    if problems:
        raise ImportRefused(problems)
    shapes = Counter(parsed.shape for parsed in parsed_files)
    log = actions.decisions.open_log(
        name=entry["name"],
        prefix=entry.get("prefix"),
        log_format=entry.get("format") or shapes.most_common(1)[0][0],
        user=user,
        via=via,
    )
    existing = list(
        DecisionRecord.objects.filter(log=log)
        .select_related("log")
        .select_for_update(of=("self",))
    )
    matches = _match(parsed_files, existing, problems, log)
    problems.extend(_field_problems(matches, {problem.file for problem in problems}))
    if problems:
        raise ImportRefused(problems)
    _place_twins(matches, user, via)
    taken = [
        match
        for match in progress.counted(matches, len(matches), every=10)
        if _apply(match, report, user, via)
    ]
    actions.decisions.save_imported(
        decisions=[match.decision for match in taken],
        user=user,
        at=timezone.now(),
        via=via,
    )
    moved = _write_images(matches, user, via)
    moved |= _write_relations(matches, existing, report, user, via)
    for match in matches:
        outcome = "created" if match.is_new else match.outcome
        if outcome == "unchanged" and match.decision.pk in moved:
            outcome = "updated"
        report.count(KIND, outcome)
    return report


def _match(parsed_files, existing, problems, log):
    """Each file with its record of ``log``: by file name, else by number
    (and place among files of its number); files named by date, or by no
    number, that are new take numbers after the highest, in date-and-name
    order."""
    by_name = {decision.source_name: decision for decision in existing}
    by_number = {(decision.number, decision.twin): decision for decision in existing}
    matches, claimed = [], set()
    named = {parsed.name for parsed in parsed_files}
    for parsed in parsed_files:
        decision = _record_of(parsed, by_name, by_number, named, claimed)
        if decision is None:
            _take_a_free_place(parsed, by_number)
        else:
            claimed.add(decision.pk)
        if parsed.number is not None:
            by_number.setdefault((parsed.number, parsed.twin), None)
        new = DecisionRecord(log=log)
        matches.append(_Match(parsed, decision or new, is_new=decision is None))
    _number_unnumbered(matches, by_number)
    for match in matches:
        if match.is_new:
            match.decision.number = match.parsed.number
            match.decision.twin = match.parsed.twin
    return matches


def _record_of(parsed, by_name, by_number, named, claimed):
    """The record a file is, by its name, else by its number's place (unless
    that record is another file's of the folder); None for a new one."""
    decision = by_name.get(parsed.name)
    if decision is None:
        decision = by_number.get((parsed.number, parsed.twin))
        # A record imported from a file still in the folder is that file's.
        if decision is not None and decision.source_name in named:
            decision = None
    if decision is not None and decision.pk in claimed:
        return None
    return decision


def _take_a_free_place(parsed, by_number):
    """A new file whose number's place another file has takes the next one."""
    if parsed.number is None or (parsed.number, parsed.twin) not in by_number:
        return
    parsed.twin = 1 + max(twin for number, twin in by_number if number == parsed.number)
    parsed.note(
        0,
        f"number {parsed.number} is another file's in the record: a record of "
        f"its own, the number's {parsed.twin}",
    )


def _number_unnumbered(matches, by_number):
    highest = max(
        [number for number, _ in by_number if number is not None]
        + [match.parsed.number or 0 for match in matches],
        default=0,
    )
    dated = [match for match in matches if match.is_new and match.parsed.number is None]
    for offset, match in enumerate(
        sorted(
            dated,
            key=lambda match: (
                match.parsed.dated or datetime.date.max,
                match.parsed.name,
            ),
        ),
        start=1,
    ):
        match.parsed.number = highest + offset


def _place_twins(matches, user, via):
    """Give records whose place among their number's files moved (a file
    named to sort before them was added) their new place."""
    moving = [
        match
        for match in matches
        if not match.is_new and match.decision.twin != match.parsed.twin
    ]
    actions.decisions.place_twins(
        places=[(match.decision, match.parsed.twin) for match in moving],
        user=user,
        via=via,
    )
    for match in moving:
        match.outcome = "updated"


def _field_problems(matches, reported):
    """Values the model refuses (a title too long), by file; a file already
    ``reported`` is not named again."""
    problems = []
    for match in matches:
        if match.parsed.name in reported:
            continue
        candidate = DecisionRecord(
            log=match.decision.log,
            number=match.decision.number,
            twin=match.decision.twin,
            source_name=match.parsed.name,
            **match.parsed.content(),
        )
        try:
            candidate.clean_fields(exclude=["published_by", "source_digest", "log"])
        except ValidationError as error:
            problems.extend(
                match.parsed.problem(0, f"{name}: {message}")
                for name, messages in error.message_dict.items()
                for message in messages
            )
    return problems


def _apply(match, report, user, via):
    """Bring ``match.decision`` to what its file says, unsaved; whether it
    is to be saved. When an editor changed the record since its last import
    and the file changed too, the editor's text stays; a published record
    gets the file's change as its pending revision, for a publisher to
    weigh."""
    decision, parsed = match.decision, match.parsed
    content = parsed.content()
    digest = content_digest(content)
    edited = (
        not match.is_new
        and decision.source_digest
        and decision.content_digest != decision.source_digest
    )
    if edited:
        if digest != decision.source_digest:
            _keep_edited(match, content, digest, report, user, via)
        return False
    values = {**content, "source_name": parsed.name, "source_digest": digest}
    changed = {
        name: value
        for name, value in values.items()
        if getattr(decision, name) != value
    }
    for name, value in changed.items():
        setattr(decision, name, value)
    if not match.is_new and set(changed) - {"source_digest"}:
        match.outcome = "updated"
    return bool(changed)


def _keep_edited(match, content, digest, report, user, via):
    decision, parsed = match.decision, match.parsed
    said = f"{decision.identifier} was changed by an editor since it was last imported"
    if not decision.is_public or decision.pending_revision() is not None:
        match.outcome = "kept as edited"
        report.notes.append(
            parsed.problem(
                0, f"{said}: kept as they left it; the file's change is not taken"
            )
        )
        return
    actions.decisions.hold_imported_change(
        decision=decision,
        content=content,
        digest=digest,
        user=user,
        note=f"The change to {parsed.name}, imported.",
        via=via,
    )
    match.outcome = "held"
    report.notes.append(
        parsed.problem(
            0,
            f"{said}: kept as they left it; the file's change is held as its "
            "pending revision, for a publisher to publish or discard",
        )
    )


def _write_images(matches, user, via):
    """Store the images each taken file's body shows; the records whose
    images changed."""
    return actions.decisions.set_images(
        images={
            match.decision: {
                name: (data, content_type, hashlib.sha256(data).hexdigest())
                for name, (data, content_type) in match.parsed.images.items()
            }
            for match in matches
            if match.applies
        },
        user=user,
        via=via,
    )


def _write_relations(matches, existing, report, user, via):
    """Keep exactly the relations the files state among their records (and to
    records of the record they name); the records whose relations changed.

    A relation touching a record kept as an editor changed it stays as it is.
    """
    wanted = _stated_relations(matches, existing, report)
    managed = {match.decision.pk for match in matches if match.applies}
    kept = {match.decision.pk for match in matches if not match.applies}
    current = {
        (relation.source_id, relation.kind, relation.target_id): relation
        for relation in DecisionRelation.objects.filter(
            Q(source__in=managed) | Q(target__in=managed)
        )
    }
    gone = [
        (key, relation)
        for key, relation in current.items()
        if key not in wanted and not kept & {key[0], key[2]}
    ]
    new = sorted(wanted - set(current))
    # Each new relation names its records as read, for its audit entry.
    records = {d.pk: d for d in [*existing, *(match.decision for match in matches)]}
    actions.decisions.keep_relations(
        saved=[
            DecisionRelation(source=records[source], kind=kind, target=records[target])
            for source, kind, target in new
        ],
        deleted=[relation for _, relation in gone],
        user=user,
        via=via,
    )
    return {pk for key in [*(key for key, _ in gone), *new] for pk in (key[0], key[2])}


def _stated_relations(matches, existing, report):
    """``{(source pk, kind, target pk)}`` the taken files state; a record they
    name that is neither in the folder nor in the record is noted."""
    by_name = {}
    for name, decision in [
        *((d.source_name, d) for d in existing if d.source_name),
        *((match.parsed.name, match.decision) for match in matches),
    ]:
        # A link names a file as its team's links do: by its name alone
        # (a sub-folder's file too), in any case.
        by_name[name] = decision
        by_name.setdefault(_file_key(name), decision)
    # A number names the first of its files.
    by_number = {d.number: d for d in existing if d.twin == 1}
    by_number.update(
        (match.decision.number, match.decision)
        for match in matches
        if match.parsed.twin == 1
    )
    wanted = set()
    for match in (match for match in matches if match.applies):
        for relation in match.parsed.relations:
            other = _named(relation.ref, by_name, by_number)
            if other is None:
                report.notes.append(
                    match.parsed.problem(
                        relation.line,
                        f"{relation.ref} is not in the folder or the record; "
                        "its relation is left out",
                    )
                )
            elif other.pk != match.decision.pk:
                wanted.add(_row(match.decision, relation, other))
    return wanted


def _named(ref, by_name, by_number):
    if isinstance(ref, int):
        return by_number.get(ref)
    named = by_name.get(ref) or by_name.get(_file_key(ref))
    if named is not None:
        return named
    parts = name_parts(ref) or {}
    return by_number.get(parts.get("number"))


def _file_key(name):
    return decision_name(name).casefold()


def _row(decision, relation, other):
    """The row ``relation`` of ``decision`` to ``other`` is, keyed by its values;
    a relation that reads the same both ways is kept from the lower number."""
    source, target = (other, decision) if relation.inverse else (decision, other)
    if (
        relation.kind == DecisionRelation.Kind.RELATES_TO
        and source.number > target.number
    ):
        source, target = target, source
    return (source.pk, relation.kind, target.pk)


def decision_file_name(decision, *, kept=True):
    """The file a record is written to: its own file's name, kept at import
    (unless not ``kept``), else one made from its number and title."""
    if decision.source_name and kept:
        return decision.source_name
    twin = f"-{decision.twin}" if decision.twin != 1 else ""
    return f"{decision.number:04d}{twin}-{slugify(decision.title) or 'decision'}.md"


# Front matter keys for a relation, read from its source and its target.
FORWARD_KEYS = {
    kind: key for key, (kind, inverse) in RELATION_KEYS.items() if not inverse
}
INVERSE_KEYS = {
    DecisionRelation.Kind.SUPERSEDES: "superseded-by",
    DecisionRelation.Kind.AMENDS: "amended-by",
    DecisionRelation.Kind.CLARIFIES: "clarified-by",
    DecisionRelation.Kind.RELATES_TO: "relates-to",
}


def export_decisions(folder):
    """Write every decision log's published records into ``folder``, each as
    a file of its log's shape (MADR, MADR 2, adr-tools) named as its own file
    was, with its images; return the names written.

    The record's own log is written at the top of ``folder``, every other
    log in a folder of its own (``govuk-aws/``), and ``decision-logs.json``
    lists them (name, prefix, format, folder) for a re-import. Relations are
    written on both records, under ``supersedes`` / ``superseded-by`` and the
    like, naming the other record's file.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    folder = folder.resolve()
    logs = list(
        DecisionLog.objects.filter(decisions__published_at__isnull=False).distinct()
    )
    written, listed = [], []
    for log in logs:
        place = "." if log.is_own else log.slug
        written += [
            name if log.is_own else f"{log.slug}/{name}"
            for name in _export_log(log, within(folder, place))
        ]
        listed.append(
            {
                "name": log.name,
                "prefix": log.prefix,
                "format": log.format,
                "folder": place,
            }
        )
    within(folder, LOGS_FILE).write_text(
        json.dumps(listed, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    return written


def _export_log(log, folder):
    decisions = list(
        DecisionRecord.objects.public().filter(log=log).prefetch_related("images")
    )
    names = {decision.pk: decision_file_name(decision) for decision in decisions}
    relations = defaultdict(lambda: defaultdict(list))
    for relation in DecisionRelation.objects.filter(
        source__in=names, target__in=names
    ).order_by("kind", "source__number", "source__twin", "target__number"):
        source, target = relation.source_id, relation.target_id
        relations[source][FORWARD_KEYS[relation.kind]].append(names[target])
        relations[target][INVERSE_KEYS[relation.kind]].append(names[source])
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for decision in decisions:
        keys = relations[decision.pk]
        ordered = {key: keys[key] for key in RELATION_KEYS if key in keys}
        # A name kept at import, or an image's, is written inside the log's
        # folder or not at all.
        try:
            path = within(folder, names[decision.pk])
        except OutsideFolder:
            path = within(folder, decision_file_name(decision, kept=False))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            format_decision(decision, ordered, log.format, path.name),
            encoding="utf-8",
        )
        written.append(path.name)
        for image in decision.images.all():
            try:
                target = within(folder, image.name)
            except OutsideFolder:
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(bytes(image.data))
            written.append(image.name)
    return written

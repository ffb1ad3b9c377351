"""Decision records in the Markdown teams keep them in, read and written.

A folder holds one file per decision. The shapes read:

- adr-tools and Michael Nygard's format: ``# 26. Title``, ``Date: 2024-03-01``
  and a ``## Status`` section holding the status and link lines
  (``Superceded by [4. …](0004-….md)``, ``Amends …``), adr-tools' spellings
  included;
- MADR 2: ``# Title`` then bullet metadata (``* Status: accepted``,
  ``* Deciders: …``, ``* Date: …``) in any order;
- MADR 3 and 4: YAML front matter, where status and date are optional;
- log4brains: files named by date (``20200925-use-prettier.md``), which the
  importer numbers in date-and-name order.

Templates and index files are left out by name and by shape. What cannot be
read as one of our fields stays as written: an unplaceable status is kept in
the team's words, an unreadable date line stays in the body, other front
matter is kept as metadata.

Parsing is pure: problems (which refuse an import) and notes (which do not)
are returned by file and line; ``format_decision`` writes a record back as a
MADR file.
"""

import datetime
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

import filetype
import yaml
from markdown_it import MarkdownIt

from catalogue.markdown import (
    INDEX_NAME_RE,
    MARKDOWN_MAX_CHARACTERS,
    decision_name,
    image_name,
    linked_file,
)
from catalogue.models import DecisionFormat, DecisionRelationKind, DecisionStatus
from catalogue.models.decision import STATUS_TEXT_MAX_LENGTH, TITLE_MAX_LENGTH
from catalogue.text import describe, replaced, unsafe_character
from formats import safe_yaml, written_dates
from formats.folders import OutsideFolder, is_within, within
from formats.problems import Problem

# A decision file's name: a number ("0026-title.md", "0026_title.md",
# "26.title.md", "1-title.md"), maybe after a word of letters ("adr-01.md",
# "ADR-0001-title.md", "ADR000-title.md", "DR005-title.md", "RFC 12 - x.md"),
# maybe alone; or a date ("20200925-use-prettier.md", log4brains's, or
# "2020-09-25-title.md").
NUMBERED_RE = re.compile(
    r"(?:[a-z]{1,8}[-_ ]?)?(?P<number>\d+)(?:[-_. ].*)?\.md", re.I | re.S
)
DATED_NAME_RE = re.compile(r"(?P<date>\d{4}-\d{2}-\d{2})(?:[-_. ].*)?\.md", re.S)
# The largest number a record may have (the database's integer).
MAX_NUMBER = 2_147_483_647
# What a folder's decision files are named, for the message when none is.
DECISION_NAMES = (
    "NNNN-title.md (0001-use-markdown.md), adr-NNN.md or ADR-NNN-title.md "
    "(adr-001-use-adrs.md), YYYYMMDD-title.md (20200925-use-prettier.md), or "
    "any name, for a file with a status or a Context or Decision section"
)
# "# Architecture Decision Record: Module Structure": the words say what every
# file of the folder is, not its title.
TITLE_LEAD_RE = re.compile(
    r"(?:(?:architecture\s+)?decision\s+record|ADR)\s*:\s+", re.I
)
# Files of a decision folder that are not decisions: indexes, templates.
NOT_DECISION_RE = re.compile(
    r"(readme|index|toc|template|.*[-_]template|adr-template.*|template[-_].*)\.md",
    re.I,
)
# A numbered template: "0000-template.md", "0000-ladr-template.md".
NUMBERED_TEMPLATE_RE = re.compile(
    r"(?:[a-z]{1,8}[-_ ]?)?\d+[-_ .](?:[a-z]+[-_])?template\.md", re.I
)
# A template's title is a placeholder: "# NUMBER. TITLE", "# {short title …}",
# "# 0. Template".
TEMPLATE_TITLE_RE = re.compile(
    r"#\s+(?:NUMBER\.\s+TITLE|\{[^{}]*\}|\[[^\[\]]*\]|(?:\d+\.\s+)?template)\s*",
    re.I,
)
ATX_RE = re.compile(r"(?P<marks>#{1,6})(?:\s+(?P<text>.*?))?(?:\s+#+)?\s*")
# A number a title opens with: "26. ", "ADR-026: ", "ADR 1 - ", "0023 ",
# "ADR-023 ".
# A word of capitals joined to the number is the folder's own kind of
# record: "TEP-0030: ", "RFC-0001 ".
TITLE_NUMBER_RE = re.compile(
    r"(?P<word>(?i:ADR)[-\s]?|[A-Z]{2,8}-?)?0*(?P<number>\d{1,10})"
    r"(?:\.\s*|\s*[:–—-]\s+|\s+)"
)
SETEXT_RE = re.compile(r"=+\s*")
# A setext heading's underline: "=" for a first level, "-" for a second.
UNDERLINE_RE = re.compile(r" {0,3}(?:(?P<first>=+)|-+)[ \t]*")
LIST_ITEM_RE = re.compile(r"\s{0,3}[*+-]\s+")
CHANGELOG_RE = re.compile(r"[*_]{0,2}change\s?log[*_]{0,2}:?\s*", re.I)
FENCE_RE = re.compile(r"\s{0,3}(```|~~~)")
# The keys of a date line, most telling first: the day a record was
# decided over the day it was written, over the day it last changed.
DATE_KEYS = {
    "date": 0,
    "decided": 0,
    "decision date": 0,
    "date decided": 0,
    "decided on": 0,
    "created": 1,
    "date created": 1,
    "creation date": 1,
    "proposed": 1,
    "last updated": 2,
    "updated": 2,
    "last modified": 2,
}
# A metadata line: "Date: …", "* Status: …", "- **Status:** …",
# "_Created: …_", "Date 09/04/2018" (a date after the key needs no colon).
META_RE = re.compile(
    r"\s*(?:[*-]\s+)?[*_]{0,2}(?P<key>status|statut|"
    # "Last updated", "last-updated", "last_updated".
    + "|".join(
        key.replace(" ", r"[-_ ]") for key in sorted(DATE_KEYS, key=len, reverse=True)
    )
    + r")[*_]{0,2}(?:\s*:|\s+(?=\d))[*_]{0,2}(?P<value>.*)",
    re.I,
)
# The words a status line or front matter key opens with (and French's).
STATUS_KEYS = {"status", "statut"}
# A status heading's text: "Status", "Status:", "**Status**", "Status: Accepted".
STATUS_HEADING_RE = re.compile(
    r"[*_]{0,2}statu[st][*_]{0,2}(?:\s*:(?P<value>.*))?", re.I
)
# A thematic break, which ends a paragraph and says nothing.
RULE_RE = re.compile(r" {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})")
LINK_RE = re.compile(r"\]\((?P<href>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
ADR_NAME_RE = re.compile(r"\bADR[-\s]?0*(?P<number>\d+)\b", re.I)
FILE_NAME_RE = re.compile(r"\b(?P<name>(?:adr[-_]?)?\d+(?:[-_.][\w.-]*)?\.md)\b", re.I)
# "see 019", "see ADR-19": a status's pointer to another record.
SEE_RE = re.compile(r"\bsee\s+(?:ADR[-\s]?)?0*(?P<number>\d{1,10})\b", re.I)
LINKED_WORD_RE = re.compile(r"\[(?P<text>[^\]]+)\]\([^)]*\)")

Kind = DecisionRelationKind
# Each relation, (kind, whether this file is the record it points at), by its
# words: first as we write them, then as teams also spell them.
RELATION_SPELLINGS = {
    (Kind.SUPERSEDES, False): ["supersedes", "supercedes", "replaces", "remplace"],
    (Kind.SUPERSEDES, True): [
        "superseded by",
        "superceded by",
        "superceeded by",
        "superseeded by",
        "replaced by",
        "remplacé par",
        "remplacée par",
    ],
    (Kind.AMENDS, False): ["amends"],
    (Kind.AMENDS, True): ["amended by"],
    (Kind.CLARIFIES, False): ["clarifies"],
    (Kind.CLARIFIES, True): ["clarified by"],
    (Kind.RELATES_TO, False): ["relates to", "related to"],
}
RELATION_WORDS = {
    words: relation
    for relation, spellings in RELATION_SPELLINGS.items()
    for words in spellings
}
RELATION_RE = re.compile(
    r"(?P<words>"
    + "|".join(sorted(RELATION_WORDS, key=len, reverse=True))
    + r")\b\s*:?\s*(?P<rest>.*)",
    re.I | re.S,
)
# An adr-tools link line with words of the team's own ("Refined by [5. …](…)").
# Words are runs of letters between single runs of spaces, and the colon
# takes the spaces on its own side only: no two quantifiers compete for the
# same spaces, so a long line of them costs linear time.
OTHER_RELATION_RE = re.compile(
    r"(?P<words>[A-Za-z]+(?: +[A-Za-z]+)*)\s*(?::\s*)?\[.*\]\(.*"
)
# Clauses of one status: "accepted; supersedes ADR-0045".
CLAUSE_RE = re.compile(r";|\n|,\s*(?=(?:" + "|".join(RELATION_WORDS) + r")\b)", re.I)
# The keys under which front matter names related records, as we write them.
RELATION_KEYS = {
    spellings[0].replace(" ", "-"): relation
    for relation, spellings in RELATION_SPELLINGS.items()
}
STATUS_WORDS = {status.value for status in DecisionStatus if status.value}
# Statuses teams write that say one of ours.
STATUS_SYNONYMS = {
    "approved": DecisionStatus.ACCEPTED,
    "agreed": DecisionStatus.ACCEPTED,
    "adopted": DecisionStatus.ACCEPTED,
    "pending": DecisionStatus.PROPOSED,
    "on hold": DecisionStatus.PROPOSED,
    "draft": DecisionStatus.PROPOSED,
    "open": DecisionStatus.PROPOSED,
    "in review": DecisionStatus.PROPOSED,
    "under review": DecisionStatus.PROPOSED,
    "declined": DecisionStatus.REJECTED,
    "obsolete": DecisionStatus.DEPRECATED,
    "superceded": DecisionStatus.SUPERSEDED,
    "replaced": DecisionStatus.SUPERSEDED,
    "implemented": DecisionStatus.ACCEPTED,
    "done": DecisionStatus.ACCEPTED,
    "decided": DecisionStatus.ACCEPTED,
    "active": DecisionStatus.ACCEPTED,
    "in effect": DecisionStatus.ACCEPTED,
    "proposal": DecisionStatus.PROPOSED,
    "incomplete": DecisionStatus.PROPOSED,
    "in discussion": DecisionStatus.PROPOSED,
    "under discussion": DecisionStatus.PROPOSED,
    "under consideration": DecisionStatus.PROPOSED,
    "in progress": DecisionStatus.PROPOSED,
    "work in progress": DecisionStatus.PROPOSED,
    "wip": DecisionStatus.PROPOSED,
    "rfc": DecisionStatus.PROPOSED,
    "postponed": DecisionStatus.PROPOSED,
    "deferred": DecisionStatus.PROPOSED,
    "abandoned": DecisionStatus.REJECTED,
    "refused": DecisionStatus.REJECTED,
    "withdrawn": DecisionStatus.REJECTED,
    "cancelled": DecisionStatus.REJECTED,
    "canceled": DecisionStatus.REJECTED,
    "reverted": DecisionStatus.DEPRECATED,
    "retired": DecisionStatus.DEPRECATED,
    "revoked": DecisionStatus.DEPRECATED,
    "archived": DecisionStatus.DEPRECATED,
    "obsoleted": DecisionStatus.DEPRECATED,
    "depreciated": DecisionStatus.DEPRECATED,
    "final": DecisionStatus.ACCEPTED,
    "finalised": DecisionStatus.ACCEPTED,
    "finalized": DecisionStatus.ACCEPTED,
    "ratified": DecisionStatus.ACCEPTED,
    "tentative": DecisionStatus.PROPOSED,
    # Enhancement proposals' (KEP, TEP, EIP) steps: a design approved to be
    # built is accepted, one under review or stalled proposed.
    "implementable": DecisionStatus.ACCEPTED,
    "implementing": DecisionStatus.ACCEPTED,
    "living": DecisionStatus.ACCEPTED,
    "provisional": DecisionStatus.PROPOSED,
    "review": DecisionStatus.PROPOSED,
    "stagnant": DecisionStatus.PROPOSED,
    "superceeded": DecisionStatus.SUPERSEDED,
    "superseeded": DecisionStatus.SUPERSEDED,
    # French, as MADR's French templates write them.
    "proposé": DecisionStatus.PROPOSED,
    "proposée": DecisionStatus.PROPOSED,
    "brouillon": DecisionStatus.PROPOSED,
    "en attente": DecisionStatus.PROPOSED,
    "accepté": DecisionStatus.ACCEPTED,
    "acceptée": DecisionStatus.ACCEPTED,
    "approuvé": DecisionStatus.ACCEPTED,
    "approuvée": DecisionStatus.ACCEPTED,
    "validé": DecisionStatus.ACCEPTED,
    "validée": DecisionStatus.ACCEPTED,
    "adopté": DecisionStatus.ACCEPTED,
    "adoptée": DecisionStatus.ACCEPTED,
    "rejeté": DecisionStatus.REJECTED,
    "rejetée": DecisionStatus.REJECTED,
    "refusé": DecisionStatus.REJECTED,
    "refusée": DecisionStatus.REJECTED,
    "obsolète": DecisionStatus.DEPRECATED,
    "déprécié": DecisionStatus.DEPRECATED,
    "dépréciée": DecisionStatus.DEPRECATED,
    "remplacé": DecisionStatus.SUPERSEDED,
    "remplacée": DecisionStatus.SUPERSEDED,
}
IMAGE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp"}
SVG_RE = re.compile(r"<svg[\s>]")
MAX_IMAGE_BYTES = 5 * 1024 * 1024

_images_parser = MarkdownIt("commonmark").enable("table")


@dataclass(frozen=True)
class RelationRef:
    """A relation a file states: ``kind`` to (or, ``inverse``, from) ``ref``,
    a record's number or its file's name."""

    kind: str
    inverse: bool
    ref: object
    line: int


@dataclass
class ParsedDecision:
    """What one file says of its decision."""

    name: str
    number: int | None = None
    # The file's place among the folder's files of its number, by name:
    # 0064-b.md beside 0064-a.md is ADR-064 (2).
    twin: int = 1
    dated: datetime.date | None = None
    # The shape it is written in: a DecisionFormat value.
    shape: str = "madr"
    title: str = ""
    status: str = ""
    status_text: str = ""
    status_history: str = ""
    decided_on: datetime.date | None = None
    metadata: dict = field(default_factory=dict)
    body: str = ""
    relations: list = field(default_factory=list)
    # {name in the folder: (bytes, content type)}
    images: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)

    def problem(self, line, message):
        return Problem(line, message, file=self.name)

    def note(self, line, message):
        self.notes.append(self.problem(line, message))

    def content(self):
        """The record's content fields, as ``DecisionRecord.content()`` has them."""
        return {
            "title": self.title,
            "status": self.status,
            "status_text": self.status_text,
            "status_history": self.status_history,
            "decided_on": self.decided_on,
            "metadata": self.metadata,
            "body": self.body,
        }


# The lengths of a name's digits that are a day, maybe with its time:
# 20200925 (log4brains), 202406031626, 20240603162604.
STAMP_FORMATS = {8: "%Y%m%d", 12: "%Y%m%d%H%M", 14: "%Y%m%d%H%M%S"}


def name_parts(name):
    """``{"number": n}`` or ``{"dated": date}`` from a decision file's name
    (``decision_name`` of a path), or None for a name that gives neither."""
    name = decision_name(name)
    dated = DATED_NAME_RE.fullmatch(name)
    if dated is not None:
        try:
            return {"dated": datetime.date.fromisoformat(dated["date"])}
        except ValueError:
            pass
    match = NUMBERED_RE.fullmatch(name)
    if match is None:
        return None
    digits = match["number"]
    if len(digits) in STAMP_FORMATS:
        try:
            stamp = datetime.datetime.strptime(digits, STAMP_FORMATS[len(digits)])
        except ValueError:
            pass
        else:
            return {"dated": stamp.date()}
    if len(digits) > 10 or int(digits) > MAX_NUMBER:
        return None
    return {"number": int(digits)}


def _lines(text):
    return [line.rstrip("\r") for line in text.split("\n")]


def parse_decision(name, text, *, date_order=None):
    """A ParsedDecision for the file ``name`` holding ``text``.

    No shape of a file refuses it: a title, a status, a date or front matter
    that cannot be read as one of the record's fields is kept as written (in
    the body, the status as written or the metadata), with a note naming the
    line. A numeric date whose day and month its digits leave open is read
    in ``date_order`` (``written_dates.slashed_order`` of its folder).

    Where front matter and the body both state the title, the date or the
    status (YAML above an adr-tools body), the front matter's is taken, with
    a note where they disagree.
    """
    parsed = ParsedDecision(name=name, **(name_parts(name) or {}))
    lines = text.split("\n")
    front, start = _front_matter(parsed, lines)
    titled = any(
        str(key).lower() == "title" and _text(value).strip()
        for key, value in front.items()
    )
    before = (list(parsed.notes), parsed.number, parsed.title)
    reader = _Reader(parsed, lines, start, date_order, titled=titled)
    reader.read()
    stated = any(
        str(key).lower() in STATUS_KEYS and _text(value).strip()
        for key, value in front.items()
    )
    if stated and reader.status_section and not _states_status(reader.statuses):
        # Beside the front matter's status, a "## Status" section stating
        # none ("The status of a run lists…") is a section of the body.
        parsed.notes, parsed.number, parsed.title = list(before[0]), *before[1:]
        reader = _Reader(
            parsed, lines, start, date_order, titled=titled, sections=False
        )
        reader.read()
    _read_front_title(parsed, front, reader)
    if not parsed.title:
        _title_from_name(parsed, reader)
    key = next((key for key in front if str(key).lower() in STATUS_KEYS), "status")
    written = _pop(front, str(key).lower())
    said = _text(written).strip()
    line = reader.front_lines.get(str(key).lower(), 1)
    front_status = [[(said, line)]] if said else []
    history = _pop(front, "status-history")
    _read_status(parsed, front_status, reader.statuses)
    if history is not None and _text(history).strip():
        parsed.status_history = "\n\n".join(
            filter(None, [_text(history).strip(), parsed.status_history])
        )
    _note_disagreement(parsed, "status", front_status, reader.statuses)
    _read_date(parsed, front, reader)
    _read_front_relations(parsed, front, reader.front_lines)
    parsed.shape = _shape(front, reader)
    parsed.metadata = {key: _plain(value) for key, value in front.items()}
    parsed.body = reader.body()
    _settle(parsed, text)
    return parsed


def _title_from_name(parsed, reader):
    """A file with no title line is titled by its name's words (0003-use-redis.md
    is "Use redis"), else by its first line."""
    stem = decision_name(parsed.name)[: -len(".md")]
    words = re.sub(
        r"^\d{4}-\d{2}-\d{2}|^(?:[a-z]{1,8}[-_ ]?)?\d+", "", stem, flags=re.I
    )
    words = " ".join(re.split(r"[-_ ]+", words)).strip()
    if not words:
        first = next((line.strip() for line in reader.kept if line.strip()), "")
        words = first.lstrip("#*_>- ").strip()[:200]
    parsed.title = (words[:1].upper() + words[1:]) if words else stem
    parsed.note(1, f"no title line (# Title): titled {parsed.title!r}")


def _read_front_title(parsed, front, reader):
    """The front matter's ``title`` over the heading's, noted where they differ."""
    written = _pop(front, "title")
    if written is None or not _text(written).strip():
        return
    title = " ".join(_text(written).split())
    lead = TITLE_LEAD_RE.match(title)
    if lead and title[lead.end() :].strip():
        # "ADR: Naming": what every file of the folder is, not its title.
        title = title[lead.end() :].strip()
    number = TITLE_NUMBER_RE.match(title)
    if number and int(number["number"]) == parsed.number and title[number.end() :]:
        # "ADR031 - SSL only": the file's own number.
        title = title[number.end() :].strip()
    if reader.title_line is not None and parsed.title != title:
        parsed.note(
            reader.front_lines.get("title", 1),
            f"the front matter's title {title!r} is taken; the heading says "
            f"{parsed.title!r}",
        )
    parsed.title = title


# Front matter keys of a date, most telling first.
FRONT_DATE_KEYS = [
    "date",
    "decided",
    "decision-date",
    "created",
    "last-updated",
    "updated",
    "last-modified",
]


def _front_date_key(front):
    keys = {str(key).lower().replace("_", "-").replace(" ", "-"): key for key in front}
    return next((keys[name] for name in FRONT_DATE_KEYS if name in keys), None)


def _read_date(parsed, front, reader):
    key = _front_date_key(front)
    body_date = reader.best_date()
    if key is not None:
        line = reader.front_lines.get(str(key).lower(), 1)
        _read_front_date(parsed, front, line, key, reader.date_order)
        if body_date is not None and parsed.decided_on not in (None, body_date):
            parsed.note(
                line,
                f"the front matter's date {parsed.decided_on.isoformat()} is taken; "
                f"the body says {body_date.isoformat()}",
            )
        if parsed.decided_on is not None:
            return
    if body_date is not None:
        parsed.decided_on = body_date
    elif parsed.dated is not None:
        parsed.decided_on = parsed.dated


def _other_words(front, paragraph):
    """Whether the body's status ``paragraph`` is written in other words
    than the front matter's status, emphasis and symbols aside."""
    said = [
        status_words(" ".join(text for text, _ in written)).strip(" .").casefold()
        for written in (front[0], paragraph)
    ]
    return said[0] != said[1]


def _disagree(front, paragraph):
    """Whether the body's status ``paragraph`` says otherwise than the front
    matter's."""
    front_text, body_text = front[0][0][0], paragraph[0][0]
    front_word = place_status(front_text)[0] or front_text.strip()
    body_word = place_status(body_text)[0] or body_text.strip()
    return front_word.lower() != body_word.lower()


def _note_disagreement(parsed, what, front_said, body_said):
    if not front_said or not body_said:
        return
    front_text = front_said[0][0][0]
    body_text = body_said[0][0][0]
    if _disagree(front_said, body_said[0]):
        parsed.note(
            front_said[0][0][1],
            f"the front matter's {what} {front_text!r} is taken; the body "
            f"says {body_text!r}",
        )


def _shape(front, reader):
    """The DecisionFormat value of the file's shape."""
    if reader.status_section or reader.dated_line:
        return DecisionFormat.ADR_TOOLS
    if reader.bullets:
        return DecisionFormat.MADR2
    return DecisionFormat.MADR


def _front_matter(parsed, lines):
    """The front matter's mapping and the index of the line after it. Front
    matter never closed is read as text; front matter that is not YAML we
    read is kept as written."""
    if not lines or lines[0].rstrip("\r") != "---":
        return {}, 0
    for end in range(1, len(lines)):
        if lines[end].rstrip("\r") in {"---", "..."}:
            break
    else:
        parsed.note(1, "the front matter (---) is never closed; read as text")
        return {}, 0
    written = [line.rstrip("\r") for line in lines[1:end]]
    try:
        front = load_front_matter("\n".join(written))
    except safe_yaml.YAMLRefused as error:
        parsed.note(error.line + 1, f"the front matter is not YAML: {error}")
        return _unmapped(parsed, written), end + 1
    if front is None:
        return {}, end + 1
    if not isinstance(front, dict):
        return _unmapped(parsed, written), end + 1
    return front, end + 1


def load_front_matter(text):
    """The YAML of a file's front matter, read by the safe loader: the one
    place front matter is loaded."""
    return safe_yaml.load(text)


# The key under which front matter that is not a mapping is kept as written.
FRONT_MATTER_AS_WRITTEN = "front-matter"


def _unmapped(parsed, written):
    """Front matter that is not a mapping (``tag:Web Client``, a team's own
    convention) or not YAML we read, read line by line for what it says
    (``key:value``), and kept as written beside it."""
    read = {}
    for line in written:
        key, colon, value = line.partition(":")
        if colon and 0 < len(key.strip()) <= 64 and value.strip():
            read.setdefault(key.strip(), []).append(value.strip())
    said = {
        key: values[0] if len(values) == 1 else values for key, values in read.items()
    }
    what = "; ".join(f"{key} {_text(value)!r}" for key, value in said.items())
    parsed.note(
        2,
        "the front matter is not a mapping (key: value); "
        + (f"read as {what[:300]}, and " if what else "")
        + "kept as written",
    )
    return {**said, FRONT_MATTER_AS_WRITTEN: "\n".join(written)}


class _Reader:
    """Reads the lines after any front matter: the title, metadata lines before
    the first heading, a ``## Status`` section (its paragraphs: the status,
    then its history), and the body (the rest)."""

    def __init__(
        self, parsed, lines, start, date_order=None, *, titled=False, sections=True
    ):
        self.parsed = parsed
        # Whether the front matter titles the record: then only a "# Title"
        # line is a title, a lower heading the body's.
        self.titled = titled
        # Whether a "## Status" heading opens a status section (not where
        # the front matter states the status and the section says none).
        self.sections = sections
        # The dates a "## Changelog" section's entries open with.
        self.changelog = []
        self.lines = lines
        self.start = start
        self.date_order = date_order
        self.title_line = None
        # Paragraphs stating the status, each a list of (text, line).
        self.statuses = []
        self.status_section = False
        # (rank, order, date) of every date the lines state.
        self.dates = []
        self.kept = []
        self.removed = False
        self.bullets = False
        self.dated_line = False
        # Front matter keys are on lines 2 on; close enough for a message.
        self.front_lines = {}
        for number, line in enumerate(lines[1:start], start=2):
            key = line.split(":", 1)[0].strip().lower()
            self.front_lines.setdefault(key, number)
        for key in ("status", "date"):
            self.front_lines.setdefault(key, 1)

    def best_date(self):
        return min(self.dates)[2] if self.dates else None

    def add_date(self, rank, date):
        self.dates.append((rank, len(self.dates), date))

    def read(self):
        fenced, section, before_heading = False, None, True
        changelog = False
        lines = self.lines
        index = self.start
        while index < len(lines):
            line, number = lines[index].rstrip("\r"), index + 1
            index += 1
            if FENCE_RE.match(line):
                fenced = not fenced
            heading = None if fenced else ATX_RE.fullmatch(line)
            taken = None if fenced else self._take_title(heading, line, index, number)
            if taken is not None:
                index += taken
                continue
            underline = not fenced and self._underline(line, index, section)
            if underline:
                # "Status" over a line of "-": a heading, as CommonMark reads it.
                heading = {"marks": "#" * underline, "text": line.strip()}
            if heading:
                before_heading = False
                section, changelog, taken = self._at_heading(heading, number)
                if taken:
                    index += bool(underline and section is not None)
                    continue
            if section is not None:
                self._status_line(line, number)
                continue
            if changelog and not fenced:
                self._changelog_entry(line)
            if before_heading and not fenced and self._opening_line(line, number):
                self.removed = True
                continue
            self._keep(lines[index - 1])
        self.statuses = [paragraph for paragraph in self.statuses if paragraph]
        if self.changelog:
            # The first entry of a changelog is the day the record was written.
            self.add_date(DATE_KEYS["created"], min(self.changelog))

    def _at_heading(self, heading, number):
        """``(section, changelog, taken)`` at a heading: the level of the
        status section it opens (None for none), whether it opens a
        changelog, and whether it is taken out of the body (a status heading,
        a date line)."""
        changelog = bool(CHANGELOG_RE.fullmatch(heading["text"] or ""))
        if self._status_heading(heading, number):
            return len(heading["marks"]), changelog, True
        if self._heading_date(heading, number):
            self.removed = True
            return None, changelog, True
        return None, changelog, False

    def _take_title(self, heading, line, index, number):
        """Take the title at ``line`` (line ``number``) while the record has
        none: how many lines it takes beyond its own (a setext title's
        underline), or None where the line is no title."""
        if self.title_line is not None:
            return None
        title = self._title(heading, line, self.lines, index)
        if title is None:
            return None
        self.title_line = number
        self.parsed.title = self._strip_number(title)
        self.removed = True
        return 0 if heading else 1

    def _underline(self, line, index, section):
        """The level of the setext heading ``line`` is over the underline of
        (1 for "=", 2 for "-"), or 0."""
        underline = _setext(line, self.lines, index)
        if underline == 2 and section is not None and read_status(line)[0]:
            # "Accepted" over "---" in a status section: a status, then a
            # rule, as its team meant it.
            return 0
        return underline

    def _opening_line(self, line, number):
        """A line above the first heading that states the record's metadata
        or its date alone, taken out of the body."""
        return self._metadata(line, number) or self._bare_date(line)

    def _changelog_entry(self, line):
        """A changelog's entry ("- 2022-03-03: Initial draft", "23-06-2018:
        Some fixes") opens with a date; the entry stays in the body."""
        entry = LIST_ITEM_RE.match(line)
        start = entry.end() if entry else 0
        date, _ = written_dates.leading_date(line[start:], self.date_order)
        if date is not None:
            self.changelog.append(date)

    def _heading_date(self, heading, number):
        """A heading that is a date line ("## Date: 2025-03-20")."""
        found = META_RE.fullmatch(heading["text"] or "")
        if found is None or found["key"].lower() in STATUS_KEYS:
            return False
        return self._date_line(found, number)

    def _status_heading(self, heading, number):
        """Open a status section at ``## Status`` (any level below the
        title's), its value the status when the heading states one."""
        found = STATUS_HEADING_RE.fullmatch((heading["text"] or "").strip())
        if found is None or not self.sections:
            return False
        self.status_section = self.removed = True
        value = (found["value"] or "").strip(" *_")
        self.statuses.append([(value, number)] if value else [])
        return True

    def _status_line(self, line, number):
        """A line of the status section: blank lines and rules end a
        paragraph; a date line states the date."""
        if not line.strip() or RULE_RE.fullmatch(line):
            if self.statuses[-1]:
                self.statuses.append([])
            return
        found = META_RE.fullmatch(line)
        if found is not None and found["key"].lower() not in STATUS_KEYS:
            # "Proposed 2020-01-01" in a status section is a status.
            colon = line[found.end("key") :].lstrip("*_ \t").startswith(":")
            if (colon or found["key"].lower() == "date") and self._date_line(
                found, number
            ):
                return
        elif found is not None:
            line = found["value"]
        self.statuses[-1].append((line.strip(), number))

    def _keep(self, line):
        # Where a line was taken out, the blank lines on both sides become one.
        blank = not line.strip()
        if blank and self.removed and self.kept and not self.kept[-1].strip():
            return
        self.removed = self.removed and blank
        self.kept.append(line)

    def _title(self, heading, line, lines, index):
        if heading and heading["text"]:
            if len(heading["marks"]) == 1:
                return heading["text"]
            # A file opening with a lower heading ("### Use ADRs") is titled
            # by it, unless it names a section of a record or the front
            # matter titles it.
            at_top = not self.statuses and not any(kept.strip() for kept in self.kept)
            at_top = at_top and not self.titled
            if at_top and not SECTION_HEADING_RE.match(heading["text"]):
                return heading["text"]
            return None
        following = lines[index].rstrip("\r") if index < len(lines) else ""
        if line.strip() and not heading and SETEXT_RE.fullmatch(following):
            return line.strip()
        return None

    def _strip_number(self, title):
        # "# 26. Title" (adr-tools), "# ADR-026: Title", "# 23 Logging": the
        # file's own number; a file named without one takes its title's
        # ("# ADR 12: Title"). "# Architecture Decision Record: Title": what
        # every file is.
        title = title.strip()
        lead = TITLE_LEAD_RE.match(title)
        if lead and title[lead.end() :].strip():
            title = title[lead.end() :].strip()
        match = TITLE_NUMBER_RE.match(title)
        if match is None or not title[match.end() :].strip():
            return title
        number = int(match["number"])
        unnamed = self.parsed.number is None and self.parsed.dated is None
        # Only "ADR 12: " or a bare "12. " numbers a file named without one.
        word = (match["word"] or "adr").lower().startswith("adr")
        if unnamed and word and number <= MAX_NUMBER and match[0].strip():
            self.parsed.number = number
        if self.parsed.number == number:
            return title[match.end() :].strip()
        return title

    def _metadata(self, line, number):
        """Take a status or a readable date line; leave anything else."""
        found = META_RE.fullmatch(line)
        if found is None:
            return False
        if found["key"].lower() in STATUS_KEYS:
            value = found["value"].strip(" *_")
            if not value:
                return False
            self._shaped(line)
            self.statuses.append([(value, number)])
            return True
        return self._date_line(found, number)

    def _shaped(self, line):
        bullet = line.lstrip()[:1] in {"*", "-"}
        self.bullets = self.bullets or bullet
        # "Date: …" and "Status: …" lines, as Nygard's records write them.
        self.dated_line = self.dated_line or not bullet

    def _date_line(self, found, number):
        """Take a date line whose date is read whole; a date with more words
        after it is taken and the line kept; an unreadable one is kept."""
        value = found["value"].strip()
        key = " ".join(re.split(r"[-_\s]+", found["key"].lower()))
        date, rest = written_dates.leading_date(value, self.date_order)
        if date is None:
            if written_dates.is_ambiguous(value):
                self.parsed.note(
                    number,
                    f"date {value!r} may be day first or month first, and no "
                    "date of the folder tells which; kept in the text",
                )
            else:
                self.parsed.note(
                    number, f"date {value!r} is not a date; kept in the text"
                )
            return False
        self.add_date(DATE_KEYS.get(key, 2), date)
        if rest:
            self.parsed.note(
                number, f"date {value!r} read as {date.isoformat()}; kept in the text"
            )
            return False
        self._shaped(found[0])
        return True

    def _bare_date(self, line):
        """A line after the title holding only a date ("June 19, 2018")."""
        if self.title_line is None or not line.strip():
            return False
        date = written_dates.read_date(line, self.date_order)
        if date is None:
            return False
        self.add_date(0, date)
        return True

    def body(self):
        kept = list(self.kept)
        while kept and not kept[0].strip():
            kept.pop(0)
        while kept and not kept[-1].strip():
            kept.pop()
        return "\n".join(kept) + "\n" if kept else ""


def _setext(line, lines, index):
    """The level of the setext heading ``line`` is (its next line, at
    ``index``, a line of "=" or "-" under text), or 0."""
    indent = len(line) - len(line.lstrip(" "))
    if index >= len(lines) or not line.strip() or indent > 3:
        return 0
    if (
        LIST_ITEM_RE.match(line)
        or RULE_RE.fullmatch(line)
        or line.lstrip()[:1]
        in {
            ">",
            "|",
            "#",
        }
    ):
        return 0
    found = UNDERLINE_RE.fullmatch(lines[index].rstrip("\r"))
    if found is None:
        return 0
    return 1 if found["first"] else 2


def _text(value):
    if value is None:
        return ""
    if isinstance(value, list):
        return "\n".join(_text(item) for item in value)
    return str(value)


def _plain(value):
    """A front matter value as JSON holds it: dates as ISO text."""
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, datetime.date | datetime.datetime):
        return value.isoformat()
    return value


def read_date(value, order=None):
    """The date ``value`` states, as teams write dates (``written_dates``)."""
    return written_dates.read_date(value, order)


def _pop(front, name):
    """The value of front matter key ``name`` in any case, taken out; or None."""
    for key in list(front):
        if str(key).lower() == name:
            return front.pop(key)
    return None


def _read_front_date(parsed, front, line, key, order):
    value = front.pop(key)
    date = read_date(value, order) if value is not None else None
    if date is None and value not in (None, ""):
        parsed.note(line, f"{key} {_text(value)!r} is not a date; kept as written")
        front[key] = value
    parsed.decided_on = date


def _read_status(parsed, front, body):
    """The status, from the front matter's, else the body's first paragraph
    stating one (``front`` and ``body``: paragraphs of (text, line)); the
    further paragraphs are its history. Every paragraph's relations are
    recorded; a first paragraph stating only relations ("Superseded by …")
    is the status, and the paragraphs after it its history."""
    implied, chosen = _choose_status(parsed, front, body)
    if not chosen:
        parsed.status = implied
        return
    written = " ".join(text for text, _ in chosen)
    line = chosen[0][1]
    parsed.status, exact, date = read_status(written)
    if not parsed.status and implied:
        parsed.status = implied
    if not exact:
        parsed.status_text = written
    if date is not None:
        parsed.decided_on = date
    if not parsed.status:
        parsed.note(
            line,
            f"status {written[:200]!r} is not one of "
            f"{', '.join(sorted(STATUS_WORDS))}; kept as written",
        )
    elif not exact and not place_status(unlinked(written))[1]:
        parsed.note(line, f"status {written[:200]!r} read as {parsed.status}")
    _status_pointers(parsed, written, line)


def _choose_status(parsed, front, body):
    """``(implied, chosen)``: the status the relations imply, and the
    paragraph stating the status, as (text, line) by line (None for none);
    the other paragraphs stating one kept as ``parsed``'s status history,
    every paragraph's relations recorded."""
    implied, chosen, history = "", None, []
    for source in (front, body):
        restated = bool(front) and source is body
        for index, paragraph in enumerate(source):
            if chosen is None and _is_guidance(paragraph):
                # Kept as written in the history; the status is what follows.
                history.append("\n".join(text for text, _ in paragraph))
                continue
            words, superseded = _paragraph_words(parsed, paragraph)
            implied = implied or superseded
            if restated and index == 0:
                # The body's own status, where the front matter states one,
                # is a disagreement noted; its words, where they are others
                # ("Approved" under "accepted"), are kept as history.
                if _other_words(front, paragraph):
                    history.append("\n".join(text for text, _ in paragraph))
                continue
            if chosen is None:
                chosen = words
            elif words:
                history.append("\n".join(text for text, _ in paragraph))
    parsed.status_history = "\n\n".join(history)
    return implied, chosen


def _states_status(paragraphs):
    """Whether the first of a body's status paragraphs states a status or a
    relation."""
    if not paragraphs:
        return False
    written = " ".join(text for text, _ in paragraphs[0])
    return bool(read_status(written)[0] or RELATION_RE.match(status_words(written)))


# A template's words where the status goes: its guidance quoted ("> A
# decision may be…"), a comment, a placeholder in braces ("{proposed |
# accepted | …}"), or the statuses to choose from ("Proposed | Accepted").
PLACEHOLDER_RE = re.compile(r"\{[^{}]*\}")


def _is_guidance(paragraph):
    written = " ".join(text for text, _ in paragraph).strip()
    if PLACEHOLDER_RE.fullmatch(written):
        return True
    choices = [choice for choice in written.split("|") if read_status(choice)[0]]
    if len(choices) > 1:
        return True
    # "> Accepted" is a status, quoted.
    return written.startswith((">", "<!--")) and not read_status(written)[0]


def _paragraph_words(parsed, paragraph):
    """``(words, implied)``: a status paragraph's clauses that are no
    relation, as (text, line) by line, and the status its relations imply
    (superseded, for a "superseded by"), recording its relations."""
    words, implied = [], ""
    for text, line in paragraph:
        found = []
        for clause in filter(None, map(str.strip, CLAUSE_RE.split(text))):
            relation = _relation(parsed, clause, line)
            if relation is None:
                found.append(clause)
            elif relation == (Kind.SUPERSEDES, True):
                implied = DecisionStatus.SUPERSEDED
        if found:
            words.append(("; ".join(found), line))
    return words, implied


def _status_pointers(parsed, written, line):
    """A status's own pointers to other records ("Rejected (see 019)",
    "Accepted, see [ADR-12](0012-x.md)"): each a relation to it."""
    stated = {relation.ref for relation in parsed.relations}
    refs = references(written) + [
        int(match["number"]) for match in SEE_RE.finditer(unlinked(written))
    ]
    for ref in dict.fromkeys(refs):
        if ref not in stated:
            parsed.relations.append(RelationRef(Kind.RELATES_TO, False, ref, line))


def unlinked(text):
    return LINKED_WORD_RE.sub(lambda match: match["text"], text)


# What a status may open with besides its word: emoji, symbols, a box, a
# bracket left open (``[accepted``, a YAML list its writer never closed).
STATUS_LEAD_RE = re.compile(r"(?:\[[ xX]?\]|[^\w(]|_)+")
STATUS_PHRASES = sorted([*STATUS_WORDS, *STATUS_SYNONYMS], key=len, reverse=True)
STATUS_PHRASE_RE = re.compile(
    r"(?P<word>" + "|".join(map(re.escape, STATUS_PHRASES)) + r")(?![\w-])", re.I
)
# Words that may lead a status's date: "Accepted on 2020-01-01", "since …".
DATE_LEAD_RE = re.compile(r"[\s,;:()\[\]–—-]*(?:(?:on|since|as of|at|in|from)\s+)?")
EMPHASIS_RE = re.compile(r"\*+|`+|(?<!\w)_+|_+(?!\w)")


def status_words(written):
    """A status as its words: links as their text, emphasis and any leading
    emoji or symbols gone, spaces made one."""
    text = EMPHASIS_RE.sub("", unlinked(written))
    text = re.sub(r"\s+", " ", text).strip()
    lead = STATUS_LEAD_RE.match(text)
    return text[lead.end() :] if lead else text


def read_status(written):
    """``(status, exact, date)``: the status ``written`` says ("" if none of
    ours), whether it says it in our own word alone, and a date it states
    ("Accepted on 2020-01-01"), or None."""
    words = status_words(written)
    found = STATUS_PHRASE_RE.match(words)
    if found is None:
        relation = RELATION_RE.match(words)
        if relation is not None and RELATION_WORDS[relation["words"].lower()] == (
            Kind.SUPERSEDES,
            True,
        ):
            return DecisionStatus.SUPERSEDED, False, None
        return "", False, None
    word = found["word"].lower()
    status = word if word in STATUS_WORDS else STATUS_SYNONYMS[word]
    rest = words[found.end() :]
    lead = DATE_LEAD_RE.match(rest)
    date, _ = written_dates.leading_date(rest[lead.end() :]) if rest else (None, "")
    exact = written.strip(" .").lower() == status
    return status, exact, date


def place_status(written):
    """``(status, exact)``: the status ``written`` says ("" if none of ours),
    and whether it says it in our own word."""
    status, exact, _ = read_status(written)
    return status, exact


def _relation(parsed, clause, line):
    """Record the relation ``clause`` states; its (kind, inverse), or None."""
    refs = references(clause)
    words = status_words(clause)
    match = RELATION_RE.fullmatch(words)
    if match is not None:
        kind, inverse = RELATION_WORDS[match["words"].lower()]
        if not refs:
            if not match["rest"]:
                return None  # "Supersedes" alone names nothing: a word.
            parsed.note(line, f"{clause[:200]!r} names no record; left out")
            return None
    elif refs and (other := OTHER_RELATION_RE.fullmatch(clause)):
        if STATUS_PHRASE_RE.match(words):
            return None  # "Rejected [see 019](…)": a status naming a record.
        kind, inverse = Kind.RELATES_TO, False
        parsed.note(line, f"{other['words']!r} read as relates to")
    else:
        return None
    for ref in refs:
        parsed.relations.append(RelationRef(kind, inverse, ref, line))
    return kind, inverse


def references(text):
    """The records ``text`` names: file names (from links or as written) and
    numbers (``ADR-0045``), in order, once each."""
    found = []
    for match in LINK_RE.finditer(text):
        name, _ = linked_file(match["href"])
        if name is not None:
            found.append(name)
    for match in FILE_NAME_RE.finditer(LINK_RE.sub("", text)):
        found.append(match["name"])
    if not found:
        found.extend(int(match["number"]) for match in ADR_NAME_RE.finditer(text))
    return list(dict.fromkeys(found))


def _read_front_relations(parsed, front, lines):
    for key in list(front):
        normal = str(key).strip().lower().replace("_", "-").replace(" ", "-")
        if normal not in RELATION_KEYS:
            continue
        kind, inverse = RELATION_KEYS[normal]
        value = front.pop(key)
        items = value if isinstance(value, list) else [value]
        for item in items:
            refs = [item] if isinstance(item, int) else references(_text(item))
            refs = refs or ([_text(item)] if _text(item).endswith(".md") else [])
            for ref in refs:
                parsed.relations.append(
                    RelationRef(kind, inverse, ref, lines.get(normal, 1))
                )


def is_template_or_index(text):
    """Whether ``text`` is a template (a placeholder title) or an index (a
    title over nothing but a list of links to records)."""
    lines = [line.strip() for line in _lines(text) if line.strip()]
    if any(TEMPLATE_TITLE_RE.fullmatch(line) for line in lines[:20]):
        return True
    titles = [index for index, line in enumerate(lines) if line.startswith("# ")]
    if not titles:
        return False
    items = lines[titles[0] + 1 :]
    return bool(items) and all(
        re.fullmatch(r"[*-]\s+\[.*\]\([^)]*\.md\)", item) for item in items
    )


def image_sources(body):
    """The ``src`` of every image ``body`` shows, in order."""
    # An image's Markdown opens with "![": a body without one shows none,
    # and is not parsed again.
    if "![" not in body:
        return []
    sources = []
    for token in _images_parser.parse(body):
        for child in token.children or ():
            if child.type == "image":
                sources.append(child.attrGet("src"))
    return sources


def image_type(name, data):
    """The content type of an image we serve, or None."""
    kind = filetype.guess(data)
    if kind is not None and kind.mime in IMAGE_TYPES:
        return kind.mime
    if name.lower().endswith(".svg"):
        head = data[:4096].decode("utf-8", errors="replace")
        if SVG_RE.search(head):
            return "image/svg+xml"
    return None


def read_text(path, name=None):
    """``(text, note)``: the file's text (UTF-8, a byte-order mark dropped;
    else read as Windows-1252, noted), or ``(None, note)`` for a file that
    is not text (it holds a NUL byte) or cannot be read."""
    name = name or path.name
    try:
        data = path.read_bytes()
    except OSError as error:
        return None, Problem(
            0, f"left out: cannot be read: {error.strerror}", file=name
        )
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        return None, Problem(
            line, "left out: not text (it holds a NUL byte)", file=name
        )
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        return data.decode("cp1252", errors="replace"), Problem(
            line,
            f"is not UTF-8 (byte 0x{data[error.start]:02x}); read as Windows-1252",
            file=name,
        )


def _read_images(parsed, root):
    """The images the body shows, each from beside the file (its ``name``'s
    folder) within the decision folder ``root``: one outside it, through
    ``..`` or a link, is not read."""
    beside = posixpath.dirname(parsed.name) or "."
    for src in image_sources(parsed.body):
        name = image_name(src)
        if name is None or name in parsed.images:
            continue
        try:
            path = within(root, beside, name)
        except OutsideFolder:
            path = None
        if path is None or not path.is_file():
            parsed.note(0, f"image {src!r} is not in the folder; left out")
            continue
        data = path.read_bytes()
        content_type = image_type(name, data)
        if len(data) > MAX_IMAGE_BYTES:
            parsed.note(0, f"image {src!r} is over 5 MB; left out")
        elif content_type is None:
            parsed.note(
                0, f"image {src!r} is not a PNG, JPEG, GIF, WebP or SVG; left out"
            )
        else:
            parsed.images[name] = (data, content_type)


# The headings of a record's sections, which title no record.
SECTION_HEADING_RE = re.compile(
    r"[*_]{0,2}(?:status|context|decision|consequences|summary|background|problem"
    r"|overview|introduction|motivation|proposal|considered options|date|abstract"
    r"|contexte|conséquences|change\s?log)\b",
    re.I,
)
# A file named without a number is a decision when it reads as one: a
# status, or a section a decision record has (in English or French).
DECISION_SHAPE_RE = re.compile(
    r"^(?:[*-]\s+)?[*_]{0,2}statu[st][*_]{0,2}\s*:|^#{1,6}\s+(?:\d{1,3}\.\s+)?[*_]{0,2}"
    r"(?:statu[st]|context[e]?|decisions?|décision|decision outcome|consequences"
    r"|conséquences|considered options|options envisagées)(?![\w-])"
    # A title naming itself one: "# Architecture Decision Record: …", "# ADR 12: …".
    r"|^#{1,6}\s+(?:(?:architecture\s+)?decision\s+record|ADR)\b",
    re.I | re.M,
)
# Folders of a repository that hold no team's records.
SKIPPED_FOLDERS = {"node_modules", "__macosx"}


def _markdown_files(folder, skip, notes):
    """Every ``.md`` file under ``folder``, its sub-folders (by year, by area)
    included, as ``(path, name)`` with ``name`` its path within ``folder``;
    hidden folders, ``skip`` (names within ``folder``) and a repository's
    tool folders left out, and a link leading outside ``folder`` left out
    with a note in ``notes``. In name order."""
    found = []
    for path in folder.rglob("*"):
        name = path.relative_to(folder).as_posix()
        parts = name.split("/")
        if any(
            part.startswith(".") or part.lower() in SKIPPED_FOLDERS for part in parts
        ):
            continue
        if any(name == place or name.startswith(f"{place}/") for place in skip):
            continue
        if path.suffix.lower() == ".md" and (path.is_file() or path.is_symlink()):
            if not is_within(folder, name):
                # A link to a file elsewhere on the host is not the folder's.
                notes.append(
                    Problem(
                        0, "left out: a link to a file outside the folder", file=name
                    )
                )
                continue
            found.append((path, name))
    return sorted(found, key=lambda item: item[1])


def parse_folder(folder, *, skip=(), shown=None):
    """``(decisions, problems, notes)`` for every decision file of ``folder``
    and of its sub-folders (but ``skip``, names of sub-folders); a problem
    of the whole folder names it as ``shown`` (its own name, unless told).

    The only problem is a folder in which no file reads as a decision; a
    file that is not text is left out, with a note, as are templates and
    indexes. Dates whose day and month their digits leave open are read in
    the order the folder's other dates show (``written_dates.slashed_order``).
    """
    folder = Path(folder)
    notes = []
    texts = _decision_texts(folder, skip, notes)
    order = written_dates.slashed_order(
        said
        for _, _, text in texts
        for line in text.split("\n")
        if (said := _dated(line))
    )
    decisions = _parse_decisions(texts, order, folder.resolve(), notes)
    problems = []
    if not decisions:
        problems.append(
            Problem(
                0,
                f"holds no decision file: looked for {DECISION_NAMES}",
                file=shown or folder.name or str(folder),
            )
        )
    return decisions, problems, notes


def _decision_texts(folder, skip, notes):
    """``(path, name, text)`` of each file of ``folder`` (but ``skip``'s
    sub-folders) that reads as a decision; what is left out, with why, noted
    in ``notes``."""
    texts = []
    files = _markdown_files(folder, skip, notes)
    # Sub-folders holding other files than their own page (README.md,
    # index.md): areas or years of records, whose page is an index.
    grouping = {
        posixpath.dirname(name)
        for _, name in files
        if not INDEX_NAME_RE.fullmatch(posixpath.basename(name))
    }
    seen = {}
    for path, name in files:
        own_page = "/" in name and posixpath.dirname(name) not in grouping
        numbered = name_parts(name) is not None
        if not _named_as_decision(name, own_page, numbered, notes):
            continue
        text, note = read_text(path, name)
        if own_page and text is not None:
            # A folder's README.md and index.md holding one text are one page.
            twin = seen.setdefault((posixpath.dirname(name), text), name)
            if twin != name:
                notes.append(
                    Problem(0, f"left out: the same text as {twin}", file=name)
                )
                continue
        if note is not None:
            notes.append(note)
        if text is None:
            continue
        left_out = _not_a_decision(text, numbered)
        if left_out:
            notes.append(Problem(0, left_out, file=name))
            continue
        texts.append((path, name, text))
    return texts


def _named_as_decision(name, own_page, numbered, notes):
    """Whether the file ``name`` may be a decision by its name: not an index
    of the folder or of an area's sub-folder, not a numbered template (noted
    in ``notes``), not an index or template's name unless numbered or a
    sub-folder's own page."""
    base = posixpath.basename(name)
    if INDEX_NAME_RE.fullmatch(base) and not own_page:
        return False
    if numbered and NUMBERED_TEMPLATE_RE.fullmatch(decision_name(name)):
        notes.append(Problem(0, "left out: a template or an index", file=name))
        return False
    return numbered or own_page or not NOT_DECISION_RE.fullmatch(base)


def _not_a_decision(text, numbered):
    """Why a file's ``text`` is left out (a template or an index; not named
    as a decision and saying nothing of one), or "" where it is kept."""
    if is_template_or_index(text):
        return "left out: a template or an index"
    if not numbered and not DECISION_SHAPE_RE.search(_unfenced(text)):
        return (
            "left out: not named as a decision (NNNN-title.md) and "
            "stating no status, context or decision"
        )
    return ""


def _parse_decisions(texts, order, root, notes):
    """Each of ``texts`` parsed, its dates read in ``order``, its images
    from ``root``; files of one number each a record, in name order."""
    decisions, claimed = [], {}
    for _, name, text in texts:
        parsed = parse_decision(name, text, date_order=order)
        if parsed.number is not None and parsed.number in claimed:
            # Files of one number (written on parallel branches, or in two
            # areas' sub-folders) are each a record, in file name order:
            # ADR-064, ADR-064 (2).
            parsed.twin = len(claimed[parsed.number]) + 1
            parsed.note(
                0,
                f"number {parsed.number} is also "
                f"{', '.join(claimed[parsed.number][:3])}'s: a record of its own, "
                f"the number's {_ordinal(parsed.twin)}",
            )
        claimed.setdefault(parsed.number, []).append(name)
        _read_images(parsed, root)
        notes.extend(parsed.notes)
        decisions.append(parsed)
    return decisions


def _unfenced(text):
    """``text`` without its fenced code: an example's "status: proposed" in
    a tool's README says nothing of the file."""
    kept, fenced = [], False
    for line in text.split("\n"):
        if FENCE_RE.match(line):
            fenced = not fenced
        elif not fenced:
            kept.append(line)
    return "\n".join(kept)


def _dated(line):
    """What a line says that may be a date, as evidence of how the folder
    writes its dates: a date line's value, or a list entry's opening date
    (a changelog's "- 14.11.2022: Initial draft")."""
    found = META_RE.fullmatch(line)
    if found is not None:
        return found["value"]
    entry = LIST_ITEM_RE.match(line)
    opening = written_dates.LEADING_RE.match(line[entry.end() if entry else 0 :])
    return opening and opening["date"]


def _settle(parsed, text):
    """Keep what the record's fields cannot hold on the record, noted: a
    title over its length ends the body's first line, whole; a status as
    written over its length is its history's first paragraph; a character no
    text of the record may hold (a NUL, a control character, a noncharacter)
    is U+FFFD, noted at the first line of ``text`` (the file) that holds it;
    a body over the length Markdown is rendered to is shown as text."""
    for name in ("title", "status_text", "status_history", "body", "metadata"):
        value = getattr(parsed, name)
        if character := unsafe_character(value):
            setattr(parsed, name, replaced(value))
            # Front matter may spell it as an escape (YAML's "\0"): then the
            # file as a whole is named.
            at = text.find(character)
            line = text.count("\n", 0, at) + 1 if at >= 0 else 0
            parsed.note(line, f"{name}: {describe(character)} is kept as U+FFFD")
    if len(parsed.title) > TITLE_MAX_LENGTH:
        whole = parsed.title
        parsed.title = _shortened(whole, TITLE_MAX_LENGTH)
        parsed.body = f"{whole}\n\n{parsed.body}" if parsed.body else f"{whole}\n"
        parsed.note(
            1,
            f"the title is over {TITLE_MAX_LENGTH} characters: shortened, and "
            "kept whole as the body's first paragraph",
        )
    if len(parsed.status_text) > STATUS_TEXT_MAX_LENGTH:
        whole = parsed.status_text
        parsed.status_text = _shortened(whole, STATUS_TEXT_MAX_LENGTH)
        parsed.status_history = "\n\n".join(
            filter(None, [whole, parsed.status_history])
        )
        parsed.note(
            0,
            f"the status is over {STATUS_TEXT_MAX_LENGTH} characters: shortened, "
            "and kept whole as its history's first paragraph",
        )
    for name in ("body", "status_history"):
        if len(getattr(parsed, name)) > MARKDOWN_MAX_CHARACTERS:
            parsed.note(
                0,
                f"{name}: over {MARKDOWN_MAX_CHARACTERS:,} characters; kept, and "
                "shown as text, not Markdown",
            )


def _shortened(text, limit):
    """``text`` cut at a word within ``limit`` characters, ending "…"."""
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"


def _ordinal(number):
    return {2: "second", 3: "third"}.get(number, f"{number}th")


def format_decision(decision, relations, shape="madr", name=""):
    """A decision record as a file of ``shape`` (a DecisionFormat value):

    - MADR 3 and 4: front matter (status as written, date, the other facts its
      file stated, ``relations``), the title, the body;
    - MADR 2: the title, ``* Status:`` and ``* Date:`` bullets, the body;
    - adr-tools: ``# 26. Title``, ``Date:``, a ``## Status`` section, the body.

    In MADR 2 and adr-tools the front matter holds only what their shape
    cannot say (other facts, relations), so a re-import reads the same record.
    ``relations`` is ``{front matter key: [file names]}``; ``name`` is the
    file's, whose number an adr-tools title repeats.
    """
    status = decision.status_text or decision.status
    in_front = shape == "madr"
    head = _front_matter_head(decision, relations, shape, status)
    if in_front:
        return f"{head}# {decision.title}\n{_after(decision.body)}"
    date = decision.decided_on.isoformat() if decision.decided_on else ""
    if shape == DecisionFormat.MADR2:
        bullets = [
            f"* Status: {status}" if status else "",
            f"* Date: {date}" if date else "",
        ]
        lines = "\n".join(filter(None, bullets))
        lines = f"\n{lines}\n" if lines else ""
        return f"{head}# {decision.title}\n{lines}{_after(decision.body)}"
    return (
        f"{head}{_adr_tools_head(decision, status, date, name)}{_after(decision.body)}"
    )


def _front_matter_head(decision, relations, shape, status):
    """The front matter ``format_decision`` writes, or "" for none."""
    # An unreadable date was kept as written among the other facts.
    front = {}
    in_front = shape == "madr"
    if status and in_front:
        front["status"] = status
    date = decision.decided_on or decision.metadata.get("date")
    if date is not None and (in_front or not decision.decided_on):
        front["date"] = date
    front.update(
        (key, value) for key, value in decision.metadata.items() if key != "date"
    )
    front.update(relations)
    history = decision.status_history
    # adr-tools keeps the history in its status section; other shapes in the
    # front matter.
    in_section = (
        shape == DecisionFormat.ADR_TOOLS and decision.body.startswith("#") and status
    )
    if history and not in_section:
        front["status-history"] = history
    head = ""
    if front:
        dumped = yaml.safe_dump(
            front, allow_unicode=True, sort_keys=False, default_flow_style=False
        )
        head = f"---\n{dumped}---\n"
    return head


def _after(body):
    return f"\n{body}" if body else ""


def _adr_tools_head(decision, status, date, name):
    numbered = (name_parts(name) or {}).get("number") == decision.number
    title = f"{decision.number}. {decision.title}" if numbered else decision.title
    head = f"# {title}\n"
    if date:
        head += f"\nDate: {date}\n"
    if not status:
        return head
    if decision.body.startswith("#"):
        history = f"\n{decision.status_history}\n" if decision.status_history else ""
        return f"{head}\n## Status\n\n{status}\n{history}"
    # A body that opens with text would be read as the status section's.
    return f"{head}\nStatus: {status}\n"

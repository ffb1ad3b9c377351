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
import re
from dataclasses import dataclass, field
from pathlib import Path

import filetype
import yaml
from markdown_it import MarkdownIt

from catalogue.markdown import image_name, linked_file
from catalogue.models import DecisionFormat, DecisionRelationKind, DecisionStatus
from formats import safe_yaml
from formats.problems import Problem

# "0026-title.md", and "adr-026-title.md" / "ADR-026-title.md" as some teams
# name them.
NUMBERED_RE = re.compile(r"(?:adr-)?(?P<number>\d+)-[^/]*\.md", re.I)
# What a folder's decision files are named, for the message when none is.
DECISION_NAMES = (
    "NNNN-title.md (0001-use-markdown.md), adr-NNN-title.md or ADR-NNN-title.md "
    "(adr-001-use-adrs.md), or YYYYMMDD-title.md (20200925-use-prettier.md)"
)
# "# Architecture Decision Record: Module Structure": the words say what every
# file of the folder is, not its title.
TITLE_LEAD_RE = re.compile(r"(?:architecture\s+decision\s+record|ADR)\s*:\s+", re.I)
# Files of a decision folder that are not decisions: indexes, templates.
NOT_DECISION_RE = re.compile(
    r"(readme|index|toc|template|.*[-_]template|adr-template.*|template[-_].*)\.md",
    re.I,
)
# A template's title is a placeholder: "# NUMBER. TITLE", "# {short title …}".
TEMPLATE_TITLE_RE = re.compile(r"#\s+(?:NUMBER\.\s+TITLE|\{[^{}]*\}|\[[^\[\]]*\])\s*")
ATX_RE = re.compile(r"(?P<marks>#{1,6})(?:\s+(?P<text>.*?))?(?:\s+#+)?\s*")
TITLE_NUMBER_RE = re.compile(
    r"(?:ADR[-\s]?)?0*(?P<number>\d+)(?:\.\s+|\s*[:–—-]\s+)", re.I
)
SETEXT_RE = re.compile(r"=+\s*")
FENCE_RE = re.compile(r"\s{0,3}(```|~~~)")
# A metadata line: "Date: …", "* Status: …", "- **Status:** …".
META_RE = re.compile(
    r"\s*(?:[*-]\s+)?(?:\*\*)?(?P<key>status|date)(?:\*\*)?\s*:\s*(?:\*\*)?\s*"
    r"(?P<value>.*?)\s*",
    re.I,
)
STATUS_HEADING_RE = re.compile(r"#{2,6}\s+status\s*:?\s*", re.I)
LINK_RE = re.compile(r"\]\((?P<href>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
ADR_NAME_RE = re.compile(r"\bADR[-\s]?0*(?P<number>\d+)\b", re.I)
FILE_NAME_RE = re.compile(r"\b(?P<name>(?:adr-)?\d+-[\w.-]*\.md)\b", re.I)
LINKED_WORD_RE = re.compile(r"\[(?P<text>[^\]]+)\]\([^)]*\)")

Kind = DecisionRelationKind
# Each relation, (kind, whether this file is the record it points at), by its
# words: first as we write them, then as teams also spell them.
RELATION_SPELLINGS = {
    (Kind.SUPERSEDES, False): ["supersedes", "supercedes", "replaces"],
    (Kind.SUPERSEDES, True): ["superseded by", "superceded by", "replaced by"],
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
            "decided_on": self.decided_on,
            "metadata": self.metadata,
            "body": self.body,
        }


def name_parts(name):
    """``{"number": n}`` or ``{"dated": date}`` from a decision file's name, or
    None for a name no decision has."""
    match = NUMBERED_RE.fullmatch(name)
    if match is None:
        return None
    digits = match["number"]
    if len(digits) == 8:
        try:
            return {"dated": datetime.datetime.strptime(digits, "%Y%m%d").date()}
        except ValueError:
            pass
    return {"number": int(digits)}


def _lines(text):
    return [line.rstrip("\r") for line in text.split("\n")]


def parse_decision(name, text):
    """A ParsedDecision for the file ``name`` holding ``text``, and the problems
    that refuse it.

    Where front matter and the body both state the title, the date or the
    status (YAML above an adr-tools body), the front matter's is taken, with
    a note where they disagree.
    """
    parsed = ParsedDecision(name=name, **(name_parts(name) or {}))
    lines = text.split("\n")
    problems = []
    front, start = _front_matter(parsed, lines, problems)
    reader = _Reader(parsed, lines, start)
    reader.read()
    _read_front_title(parsed, front, reader)
    if not parsed.title:
        problems.append(parsed.problem(1, "no title line (# Title)"))
    written = _pop(front, "status")
    front_status = (
        [] if written is None else [(_text(written), reader.front_lines["status"])]
    )
    _read_status(parsed, [front_status, reader.statuses], reader.status_section)
    _note_disagreement(parsed, "status", front_status, reader.statuses)
    _read_date(parsed, front, reader)
    _read_front_relations(parsed, front, reader.front_lines)
    parsed.shape = _shape(front, reader)
    parsed.metadata = {key: _plain(value) for key, value in front.items()}
    parsed.body = reader.body()
    return parsed, problems


def _read_front_title(parsed, front, reader):
    """The front matter's ``title`` over the heading's, noted where they differ."""
    written = _pop(front, "title")
    if written is None or not _text(written).strip():
        return
    title = " ".join(_text(written).split())
    if reader.title_line is not None and parsed.title != title:
        parsed.note(
            reader.front_lines.get("title", 1),
            f"the front matter's title {title!r} is taken; the heading says "
            f"{parsed.title!r}",
        )
    parsed.title = title


def _read_date(parsed, front, reader):
    # MADR writes ``date``; some teams' front matter says ``created``.
    key = next((name for name in ("date", "created") if _has(front, name)), None)
    if key is not None:
        _read_front_date(parsed, front, reader.front_lines.get(key, 1), key)
        if reader.date is not None and parsed.decided_on not in (None, reader.date):
            parsed.note(
                reader.front_lines.get(key, 1),
                f"the front matter's date {parsed.decided_on.isoformat()} is taken; "
                f"the body says {reader.date.isoformat()}",
            )
    elif reader.date is not None:
        parsed.decided_on = reader.date
    elif parsed.dated is not None:
        parsed.decided_on = parsed.dated


def _has(front, name):
    return any(str(key).lower() == name for key in front)


def _note_disagreement(parsed, what, front_said, body_said):
    if not front_said or not body_said:
        return
    front_word = place_status(front_said[0][0])[0] or front_said[0][0].strip()
    body_word = place_status(body_said[0][0])[0] or body_said[0][0].strip()
    if front_word.lower() != body_word.lower():
        parsed.note(
            front_said[0][1],
            f"the front matter's {what} {front_said[0][0]!r} is taken; the body "
            f"says {body_said[0][0]!r}",
        )


def _shape(front, reader):
    """The DecisionFormat value of the file's shape."""
    if reader.status_section or reader.dated_line:
        return DecisionFormat.ADR_TOOLS
    if reader.bullets:
        return DecisionFormat.MADR2
    return DecisionFormat.MADR


def _front_matter(parsed, lines, problems):
    """The front matter's mapping and the index of the line after it."""
    if not lines or lines[0].rstrip("\r") != "---":
        return {}, 0
    for end in range(1, len(lines)):
        if lines[end].rstrip("\r") in {"---", "..."}:
            break
    else:
        problems.append(parsed.problem(1, "the front matter (---) is never closed"))
        return {}, len(lines)
    written = [line.rstrip("\r") for line in lines[1:end]]
    try:
        front = load_front_matter("\n".join(written)) or {}
    except safe_yaml.YAMLRefused as error:
        problems.append(
            parsed.problem(error.line + 1, f"the front matter is not YAML: {error}")
        )
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
    convention) read line by line for what it says (``key:value``), and kept
    as written beside it."""
    read = {}
    for line in written:
        key, colon, value = line.partition(":")
        if colon and key.strip() and value.strip():
            read.setdefault(key.strip(), []).append(value.strip())
    said = {
        key: values[0] if len(values) == 1 else values for key, values in read.items()
    }
    what = "; ".join(f"{key} {_text(value)!r}" for key, value in said.items())
    parsed.note(
        2,
        "the front matter is not a mapping (key: value); "
        + (f"read as {what}, and " if what else "")
        + "kept as written",
    )
    return {**said, FRONT_MATTER_AS_WRITTEN: "\n".join(written)}


class _Reader:
    """Reads the lines after any front matter: the title, metadata lines before
    the first heading, a ``## Status`` section, and the body (the rest)."""

    def __init__(self, parsed, lines, start):
        self.parsed = parsed
        self.lines = lines
        self.start = start
        self.title_line = None
        self.statuses = []  # (text, line)
        self.status_section = False
        self.date = None
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

    def read(self):
        fenced, section, before_heading = False, None, True
        lines = self.lines
        index = self.start
        while index < len(lines):
            line, number = lines[index].rstrip("\r"), index + 1
            index += 1
            if FENCE_RE.match(line):
                fenced = not fenced
            heading = None if fenced else ATX_RE.fullmatch(line)
            if self.title_line is None and not fenced:
                title = self._title(heading, line, lines, index)
                if title is not None:
                    self.title_line = number
                    self.parsed.title = self._strip_number(title)
                    index += 0 if heading else 1
                    self.removed = True
                    continue
            if heading:
                before_heading = False
                section = None
                if STATUS_HEADING_RE.fullmatch(line):
                    section, self.status_section = len(heading["marks"]), True
                    self.removed = True
                    continue
            if section is not None:
                if line.strip():
                    self.statuses.append((line.strip(), number))
                continue
            if before_heading and not fenced and self._metadata(line, number):
                self.removed = True
                continue
            self._keep(lines[index - 1])

    def _keep(self, line):
        # Where a line was taken out, the blank lines on both sides become one.
        blank = not line.strip()
        if blank and self.removed and self.kept and not self.kept[-1].strip():
            return
        self.removed = self.removed and blank
        self.kept.append(line)

    def _title(self, heading, line, lines, index):
        if heading and len(heading["marks"]) == 1 and heading["text"]:
            return heading["text"]
        following = lines[index].rstrip("\r") if index < len(lines) else ""
        if line.strip() and not heading and SETEXT_RE.fullmatch(following):
            return line.strip()
        return None

    def _strip_number(self, title):
        # "# 26. Title" (adr-tools), "# ADR-026: Title": the file's own number;
        # "# Architecture Decision Record: Title": what every file is.
        title = title.strip()
        lead = TITLE_LEAD_RE.match(title)
        if lead and title[lead.end() :].strip():
            title = title[lead.end() :].strip()
        match = TITLE_NUMBER_RE.match(title)
        if (
            match
            and self.parsed.number == int(match["number"])
            and title[match.end() :]
        ):
            return title[match.end() :]
        return title

    def _metadata(self, line, number):
        """Take a status or a readable date line; leave anything else."""
        found = META_RE.fullmatch(line)
        if found is None:
            return False
        bullet = line.lstrip()[:1] in {"*", "-"}
        self.bullets = self.bullets or bullet
        # "Date: …" and "Status: …" lines, as Nygard's records write them.
        self.dated_line = self.dated_line or not bullet
        if found["key"].lower() == "status":
            self.statuses.append((found["value"], number))
            return True
        date = read_date(found["value"])
        if date is None:
            self.parsed.note(
                number, f"date {found['value']!r} is not a date; kept in the text"
            )
            return False
        self.date = date
        return True

    def body(self):
        kept = list(self.kept)
        while kept and not kept[0].strip():
            kept.pop(0)
        while kept and not kept[-1].strip():
            kept.pop()
        return "\n".join(kept) + "\n" if kept else ""


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


def read_date(value):
    """The date ``value`` states (a date, a date-time, ISO text), or None."""
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    text = str(value).strip()
    for parse in (datetime.date.fromisoformat, datetime.datetime.fromisoformat):
        try:
            result = parse(text)
        except ValueError:
            continue
        return result if type(result) is datetime.date else result.date()
    return None


def _pop(front, name):
    """The value of front matter key ``name`` in any case, taken out; or None."""
    for key in list(front):
        if str(key).lower() == name:
            return front.pop(key)
    return None


def _read_front_date(parsed, front, line, key="date"):
    value = _pop(front, key)
    date = read_date(value) if value is not None else None
    if date is None and value not in (None, ""):
        parsed.note(line, f"{key} {_text(value)!r} is not a date; kept as written")
        front[key] = value
    parsed.decided_on = date


def _read_status(parsed, sources, in_section):
    """The status, from the first of ``sources`` (lists of (text, line)) that
    states one, and the relations every source's lines state."""
    words, implied = [], ""
    for source in sources:
        found = []
        for text, line in source:
            for clause in filter(None, map(str.strip, CLAUSE_RE.split(text))):
                relation = _relation(parsed, clause, line, in_section)
                if relation is None:
                    found.append((clause, line))
                elif relation == (Kind.SUPERSEDES, True):
                    implied = DecisionStatus.SUPERSEDED
        words = words or found
    if not words:
        parsed.status = implied
        return
    # The first clause says the status; any further ones are kept with it.
    written = "; ".join(clause for clause, _ in words)
    parsed.status, exact = place_status(words[0][0])
    if not exact or len(words) > 1:
        parsed.status_text = written
    line = words[0][1]
    if not parsed.status:
        parsed.note(
            line,
            f"status {written!r} is not one of {', '.join(sorted(STATUS_WORDS))}; "
            "kept as written",
        )
    elif not place_status(unlinked(written))[1]:
        parsed.note(line, f"status {written!r} read as {parsed.status}")


def unlinked(text):
    return LINKED_WORD_RE.sub(lambda match: match["text"], text)


def place_status(written):
    """``(status, exact)``: the status ``written`` says ("" if none of ours),
    and whether it says it in our own word."""
    word = re.sub(r"\s+", " ", unlinked(written)).strip(" .!,:").lower()
    if word in STATUS_WORDS:
        return word, written.strip(" .").lower() == word
    return STATUS_SYNONYMS.get(word, ""), False


def _relation(parsed, clause, line, in_section):
    """Record the relation ``clause`` states; its (kind, inverse), or None."""
    refs = references(clause)
    match = RELATION_RE.fullmatch(clause)
    if match is not None:
        kind, inverse = RELATION_WORDS[match["words"].lower()]
        if not refs:
            if not match["rest"]:
                return None  # "Supersedes" alone names nothing: a word.
            parsed.note(line, f"{clause!r} names no record; left out")
    elif in_section and refs and (other := OTHER_RELATION_RE.fullmatch(clause)):
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


def read_text(path):
    """``(text, problem)``: the file's UTF-8 text (a byte-order mark dropped),
    or the problem that makes it unreadable."""
    try:
        data = path.read_bytes()
    except OSError as error:
        return None, Problem(0, f"cannot be read: {error.strerror}", file=path.name)
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        return None, Problem(line, "is not text (it holds a NUL byte)", file=path.name)
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        return None, Problem(
            line,
            f"is not UTF-8 (byte 0x{data[error.start]:02x}); save it as UTF-8",
            file=path.name,
        )


def _read_images(parsed, folder):
    root = folder.resolve()
    for src in image_sources(parsed.body):
        name = image_name(src)
        if name is None or name in parsed.images:
            continue
        path = (folder / name).resolve()
        if not path.is_relative_to(root) or not path.is_file():
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


def parse_folder(folder):
    """``(decisions, problems, notes)`` for every decision file of ``folder``."""
    folder = Path(folder)
    decisions, problems, notes = [], [], []
    claimed = {}
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() != ".md" or path.is_dir():
            continue
        if name_parts(path.name) is None:
            if not NOT_DECISION_RE.fullmatch(path.name):
                notes.append(
                    Problem(0, "left out: not named NNNN-title.md", file=path.name)
                )
            continue
        text, problem = read_text(path)
        if problem is not None:
            problems.append(problem)
            continue
        if is_template_or_index(text):
            notes.append(Problem(0, "left out: a template or an index", file=path.name))
            continue
        parsed, found = parse_decision(path.name, text)
        problems.extend(found)
        if parsed.number is not None and parsed.number in claimed:
            # Files of one number (written on parallel branches) are each a
            # record, in file name order: ADR-064, ADR-064 (2).
            parsed.twin = len(claimed[parsed.number]) + 1
            parsed.note(
                0,
                f"number {parsed.number} is also "
                f"{', '.join(claimed[parsed.number])}'s: a record of its own, "
                f"the number's {_ordinal(parsed.twin)}",
            )
        claimed.setdefault(parsed.number, []).append(path.name)
        _read_images(parsed, folder)
        notes.extend(parsed.notes)
        decisions.append(parsed)
    if not decisions and not problems:
        problems.append(
            Problem(
                0,
                f"holds no decision file: looked for {DECISION_NAMES}",
                file=folder.name or str(folder),
            )
        )
    return decisions, problems, notes


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
    head = ""
    if front:
        dumped = yaml.safe_dump(
            front, allow_unicode=True, sort_keys=False, default_flow_style=False
        )
        head = f"---\n{dumped}---\n"
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
        return f"{head}\n## Status\n\n{status}\n"
    # A body that opens with text would be read as the status section's.
    return f"{head}\nStatus: {status}\n"

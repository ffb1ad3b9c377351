"""Decision records in the Markdown that ADR tools write.

One file per decision, named ``0026-some-title.md``. Three shapes are read:

- adr-tools (Nygard): ``# 26. Title``, ``Date: 2024-03-01``, a ``## Status``
  section ("Accepted", "Superseded by [61. …](0061-….md)");
- MADR 2: ``# Title`` then ``* Status: accepted`` and ``* Date: 2024-03-01``;
- MADR 3 and 4: YAML front matter with ``status:`` and ``date:``.

The body is the rest (context, decision, consequences), kept as written.
Parsing is pure: problems are returned by file and line, nothing is written.
"""

import datetime
import re
from dataclasses import dataclass, field
from pathlib import Path

from catalogue.models import DecisionStatus
from exchange.problems import Problem

FILENAME_RE = re.compile(r"(?P<number>\d+)-[^/]*\.md")
TITLE_RE = re.compile(r"#\s+(?:\d+\.\s+)?(?P<title>\S.*?)\s*")
META_RE = re.compile(r"(?:[*-]\s+)?(?P<key>status|date)\s*:\s*(?P<value>.*?)\s*", re.I)
REFERENCE_RE = re.compile(
    r"(?:ADR-?0*(?P<adr>\d+)|\(0*(?P<file>\d+)-[^)]*\.md\))", re.I
)
STATUS_WORDS = {status.value: status for status in DecisionStatus}
# Files of a decision folder that are not decisions.
NOT_DECISIONS = {"readme.md", "index.md", "template.md"}


@dataclass
class ParsedDecision:
    """What one file says of its decision."""

    path: Path
    number: int
    title: str = ""
    status: str = ""
    decided_on: datetime.date | None = None
    body: str = ""
    superseded_by: int | None = None
    supersedes: list = field(default_factory=list)

    def problem(self, line, message):
        return Problem(line, message, file=self.path.name)


def _reference(text):
    match = REFERENCE_RE.search(text)
    if match is None:
        return None
    return int(match["adr"] or match["file"])


def _front_matter(lines):
    """The status and date of YAML front matter, and the line after it."""
    meta = {}
    if not lines or lines[0].strip() != "---":
        return meta, 0
    index = 0
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            break
        found = META_RE.fullmatch(lines[index])
        if found:
            meta[found["key"].lower()] = (found["value"].strip("'\""), index + 1)
    return meta, index + 1


class _Sections:
    """Reads the lines after any front matter: the title, metadata lines, a
    ``## Status`` section and the body, in the order the tools write them."""

    def __init__(self, meta):
        self.meta = meta
        self.title = ""
        self.title_line = None
        self.in_status = False
        self.status_lines = []
        self.body = []

    def read(self, number, line):
        if self.title_line is None:
            self._before_title(number, line)
        elif self.in_status and not line.startswith("## "):
            if line.strip():
                self.status_lines.append((line.strip(), number))
        elif line.strip().lower() == "## status":
            self.in_status = True
            self.meta.setdefault("status", None)
        else:
            self.in_status = False
            self._after_title(number, line)

    def _before_title(self, number, line):
        title = TITLE_RE.fullmatch(line)
        if title:
            self.title, self.title_line = title["title"], number
        elif line.strip():
            self._metadata(number, line)

    def _after_title(self, number, line):
        # Metadata lines count until the body has begun.
        if any(text.strip() for text in self.body) or not self._metadata(number, line):
            self.body.append(line)

    def _metadata(self, number, line):
        found = META_RE.fullmatch(line)
        if found:
            self.meta.setdefault(found["key"].lower(), (found["value"], number))
        return found


def parse_decision(path, text):
    """A ParsedDecision and the list of problems found in ``text``."""
    match = FILENAME_RE.fullmatch(path.name)
    if match is None:
        return None, [Problem(0, "the name is not NNNN-title.md", file=path.name)]
    parsed = ParsedDecision(path=path, number=int(match["number"]))
    problems = []
    if parsed.number < 1:
        problems.append(parsed.problem(0, "the number must be 1 or more"))
    lines = text.split("\n")
    meta, start = _front_matter(lines)
    sections = _Sections(meta)
    for number, line in enumerate(lines[start:], start=start + 1):
        sections.read(number, line)
    parsed.title = sections.title
    if sections.title_line is None:
        problems.append(parsed.problem(1, "no title line (# Title)"))
    if meta.get("status") is None and sections.status_lines:
        meta["status"] = sections.status_lines[0]
    _read_relations(parsed, sections.status_lines)
    status, status_line = meta.get("status") or ("", sections.title_line or 1)
    problems.extend(_read_status(parsed, status, status_line))
    if "date" in meta:
        problems.extend(_read_date(parsed, *meta["date"]))
    parsed.body = "\n".join(sections.body).strip("\n")
    if parsed.body:
        parsed.body += "\n"
    return parsed, problems


def _read_relations(parsed, status_lines):
    for text, _ in status_lines:
        lowered = text.lower()
        if lowered.startswith("superseded by"):
            parsed.superseded_by = _reference(text)
        elif lowered.startswith("supersedes"):
            number = _reference(text)
            if number is not None:
                parsed.supersedes.append(number)


def _read_status(parsed, status, line):
    word = status.split()[0].lower().strip(".,") if status.split() else ""
    if word not in STATUS_WORDS:
        return [
            parsed.problem(
                line, f"status {status!r} is not one of {', '.join(STATUS_WORDS)}"
            )
        ]
    parsed.status = word
    if word == "superseded" and parsed.superseded_by is None:
        parsed.superseded_by = _reference(status)
    return []


def _read_date(parsed, value, line):
    try:
        parsed.decided_on = datetime.date.fromisoformat(value.strip())
    except ValueError:
        return [parsed.problem(line, f"date {value!r} is not YYYY-MM-DD")]
    return []


def parse_folder(folder):
    """Every NNNN-*.md file of ``folder``, parsed, with all problems."""
    decisions, problems = [], []
    numbers = {}
    for path in sorted(Path(folder).glob("*.md")):
        if path.name.lower() in NOT_DECISIONS:
            continue
        parsed, found = parse_decision(path, path.read_text(encoding="utf-8"))
        problems.extend(found)
        if parsed is None:
            continue
        if parsed.number in numbers:
            problems.append(
                parsed.problem(
                    0, f"number {parsed.number} is also {numbers[parsed.number]}"
                )
            )
        numbers[parsed.number] = path.name
        decisions.append(parsed)
    return decisions, problems

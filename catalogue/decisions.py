"""Decision records in the MADR Markdown format that ADR tools write (issue 3).

One file per record, named ``0026-some-title.md``. Three shapes are read:

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

FILENAME_RE = re.compile(r"(?P<number>\d+)-[^/]*\.md")
TITLE_RE = re.compile(r"#\s+(?:\d+\.\s+)?(?P<title>\S.*?)\s*")
META_RE = re.compile(r"(?:[*-]\s+)?(?P<key>status|date)\s*:\s*(?P<value>.*?)\s*", re.I)
REFERENCE_RE = re.compile(
    r"(?:ADR-?0*(?P<adr>\d+)|\(0*(?P<file>\d+)-[^)]*\.md\))", re.I
)
STATUS_WORDS = {status.value: status for status in DecisionStatus}


@dataclass
class ParsedDecision:
    path: Path
    number: int
    title: str = ""
    status: str = ""
    decided_on: datetime.date | None = None
    body: str = ""
    superseded_by: int | None = None
    supersedes: list = field(default_factory=list)


@dataclass(frozen=True)
class DecisionProblem:
    path: Path
    line: int
    message: str

    def __str__(self):
        return f"{self.path.name}, line {self.line}: {self.message}"


def _reference(text):
    match = REFERENCE_RE.search(text)
    if match is None:
        return None
    return int(match["adr"] or match["file"])


def parse_decision(path, text):
    """A ParsedDecision and the list of problems found in ``text``."""
    problems = []
    match = FILENAME_RE.fullmatch(path.name)
    if match is None:
        return None, [DecisionProblem(path, 0, "the name is not NNNN-title.md")]
    record = ParsedDecision(path=path, number=int(match["number"]))
    if record.number < 1:
        problems.append(DecisionProblem(path, 0, "the number must be 1 or more"))
    lines = text.split("\n")
    meta, index = {}, 0
    if lines and lines[0].strip() == "---":
        for index in range(1, len(lines)):
            if lines[index].strip() == "---":
                break
            found = META_RE.fullmatch(lines[index])
            if found:
                meta[found["key"].lower()] = (found["value"].strip("'\""), index + 1)
        index += 1
    body, title_line, status_section, status_lines = [], None, None, []
    for number, line in enumerate(lines[index:], start=index + 1):
        if title_line is None:
            title = TITLE_RE.fullmatch(line)
            if title:
                record.title, title_line = title["title"], number
            elif line.strip():
                found = META_RE.fullmatch(line)
                if found:
                    meta.setdefault(found["key"].lower(), (found["value"], number))
            continue
        if status_section is not None:
            if line.startswith("## "):
                status_section = None
            else:
                if line.strip():
                    status_lines.append((line.strip(), number))
                continue
        if line.strip().lower() == "## status":
            status_section = []
            meta.setdefault("status", None)
            continue
        found = META_RE.fullmatch(line)
        if found and not body_started(body):
            meta.setdefault(found["key"].lower(), (found["value"], number))
            continue
        body.append(line)
    if title_line is None:
        problems.append(DecisionProblem(path, 1, "no title line (# Title)"))
    if meta.get("status") is None and status_lines:
        meta["status"] = status_lines[0]
    for text_line, _ in status_lines:
        lowered = text_line.lower()
        if lowered.startswith("superseded by"):
            record.superseded_by = _reference(text_line)
        elif lowered.startswith("supersedes"):
            record.supersedes.append(_reference(text_line))
    status, status_line = meta.get("status") or ("", title_line or 1)
    word = status.split()[0].lower().strip(".,") if status.split() else ""
    if word not in STATUS_WORDS:
        problems.append(
            DecisionProblem(
                path,
                status_line,
                f"status {status!r} is not one of {', '.join(STATUS_WORDS)}",
            )
        )
    else:
        record.status = word
        if word == "superseded" and record.superseded_by is None:
            record.superseded_by = _reference(status)
    if "date" in meta:
        value, date_line = meta["date"]
        try:
            record.decided_on = datetime.date.fromisoformat(value.strip())
        except ValueError:
            problems.append(
                DecisionProblem(path, date_line, f"date {value!r} is not YYYY-MM-DD")
            )
    record.body = "\n".join(body).strip("\n")
    if record.body:
        record.body += "\n"
    record.supersedes = [n for n in record.supersedes if n is not None]
    return record, problems


def body_started(body):
    return any(line.strip() for line in body)


def parse_folder(folder):
    """Every NNNN-*.md file of ``folder``, parsed, with all problems."""
    records, problems = [], []
    paths = sorted(Path(folder).glob("*.md"))
    numbers = {}
    for path in paths:
        if path.name.lower() in {"readme.md", "index.md", "template.md"}:
            continue
        record, found = parse_decision(path, path.read_text(encoding="utf-8"))
        problems.extend(found)
        if record is None:
            continue
        if record.number in numbers:
            problems.append(
                DecisionProblem(
                    path, 0, f"number {record.number} is also {numbers[record.number]}"
                )
            )
        numbers[record.number] = path.name
        records.append(record)
    return records, problems


class DecisionImportError(Exception):
    """A folder that cannot be imported: every problem, by file and line."""

    def __init__(self, problems):
        self.problems = problems
        super().__init__("\n".join(str(problem) for problem in problems))

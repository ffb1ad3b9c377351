"""The topic page format: the plain text the existing record publishes a
topic in, read and written.

One fact a line::

    Topics — The twenty-eight kinds of claim this anthology files against ...
    Distributed optimization — parallelism and sharding, communication, ....
    67 of 737 LIT documents. Back to the full index.
    | # | Title | Summary | Status |
    |---|---|---|---|
    | LIT-004 v4 | Training Deep Nets ... | Chen et al. (2016), ARXIV-... | Active |

Parsing is pure: it returns a ``TopicText`` or raises ``ImportRefused``
naming every line that is wrong, and the importer (``importers``) writes
nothing unless the whole text parsed.
"""

import re
from dataclasses import dataclass, field

from catalogue.citations import Citation, split_summary
from catalogue.identifiers import PREFIX, Identifier
from catalogue.models import PUBLIC_STATUSES, DocumentStatus, RegistryCount
from formats.problems import ImportRefused, Problem

SEPARATOR = " — "
HEADER = "| # | Title | Summary | Status |"
DIVIDER = "|---|---|---|---|"
COLUMNS = ["#", "Title", "Summary", "Status"]
BACK_LINK = "Back to the full index."

COUNT_RE = re.compile(
    rf"(?P<listed>\d+) of (?P<total>\d+) (?P<prefix>{PREFIX}) documents"
)
# The statuses the format prints, by their label: only public ones are listed.
STATUS_LABELS = {
    str(DocumentStatus(status).label): status for status in PUBLIC_STATUSES
}


@dataclass(frozen=True)
class Row:
    line: int
    prefix: str
    number: int
    version: int
    title: str
    citation: Citation
    summary: str
    status: str

    @property
    def identifier(self):
        return Identifier(self.prefix, self.number)


@dataclass(frozen=True)
class TopicText:
    """A topic as the topic page format gives it: the preface's heading and
    text, the topic's name and scope, the count line and the table's rows."""

    heading: str
    intro: str
    topic_name: str
    topic_scope: str
    counts: list[RegistryCount] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)


def parse(text):
    """Read a topic's text. Raise ImportRefused listing every wrong line."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    while lines and not lines[-1].strip():
        lines.pop()
    problems = []

    def line_at(number):
        return lines[number - 1] if len(lines) >= number else None

    heading, intro = _split_pair(line_at(1), 1, "the intro, 'Topics — text'", problems)
    topic_name, scope = _split_pair(
        line_at(2), 2, "the topic line, 'Name — scope.'", problems
    )
    counts = _parse_counts(line_at(3), problems)
    rows = []
    if line_at(4) != HEADER or line_at(5) != DIVIDER:
        found = line_at(4)
        problems.append(
            Problem(
                4,
                f"expected the table header {HEADER!r} and divider {DIVIDER!r}, "
                + ("but the text ends here" if found is None else f"found {found!r}"),
            )
        )
    else:
        rows = _parse_rows(lines[5:], first_line=6, problems=problems)
        if counts:
            _check_counts(counts, rows, problems)
    if problems:
        raise ImportRefused(problems)
    return TopicText(
        heading=heading,
        intro=intro,
        topic_name=topic_name,
        topic_scope=scope.removesuffix("."),
        counts=counts,
        rows=rows,
    )


def _split_pair(line, number, expected, problems):
    if line is None or SEPARATOR not in line:
        problems.append(Problem(number, f"expected {expected}"))
        return "", ""
    first, second = line.split(SEPARATOR, 1)
    if not first.strip() or not second.strip():
        problems.append(Problem(number, f"expected {expected}"))
    return first, second


def _parse_counts(line, problems):
    expected = f"expected the count line, '67 of 737 LIT documents. {BACK_LINK}'"
    if line is None or not line.endswith(f". {BACK_LINK}"):
        problems.append(Problem(3, expected))
        return []
    counts = []
    for part in line.removesuffix(f". {BACK_LINK}").split(", "):
        match = COUNT_RE.fullmatch(part)
        if match is None:
            problems.append(Problem(3, f"{expected}; cannot read {part!r}"))
            return []
        counts.append(
            RegistryCount(match["prefix"], int(match["listed"]), int(match["total"]))
        )
    return counts


def _parse_rows(lines, *, first_line, problems):
    rows = []
    seen = {}
    for number, line in enumerate(lines, start=first_line):
        if not (line.startswith("| ") and line.endswith(" |")):
            problems.append(
                Problem(
                    number, "expected a table row, '| # | Title | Summary | Status |'"
                )
            )
            continue
        cells = line[2:-2].split(" | ")
        if len(cells) != len(COLUMNS):
            problems.append(
                Problem(
                    number,
                    f"expected {len(COLUMNS)} cells ({', '.join(COLUMNS)}), "
                    f"found {len(cells)}",
                )
            )
            continue
        row = _parse_row(number, cells, problems)
        if row is None:
            continue
        if row.identifier in seen:
            first = seen[row.identifier]
            problems.append(
                Problem(
                    number,
                    f"{row.identifier} is already listed on line {first}",
                    column="#",
                )
            )
            continue
        seen[row.identifier] = number
        rows.append(row)
    return rows


def _parse_row(number, cells, problems):
    label, title, summary_cell, status_label = cells
    found = len(problems)
    try:
        identifier, version = Identifier.parse_label(label)
    except ValueError:
        problems.append(
            Problem(
                number,
                f"cannot read the identifier {label!r}: expected PREFIX-NNN, "
                "optionally with a version (LIT-004, LIT-004 v4)",
                column="#",
            )
        )
    if not title.strip():
        problems.append(Problem(number, "the title is empty", column="Title"))
    try:
        citation, summary = split_summary(summary_cell)
    except ValueError as error:
        problems.append(Problem(number, str(error), column="Summary"))
    status = STATUS_LABELS.get(status_label)
    if status is None:
        problems.append(
            Problem(
                number,
                f"unknown status {status_label!r}; expected one of "
                f"{', '.join(STATUS_LABELS)}",
                column="Status",
            )
        )
    if len(problems) > found:
        return None
    return Row(
        line=number,
        prefix=identifier.prefix,
        number=identifier.number,
        version=version,
        title=title,
        citation=citation,
        summary=summary,
        status=status,
    )


def _check_counts(counts, rows, problems):
    listed = {}
    for row in rows:
        listed[row.prefix] = listed.get(row.prefix, 0) + 1
    stated = {count.prefix: count.listed for count in counts}
    for prefix in sorted(listed.keys() | stated.keys()):
        if listed.get(prefix, 0) != stated.get(prefix, 0):
            problems.append(
                Problem(
                    3,
                    f"the count line gives {stated.get(prefix, 0)} {prefix} "
                    f"documents, but the table lists {listed.get(prefix, 0)}",
                )
            )


def render(*, preface, topic, counts, documents):
    """A topic's text in the topic page format: the inverse of parsing."""
    count_line = ", ".join(
        f"{count.listed} of {count.total} {count.prefix} documents" for count in counts
    )
    lines = [
        f"{preface.heading}{SEPARATOR}{preface.text}",
        f"{topic.name}{SEPARATOR}{topic.scope}.",
        f"{count_line}. {BACK_LINK}",
        HEADER,
        DIVIDER,
    ]
    lines.extend(
        "| "
        + " | ".join(
            [
                document.label,
                document.title,
                document.summary_with_citation,
                document.get_status_display(),
            ]
        )
        + " |"
        for document in documents
    )
    return "\n".join(lines)

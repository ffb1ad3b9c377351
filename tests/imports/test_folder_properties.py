"""Decision folders in shapes nobody showed us, generated (hypothesis).

Each example is a folder of one to six files, named as teams name them
(numbered, dated, timestamped, a folder's README.md) or anyhow, with
titles, statuses, dates and front matter written in the ways teams write
them and in ways nobody does. Whatever the folder, the import
takes every file and loses nothing a file says: its paragraphs are in the
record's body byte for byte, its title's words in the title or the body, its
status as written in the status, the status as written or its history, a
date it cannot read in the body or the metadata, a record its status names
as a relation. The examples run within the suite's fixed budget (``suite``
in tests/conftest.py), derandomised.
"""

import datetime
import io
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from django.db import transaction
from django.db.models import Q
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catalogue.models import DecisionRecord, DecisionRelation
from formats import safe_yaml, written_dates
from formats.madr import NOT_DECISION_RE, decision_name, name_parts, status_words

pytestmark = pytest.mark.django_db

FUZZ = settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
Kind = DecisionRelation.Kind

# Words of any script, with typographic quotes, dashes, symbols and emoji;
# none opens a Markdown heading, fence or setext underline, and none is a
# clause break (";") of a status.
WORD = st.text(
    alphabet=st.sampled_from(
        list(
            "abcxyzABCXYZ019äéñßøÆŁΩжЯあ漢字한👍🏽🚀“”‘’«»„—–…|✓✗→€°±§¶†*_!?.,:'\"()/\\<>&%$@^+-"
        )
    ),
    min_size=1,
    max_size=10,
)
LETTERS = st.text(alphabet="abcdefghijklmnopqrstuvwxyzäéøß", min_size=1, max_size=10)
# A line of text opens with a word of letters: no list, quote or rule marker.
LINE = st.builds(
    lambda first, rest: " ".join([first.capitalize(), *rest]),
    LETTERS,
    st.lists(WORD, max_size=12),
)
TABLE = st.builds(
    lambda head, rows: "\n".join(
        [
            f"| {' | '.join(head)} |",
            f"|{'|'.join('---' for _ in head)}|",
            *(f"| {' | '.join(row[: len(head)])} |" for row in rows),
        ]
    ),
    st.lists(LETTERS, min_size=1, max_size=4),
    st.lists(st.lists(WORD, min_size=4, max_size=4), min_size=1, max_size=3),
)
PARAGRAPH = st.one_of(
    st.lists(LINE, min_size=1, max_size=3).map("\n".join),
    TABLE,
)

OUR_WORDS = ["accepted", "proposed", "rejected", "deprecated", "superseded"]
SYNONYMS = [
    "Approved",
    "On hold",
    "Draft",
    "Declined",
    "Obsolete",
    "Implemented",
    "Implementable",
    "Living",
    "Stagnant",
    "Accepté",
    "Proposé",
]
EMOJI = ["✅", "❌", "⌛️", "🤔", "🚧", "[x]"]


def cased(word):
    return st.sampled_from([word, word.capitalize(), word.upper()])


OUR_WORD = st.sampled_from(OUR_WORDS).flatmap(cased)
STATUS_WORD = st.one_of(OUR_WORD, st.sampled_from(SYNONYMS))

DATES = st.dates(datetime.date(1999, 1, 1), datetime.date(2031, 12, 31))
READABLE_DATE = st.one_of(
    DATES.map(datetime.date.isoformat),
    DATES.map(lambda day: day.strftime("%d/%m/%Y")),
    DATES.map(lambda day: day.strftime("%m/%d/%Y")),
    DATES.map(lambda day: f"{day:%B} {day.day}, {day.year}"),
    DATES.map(lambda day: f"{day.day} {day:%B} {day.year}"),
)
GARBAGE_DATE = st.one_of(
    st.sampled_from(
        ["soon", "TBD", "2025-13-01", "32/01/2019", "next sprint", "Q3 2021", "?"]
    ),
    LINE,
).filter(
    lambda text: all(
        written_dates.leading_date(text, order)[0] is None
        for order in (None, written_dates.DAY_FIRST, written_dates.MONTH_FIRST)
    )
)
DATE_KEYS = ["Date", "Created", "Decided", "Last updated", "* Date", "- Created"]
FRONT_DATE_KEYS = ["date", "created", "decided", "last-updated"]
# Front matter no loader we use reads as a mapping.
GARBAGE_FRONT = st.one_of(
    st.sampled_from(
        [
            "status: [accepted",
            "a: b: c",
            "- listed\nkey: value",
            "tags: {web",
            "just words",
            "deciders: 'unclosed",
            "\tindented: tab",
        ]
    ),
    st.lists(st.one_of(LINE, WORD), min_size=1, max_size=3).map("\n".join),
).filter(lambda text: _is_garbage(text) and not FRONT_ENDS & set(text.split("\n")))
FRONT_ENDS = {"---", "..."}


def _is_garbage(text):
    """Whether ``text`` is YAML no loader reads as a mapping, nor as nothing.

    Front matter that loads as a false scalar ("0", "false", "''") is read as
    none, and not kept: left out here, so that what is generated can be
    asked to be kept."""
    try:
        loaded = safe_yaml.load(text)
    except safe_yaml.YAMLRefused:
        return True
    return bool(loaded) and not isinstance(loaded, dict)


def over(limit, line):
    """Numbered copies of ``line``, over ``limit`` characters together."""
    copies, length = [], 0
    while length <= limit:
        copies.append(f"{line} {len(copies)}")
        length += len(copies[-1]) + 1
    return copies


@dataclass
class Status:
    """A status as a file writes it, and what it says beyond its words."""

    written: str
    # Our word, where the status states a relation beside it.
    word: str = ""
    # A relation the status states: (kind, inverse, index of the file named).
    relation: tuple | None = None
    history: list = field(default_factory=list)


@dataclass
class File:
    name: str
    number: int | None
    paragraphs: list
    # The words of its name, which title it when it has no title line.
    name_words: list = field(default_factory=list)
    title: str = ""
    title_prefix: str = ""
    # A title line with no title: "#".
    empty_heading: bool = False
    front_title: bool = False
    front: str = "none"
    front_garbage: str = ""
    status: Status | None = None
    status_place: str = "none"
    rule_after_status: bool = False
    date: str | None = None
    date_garbage: bool = False
    date_place: str = "none"
    date_key: str = "Date"


NUMBERED_NAMES = [
    "adr-{number:02d}.md",
    "ADR-{number:04d}.md",
    "{number:04d}_{slug}.md",
    "{number:03d}-{slug}.md",
    "{number}-{slug}.md",
    "area/{number:04d}-{slug}.md",
    # A folder of its own, its page a README.md.
    "{number:04d}-{slug}/README.md",
]


@st.composite
def file_names(draw, numbered):
    """``(name, number, words)``: a file's name, the number it states, and
    the words a record with no title line is titled by."""
    slug = draw(LETTERS)
    shapes = ["numbered"]
    if not numbered:
        shapes += ["dated", "log4brains", "timestamp", "text"]
    shape = draw(st.sampled_from(shapes))
    if shape == "numbered":
        number = draw(st.integers(0, 9999))
        name = draw(st.sampled_from(NUMBERED_NAMES))
        words = [slug] if "{slug}" in name else []
        return name.format(number=number, slug=slug), number, words
    if shape == "dated":
        return f"{draw(DATES).isoformat()}-{slug}.md", None, [slug]
    if shape == "log4brains":
        return f"{draw(DATES):%Y%m%d}-{slug}.md", None, [slug]
    if shape == "timestamp":
        stamp = draw(st.datetimes(datetime.datetime(1999, 1, 1)))
        return f"{stamp:%Y%m%d%H%M%S}-{slug}.md", None, [slug]
    words = draw(st.lists(LETTERS, min_size=1, max_size=3))
    name = f"{' '.join(words)}.md"
    if NOT_DECISION_RE.fullmatch(name) or name_parts(name) is not None:
        return f"notes {name}", None, ["notes", *words]
    return name, None, words


@st.composite
def statuses(draw, names, index):
    """A status as teams write it, maybe naming another of the folder's
    files (``names``; this file is ``names[index]``)."""
    shape = draw(
        st.sampled_from(
            ["word", "emoji", "bold", "dated", "link", "see", "clause", "text", "long"]
        )
    )
    others = [at for at in range(len(names)) if at != index]
    if shape == "word":
        status = Status(draw(STATUS_WORD))
    elif shape == "emoji":
        status = Status(f"{draw(st.sampled_from(EMOJI))} {draw(STATUS_WORD)}")
    elif shape == "bold":
        status = Status(f"**{draw(STATUS_WORD)}**")
    elif shape == "dated":
        word, day = draw(OUR_WORD), draw(READABLE_DATE)
        # "Proposed 2020-01-01" alone in a status section is taken as a date
        # line (its key "proposed"), and the status with it: until it reads
        # as a status, that word takes a "since".
        leads = ["since "] if word.lower() == "proposed" else ["on ", "since ", ""]
        status = Status(f"{word} {draw(st.sampled_from(leads))}{day}")
    elif shape in {"link", "see", "clause"} and others:
        other = draw(st.sampled_from(others))
        # A link's address writes a space as %20, as Markdown links need.
        target = names[other].replace(" ", "%20")
        if shape == "link":
            status = Status(
                f"{draw(st.sampled_from(['', '⌛️ ']))}Superseded by "
                f"[{draw(LETTERS)}]({target})",
                relation=(Kind.SUPERSEDES, True, other),
            )
        elif shape == "see":
            status = Status(
                f"❌ Rejected (see [{draw(LETTERS)}]({target}))",
                relation=(Kind.RELATES_TO, False, other),
            )
        else:
            word = draw(OUR_WORD)
            status = Status(
                f"{word}; supersedes [{draw(LETTERS)}]({target})",
                word=word.lower(),
                relation=(Kind.SUPERSEDES, False, other),
            )
    elif shape == "long":
        # Over the 500 characters a status as written holds.
        status = Status(" ".join(over(500, draw(LINE))))
    else:
        status = Status(draw(LINE))
    status.history = draw(st.lists(PARAGRAPH, max_size=2))
    return status


@st.composite
def files(draw, names, index):
    name, number, name_words = names[index]
    file = File(
        name=name,
        number=number,
        name_words=name_words,
        paragraphs=draw(st.lists(PARAGRAPH, min_size=1, max_size=3)),
    )
    title = draw(
        st.sampled_from(
            ["none", "empty", "plain", "numbered", "adr", "adr-dash", "bare", "long"]
        )
    )
    file.empty_heading = title == "empty"
    if title not in {"none", "empty"}:
        words = draw(st.lists(LINE, min_size=1, max_size=2))
        if title == "long":
            # Over the 500 characters a title holds.
            words = over(500, words[0])
        file.title = " ".join(words)
        at = number if number is not None else draw(st.integers(1, 99))
        file.title_prefix = {
            "numbered": f"{at}. ",
            "adr": f"ADR {at}: ",
            "adr-dash": f"ADR-{at:03d} ",
            "bare": f"{at} ",
        }.get(title, "")
    file.front = draw(st.sampled_from(["none", "valid", "garbage", "unclosed"]))
    if file.front == "garbage":
        file.front_garbage = draw(GARBAGE_FRONT)
    file.front_title = (
        file.front == "valid" and bool(file.title) and draw(st.booleans())
    )
    places = ["none", "line", "section", "section last"]
    if file.front in {"valid", "unclosed"}:
        places.append("front")
    file.status_place = draw(st.sampled_from(places))
    if file.status_place != "none":
        # A link from a file at the top to a folder's page goes into it.
        basenames = [
            name if name.endswith("/README.md") else name.rsplit("/", 1)[-1]
            for name, _, _ in names
        ]
        file.status = draw(statuses(basenames, index))
        if file.status_place in {"line", "front"}:
            file.status.history = []
        file.rule_after_status = file.front != "unclosed" and draw(st.booleans())
    date_places = ["none", "line", "bare", "changelog"]
    if file.front in {"valid", "unclosed"}:
        date_places.append("front")
    file.date_place = draw(st.sampled_from(date_places))
    if file.date_place != "none":
        file.date_garbage = draw(st.booleans())
        file.date = draw(GARBAGE_DATE if file.date_garbage else READABLE_DATE)
    file.date_key = draw(
        st.sampled_from(FRONT_DATE_KEYS if file.date_place == "front" else DATE_KEYS)
    )
    return file


@st.composite
def folders(draw):
    """One to six files, the first named by a number."""
    count = draw(st.integers(1, 6))
    names = [draw(file_names(numbered=True))]
    for _ in range(count - 1):
        names.append(draw(file_names(numbered=False)))
    taken, unique = set(), []
    for name, number, words in names:
        key = decision_name(name).casefold()
        if key not in taken:
            taken.add(key)
            unique.append((name, number, words))
    return [draw(files(unique, index)) for index in range(len(unique))]


def text_of(file):
    """The file as its team would have written it."""
    head = []
    if file.front == "valid":
        front = {"id": file.number or 1, "tags": ["generated"]}
        if file.front_title:
            front["title"] = file.title
        if file.status_place == "front":
            front["status"] = file.status.written
        if file.date_place == "front":
            front[file.date_key] = file.date
        head = [
            "---",
            yaml.safe_dump(front, allow_unicode=True, sort_keys=False).rstrip("\n"),
            "---",
        ]
    elif file.front == "garbage":
        head = ["---", file.front_garbage, "---"]
    elif file.front == "unclosed":
        head = ["---", "tags: generated"]
        if file.status_place == "front":
            head.append(f"status: {file.status.written}")
        if file.date_place == "front":
            head.append(f"{file.date_key}: {file.date}")
    lines = list(head)
    if file.title:
        lines += [f"# {file.title_prefix}{file.title}", ""]
    elif file.empty_heading:
        lines += ["#", ""]
    if file.date_place == "line":
        lines += [f"{file.date_key}: {file.date}", ""]
    elif file.date_place == "bare":
        lines += [file.date, ""]
    if file.status_place == "line":
        lines += [f"Status: {file.status.written}", ""]
    section = []
    if file.status_place.startswith("section"):
        section = ["## Status", "", file.status.written, ""]
        for paragraph in file.status.history:
            section += [paragraph, ""]
        if file.rule_after_status:
            section += ["---", ""]
    if file.status_place == "section":
        lines += section
    if file.date_place == "changelog":
        lines += ["## Changelog", "", f"- {file.date}: first draft", ""]
    lines += ["## Context", ""]
    for paragraph in file.paragraphs:
        lines += [paragraph, ""]
    if file.status_place == "section last":
        lines += section
    return "\n".join(lines)


def read_whole(file):
    """The date a file states on a date line, in its front matter or as its
    changelog's entry, where its own digits or words tell it; else None."""
    if file.date_place not in {"line", "front", "changelog"} or file.empty_heading:
        return None
    return written_dates.read_date(file.date)


def imported(folder):
    out = io.StringIO()
    call_command("import_decisions", str(folder), stdout=out)
    return out.getvalue()


def texts(value):
    """Every text in a metadata value."""
    if isinstance(value, dict):
        return [text for item in value.values() for text in texts(item)]
    if isinstance(value, list):
        return [text for item in value for text in texts(item)]
    return [str(value)]


def kept(record):
    """Every text of ``record`` a reader can see."""
    return "\n".join(
        [
            record.title,
            record.status_text,
            record.status_history,
            record.body,
            *texts(record.metadata),
        ]
    )


def front_says_status(file):
    """Whether front matter that is not YAML states a status of its own
    (``status: [accepted``), which is taken over the body's."""
    return file.front == "garbage" and any(
        key.strip().lower() == "status" and value.strip()
        for key, _, value in (
            line.partition(":") for line in file.front_garbage.split("\n")
        )
    )


def assert_status_kept(file, record, records, where):
    """The status ``file`` writes is in ``record``: our word as its status,
    the words as written in the status as written or its history, a relation
    it states as a relation."""
    status = file.status
    if file.empty_heading and file.status_place == "line":
        # A "#" with no title is a heading: the lines after it are the body's,
        # "Status: …" among them, as written.
        assert f"Status: {status.written}" in record.body, where
        return
    kind = status.relation and status.relation[0]
    if kind == Kind.RELATES_TO and status.written not in record.status_text:
        # "Rejected (see [019](…))" where another status is the record's: a
        # paragraph of its history, kept as written.
        kind = None
    if kind is not None:
        kind, inverse, other = status.relation
        source, target = (
            (records[other], record) if inverse else (record, records[other])
        )
        if kind == Kind.RELATES_TO:
            # Kept from the lower number, whichever file states it.
            stated = Q(source=source, target=target) | Q(source=target, target=source)
        else:
            stated = Q(source=source, target=target)
        assert DecisionRelation.objects.filter(stated, kind=kind).exists(), where
        if kind == Kind.SUPERSEDES and inverse and not front_says_status(file):
            assert record.status == "superseded", where
        if status.word and status.written not in record.status_history:
            assert record.status == status.word, where
        if kind != Kind.RELATES_TO:
            return
    written = status.written
    if file.status_place == "line" or (
        file.status_place == "front" and file.front == "unclosed"
    ):
        # "Status: **Accepted**": the line's value, its emphasis left out.
        written = written.strip(" *_")
    if front_says_status(file) and f"## Status\n\n{written}" in record.body:
        # Beside the status front matter states, a status section stating
        # none is the body's, whole, where it is.
        for paragraph in status.history:
            assert paragraph in record.body, where
        return
    said = status_words(written).strip(" .!,:;").lower()
    assert (
        said == record.status
        or written in record.status_text
        or written in record.status_history
    ), (where, record.status, record.status_text, record.status_history)
    for paragraph in status.history:
        lines = "\n".join(line.strip() for line in paragraph.split("\n"))
        assert lines in record.status_history or lines in record.status_text, where


@FUZZ
@given(folder=folders())
def test_any_folder_with_a_numbered_file_imports_every_file_losing_nothing(
    tmp_path, folder
):
    root = Path(tempfile.mkdtemp(dir=tmp_path))
    for file in folder:
        path = root / file.name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text_of(file), encoding="utf-8")

    with transaction.atomic():
        report = imported(root)
        assert f"Decision records: {len(folder)} created" in report
        records = [DecisionRecord.objects.get(source_name=file.name) for file in folder]
        for file, record in zip(folder, records, strict=True):
            where = f"{file.name}:\n{text_of(file)}\n{report}"
            for paragraph in file.paragraphs:
                assert paragraph in record.body, (where, record.body)
            for word in file.title.split():
                assert word in record.title or word in record.body, (
                    where,
                    record.title,
                )
            if not file.title:
                # Titled by its name's words: "2022-07-21-use-prettier.md" is
                # "Use prettier".
                titled = record.title.casefold().split()
                assert [word.casefold() for word in file.name_words] == titled[
                    : len(file.name_words)
                ], (where, record.title)
            if file.status is not None:
                assert_status_kept(file, record, records, where)
            if file.date_garbage:
                assert file.date in kept(record), where
            elif read_whole(file) is not None:
                assert record.decided_on == read_whole(file), (where, record)
            if file.front == "garbage":
                assert record.metadata["front-matter"] == file.front_garbage, where
        transaction.set_rollback(True)
    assert not DecisionRecord.objects.exists()

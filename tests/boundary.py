"""Only ``actions`` writes the record, watched while the whole suite runs.

Every statement any test makes the project send (through the admin, the
public site, a command, a job, an import) is read as it goes to the
database; one that writes a table of the record (``catalogue``'s models and
the tags on them) must come from code running inside ``actions``. A write
the project makes from anywhere else fails the test that caused it, naming
the line that made it.

Whatever the tests write themselves, to set up what they test (factories,
a model's own ``save`` called from a test), is theirs to write. Two writers
are exempt, and only these:

- migrations, which make and change the tables before any action exists;
- the restore of a snapshot (``imports.snapshots.import_record``), which
  brings back rows, audit trail and all, exactly as the snapshot holds them,
  into an empty record: an action would add audit entries, versions and
  numbers the snapshot already has.
"""

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.apps import apps
from django.db.backends import utils

ROOT = Path(__file__).resolve().parent.parent
ACTIONS = ROOT / "actions"
TESTS = ROOT / "tests"
# The project's code: every top-level package of the checkout but the tests
# and the benchmarks.
NOT_PROJECT = {"tests", "bench", ".venv", "docs"}
# The one writer besides the actions and the migrations (see above).
RESTORE = (str(ROOT / "imports" / "snapshots.py"), "import_record")
# A request: code of Django's own that runs on behalf of a page (the admin's
# default forms save without any project code on the stack).
REQUEST_HANDLER = f"{os.sep}django{os.sep}core{os.sep}handlers{os.sep}"

# The table a statement writes, wherever in it the write is (a CTE, a
# trigger-less upsert); names quoted or not.
WRITE_RE = re.compile(
    r"\b(INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?"
    r"|COPY)\s+\"?(\w+)\"?",
    re.IGNORECASE,
)


def record_tables():
    """The tables of the record: every model of ``catalogue`` (their
    many-to-many tables too) and taggit's, which hold the documents' tags."""
    models = [
        *apps.get_app_config("catalogue").get_models(include_auto_created=True),
        *apps.get_app_config("taggit").get_models(include_auto_created=True),
    ]
    return {model._meta.db_table for model in models}


@dataclass(frozen=True)
class Write:
    """A statement writing ``table`` from outside the actions, and the line
    of the project that made it."""

    table: str
    verb: str
    where: str

    def __str__(self):
        return f"{self.where} {self.verb.split()[0].lower()}s {self.table}"


def _place(frame):
    return f"{Path(frame.f_code.co_filename).relative_to(ROOT)}:{frame.f_lineno}"


def writer_outside_actions(frame):
    """The line of project code outside ``actions`` that a write made from
    ``frame`` comes from, or None when the write is allowed: made inside an
    action, a migration or the restore, or by the tests themselves."""
    culprit = None
    request = False
    while frame is not None:
        filename = frame.f_code.co_filename
        path = Path(filename)
        if path.is_relative_to(ACTIONS):
            return None
        if path.is_relative_to(ROOT) and "migrations" in path.parts:
            return None
        if (filename, frame.f_code.co_name) == RESTORE:
            return None
        if REQUEST_HANDLER in filename:
            request = True
        elif (
            culprit is None
            and path.is_relative_to(ROOT)
            and path.relative_to(ROOT).parts[0] not in NOT_PROJECT
            and path.relative_to(ROOT).parts[0] != "catalogue"
        ):
            culprit = _place(frame)
        frame = frame.f_back
    if culprit is None and request:
        return "a request, with no project code"
    return culprit


def written_tables(sql, tables):
    """``[(verb, table)]`` of the record's ``tables`` that ``sql`` writes."""
    return [
        (verb.upper(), table)
        for verb, table in WRITE_RE.findall(sql)
        if table in tables
    ]


class Watch:
    """Notes every write of the record from outside the actions while on."""

    def __init__(self):
        self.tables = None
        self.found = []

    def __call__(self, sql):
        if self.tables is None:
            self.tables = record_tables()
        for verb, table in written_tables(str(sql), self.tables):
            where = writer_outside_actions(sys._getframe(2))
            if where is not None:
                self.found.append(Write(table, verb, where))


WATCH = Watch()


@pytest.fixture(scope="session", autouse=True)
def _watching_the_write_boundary():
    original = utils.CursorWrapper._execute_with_wrappers

    def execute(self, sql, params, many, executor):
        WATCH(sql)
        return original(self, sql, params, many, executor)

    utils.CursorWrapper._execute_with_wrappers = execute
    yield
    utils.CursorWrapper._execute_with_wrappers = original


@pytest.fixture(autouse=True)
def only_actions_write_the_record(request):
    """Fails the test after it ran if it made the project write the record
    from outside ``actions``; ``BOUNDARY_REPORT=path`` lists them there
    instead (one line each), to see every one at once."""
    WATCH.found = []
    yield
    found = sorted(set(map(str, WATCH.found)))
    WATCH.found = []
    if not found:
        return
    report = os.environ.get("BOUNDARY_REPORT")
    if report:
        with open(report, "a", encoding="utf-8") as out:
            out.writelines(f"{line}\t{request.node.nodeid}\n" for line in found)
        return
    pytest.fail(
        "The record was written from outside actions/:\n" + "\n".join(found),
        pytrace=False,
    )

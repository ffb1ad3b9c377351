"""What a CSV import does, or would do, as its job's page shows it, in a size
that does not grow with the file.

An editor reading a dry run needs the totals, every problem in full, and the
rows that change the record; unchanged rows are counted, not listed. The
outcome holds the totals; its rows (the problems when there are any, else the
changes) are kept beside it in the shared cache in pages of ``ROWS_A_PAGE``,
and a request reads the one page it shows.
"""

import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import islice

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError

logger = logging.getLogger(__name__)

ROWS_A_PAGE = 100
PAGES_A_WRITE = 100


@dataclass(frozen=True)
class Change:
    """A row that writes: a new entry, or an update and its changed columns."""

    row: int
    kind: str  # "new" or "update", as django-import-export names them
    entry: str  # the row's entry as the admin names it, "LIT-004: Title"
    columns: tuple = ()
    numbered: bool = False  # a new row its registry numbers


@dataclass(frozen=True)
class Refusal:
    """A row refused, with each of its problems as ``(column, message)`` (no
    column for the row as a whole); a problem of the whole file has no row."""

    row: int | None
    name: str  # the row's first cell, as the file gives it
    problems: tuple


@dataclass
class ImportOutcome:
    totals: dict  # rows new, updated and unchanged ("skip")
    refused: int = 0  # rows refused
    file_problems: int = 0  # problems of the file as a whole
    listed: int = 0  # rows kept in pages: the refusals, or else the changes
    key: str = field(default_factory=lambda: uuid.uuid4().hex)

    @property
    def has_problems(self):
        return bool(self.refused or self.file_problems)

    @property
    def changes(self):
        return self.totals["new"] + self.totals["update"]

    def rows(self):
        """The rows kept in pages, read a page at a time."""
        return KeptRows(self)

    def page_key(self, number):
        return f"import-outcome:{self.key}:{number}"


def outcome_of(result, *, list_changes):
    """The outcome of django-import-export's ``result``, its problems kept in
    pages, and its changes too when ``list_changes``."""
    outcome = ImportOutcome(
        totals={kind: result.totals[kind] for kind in ["new", "update", "skip"]}
    )
    unexpected = []
    refusals = [
        Refusal(None, "", (("", message),))
        for error in result.base_errors
        for message in _messages(error.error, unexpected)
    ]
    outcome.file_problems = len(refusals)
    rows = [
        Refusal(
            row.number,
            str(row.values[0]) if row.values else "",
            tuple(
                ("" if column == NON_FIELD_ERRORS else column, message)
                for column, messages in row.error_dict.items()
                for message in messages
            ),
        )
        for row in result.invalid_rows
    ]
    # Rows are kept in file order, one each (report_skipped), as
    # django-import-export's own row_errors() counts them.
    rows += [
        Refusal(
            number,
            str(next(iter(errors[0].row.values()), "")) if errors[0].row else "",
            tuple(
                ("", message)
                for error in errors
                for message in _messages(error.error, unexpected)
            ),
        )
        for number, errors in result.row_errors()
    ]
    outcome.refused = len(rows)
    refusals += sorted(rows, key=lambda refusal: refusal.row)
    if unexpected:
        logger.error(
            "The import failed unexpectedly, %d times; the first:",
            len(unexpected),
            exc_info=unexpected[0],
        )
    if refusals:
        _keep(outcome, refusals)
    elif list_changes:
        _keep(
            outcome,
            (
                Change(
                    number,
                    row.import_type,
                    row.object_repr or "",
                    tuple(getattr(row, "changed_columns", ())),
                    getattr(row, "numbered", False),
                )
                for number, row in enumerate(result.rows, start=1)
                if row.import_type in {"new", "update"}
            ),
        )
    return outcome


def _messages(error, unexpected):
    """What an editor is told of ``error``: a refusal's own messages, or, for
    an unexpected error, a sentence that names no exception (the error is
    added to ``unexpected``, to be logged)."""
    if isinstance(error, ValidationError):
        return error.messages
    unexpected.append(error)
    return [UNEXPECTED]


UNEXPECTED = (
    "The record could not take what this row holds, though it was checked; "
    "nothing was written. The error is logged for the site's maintainers."
)


def _keep(outcome, rows):
    """Keep ``rows`` in the cache in pages beside ``outcome``, a hundred pages
    a round trip."""
    rows = iter(rows)
    number = 0
    while True:
        pages = {}
        for _ in range(PAGES_A_WRITE):
            page = list(islice(rows, ROWS_A_PAGE))
            if not page:
                break
            pages[outcome.page_key(number)] = page
            outcome.listed += len(page)
            number += 1
        if not pages:
            return
        cache.set_many(pages, settings.JOBS_RESULT_SECONDS)


class KeptRows(Sequence):
    """An outcome's kept rows as a sequence whose slices read only the pages
    they fall in, so that Django's Paginator shows a page with one read."""

    def __init__(self, outcome):
        self.outcome = outcome

    def __len__(self):
        return self.outcome.listed

    def __getitem__(self, index):
        if not isinstance(index, slice):
            index += len(self) if index < 0 else 0
            if not 0 <= index < len(self):
                raise IndexError(index)
            return self[index : index + 1][0]
        start, stop, _ = index.indices(len(self))
        if start >= stop:
            return []
        first, last = start // ROWS_A_PAGE, (stop - 1) // ROWS_A_PAGE
        keys = [self.outcome.page_key(n) for n in range(first, last + 1)]
        pages = cache.get_many(keys)
        rows = [row for key in keys for row in pages.get(key, [])]
        offset = first * ROWS_A_PAGE
        return rows[start - offset : stop - offset]

"""Dates as teams write them in their records, read.

``read_date`` takes ISO dates and date-times (``2024-03-01``,
``2024-03-01T10:00:00Z``), other dates with the year first (``2024/03/01``,
``2023/2/14``, ``2020-4-15``, ``2020-Nov-09``), day-first and month-first dates
with slashes, dots or dashes (``01/06/2019``, ``10/04/18``), and dates with
a month's name (``June 19, 2018``, ``19 June 2018``, ``19th Jun 2018``,
``Tuesday, 19 June 2018``). A numeric date whose order its own digits do
not tell (``01/06/2019``: a day and a month both 12 or under) is read in
the ``order`` a caller gives, from the evidence of the other dates of its
folder (``slashed_order``); without it, it is no date.

Every pattern is anchored and has no two quantifiers competing for the same
characters: reading a line costs time linear in its length.
"""

import datetime
import re

MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sept", "sep"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_MONTH = r"(?P<month>[A-Za-z]{3,9})\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_WEEKDAY = r"(?:[A-Za-z]{3,9},?\s+)?"
NAMED_RES = [
    # June 19, 2018 / Jun 19 2018
    re.compile(_WEEKDAY + _MONTH + r"\s+" + _DAY + r",?\s+" + _YEAR),
    # 19 June 2018 / 19th of June, 2018 / 20-Aug-2021
    re.compile(_WEEKDAY + _DAY + r"(?:\s+of)?[-\s]" + _MONTH + r",?[-\s]" + _YEAR),
    # 2020-Nov-09 / 2020 Nov 09
    re.compile(_YEAR + r"[-\s]" + _MONTH + r"[-\s]" + _DAY),
]
# 2022/11/14, 2023/2/14, 2020-4-15, 2020.04.15: a year first is always
# followed by its month.
YEAR_FIRST_RE = re.compile(
    r"(?P<year>\d{4})(?P<sep>[-/.])(?P<month>\d{1,2})(?P=sep)(?P<day>\d{1,2})"
)
# 01/06/2019, 1.6.2019, 01-06-2019, 10/04/18
NUMERIC_RE = re.compile(
    r"(?<![\d/.-])(?P<a>\d{1,2})(?P<sep>[/.-])(?P<b>\d{1,2})(?P=sep)"
    r"(?P<y>\d{4}|\d{2})(?!\d)"
)
DAY_FIRST, MONTH_FIRST = "day first", "month first"
# A date written at the start of a longer text: "2020-01-01 (updated …)".
LEADING_RE = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?"
    r"(?:Z|[+-]\d{2}:?\d{2})?)?|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{4}[-/.]\d{1,2}[-/.]\d{1,2})"
    r"(?=$|[\s,;:.)(*_])"
)
# What may surround a date on its line: emphasis, brackets, a closing dot.
WRAPPING = " \t*_`()[].,;"


def read_date(value, order=None):
    """The date ``value`` states (a date, a date-time, text), or None; a
    numeric date whose order its digits leave open is read in ``order``."""
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    text = str(value).strip(WRAPPING)
    if not text or len(text) > 64:
        return None
    return _iso(text) or _year_first(text) or _named(text) or _numeric(text, order)


def leading_date(value, order=None):
    """``(date, rest)``: the date ``value`` opens with and the text after it,
    or ``(None, value)``."""
    text = str(value).strip(WRAPPING)
    date = read_date(text, order)
    if date is not None:
        return date, ""
    match = LEADING_RE.match(text)
    if match is None:
        for pattern in NAMED_RES:
            match = pattern.match(text)
            if match is not None and (date := _named(match[0])) is not None:
                return date, text[match.end() :].strip(WRAPPING)
        return None, value
    date = read_date(match["date"], order)
    if date is None:
        return None, value
    return date, text[match.end() :].strip(WRAPPING)


def slashed_order(values):
    """The order the numeric dates among ``values`` are written in, by their
    own evidence: a first number above 12 is a day (day first), a second one
    above 12 a day (month first); None where no date tells, or dates tell
    both."""
    seen = set()
    for value in values:
        for match in NUMERIC_RE.finditer(str(value)):
            first, second = int(match["a"]), int(match["b"])
            if first > 12 >= second:
                seen.add(DAY_FIRST)
            elif second > 12 >= first:
                seen.add(MONTH_FIRST)
    return seen.pop() if len(seen) == 1 else None


def is_ambiguous(value):
    """Whether ``value`` is a numeric date whose digits leave its order open."""
    match = NUMERIC_RE.fullmatch(str(value).strip(WRAPPING))
    return bool(match) and int(match["a"]) <= 12 and int(match["b"]) <= 12


def _iso(text):
    for parse in (datetime.date.fromisoformat, datetime.datetime.fromisoformat):
        try:
            result = parse(text)
        except ValueError:
            continue
        return result if type(result) is datetime.date else result.date()
    return None


def _year_first(text):
    match = YEAR_FIRST_RE.fullmatch(text)
    if match is None:
        return None
    return _made(match["year"], match["month"], match["day"])


def _named(text):
    for pattern in NAMED_RES:
        match = pattern.fullmatch(text)
        if match is not None:
            month = MONTHS.get(match["month"].lower())
            if month is not None:
                return _made(match["year"], month, match["day"])
    return None


def _numeric(text, order):
    match = NUMERIC_RE.fullmatch(text)
    if match is None:
        return None
    first, second = int(match["a"]), int(match["b"])
    year = int(match["y"])
    if len(match["y"]) == 2:
        year += 2000
    if first > 12 >= second or (order == DAY_FIRST and second <= 12):
        return _made(year, second, first)
    if second > 12 >= first or order == MONTH_FIRST:
        return _made(year, first, second)
    return None


def _made(year, month, day):
    try:
        return datetime.date(int(year), int(month), int(day))
    except ValueError:
        return None

"""Charts as SVG drawn on the server: numbers in, markup out.

Pure functions, no database and no request. Each returns the SVG as a string
ready to be placed inline in a page (``mark_safe`` is the caller's): every
text in it is escaped here.

Drawn by hand rather than by a charting library: the site's
Content-Security-Policy allows no inline style and no script, and the SVG
libraries for Python (pygal, for one) write a ``<style>`` element and a
script into every chart, and cannot link a bar to a page. So the charts
carry classes (``chart-bar``, ``series-3``, ``chart-axis``), styled from the
site's own stylesheet (``css/charts.css``), which also gives them their dark
and print colours; the presentation attributes here are the fallback for a
reader without the stylesheet, which the policy does not govern either.

A chart is an image with a title (``role="img"`` and ``aria-labelledby``),
except a chart of links, whose bars are links a reader may follow
(``role="group"``): the page puts its numbers in a table beside it.
"""

from dataclasses import dataclass
from html import escape
from math import ceil, log10

from catalogue.text import xml_safe

WIDTH = 720
FONT = 13
# The colour classes a chart's series take, in turn.
SERIES_COLOURS = 8


@dataclass(frozen=True)
class Bar:
    """One bar: its label, its value and, for a bar that links, its page."""

    label: str
    value: int
    href: str = ""


def _text(value):
    # SVG is XML: a label from a row stored before the record refused control
    # characters is written xml_safe.
    return escape(xml_safe(str(value)), quote=True)


def _number(value):
    """A figure as the charts print it: 12,345."""
    return f"{value:,}"


def nice_maximum(value):
    """The top of a value axis: ``value`` rounded up to 1, 2 or 5 times a
    power of ten, so that its ticks fall on round figures."""
    if value <= 0:
        return 1
    power = 10 ** int(log10(value))
    for step in (1, 2, 5, 10):
        if value <= step * power:
            return step * power
    return 10 * power  # pragma: no cover: the loop always returns.


def _open(*, title_id, height, role="img"):
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="{role}" '
        f'aria-labelledby="{_text(title_id)}" viewBox="0 0 {WIDTH} {height}" '
        f'font-size="{FONT}" font-family="sans-serif">'
    )


def _title(title, title_id):
    return f'<title id="{_text(title_id)}">{_text(title)}</title>'


def bar_chart(bars, *, title, title_id):
    """Horizontal bars, one a row, each labelled above it with its value at
    its end; a bar with an ``href`` is a link to that page.

    ``bars``: a list of ``Bar``. The longest bar takes the whole width."""
    row, bar_height, top = 40, 16, 8
    height = top + row * max(len(bars), 1)
    largest = max((bar.value for bar in bars), default=0) or 1
    room = WIDTH - 80
    links = any(bar.href for bar in bars)
    parts = [
        _open(title_id=title_id, height=height, role="group" if links else "img"),
        _title(title, title_id),
    ]
    for index, bar in enumerate(bars):
        y = top + index * row
        length = max(round(room * bar.value / largest), 1 if bar.value else 0)
        shape = (
            f'<text class="chart-label" x="0" y="{y + FONT}" fill="currentColor">'
            f"{_text(bar.label)}</text>"
            f'<rect class="chart-bar" x="0" y="{y + FONT + 4}" width="{length}" '
            f'height="{bar_height}" fill="#1a55b0"/>'
            f'<text class="chart-value" x="{length + 6}" y="{y + FONT + 17}" '
            f'fill="currentColor">{_number(bar.value)}</text>'
        )
        if bar.href:
            shape = f'<a class="chart-link" href="{_text(bar.href)}">{shape}</a>'
        parts.append(shape)
    parts.append("</svg>")
    return "".join(parts)


def _value_axis(maximum, *, left, right, top, bottom):
    """Gridlines and figures at a quarter, a half, three quarters and the top."""
    parts = []
    for quarter in range(5):
        value = maximum * quarter / 4
        y = bottom - (bottom - top) * quarter / 4
        label = _number(round(value)) if value == int(value) else f"{value:,.1f}"
        parts.append(
            f'<line class="chart-grid" x1="{left}" x2="{right}" y1="{y:.1f}" '
            f'y2="{y:.1f}" stroke="#d9d9d4"/>'
            f'<text class="chart-tick" x="{left - 6}" y="{y + 4:.1f}" '
            f'text-anchor="end" fill="currentColor">{label}</text>'
        )
    return parts


def _column_labels(labels, *, left, step, bottom):
    """Labels under the columns, as many as fit: every n-th one."""
    every = max(1, ceil(len(labels) * 44 / (WIDTH - left)))
    parts = []
    for index, label in enumerate(labels):
        if index % every:
            continue
        x = left + step * (index + 0.5)
        parts.append(
            f'<text class="chart-tick" x="{x:.1f}" y="{bottom + 16}" '
            f'text-anchor="middle" fill="currentColor">{_text(label)}</text>'
        )
    return parts


def stacked_columns(columns, *, series, title, title_id, height=300, grouped=False):
    """Vertical columns, each a stack of its series' values, with a key.

    ``columns``: ``[(label, [value per series])]``; ``series``: the series'
    names, in the order the stacks are built from the bottom. A series takes
    the colour class ``series-<n>`` (n counted modulo ``SERIES_COLOURS``).
    ``grouped``: the series stand side by side in each column instead, for
    counts that are not parts of one whole.
    """
    key_rows = ceil(len(series) / 3) if len(series) > 1 else 0
    left, top = 56, 10
    bottom = height - 28
    total_height = height + key_rows * 20
    if grouped:
        heights = [max(values, default=0) for _, values in columns]
    else:
        heights = [sum(values) for _, values in columns]
    maximum = nice_maximum(max(heights, default=0))
    step = (WIDTH - left) / max(len(columns), 1)
    parts = [_open(title_id=title_id, height=total_height), _title(title, title_id)]
    parts += _value_axis(maximum, left=left, right=WIDTH, top=top, bottom=bottom)
    scale = (bottom - top) / maximum
    width = step * 0.7 / (max(len(series), 1) if grouped else 1)
    for index, (_label, values) in enumerate(columns):
        parts += _column(
            values,
            x=left + step * index + step * 0.15,
            bottom=bottom,
            scale=scale,
            width=width,
            grouped=grouped,
        )
    parts += _column_labels(
        [label for label, _ in columns], left=left, step=step, bottom=bottom
    )
    for number, name in enumerate(series if key_rows else []):
        x = left + (number % 3) * (WIDTH - left) / 3
        y = height + (number // 3) * 20
        parts.append(
            f'<rect class="chart-bar series-{number % SERIES_COLOURS}" x="{x:.1f}" '
            f'y="{y}" width="12" height="12" fill="#1a55b0"/>'
            f'<text class="chart-label" x="{x + 18:.1f}" y="{y + 11}" '
            f'fill="currentColor">{_text(name)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _column(values, *, x, bottom, scale, width, grouped):
    """One column's rectangles: stacked from ``bottom``, or side by side."""
    parts, y = [], bottom
    for number, value in enumerate(values):
        if not value:
            continue
        size = value * scale
        if grouped:
            left, top = x + width * number, bottom - size
        else:
            y -= size
            left, top = x, y
        parts.append(
            f'<rect class="chart-bar series-{number % SERIES_COLOURS}" '
            f'x="{left:.1f}" y="{top:.1f}" width="{width:.1f}" '
            f'height="{size:.1f}" fill="#1a55b0"/>'
        )
    return parts


def columns(values, *, title, title_id, height=220):
    """Vertical columns of one series: ``values`` is ``[(label, value)]``."""
    return stacked_columns(
        [(label, [value]) for label, value in values],
        series=["count"],
        title=title,
        title_id=title_id,
        height=height,
    )


def line_chart(points, *, title, title_id, height=260):
    """A line through ``points`` (``[(label, value)]``, in order), the area
    under it shaded: a total as it grows."""
    left, top = 56, 10
    bottom = height - 28
    maximum = nice_maximum(max((value for _, value in points), default=0))
    step = (WIDTH - left) / max(len(points), 1)
    parts = [_open(title_id=title_id, height=height), _title(title, title_id)]
    parts += _value_axis(maximum, left=left, right=WIDTH, top=top, bottom=bottom)
    scale = (bottom - top) / maximum
    coordinates = [
        (left + step * (index + 0.5), bottom - value * scale)
        for index, (_, value) in enumerate(points)
    ]
    if coordinates:
        line = " ".join(f"{x:.1f},{y:.1f}" for x, y in coordinates)
        first, last = coordinates[0][0], coordinates[-1][0]
        parts.append(
            f'<polygon class="chart-area" points="{first:.1f},{bottom} {line} '
            f'{last:.1f},{bottom}" fill="#1a55b0" fill-opacity="0.15"/>'
            f'<polyline class="chart-line" points="{line}" fill="none" '
            f'stroke="#1a55b0" stroke-width="2"/>'
        )
    parts += _column_labels(
        [label for label, _ in points], left=left, step=step, bottom=bottom
    )
    parts.append("</svg>")
    return "".join(parts)

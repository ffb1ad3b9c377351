"""The record at a glance: the figures of the statistics page and of a
topic's chart, read from public documents only, and drawn as charts.

Each figure is a ``Figure``: a chart and the same numbers as a table, so a
reader without the picture (a screen reader, a printout, a script) has them
all. The queries are a fixed number whatever the size of the record: each
figure is one grouped count.
"""

from dataclasses import dataclass, field

from django.db.models import Count, Exists, OuterRef, Q
from django.db.models.functions import TruncMonth
from django.urls import reverse
from django.utils.safestring import mark_safe

from catalogue.models import Document, DocumentVersion, Reference, Topic
from catalogue.models.choices import PUBLIC_STATUSES, DocumentStatus
from public import charts

# The per-year chart names this many topics, the largest, one by one; the
# others are summed as one.
NAMED_TOPICS = 6
MOST_REFERENCED = 10


@dataclass
class Figure:
    """A chart (``svg``, already escaped) and its numbers as a table:
    ``headers`` and ``rows`` of cells; a row's first cell links to
    ``links[i]`` where that is not empty."""

    slug: str
    title: str
    svg: str
    headers: list
    rows: list
    links: list = field(default_factory=list)
    note: str = ""

    @property
    def title_id(self):
        return f"chart-{self.slug}"

    @property
    def table_rows(self):
        """``(first cell, its link, other cells)`` for the template, each cell
        as text already: a figure is printed as it is, never localised."""
        links = self.links or [""] * len(self.rows)
        return [
            (str(row[0]), link, [str(cell) for cell in row[1:]])
            for row, link in zip(self.rows, links, strict=True)
        ]


def _figure(slug, title, draw, **figure):
    return Figure(
        slug=slug,
        title=title,
        svg=mark_safe(draw(title=title, title_id=f"chart-{slug}")),
        **figure,
    )


def statistics_figures():
    """Every figure of the statistics page, in the order it shows them."""
    topics = list(Topic.objects.all())
    counts = list(
        Document.objects.public()
        .order_by()
        .values_list("topic_id", "year", "status")
        .annotate(n=Count("pk"))
    )
    return [
        topic_figure(topics, counts),
        year_topic_figure(topics, counts),
        status_figure(counts),
        growth_figure(),
        referenced_figure(),
    ]


def topic_figure(topics, counts):
    """Public documents per topic, in the topics' editorial order, unfiled
    last; each bar links to its topic's page."""
    per_topic = {}
    for topic_id, _year, _status, n in counts:
        per_topic[topic_id] = per_topic.get(topic_id, 0) + n
    bars = [
        charts.Bar(topic.name, per_topic.get(topic.pk, 0), topic.get_absolute_url())
        for topic in topics
    ]
    if per_topic.get(None):
        bars.append(
            charts.Bar("Unfiled", per_topic[None], reverse("catalogue:unfiled"))
        )
    return _figure(
        "topics",
        "Documents per topic",
        lambda **kw: charts.bar_chart(bars, **kw),
        headers=["Topic", "Documents"],
        rows=[[bar.label, bar.value] for bar in bars],
        links=[bar.href for bar in bars],
    )


def year_topic_figure(topics, counts):
    """Public documents per year of publication of the cited work, each
    year's column split by topic: the largest topics one by one, the others
    as one, the unfiled as one."""
    per_topic, years = {}, {}
    for topic_id, year, _status, n in counts:
        per_topic[topic_id] = per_topic.get(topic_id, 0) + n
        years.setdefault(year, {})
        years[year][topic_id] = years[year].get(topic_id, 0) + n
    filed = sorted(
        (topic for topic in topics if per_topic.get(topic.pk)),
        key=lambda topic: -per_topic[topic.pk],
    )
    named = filed[:NAMED_TOPICS]
    others = {topic.pk for topic in filed[NAMED_TOPICS:]}
    series = [topic.name for topic in named]
    if others:
        series.append("Other topics")
    if per_topic.get(None):
        series.append("Unfiled")

    def split(by_topic):
        values = [by_topic.get(topic.pk, 0) for topic in named]
        if others:
            values.append(sum(by_topic.get(pk, 0) for pk in others))
        if per_topic.get(None):
            values.append(by_topic.get(None, 0))
        return values

    columns = [(str(year), split(years[year])) for year in sorted(years)]
    return _figure(
        "years",
        "Documents per year of the work cited, by topic",
        lambda **kw: charts.stacked_columns(columns, series=series, **kw),
        headers=["Year", *series, "All"],
        rows=[[label, *values, sum(values)] for label, values in columns],
    )


def status_figure(counts):
    """Public documents by status: active, superseded, withdrawn."""
    per_status = dict.fromkeys(PUBLIC_STATUSES, 0)
    for _topic, _year, status, n in counts:
        per_status[status] += n
    bars = [
        charts.Bar(str(DocumentStatus(status).label), n)
        for status, n in per_status.items()
    ]
    return _figure(
        "statuses",
        "Documents by status",
        lambda **kw: charts.bar_chart(bars, **kw),
        headers=["Status", "Documents"],
        rows=[[bar.label, bar.value] for bar in bars],
    )


def growth_figure():
    """The record as it grew: public documents by the month of their first
    publication (their version 1), and the total at the end of each month."""
    months = (
        DocumentVersion.objects.filter(number=1, document__status__in=PUBLIC_STATUSES)
        .annotate(month=TruncMonth("published_at"))
        .order_by("month")
        .values_list("month")
        .annotate(n=Count("pk"))
    )
    rows, total = [], 0
    for month, n in months:
        total += n
        rows.append([f"{month:%Y-%m}", n, total])
    return _figure(
        "growth",
        "Public documents by month of first publication, as a running total",
        lambda **kw: charts.line_chart([(row[0], row[2]) for row in rows], **kw),
        headers=["Month", "First published", "Total"],
        rows=rows,
    )


def referenced_figure():
    """The public documents the most public documents name, most first (ties
    in identifier order); each bar links to the document."""
    public_named = Document.objects.public().filter(
        registry__prefix=OuterRef("prefix"), number=OuterRef("number")
    )
    named = list(
        Reference.objects.filter(log__isnull=True, document__status__in=PUBLIC_STATUSES)
        .filter(Exists(public_named))
        .values_list("prefix", "number")
        .annotate(n=Count("document", distinct=True))
        .order_by("-n", "prefix", "number")[:MOST_REFERENCED]
    )
    wanted = Q(pk__in=[])
    for prefix, number, _n in named:
        wanted |= Q(registry__prefix=prefix, number=number)
    documents = {
        (document.registry.prefix, document.number): document
        for document in Document.objects.public().filter(wanted).in_number_order()
    }
    bars = []
    for prefix, number, n in named:
        document = documents[(prefix, number)]
        label = f"{document.label}: {document.title}"
        bars.append(charts.Bar(label, n, document.get_absolute_url()))
    return _figure(
        "referenced",
        "Most-referenced documents: how many public documents name each",
        lambda **kw: charts.bar_chart(bars, **kw),
        headers=["Document", "Named by"],
        rows=[[bar.label, bar.value] for bar in bars],
        links=[bar.href for bar in bars],
    )


def topic_year_figure(topic):
    """A topic's public documents per year of the work cited: one query."""
    years = (
        Document.objects.public()
        .in_topic(topic)
        .order_by("year")
        .values_list("year")
        .annotate(n=Count("pk"))
    )
    rows = [[str(year), n] for year, n in years]
    return _figure(
        "topic-years",
        f"{topic.name}: documents per year of the work cited",
        lambda **kw: charts.columns([tuple(row) for row in rows], **kw),
        headers=["Year", "Documents"],
        rows=rows,
    )

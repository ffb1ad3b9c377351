"""The chart module draws SVG from numbers alone, escaping every text."""

import xml.etree.ElementTree as ET

import pytest

from public import charts

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg):
    return ET.fromstring(svg)


def test_a_bar_chart_is_an_image_titled_by_its_title():
    svg = parse(
        charts.bar_chart(
            [charts.Bar("Active", 3), charts.Bar("Withdrawn", 1)],
            title="Documents by status",
            title_id="chart-statuses",
        )
    )

    assert svg.get("role") == "img"
    assert svg.get("aria-labelledby") == "chart-statuses"
    assert svg.find(f"{SVG}title").text == "Documents by status"
    assert svg.find(f"{SVG}title").get("id") == "chart-statuses"
    labels = [t.text for t in svg.iter(f"{SVG}text")]
    assert labels == ["Active", "3", "Withdrawn", "1"]


def test_the_longest_bar_takes_the_width_and_the_others_their_share():
    svg = parse(
        charts.bar_chart(
            [charts.Bar("a", 10), charts.Bar("b", 5), charts.Bar("c", 0)],
            title="t",
            title_id="t",
        )
    )

    widths = [int(rect.get("width")) for rect in svg.iter(f"{SVG}rect")]
    assert widths == [charts.WIDTH - 80, (charts.WIDTH - 80) // 2, 0]


def test_bars_with_pages_are_links_in_a_group():
    svg = parse(
        charts.bar_chart(
            [charts.Bar("Memory", 2, "/topics/memory/")], title="t", title_id="t"
        )
    )

    assert svg.get("role") == "group"
    links = list(svg.iter(f"{SVG}a"))
    assert [link.get("href") for link in links] == ["/topics/memory/"]
    assert [t.text for t in links[0].iter(f"{SVG}text")] == ["Memory", "2"]


def test_every_text_is_escaped_byte_for_byte():
    name = "Ünïcode “quotes” <script>alert(1)</script> & ‘more’"
    svg = charts.bar_chart(
        [charts.Bar(name, 1, '/topics/x/?a=1&b="2"')], title=name, title_id='x"y'
    )

    assert "<script>" not in svg
    tree = parse(svg)
    assert tree.find(f"{SVG}title").text == name
    assert next(tree.iter(f"{SVG}a")).get("href") == '/topics/x/?a=1&b="2"'
    assert tree.get("aria-labelledby") == 'x"y'


def test_no_chart_carries_style_or_script():
    drawn = [
        charts.bar_chart([charts.Bar("a", 1)], title="t", title_id="t"),
        charts.stacked_columns(
            [("2020", [1, 2])], series=["x", "y"], title="t", title_id="t"
        ),
        charts.line_chart([("2020-01", 1), ("2020-02", 3)], title="t", title_id="t"),
    ]

    for svg in drawn:
        for element in parse(svg).iter():
            assert element.tag not in {f"{SVG}style", f"{SVG}script"}
            assert "style" not in element.attrib
            assert not any(name.startswith("on") for name in element.attrib)


def test_stacks_are_built_from_the_bottom_in_series_order_with_a_key():
    svg = parse(
        charts.stacked_columns(
            [("2020", [1, 4]), ("2021", [2, 0])],
            series=["Memory", "Evaluation"],
            title="t",
            title_id="t",
            height=300,
        )
    )

    rects = [r for r in svg.iter(f"{SVG}rect") if float(r.get("width")) != 12]
    first, second, third = rects
    assert first.get("class") == "chart-bar series-0"
    assert second.get("class") == "chart-bar series-1"
    # The second series sits on the first; the top (5) is the axis's top.
    assert float(second.get("y")) + float(second.get("height")) == pytest.approx(
        float(first.get("y"))
    )
    assert float(second.get("y")) == pytest.approx(10)
    assert third.get("class") == "chart-bar series-0"
    texts = [t.text for t in svg.iter(f"{SVG}text")]
    assert texts[-2:] == ["Memory", "Evaluation"]
    assert [t for t in texts if t in {"2020", "2021"}] == ["2020", "2021"]


def test_grouped_columns_stand_side_by_side_from_the_axis():
    svg = parse(
        charts.stacked_columns(
            [("w1", [2, 4])],
            series=["held", "published"],
            title="t",
            title_id="t",
            grouped=True,
        )
    )

    held, published = [r for r in svg.iter(f"{SVG}rect") if r.get("width") != "12"]
    bottom = float(held.get("y")) + float(held.get("height"))
    assert float(published.get("y")) + float(published.get("height")) == bottom
    assert float(published.get("x")) > float(held.get("x"))
    assert float(published.get("height")) == pytest.approx(
        2 * float(held.get("height"))
    )


def test_a_line_chart_runs_through_every_point():
    svg = parse(
        charts.line_chart(
            [("2026-01", 1), ("2026-02", 2), ("2026-03", 4)], title="t", title_id="t"
        )
    )

    points = next(svg.iter(f"{SVG}polyline")).get("points").split()
    assert len(points) == 3
    ys = [float(point.split(",")[1]) for point in points]
    assert ys[0] > ys[1] > ys[2]


def test_empty_charts_draw_without_failing():
    for svg in [
        charts.bar_chart([], title="t", title_id="t"),
        charts.stacked_columns([], series=[], title="t", title_id="t"),
        charts.line_chart([], title="t", title_id="t"),
    ]:
        assert parse(svg).tag == f"{SVG}svg"


@pytest.mark.parametrize(
    ("value", "top"),
    [(0, 1), (1, 1), (3, 5), (7, 10), (12, 20), (101, 200), (4_999, 5_000)],
)
def test_the_value_axis_ends_on_a_round_figure(value, top):
    assert charts.nice_maximum(value) == top

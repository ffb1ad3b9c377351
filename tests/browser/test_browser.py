"""What a reader sees in a real browser (Debian's Chromium, via Playwright)."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe

import actions.documents
from catalogue.models import Document, Topic
from catalogue.references import write_references
from tests.browser import follow
from tests.factories import (
    PASSWORD,
    DecisionRecordFactory,
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def reading_record(known_venues, imported_seed, editorial_groups):
    """The seed page, a decision record, a document that cites LIT-004, and a
    revision of LIT-004 published as v5."""
    topic = Topic.objects.get(slug="distributed-optimization")
    DecisionRecordFactory(number=26, title="One axis for both registries")
    publisher = UserFactory(publisher=True, username="grace")
    lit4 = Document.objects.get(number=4)
    actions.documents.edit_document(
        document=lit4,
        user=publisher,
        changes={"summary": lit4.summary.replace("ResNet", "residual network")},
    )
    actions.documents.publish(document=lit4, user=publisher, note="Spelled out ResNet.")
    citing = DocumentFactory(
        number=900,
        registry=Document.objects.get(number=4).registry,
        topic=topic,
        title="Checkpointing revisited",
        summary="Revisits LIT-004 with selective recomputation.",
        published=True,
    )
    citing.tags.add("memory")
    write_references(documents=[citing])
    return citing


def test_reader_opens_the_seed_topic_from_the_full_index(
    page, live_server, imported_seed, seed_rows
):
    page.goto(live_server.url)
    follow(page, page.get_by_role("link", name="Distributed optimization"))

    rows = page.locator("table.documents tbody tr")
    assert page.locator("h1").inner_text() == "Distributed optimization"
    assert rows.count() == len(seed_rows)
    assert rows.first.locator("td").all_text_contents() == seed_rows[0]
    follow(page, page.get_by_role("link", name="Back to the full index."))
    assert page.url == f"{live_server.url}/"


def test_reader_follows_a_document_and_a_cross_reference_then_searches(
    page, live_server, reading_record
):
    page.goto(live_server.url)
    follow(page, page.get_by_role("link", name="Distributed optimization"))
    follow(page, page.get_by_role("link", name="LIT-900", exact=True))
    assert page.locator("h1").inner_text() == "Checkpointing revisited"

    follow(page, page.locator(".summary").get_by_role("link", name="LIT-004"))
    assert page.locator("h1").inner_text() == (
        "Training Deep Nets with Sublinear Memory Cost"
    )
    referenced_by = page.locator(".referenced-by a")
    assert referenced_by.all_text_contents() == ["LIT-900"]

    banner = page.get_by_role("banner")
    banner.get_by_role("searchbox", name="Search the record").fill(
        '"pipeline parallelism"'
    )
    follow(page, banner.get_by_role("button", name="Search"))
    found = page.locator(".result-title a").all_text_contents()
    assert any(label.startswith("LIT-016 v2: GPipe:") for label in found)

    page.locator(".filters summary").click()
    page.get_by_label("From year").fill("2019")
    follow(page, page.get_by_role("button", name="Apply filters"))
    filtered = page.locator(".result-title a").all_text_contents()
    assert filtered and all(label in found for label in filtered)
    assert "GPipe" not in " ".join(filtered)  # 2018: filtered out.
    assert "year_from=2019" in page.url

    # On the search page its own box is the only one.
    main = page.get_by_role("main")
    assert banner.get_by_role("searchbox").count() == 0
    main.get_by_role("searchbox", name="Search the record").fill("pipelines")
    follow(page, main.get_by_role("button", name="Search"))
    found = page.locator(".result-title a").all_text_contents()
    # The two with the word in their titles rank first.
    assert set(found[:2]) == {
        "LIT-098 v2: PipeMare: Asynchronous Pipeline Parallel DNN Training",
        "LIT-016 v2: GPipe: Efficient Training of Giant Neural Networks using "
        "Pipeline Parallelism",
    }
    assert page.locator(".result-title mark").first.inner_text() == "Pipeline"

    main.get_by_role("searchbox", name="Search the record").fill("lit 7")
    follow(page, main.get_by_role("button", name="Search"))
    assert page.url == f"{live_server.url}/LIT-007/"


def test_reader_filters_a_topic_cites_what_is_shown_and_reads_a_diff(
    page, live_server, reading_record
):
    page.goto(f"{live_server.url}/topics/distributed-optimization/")
    page.locator(".filters summary").click()
    page.get_by_label("From year").fill("2024")
    follow(page, page.get_by_role("button", name="Apply filters"))

    shown = page.locator("table.documents tbody tr").count()
    assert page.locator(".counts").inner_text() == (
        f"68 of 68 LIT documents. {shown} of 68 shown, as filtered. "
        "Back to the full index."
    )
    with page.expect_download() as download:
        page.locator(".cite-links").get_by_role("link", name="BibTeX").click()
    entries = download.value.path().read_text(encoding="utf-8")
    # Of any type: a preprint's @misc, a conference paper's @inproceedings.
    assert len(re.findall(r"^@\w+\{", entries, re.MULTILINE)) == shown

    page.goto(f"{live_server.url}/topics/distributed-optimization/")
    follow(
        page,
        page.get_by_role("link", name="Training Deep Nets with Sublinear Memory Cost"),
    )
    assert page.locator(".source-links .button").get_attribute("href") == (
        "https://arxiv.org/pdf/1604.06174"
    )
    assert (
        page.locator("#cite-reference")
        .inner_text()
        .startswith("Chen et al. (2016). Training Deep Nets")
    )
    follow(page, page.get_by_role("link", name="v5"))
    assert page.locator(".diff-text del.diff").all_inner_texts() == ["ResNet"]
    assert page.locator(".diff-text ins.diff").all_inner_texts() == ["residual network"]
    assert page.locator("details.unchanged summary").all_inner_texts() == [
        "Title (unchanged)",
        "Citation (unchanged)",
    ]


def test_reader_sorts_a_topic_by_year_both_ways_and_filters_it_sorted(
    page, live_server, imported_seed
):
    topic = Document.objects.public().in_topic(
        Topic.objects.get(slug="distributed-optimization")
    )
    # Ties, which the seed has many of, in number order either way.
    oldest_first = [
        str(document.identifier)
        for document in topic.order_by("year", "registry__prefix", "number")
    ]
    newest_first = [
        str(document.identifier)
        for document in topic.order_by("-year", "registry__prefix", "number")
    ]
    shown = page.locator("table.documents tbody td.label")
    header = page.locator("table.documents thead")

    page.goto(f"{live_server.url}/topics/distributed-optimization/")
    follow(page, header.get_by_role("link", name="Year"))
    assert page.url.endswith("/topics/distributed-optimization/?sort=year")
    assert [label.split()[0] for label in shown.all_inner_texts()] == oldest_first
    assert header.locator("th[aria-sort]").get_attribute("aria-sort") == "ascending"
    assert header.locator("th[aria-sort] .sort-arrow").inner_text() == "▲"

    follow(page, header.get_by_role("link", name="Year"))
    assert page.url.endswith("?sort=-year")
    assert [label.split()[0] for label in shown.all_inner_texts()] == newest_first
    assert header.locator("th[aria-sort]").get_attribute("aria-sort") == "descending"

    page.locator(".filters summary").click()
    page.get_by_label("From year").fill("2024")
    follow(page, page.get_by_role("button", name="Apply filters"))
    recent = [
        str(document.identifier)
        for document in topic.filter(year__gte=2024).order_by(
            "-year", "registry__prefix", "number"
        )
    ]
    assert "sort=-year" in page.url and "year_from=2024" in page.url
    assert [label.split()[0] for label in shown.all_inner_texts()] == recent

    # On a phone the sorting headers stay, as a line of links over the rows.
    page.set_viewport_size({"width": 390, "height": 844})
    assert header.get_by_role("link", name="Title").is_visible()
    follow(page, header.get_by_role("link", name="Number"))
    assert "sort=" not in page.url and "year_from=2024" in page.url
    assert [label.split()[0] for label in shown.all_inner_texts()] == [
        str(document.identifier)
        for document in topic.filter(year__gte=2024).in_number_order()
    ]


PAGE_TYPES = [
    "/",
    "/topics/distributed-optimization/",
    "/topics/distributed-optimization/?year_from=2020",
    "/topics/distributed-optimization/?year_from=2020&sort=-year",
    "/LIT-004/",
    "/LIT-004/v4/",
    "/LIT-004/v5/",
    "/LIT-900/",
    "/unfiled/",
    "/registries/",
    "/registries/LIT/",
    "/tags/",
    "/tags/memory/",
    "/decisions/",
    "/decisions/ADR-026/",
    "/people/",
    "/people/rajbhandari/",
    "/venues/",
    "/venues/osdi/",
    "/search/",
    "/search/?q=checkpointing",
    "/search/?q=chen+rajbhandari",
    "/search/?q=ADR-099",
    "/search/?q=nothing-matches-this",
    "/topics/no-such-topic/",
    "/search/?year_from=abc",
]
ERRORS = {"/topics/no-such-topic/": 404, "/search/?year_from=abc": 400}


# The dark scheme changes the stylesheet's colour properties only, so on each
# page loaded in the light scheme the dark one is checked by the rules that
# read colours, with the page restyled in place.
COLOUR_RULES = {
    "runOnly": {"type": "rule", "values": ["color-contrast", "link-in-text-block"]},
    "resultTypes": ["violations"],
}
BODY_COLOUR = "getComputedStyle(document.body).color"


def test_every_page_type_passes_axe_in_light_and_dark(
    page, live_server, reading_record
):
    axe = Axe()
    failures = {}
    for path in PAGE_TYPES:
        page.emulate_media(color_scheme="light")
        response = page.goto(live_server.url + path)
        assert response.status == ERRORS.get(path, 200), path
        results = axe.run(page)
        if results.violations_count:
            failures[(path, "light")] = results.generate_report()
        page.emulate_media(color_scheme="dark")
        # The page is restyled: the body takes the dark scheme's text colour.
        assert page.evaluate(BODY_COLOUR) == "rgb(230, 230, 227)", path
        results = axe.run(page, options=COLOUR_RULES)
        if results.violations_count:
            failures[(path, "dark")] = results.generate_report()

    assert failures == {}


def test_editor_drafts_and_submits_publisher_publishes_reader_sees_it(
    browser, live_server, editorial_groups
):
    """The whole workflow in Chromium, through the admin's own pages."""
    registry = RegistryFactory()
    topic = TopicFactory(name="Distributed optimization")
    DocumentFactory(registry=registry, topic=topic, number=1, published=True)
    editor = UserFactory(editor=True, username="ada")
    publisher = UserFactory(publisher=True, username="grace")

    def count_on_topic_page(page):
        page.goto(f"{live_server.url}{topic.get_absolute_url()}")
        return page.locator("p.counts").inner_text()

    reader = browser.new_page()
    assert count_on_topic_page(reader).startswith("1 of 1 LIT documents")

    page = signed_in_page(browser, live_server, editor)
    page.goto(f"{live_server.url}/admin/catalogue/document/add/")
    page.select_option("#id_registry", str(registry.pk))
    page.locator("#id_topic + .select2").click()
    page.locator(".select2-search__field").fill("Distributed")
    page.locator(".select2-results__option", has_text="Distributed").click()
    page.fill("#id_authors", "Chen et al.")
    page.fill("#id_year", "2016")
    page.fill("#id_source_identifier", "ARXIV-1604.06174")
    page.fill("#id_title", "Training Deep Nets with Sublinear Memory Cost")
    page.fill("#id_summary", "Gradient checkpointing: trade compute for memory.")
    follow(page, page.locator("input[name=_continue]"))
    follow(page, page.locator("input[name=_submit_for_review]"))
    assert Document.objects.get(number=2).status == Document.Status.IN_REVIEW
    assert count_on_topic_page(reader).startswith("1 of 1 LIT documents")

    page = signed_in_page(browser, live_server, publisher)
    page.goto(f"{live_server.url}/admin/catalogue/document/?q=LIT-002")
    follow(page, page.get_by_role("link", name="LIT-002"))
    page.fill("#id_note", "First publication.")
    follow(page, page.locator("input[name=_publish]"))

    assert count_on_topic_page(reader).startswith("2 of 2 LIT documents")
    assert (
        reader.get_by_role("link", name="LIT-002").is_visible()
        and "Sublinear Memory Cost" in reader.content()
    )


def signed_in_page(browser, live_server, user):
    page = browser.new_context().new_page()
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    follow(page, page.locator("input[type=submit]"))
    return page

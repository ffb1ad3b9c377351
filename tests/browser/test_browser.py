"""What a reader sees in a real browser (Debian's Chromium, via Playwright)."""

import pytest
from axe_playwright_python.sync_playwright import Axe

from catalogue.models import Document, Topic
from catalogue.references import write_references
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
def reading_record(imported_seed):
    """The seed page, a decision record and a document that cites LIT-004."""
    topic = Topic.objects.get(slug="distributed-optimization")
    DecisionRecordFactory(number=26, title="One axis for both registries")
    citing = DocumentFactory(
        number=900,
        registry=Document.objects.get(number=4).registry,
        topic=topic,
        title="Checkpointing revisited",
        summary="Revisits LIT-004 with selective recomputation.",
    )
    citing.tags.add("memory")
    write_references(documents=[citing])
    return citing


def test_reader_opens_the_seed_topic_from_the_full_index(
    page, live_server, imported_seed, seed_rows
):
    page.goto(live_server.url)
    page.get_by_role("link", name="Distributed optimization").click()

    rows = page.locator("table.documents tbody tr")
    assert page.locator("h1").inner_text() == "Distributed optimization"
    assert rows.count() == len(seed_rows)
    assert rows.first.locator("td").all_text_contents() == seed_rows[0]
    page.get_by_role("link", name="Back to the full index.").click()
    assert page.url == f"{live_server.url}/"


def test_reader_follows_a_document_and_a_cross_reference_then_searches(
    page, live_server, reading_record
):
    page.goto(live_server.url)
    page.get_by_role("link", name="Distributed optimization").click()
    page.get_by_role("link", name="LIT-900", exact=True).click()
    assert page.locator("h1").inner_text() == "Checkpointing revisited"

    page.locator(".summary").get_by_role("link", name="LIT-004").click()
    assert page.locator("h1").inner_text() == (
        "Training Deep Nets with Sublinear Memory Cost"
    )
    referenced_by = page.locator(".referenced-by a")
    assert referenced_by.all_text_contents() == ["LIT-900"]

    banner = page.get_by_role("banner")
    banner.get_by_role("searchbox", name="Search the record").fill(
        '"pipeline parallelism"'
    )
    banner.get_by_role("button", name="Search").click()
    found = page.locator(".result-title a").all_text_contents()
    assert any(label.startswith("LIT-016 v2: GPipe:") for label in found)

    page.locator(".filters summary").click()
    page.get_by_label("From year").fill("2019")
    page.get_by_role("button", name="Apply filters").click()
    filtered = page.locator(".result-title a").all_text_contents()
    assert filtered and all(label in found for label in filtered)
    assert "GPipe" not in " ".join(filtered)  # 2018: filtered out.
    assert "year_from=2019" in page.url

    banner.get_by_role("searchbox", name="Search the record").fill("lit 7")
    banner.get_by_role("button", name="Search").click()
    assert page.url == f"{live_server.url}/LIT-007/"


PAGE_TYPES = [
    "/",
    "/topics/distributed-optimization/",
    "/topics/distributed-optimization/?year_from=2020",
    "/LIT-004/",
    "/LIT-004/v4/",
    "/LIT-900/",
    "/unfiled/",
    "/registries/",
    "/registries/LIT/",
    "/tags/memory/",
    "/decisions/",
    "/decisions/ADR-026/",
    "/search/",
    "/search/?q=checkpointing",
    "/search/?q=nothing-matches-this",
]


@pytest.mark.parametrize(
    ("color_scheme", "paths"),
    [("light", PAGE_TYPES), ("dark", ["/", "/LIT-900/", "/search/?q=checkpointing"])],
)
def test_every_page_type_passes_axe(
    page, live_server, reading_record, color_scheme, paths
):
    page.emulate_media(color_scheme=color_scheme)
    axe = Axe()
    failures = {}
    for path in paths:
        response = page.goto(live_server.url + path)
        assert response.status == 200, path
        results = axe.run(page)
        if results.violations_count:
            failures[path] = results.generate_report()

    assert failures == {}


def test_editor_drafts_and_submits_publisher_publishes_reader_sees_it(
    browser, live_server, editorial_groups
):
    """The whole workflow in Chromium, through the admin's own pages."""
    registry = RegistryFactory()
    topic = TopicFactory(name="Distributed optimization")
    DocumentFactory(registry=registry, topic=topic, number=1)
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
    page.click("input[name=_continue]")
    page.click("input[name=_submit_for_review]")
    assert Document.objects.get(number=2).status == Document.Status.IN_REVIEW
    assert count_on_topic_page(reader).startswith("1 of 1 LIT documents")

    page = signed_in_page(browser, live_server, publisher)
    page.goto(f"{live_server.url}/admin/catalogue/document/?q=LIT-002")
    page.get_by_role("link", name="LIT-002").click()
    page.fill("#id_note", "First publication.")
    page.click("input[name=_publish]")

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
    page.click("input[type=submit]")
    return page

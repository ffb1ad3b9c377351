"""The desk's second round, in Chromium: the journeys an editor and a
publisher take through the pages they use, and what readers then see."""

import io

import pytest
from django.core.management import call_command

import actions.documents
from catalogue.models import Document
from tests.browser.test_editorial_journeys import Desk, public_text
from tests.browser.test_log_pages_fit import TEAM_FOLDER
from tests.factories import (
    DecisionRecordFactory,
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
    UserFactory,
)
from tests.imports.test_import_csv import csv_text, row
from tests.imports.test_madr_import import write_folder

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def publisher(editorial_groups):
    return UserFactory(publisher=True, username="grace")


def cached(browser, live_server, path):
    """Read ``path`` twice as a reader, so the second comes from the cache."""
    page = browser.new_page()
    for _ in range(2):
        assert page.goto(live_server.url + path).status == 200
    page.close()


def test_merging_two_tags_keeps_every_documents_tag(browser, live_server, publisher):
    topic = TopicFactory()
    for number, tags in [
        (784, ["pipeline parallelism"]),
        (785, ["pipelining"]),
        (786, ["pipeline parallelism", "pipelining"]),
    ]:
        DocumentFactory(number=number, topic=topic, tags=tags, published=True)
    cached(browser, live_server, "/tags/pipeline-parallelism/")
    desk = Desk(browser, live_server, publisher)

    desk.go("/admin/taggit/tag/")
    desk.page.check("#action-toggle")
    desk.page.select_option("select[name=action]", "merge_tags_action")
    desk.press("button[name=index]")
    rows = desk.page.locator("table.merging tbody tr").all_inner_texts()
    assert [" ".join(row.split()) for row in rows] == [
        "pipeline parallelism LIT-784, LIT-786",
        "pipelining LIT-785, LIT-786",
    ]
    desk.accessible()
    desk.page.get_by_label("pipeline parallelism").check()
    desk.press("input[name=confirm]")

    assert desk.said() == [
        "Merged 2 tags into “pipeline parallelism”: 3 documents hold it."
    ]
    listed = public_text(
        browser, live_server, "/tags/pipeline-parallelism/", "table.documents tbody"
    )
    assert [line.split()[0] for line in listed.splitlines() if line.strip()] == [
        "LIT-784",
        "LIT-785",
        "LIT-786",
    ]
    assert [sorted(d.tags.names()) for d in Document.objects.order_by("number")] == [
        ["pipeline parallelism"]
    ] * 3
    assert desk.violations() == []


PHONE = {"width": 390, "height": 844}


@pytest.fixture
def phone_record(known_venues, imported_seed, tmp_path):
    """The seed page's record, a decision record with a long title, status
    and date, a superseded document and a search that finds many; a team's
    log of titles and statuses hundreds of letters long, one record holding
    a table of twelve columns."""
    call_command(
        "import_decisions",
        str(write_folder(tmp_path / "adr", TEAM_FOLDER)),
        "--log",
        "Platform",
        stdout=io.StringIO(),
    )
    DecisionRecordFactory(
        number=26,
        title="One axis for both registries: kinds of claim, not domains",
        status="superseded",
        decided_on="2025-11-03",
    )
    DecisionRecordFactory(number=61, title="Supersedes the single axis")
    older = Document.objects.get(number=4)
    newer = Document.objects.get(number=16)
    Document.objects.get(number=7).tags.add("large batch")
    actions.documents.supersede(
        document=older, successor=newer, user=UserFactory(is_superuser=True)
    )


PHONE_PAGES = [
    "/",
    "/topics/distributed-optimization/",
    "/topics/distributed-optimization/?sort=-year",
    "/unfiled/",
    "/registries/",
    "/registries/LIT/",
    "/tags/",
    "/tags/large-batch/",
    "/LIT-004/",
    "/LIT-004/v4/",
    "/LIT-016/",
    "/decisions/",
    "/decisions/ADR-026/",
    "/decisions/platform/",
    "/decisions/platform/ADR-001/",
    "/decisions/platform/ADR-002/",
    "/search/?q=pipeline",
    "/search/?q=pipline",
    "/search/?q=LIT-999",
    "/search/?q=Rajb",
    "/people/",
    "/people/rajbhandari/",
    "/venues/",
    "/venues/ieee-tac/",
]


# One page in the phone's viewport walks every page type: each is loaded and
# measured as a test of its own would, on the one record they all read.
def test_every_public_page_type_fits_a_phone(browser, live_server, phone_record):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    statuses, too_wide = {}, {}

    for path in PHONE_PAGES:
        statuses[path] = page.goto(live_server.url + path).status
        widths = page.evaluate(
            "[document.documentElement.scrollWidth, "
            "document.documentElement.clientWidth]"
        )
        if widths[0] > PHONE["width"]:
            too_wide[path] = widths

    assert statuses == dict.fromkeys(PHONE_PAGES, 200)
    assert too_wide == {}
    context.close()


def test_a_first_publication_is_reviewed_whole_then_published(
    browser, live_server, publisher
):
    topic = TopicFactory(name="Distributed optimization")
    DocumentFactory(
        number=11,
        in_review=True,
        topic=topic,
        title="Pipeline parallelism for giant networks",
        authors="Huang et al.",
        year=2019,
        summary="Splits a network into stages — 4× faster.",
        tags=["pipelines"],
    )
    desk = Desk(browser, live_server, publisher)
    desk.open_document("LIT-011")

    desk.page.get_by_role("link", name="Review and publish").click()
    desk.page.wait_for_load_state()
    view = desk.page.locator(".reader-view")
    assert view.locator("h2").inner_text() == "Pipeline parallelism for giant networks"
    assert "Splits a network into stages — 4× faster." in view.inner_text()
    assert "Distributed optimization" in view.locator(".facts").inner_text()
    assert "pipelines" in view.locator(".facts").inner_text()
    desk.accessible()
    desk.press("input[name=_publish]")

    assert desk.said() == ["Published LIT-011 v1."]
    title = public_text(browser, live_server, "/LIT-011/", "h1")
    assert title == "Pipeline parallelism for giant networks"
    assert desk.violations() == []


@pytest.mark.redis  # The import's jobs go through the test queue.
def test_a_spreadsheets_new_row_is_numbered_by_its_registry(
    browser, live_server, publisher, tmp_path
):
    registry = RegistryFactory()
    registry.last_number = 783
    registry.save()
    upload = tmp_path / "new.csv"
    upload.write_bytes(
        csv_text(
            [row(identifier="", number="", version="", status="", title="PipeDream")]
        )
    )
    desk = Desk(browser, live_server, publisher)

    desk.go("/admin/catalogue/document/import/")
    desk.page.set_input_files("input[type=file]", str(upload))
    desk.press("input[type=submit][value=Submit]")
    entry = desk.page.locator("table.import-outcomes tbody td").nth(2).inner_text()
    assert entry == (
        "LIT-784: PipeDream (numbered by its registry: the next number free when "
        "you confirm)"
    )
    desk.press("input[name=confirm]")

    document = Document.objects.get(number=784)
    assert (document.title, document.status) == ("PipeDream", "draft")
    assert desk.violations() == []


def test_supersession_and_withdrawal_reach_the_pages_and_the_feed(
    browser, live_server, publisher
):
    topic = TopicFactory()
    DocumentFactory(number=56, topic=topic, title="Old work", published=True)
    DocumentFactory(number=98, topic=topic, title="GPipe", published=True)
    DocumentFactory(number=784, topic=topic, title="PipeDream", published=True)
    for number in range(100, 151):
        DocumentFactory(number=number, topic=topic, published=True)
    cached(browser, live_server, "/LIT-784/")
    cached(browser, live_server, "/feed/")
    desk = Desk(browser, live_server, publisher)

    desk.open_document("LIT-098")
    desk.page.locator("#id_superseded_by + .select2").click()
    desk.page.locator(".select2-search__field").fill("PipeDream")
    desk.page.locator(".select2-results__option", has_text="LIT-784").click()
    desk.press("input[name=_continue]")
    desk.open_document("LIT-056")
    desk.page.get_by_role("link", name="Withdraw…").click()
    desk.page.fill("#id_reason", "Retracted by its authors.")
    desk.press("input[type=submit][value='Withdraw LIT-056']")

    notice = public_text(browser, live_server, "/LIT-784/", ".notice.supersedes")
    assert notice == "Supersedes LIT-098: GPipe."
    reader = browser.new_page()
    feed = reader.request.get(live_server.url + "/feed/").text()
    reader.close()
    assert "<title>LIT-056 withdrawn: Old work</title>" in feed
    assert "Reason: Retracted by its authors." in feed
    assert "<title>LIT-098 superseded: GPipe</title>" in feed
    assert desk.violations() == []


def test_a_reader_pastes_an_address_and_is_offered_the_records_words(
    browser, live_server
):
    DocumentFactory(
        number=784,
        title="PipeDream: generalized pipeline parallelism",
        source_identifier="ARXIV-1806.03377",
        author_list=[{"family": "Phanishayee", "given": "Amar"}],
        published=True,
    )
    page = browser.new_page()
    page.goto(live_server.url + "/search/")

    page.fill("#search-q", "https://arxiv.org/abs/1806.03377")
    page.click(".search-form button")
    page.wait_for_load_state()
    assert page.url == live_server.url + "/LIT-784/"

    page.goto(live_server.url + "/search/")
    page.fill("#search-q", "pipline")
    page.click(".search-form button")
    page.wait_for_load_state()
    assert page.locator(".suggestion").inner_text() == "Did you mean pipeline?"
    page.click(".suggestion a")
    page.wait_for_load_state()
    titles = page.locator(".result-title").all_inner_texts()
    assert titles == ["LIT-784: PipeDream: generalized pipeline parallelism"]

    page.fill("#search-q", "Phanishayee")
    page.click(".search-form button")
    page.wait_for_load_state()
    assert page.locator(".result-title").all_inner_texts() == titles
    page.close()

"""The desk's second round, in Chromium: the journeys an editor and a
publisher take through the pages they use, and what readers then see."""

import pytest

import actions.documents
from catalogue.models import Document
from tests.browser.test_editorial_journeys import Desk, public_text
from tests.factories import (
    DecisionRecordFactory,
    DocumentFactory,
    TopicFactory,
    UserFactory,
)

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
def phone_record(imported_seed):
    """The seed page's record, a decision record with a long title, status
    and date, a superseded document and a search that finds many."""
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


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/topics/distributed-optimization/",
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
        "/search/?q=pipeline",
        "/search/?q=pipline",
        "/search/?q=LIT-999",
    ],
)
def test_every_public_page_type_fits_a_phone(browser, live_server, phone_record, path):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()

    response = page.goto(live_server.url + path)

    assert response.status == 200
    widths = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert widths[0] <= PHONE["width"], (path, widths)
    context.close()

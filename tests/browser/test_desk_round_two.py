"""The desk's second round, in Chromium: the journeys an editor and a
publisher take through the pages they use, and what readers then see."""

import pytest

from catalogue.models import Document
from tests.browser.test_editorial_journeys import Desk, public_text
from tests.factories import DocumentFactory, TopicFactory, UserFactory

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

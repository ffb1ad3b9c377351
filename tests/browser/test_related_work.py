"""Related work and candidate topics, in Chromium: a reader follows related
work from a document page by its reasons; a publisher recomputes the
candidate topics at the desk, makes one a topic, and its documents move,
each move audited. The candidates page is checked with axe-core."""

import io

import pytest
from auditlog.models import LogEntry
from django.core.management import call_command

from catalogue.models import Document, Topic
from tests.browser import follow
from tests.browser.test_editorial_journeys import Desk
from tests.factories import DocumentFactory, TopicFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

PIPELINE = "Micro-batches fill the pipeline bubble of pipeline parallel training."
FOLDING = "Protein folding structure prediction from amino acid sequences"


@pytest.fixture
def mapped(editorial_groups, settings):
    settings.JOBS_IN_PROCESS = True
    topic = TopicFactory(name="Distributed optimization", slug="distributed")
    DocumentFactory(number=4, topic=topic, title="Sublinear memory", published=True)
    for number, title in [(16, "GPipe"), (98, "PipeMare")]:
        DocumentFactory(
            number=number,
            topic=topic,
            title=f"{title}: pipeline parallelism",
            summary=f"Builds on LIT-004. {PIPELINE}",
            tags=["pipelining"],
            published=True,
        )
    for n in range(4):
        DocumentFactory(
            number=40 + n,
            topic=None,
            title=f"{FOLDING}, study {n}",
            summary=f"Folding structure of proteins, predicted ({n}).",
            published=True,
        )
    call_command("recompute_related", stdout=io.StringIO())
    return UserFactory(publisher=True, username="grace")


def test_a_reader_follows_related_work_by_its_reasons(page, live_server, mapped):
    page.goto(f"{live_server.url}/LIT-016/")
    related = page.locator(".related-work li")

    assert related.first.inner_text() == (
        "LIT-098: PipeMare: pipeline parallelism (cites LIT-004 as this does; "
        "shares a tag; same topic; similar title and summary)"
    )
    follow(page, page.get_by_role("link", name="LIT-098"))
    assert page.locator("h1").inner_text().startswith("PipeMare")


def test_a_publisher_makes_a_candidate_group_a_topic(browser, live_server, mapped):
    desk = Desk(browser, live_server, mapped)
    desk.go("/admin/")
    desk.press("text=Candidate topics")
    desk.press("input[value='Recompute the candidates']")

    assert "LIT-040" in desk.page.locator(".candidate").inner_text()
    desk.accessible()
    desk.page.fill(".candidate input[name=name]", "Protein structure")
    desk.press(".candidate input[name=_make]")

    assert desk.said() == [
        "Made the topic “Protein structure” and filed its documents under it."
    ]
    topic = Topic.objects.get(name="Protein structure")
    moved = Document.objects.filter(topic=topic).order_by("number")
    assert [document.number for document in moved] == [40, 41, 42, 43]
    audited = LogEntry.objects.filter(
        content_type__model="document",
        actor=mapped,
        object_pk__in=[str(document.pk) for document in moved],
    )
    assert audited.count() == 4
    reader = browser.new_page()
    reader.goto(f"{live_server.url}{topic.get_absolute_url()}")
    assert FOLDING in reader.locator("main").inner_text()
    reader.close()
    assert desk.violations() == []

"""A reader meets the record's pictures in Chromium: the statistics page, a
bar that leads to its topic, a topic's own chart; axe finds nothing on the
statistics page nor on the desk's, and the policy refuses nothing."""

import pytest
from axe_playwright_python.sync_playwright import Axe

import actions.documents
from catalogue.models import Document, Topic
from tests.browser import follow
from tests.browser.test_browser import signed_in_page
from tests.factories import DocumentFactory, TopicFactory, UserFactory
from tests.html import csp_refusals

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def pictured_record(imported_seed, editorial_groups):
    """The seed page, a second topic with two public documents, and a
    document held in review, a revision held and a withdrawal at the desk."""
    seed_topic = Topic.objects.get(slug="distributed-optimization")
    registry = Document.objects.get(number=4).registry
    evaluation = TopicFactory(name="Evaluation", slug="evaluation")
    for number, year in [(901, 2019), (902, 2021)]:
        DocumentFactory(
            registry=registry,
            number=number,
            topic=evaluation,
            year=year,
            published=True,
        )
    editor = UserFactory(editor=True, username="ada")
    publisher = UserFactory(publisher=True, username="grace")
    waiting = DocumentFactory(registry=registry, number=903, topic=seed_topic)
    actions.documents.submit_for_review(document=waiting, user=editor)
    actions.documents.edit_document(
        document=Document.objects.get(number=4),
        user=editor,
        changes={"title": "A pending title"},
    )
    actions.documents.withdraw(
        document=Document.objects.get(number=901), user=publisher, reason="Wrong."
    )
    return {"editor": editor, "evaluation": evaluation}


def test_reader_opens_the_statistics_and_reaches_a_topic_from_its_bar(
    page, live_server, pictured_record
):
    refused = csp_refusals(page)
    page.goto(live_server.url)
    follow(page, page.get_by_role("link", name="Statistics", exact=True))
    assert page.locator("h1").inner_text() == "Statistics"
    figure = page.locator("figure#topics")
    assert figure.locator("svg").is_visible()

    figure.get_by_text("The numbers").click()
    numbers = figure.locator("table tbody tr", has_text="Evaluation")
    assert numbers.locator("td").inner_text() == "2"

    follow(page, figure.locator("svg a", has_text="Evaluation"))
    assert page.url == f"{live_server.url}/topics/evaluation/"
    chart = page.locator("figure#topic-years")
    assert chart.locator("svg").is_visible()
    chart.get_by_text("The numbers").click()
    assert chart.locator("tbody th").all_inner_texts() == ["2019", "2021"]
    assert refused == []


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
def test_the_statistics_pages_pass_axe(
    browser, page, live_server, pictured_record, color_scheme
):
    page.emulate_media(color_scheme=color_scheme)
    refused = csp_refusals(page)
    page.goto(f"{live_server.url}/statistics/")
    for details in page.locator("details.chart-numbers").all():
        details.locator("summary").click()
    # axe-core applies inline styles as it checks: what the page did is
    # read first, and what axe does is not the page's.
    public_refused = list(refused)
    public = Axe().run(page)
    desk = signed_in_page(browser, live_server, pictured_record["editor"])
    desk.emulate_media(color_scheme=color_scheme)
    desk_refused = csp_refusals(desk)
    response = desk.goto(f"{live_server.url}/admin/statistics/")
    assert response.status == 200
    for details in desk.locator("details.chart-numbers").all():
        details.locator("summary").click()
    staff_refused = list(desk_refused)
    staff = Axe().run(desk)

    assert public.violations_count == 0, public.generate_report()
    assert staff.violations_count == 0, staff.generate_report()
    assert public_refused == staff_refused == []

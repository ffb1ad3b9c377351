"""Adding by identifier and reviewing enrichment, in Chromium, against the
fake arXiv and Crossref: an editor pastes an identifier, sees the form
filled in, files and tags the document, and a publisher finds it in review."""

import io

import pytest
from bs4 import BeautifulSoup
from django.core.management import call_command

from catalogue.models import Document
from tests.browser.test_editorial_journeys import Desk
from tests.factories import (
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def desk_record(editorial_groups):
    """A topic, LIT-010 (so the next number is 11), an editor and a publisher."""
    registry = RegistryFactory()
    topic = TopicFactory(name="Distributed optimization")
    DocumentFactory(registry=registry, topic=topic, number=10, published=True)
    return {
        "editor": UserFactory(editor=True, username="ada"),
        "publisher": UserFactory(publisher=True, username="grace"),
    }


def choose_topic(page, name):
    """Pick ``name`` in the topic's autocomplete, as an editor does."""
    page.locator("#id_topic + .select2 .select2-selection").click()
    page.locator(".select2-search__field").fill(name[:5])
    page.locator(".select2-results__option", has_text=name).click()


def meta_authors(client_page):
    soup = BeautifulSoup(client_page.content(), "html.parser")
    return [
        tag["content"]
        for tag in soup.find_all("meta", attrs={"name": "citation_author"})
    ]


def test_an_editor_adds_a_paper_by_its_arxiv_address(
    browser, live_server, desk_record, metadata_sources
):
    editor = Desk(browser, live_server, desk_record["editor"])
    # A link another page could make the editor follow asks no service.
    metadata_sources.requests.clear()
    page = editor.go("/admin/catalogue/document/add/?identifier=1604.06174")
    assert metadata_sources.requests == []
    assert page.input_value("#id_title") == ""
    page = editor.go("/admin/catalogue/document/add/")
    page.fill("#id_lookup_identifier", "https://arxiv.org/abs/1604.06174v2")
    with page.expect_request(lambda request: request.method == "POST"):
        editor.press(".lookup-by-identifier input[type=submit]")

    assert editor.said()[0].startswith("Filled in from arXiv")
    assert "identifier" not in page.url
    assert len(metadata_sources.requests) == 1
    assert page.input_value("#id_title") == (
        "Training Deep Nets with Sublinear Memory Cost"
    )
    assert page.input_value("#id_authors") == "Chen et al."
    assert page.input_value("#id_year") == "2016"
    assert page.input_value("#id_publication_type") == "preprint"
    assert page.input_value("#id_author_list").splitlines() == [
        "Chen, Tianqi",
        "Xu, Bing",
        "Zhang, Chiyuan",
        "Guestrin, Carlos",
    ]
    editor.accessible()
    page.fill("#id_summary", "Gradient checkpointing — O(√n) memory.")
    choose_topic(page, "Distributed optimization")
    page.fill("#id_tags", "memory, checkpointing")
    editor.press("input[name=_continue]")
    assert editor.said() == ["Saved LIT-011 as a draft."]
    editor.press("input[name=_submit_for_review]")

    publisher = Desk(browser, live_server, desk_record["publisher"])
    publisher.go("/admin/")
    publisher.page.get_by_role("link", name="1 In review").click()
    publisher.page.get_by_role("link", name="LIT-011").click()
    publisher.press("input[name=_publish]")
    assert publisher.said() == ["Published LIT-011 v1."]

    document = Document.objects.get(number=11)
    assert (document.topic.name, sorted(document.tags.names())) == (
        "Distributed optimization",
        ["checkpointing", "memory"],
    )
    reader = browser.new_page()
    reader.goto(f"{live_server.url}/LIT-011/")
    assert meta_authors(reader) == [
        "Chen, Tianqi",
        "Xu, Bing",
        "Zhang, Chiyuan",
        "Guestrin, Carlos",
    ]
    reader.close()
    assert editor.violations() == publisher.violations() == []


def test_without_a_network_the_editor_fills_the_form_by_hand(
    browser, live_server, desk_record, offline_sources
):
    editor = Desk(browser, live_server, desk_record["editor"])
    page = editor.go("/admin/catalogue/document/add/")
    page.fill("#id_lookup_identifier", "10.1109/TAC.2003.812781")
    editor.press(".lookup-by-identifier input[type=submit]")

    assert editor.said() == [
        "Crossref could not be reached (ConnectError): is this server offline? Fill "
        "in the form by hand, or try again later. The form is yours to fill in by "
        "hand."
    ]
    assert page.input_value("#id_source_identifier") == "DOI:10.1109/TAC.2003.812781"
    page.fill("#id_title", "Coordination of groups of mobile autonomous agents")
    page.fill("#id_author_list", "Jadbabaie, A.\nLin, Jie\nMorse, A.S.")
    page.fill("#id_authors", "Jadbabaie, Lin and Morse")
    page.fill("#id_year", "2003")
    page.fill("#id_summary", "Nearest-neighbour rules.")
    editor.press("input[name=_continue]")

    assert editor.said() == ["Saved LIT-011 as a draft."]
    document = Document.objects.get(number=11)
    assert [author["family"] for author in document.author_list] == [
        "Jadbabaie",
        "Lin",
        "Morse",
    ]
    assert editor.violations() == []


def test_a_publisher_reviews_and_publishes_what_enrichment_proposed(
    browser, live_server, desk_record, metadata_sources
):
    DocumentFactory(
        sublinear_memory=True,
        number=20,
        title="Sublinear memory, the paper",
        published=True,
    )
    call_command("enrich_metadata", stdout=io.StringIO())

    publisher = Desk(browser, live_server, desk_record["publisher"])
    publisher.go("/admin/catalogue/document/?authors=incomplete")
    assert publisher.page.locator(
        "#result_list .field-identifier_label"
    ).all_inner_texts() == ["LIT-020 v4"]
    publisher.open_document("LIT-020")
    publisher.page.get_by_role("link", name="Review pending revision").click()
    publisher.page.wait_for_load_state()
    assert publisher.page.locator(".comparison dt").all_inner_texts() == [
        "Author list",
        "Publication type",
        "Publication date",
    ]
    publisher.accessible()
    publisher.press(".review-decision input[name=_publish]")

    assert publisher.said() == ["Published LIT-020 v5."]
    publisher.go("/admin/catalogue/document/?authors=incomplete")
    assert publisher.page.locator("#result_list").count() == 0
    assert publisher.violations() == []

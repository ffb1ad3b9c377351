"""Tags as editors type them, offered as they type, and a bulk withdrawal that
says what it will do before it asks for the reason: in Chromium, through the
change form and the document list."""

import pytest
from playwright.sync_api import expect

from catalogue.models import Document
from tests.browser.test_editorial_journeys import Desk
from tests.factories import DocumentFactory, RegistryFactory, TopicFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def record(editorial_groups):
    """A draft, LIT-012, and a public document tagged "pipeline parallelism"."""
    registry = RegistryFactory()
    topic = TopicFactory(name="Distributed optimization")
    DocumentFactory(
        registry=registry,
        topic=topic,
        number=4,
        tags=["pipeline parallelism", "memory"],
        published=True,
    )
    draft = DocumentFactory(
        registry=registry, topic=topic, number=12, title="GPipe", draft=True
    )
    return {"draft": draft, "editor": UserFactory(editor=True, username="ada")}


def test_a_tag_typed_with_spaces_stays_one_tag_and_is_shown_as_typed(
    browser, live_server, record
):
    editor = Desk(browser, live_server, record["editor"])
    editor.open_document("LIT-012")
    editor.page.fill("#id_tags", "sequence parallelism")
    editor.press("input[name=_continue]")

    assert list(record["draft"].tags.names()) == ["sequence parallelism"]
    assert editor.page.input_value("#id_tags") == "sequence parallelism"
    assert editor.violations() == []


def test_an_existing_tag_is_offered_and_chosen_by_keyboard_alone(
    browser, live_server, record
):
    editor = Desk(browser, live_server, record["editor"])
    editor.open_document("LIT-012")
    field = editor.page.get_by_role("combobox", name="Tags")
    field.click()
    field.press_sequentially("sequence parallelism, pipe")

    offered = editor.page.get_by_role("listbox").get_by_role("option")
    offered.first.wait_for()
    assert offered.all_inner_texts() == ["pipeline parallelism"]
    assert field.get_attribute("aria-expanded") == "true"
    assert editor.page.get_by_role("status").inner_text() == "1 tag offered."
    editor.accessible()
    field.press("Escape")
    expect(field).to_have_attribute("aria-expanded", "false")
    expect(offered).to_have_count(0)
    field.press("ArrowDown")
    expect(offered).to_have_count(1)
    field.press("ArrowDown")
    field.press("ArrowUp")
    expect(field).to_have_attribute(
        "aria-activedescendant", offered.first.get_attribute("id")
    )
    expect(offered.first).to_have_attribute("aria-selected", "true")
    field.press("Enter")

    assert field.input_value() == "sequence parallelism, pipeline parallelism, "
    assert field.get_attribute("aria-expanded") == "false"
    editor.accessible()
    editor.press("input[name=_continue]")
    assert sorted(record["draft"].tags.names()) == [
        "pipeline parallelism",
        "sequence parallelism",
    ]
    assert editor.violations() == []


def test_a_bulk_withdrawal_names_the_draft_it_will_leave_alone(
    browser, live_server, record
):
    publisher = Desk(browser, live_server, UserFactory(publisher=True))
    registry = record["draft"].registry
    DocumentFactory(registry=registry, number=5, published=True)
    publisher.go("/admin/catalogue/document/")
    for identifier in ["LIT-004", "LIT-005", "LIT-012"]:
        row = publisher.page.locator("#result_list tr", has_text=identifier)
        row.locator("input.action-select").check()
    publisher.page.select_option("select[name=action]", "withdraw_action")
    publisher.press("button[name=index]")

    plan = publisher.page.locator(".bulk-plan")
    assert plan.locator("p").first.inner_text() == (
        "2 of 3 will be withdrawn; LIT-012 is a draft and will be left alone."
    )
    publisher.accessible()
    publisher.page.fill("#id_reason", "Retracted by the authors.")
    publisher.press("input[type=submit]")

    assert publisher.said() == [
        "Withdrew 2 documents; LIT-012 is a draft and was left alone."
    ]
    assert dict(Document.objects.values_list("number", "status")) == {
        4: "withdrawn",
        5: "withdrawn",
        12: "draft",
    }
    assert publisher.violations() == []

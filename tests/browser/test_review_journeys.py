"""The review conversation, in Chromium: a publisher sends a draft back with
a comment on its summary, its editor reads it on the desk and the edit form,
revises and resubmits, and the publisher publishes; a publisher assigns a
review with a due date, the desk shows it, and the assignee's mail arrives
at a real SMTP server the test starts. Each page is checked for
Content-Security-Policy violations, the review's pages with axe-core."""

import datetime

import pytest

from catalogue.models import Document, ReviewThread
from tests.browser.test_editorial_journeys import Desk
from tests.factories import DocumentFactory, RegistryFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

SUMMARY = "Splits the sequence across devices — 4× longer contexts."


@pytest.fixture
def people(editorial_groups):
    return {
        "editor": UserFactory(editor=True, username="ada"),
        "publisher": UserFactory(publisher=True, username="grace"),
        "reviewer": UserFactory(publisher=True, username="hedy"),
    }


def write_and_submit(editor):
    editor.go("/admin/catalogue/document/add/")
    editor.page.fill("#id_title", "Sequence parallelism")
    editor.page.fill("#id_summary", SUMMARY)
    editor.page.fill("#id_authors", "Li et al.")
    editor.page.fill("#id_year", "2021")
    editor.press("input[name=_continue]")
    editor.press("input[name=_submit_for_review]")
    assert editor.said() == ["Submitted LIT-001 for review."]


def test_a_draft_sent_back_on_its_summary_is_revised_resubmitted_and_published(
    browser, live_server, people
):
    RegistryFactory()
    editor = Desk(browser, live_server, people["editor"])
    write_and_submit(editor)

    publisher = Desk(browser, live_server, people["publisher"])
    publisher.go("/admin/")
    publisher.page.get_by_role("link", name="1 In review").click()
    publisher.page.get_by_role("link", name="LIT-001", exact=True).click()
    publisher.page.wait_for_load_state()
    publisher.page.get_by_role("link", name="Review and publish").click()
    publisher.page.wait_for_load_state()
    publisher.accessible()
    publisher.page.get_by_label("About", exact=True).select_option(label="Summary")
    publisher.page.get_by_label("Comment", exact=True).fill(
        "Which “sequence”: tokens or layers?"
    )
    publisher.press("input[name=_send_back]")
    assert publisher.said() == ["Sent LIT-001 back to its editor: changes requested."]

    # The editor finds it on the desk, marked, and on the edit form.
    editor.go("/admin/")
    row = editor.page.locator(".review-queue .review-item", has_text="LIT-001")
    assert row.locator(".badge").inner_text() == "Changes requested"
    assert editor.page.get_by_role("link", name="1 Changes requested").count() == 1
    editor.accessible()
    editor.page.get_by_role("link", name="LIT-001", exact=True).click()
    editor.page.wait_for_load_state()
    note = editor.page.locator(".changes-requested-note")
    assert "Changes requested" in note.inner_text()
    comment = editor.page.locator(".review-comment")
    assert "on Summary" in comment.locator(".review-comment-meta").inner_text()
    assert comment.locator(".review-comment-body").inner_text() == (
        "Which “sequence”: tokens or layers?"
    )
    editor.accessible()
    editor.page.fill("#id_summary", "Splits the tokens of a sequence — 4× longer.")
    editor.press("input[name=_submit_for_review]")
    assert editor.said() == ["Submitted LIT-001 for review."]

    publisher.go("/admin/")
    row = publisher.page.locator(".review-queue .review-item", has_text="LIT-001")
    assert row.locator("td").nth(1).inner_text() == "First publication"
    row.get_by_role("link", name="LIT-001", exact=True).click()
    publisher.page.wait_for_load_state()
    assert "resubmitted it" in publisher.page.locator(".review-comments").inner_text()
    publisher.press("input[name=_publish]")

    assert publisher.said() == ["Published LIT-001 v1."]
    document = Document.objects.get(number=1)
    assert document.summary == "Splits the tokens of a sequence — 4× longer."
    thread = ReviewThread.objects.get()
    assert (thread.state, thread.version) == ("published", document.versions.get())
    assert editor.violations() == publisher.violations() == []


def test_an_assignment_with_a_due_date_shows_on_the_desk_and_is_mailed(
    browser, live_server, people, mail_server
):
    registry = RegistryFactory()
    DocumentFactory(registry=registry, number=7, title="Ring attention", published=True)
    editor = Desk(browser, live_server, people["editor"])
    editor.open_document("LIT-007")
    editor.page.fill("#id_title", "Ring attention with blockwise transformers")
    editor.press("input[name=_save]")

    publisher = Desk(browser, live_server, people["publisher"])
    publisher.go("/admin/")
    publisher.page.get_by_role("link", name="LIT-007", exact=True).click()
    publisher.page.wait_for_load_state()
    publisher.page.get_by_label("Reviewer").select_option(label="hedy")
    publisher.page.get_by_label("Due by").fill("2031-03-15")
    publisher.press("input[name=_assign]")
    # The admin capitalises its messages' first letter.
    assert publisher.said() == ["Hedy reviews LIT-007, due by 15 March 2031."]
    publisher.accessible()

    publisher.go("/admin/")
    row = publisher.page.locator(".review-queue .review-item", has_text="LIT-007")
    assert row.locator(".review-assignee").inner_text() == "hedy"
    assert row.locator(".review-due").inner_text() == "15 Mar 2031"

    # The assignee's mail, as their mail client reads it.
    [envelope] = mail_server.envelopes
    assert envelope.rcpt_tos == ["hedy@example.org"]
    [message] = mail_server.messages()
    assert message["Subject"] == "You are asked to review LIT-007"
    assert "by 15 March 2031" in message.get_content()

    # Their own queue holds it.
    reviewer = Desk(browser, live_server, people["reviewer"])
    reviewer.go("/admin/")
    reviewer.page.get_by_role("link", name="1 Assigned to me").click()
    reviewer.page.wait_for_load_state()
    mine = reviewer.page.locator(".review-queue .review-item")
    assert mine.locator("th").all_inner_texts() == ["LIT-007"]
    reviewer.accessible()
    thread = ReviewThread.objects.get()
    assert thread.due_on == datetime.date(2031, 3, 15)
    violations = publisher.violations() + reviewer.violations()
    assert editor.violations() == violations == []

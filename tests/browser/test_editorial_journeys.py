"""Every editorial journey, in Chromium, through the pages editors use.

Nothing here calls the workflow: an editor and a publisher sign in and click.
Each page they meet is checked for Content-Security-Policy violations, and
the desk, the list, the change form, the review, the merge screen and the
import preview are checked with axe-core.
"""

import csv
import io

import pytest
from axe_playwright_python.sync_playwright import Axe

from catalogue.models import Document
from tests.factories import (
    PASSWORD,
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db(transaction=True)

# Records every CSP violation the page meets, for Desk.violations().
CSP_WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__violations.push(event.violatedDirective + " " + event.blockedURI);
});
"""


class Desk:
    """A signed-in editor's browser tab, watched for CSP violations."""

    def __init__(self, browser, live_server, user):
        self.base = live_server.url
        self.page = browser.new_context().new_page()
        self.page.add_init_script(CSP_WATCH)
        self.seen = []
        self.auditing = False
        self.page.on("console", self._console)
        self.go("/admin/login/")
        self.page.fill("#id_username", user.username)
        self.page.fill("#id_password", PASSWORD)
        self.page.click("input[type=submit]")

    def _console(self, message):
        if "Content Security Policy" in message.text and not self.auditing:
            self.seen.append(f"{self.page.url}: {message.text}")

    def go(self, path):
        response = self.page.goto(self.base + path)
        assert response.status == 200, path
        self.seen.extend(self.page.evaluate("window.__violations"))
        return self.page

    def open_document(self, identifier):
        self.go(f"/admin/catalogue/document/?q={identifier}")
        self.page.get_by_role("link", name=identifier, exact=False).first.click()
        self.page.wait_for_load_state()

    def press(self, selector):
        self.page.click(selector)
        self.page.wait_for_load_state()
        self.seen.extend(self.page.evaluate("window.__violations"))

    def said(self):
        return self.page.locator(".messagelist li").all_inner_texts()

    def violations(self):
        self.seen.extend(self.page.evaluate("window.__violations"))
        return self.seen

    def accessible(self):
        # axe-core itself applies inline styles as it checks: what the page
        # did is recorded first, and what axe does is not the page's.
        self.violations()
        self.auditing = True
        results = Axe().run(self.page)
        self.page.evaluate("window.__violations = []")
        self.auditing = False
        assert results.violations_count == 0, results.generate_report()


def public_text(browser, live_server, path, selector):
    page = browser.new_page()
    page.goto(live_server.url + path)
    text = page.locator(selector).inner_text()
    page.close()
    return text


@pytest.fixture
def desk_record(editorial_groups):
    """LIT-004 (tagged, filed, published as v1) and LIT-010; an editor, a
    second editor and a publisher."""
    registry = RegistryFactory()
    topic = TopicFactory(name="Distributed optimization")
    tagged = DocumentFactory(
        registry=registry,
        topic=topic,
        number=4,
        title="Sublinear memory",
        tags=["memory", "Checkpointing"],
        published=True,
    )
    DocumentFactory(
        registry=registry,
        topic=topic,
        number=10,
        title="The better method",
        published=True,
    )
    return {
        "tagged": tagged,
        "editor": UserFactory(editor=True, username="ada"),
        "second": UserFactory(editor=True, username="bea"),
        "publisher": UserFactory(publisher=True, username="grace"),
    }


def test_a_tagged_draft_is_added_submitted_and_published(
    browser, live_server, desk_record
):
    editor = Desk(browser, live_server, desk_record["editor"])
    editor.go("/admin/catalogue/document/add/")
    editor.page.fill("#id_title", "Pipeline parallelism for giant networks")
    editor.page.fill("#id_summary", "Splits a network into stages — 4× faster.")
    editor.page.fill("#id_authors", "Huang et al.")
    editor.page.fill("#id_year", "2019")
    editor.page.fill("#id_source_identifier", "arXiv:1811.06965")
    editor.page.fill("#id_tags", "pipelines, memory")
    editor.press("input[name=_continue]")
    assert editor.said() == ["Saved LIT-011 as a draft."]
    editor.accessible()
    editor.press("input[name=_submit_for_review]")
    assert editor.said() == ["Submitted LIT-011 for review."]

    publisher = Desk(browser, live_server, desk_record["publisher"])
    publisher.go("/admin/")
    publisher.accessible()
    publisher.page.get_by_role("link", name="1 In review").click()
    publisher.page.get_by_role("link", name="LIT-011").click()
    publisher.press("input[name=_publish]")

    assert publisher.said() == ["Published LIT-011 v1."]
    document = Document.objects.get(number=11)
    assert document.source_identifier == "ARXIV-1811.06965"
    tags = public_text(browser, live_server, "/LIT-011/", ".facts")
    assert "memory, pipelines" in tags
    assert editor.violations() == publisher.violations() == []


def test_a_revision_of_a_tagged_document_is_reviewed_and_published(
    browser, live_server, desk_record
):
    editor = Desk(browser, live_server, desk_record["editor"])
    editor.open_document("LIT-004")
    editor.page.fill("#id_tags", "memory, che")
    offered = editor.page.locator("#id_tags_offers [role=option]")
    offered.first.wait_for()
    assert offered.all_inner_texts() == ["Checkpointing"]
    editor.page.fill("#id_title", "Sublinear memory cost")
    editor.page.fill("#id_tags", "memory, Checkpointing, rematerialisation")
    editor.page.fill("#id_note", "The paper's own title")
    editor.press("input[name=_save]")
    assert editor.said() == ["Held as a pending revision: readers still see LIT-004."]
    assert public_text(browser, live_server, "/LIT-004/", "h1") == "Sublinear memory"

    publisher = Desk(browser, live_server, desk_record["publisher"])
    publisher.go("/admin/")
    publisher.page.get_by_role("link", name="1 Pending revisions").click()
    publisher.page.get_by_role("link", name="LIT-004").click()
    publisher.page.get_by_role("link", name="Review pending revision").click()
    publisher.page.wait_for_load_state()
    assert publisher.page.locator(".comparison dt").all_inner_texts() == [
        "Title",
        "Tags",
    ]
    assert "ada" in publisher.page.locator(".review-facts").inner_text()
    publisher.accessible()
    publisher.press(".review-decision input[name=_publish]")

    assert publisher.said() == ["Published LIT-004 v2."]
    assert public_text(browser, live_server, "/LIT-004/", "h1") == (
        "Sublinear memory cost"
    )
    version = publisher.go("/admin/catalogue/document/")
    publisher.open_document("LIT-004")
    publisher.page.get_by_role("link", name="v2 — compare").click()
    assert "Written by ada" in version.locator("#content").inner_text()
    assert editor.violations() == publisher.violations() == []


def test_a_revision_is_discarded_and_an_old_version_reverted_to(
    browser, live_server, desk_record
):
    editor = Desk(browser, live_server, desk_record["editor"])
    editor.open_document("LIT-004")
    editor.page.fill("#id_title", "A title nobody wants")
    editor.press("input[name=_save]")

    publisher = Desk(browser, live_server, desk_record["publisher"])
    publisher.open_document("LIT-004")
    publisher.press("input[name=_discard_revision]")
    assert publisher.said() == [
        "Discarded the pending revision of LIT-004; readers still see LIT-004."
    ]

    publisher.open_document("LIT-004")
    publisher.page.fill("#id_title", "Second thoughts")
    publisher.press("input[name=_publish]")
    assert publisher.said() == ["Published LIT-004 v2."]
    publisher.open_document("LIT-004")
    publisher.page.get_by_role("link", name="v1 — compare").click()
    publisher.press("input[value='Revert to this version']")
    publisher.press("input[name=_publish]")

    document = Document.objects.get(number=4)
    assert (document.version, document.title) == (3, "Sublinear memory")
    assert publisher.violations() == []


def test_a_document_is_withdrawn_with_a_reason_and_reinstated(
    browser, live_server, desk_record
):
    publisher = Desk(browser, live_server, desk_record["publisher"])
    publisher.open_document("LIT-004")
    publisher.page.get_by_role("link", name="Withdraw…").click()
    publisher.press("input[type=submit][value='Withdraw LIT-004']")
    assert Document.objects.get(number=4).status == "active"  # A reason first.
    publisher.page.fill("#id_reason", "The results did not replicate.")
    publisher.press("input[type=submit][value='Withdraw LIT-004']")
    assert publisher.said()[0].startswith("Withdrew LIT-004")

    notice = public_text(browser, live_server, "/LIT-004/", ".notice")
    assert notice.endswith("Reason: The results did not replicate.")

    publisher.press("input[name=_reinstate]")
    assert publisher.said() == ["Reinstated LIT-004: readers see it active again."]
    assert Document.objects.get(number=4).status == "active"
    assert publisher.violations() == []


def test_a_document_is_superseded_from_its_form(browser, live_server, desk_record):
    publisher = Desk(browser, live_server, desk_record["publisher"])
    publisher.open_document("LIT-004")
    publisher.page.locator("#id_superseded_by + .select2").click()
    publisher.page.locator(".select2-search__field").fill("better")
    publisher.page.locator(".select2-results__option", has_text="LIT-010").click()
    publisher.press("input[name=_continue]")

    assert publisher.said()[-1] == (
        "LIT-004 is superseded by LIT-010: The better method."
    )
    notice = public_text(browser, live_server, "/LIT-004/", ".notice")
    assert notice == "Superseded by LIT-010: The better method."
    assert publisher.violations() == []


def test_a_concurrent_save_is_merged_without_losing_either_editors_work(
    browser, live_server, desk_record
):
    first = Desk(browser, live_server, desk_record["editor"])
    second = Desk(browser, live_server, desk_record["second"])
    first.open_document("LIT-004")
    second.open_document("LIT-004")
    first.page.fill("#id_summary", "Ada’s summary,\nover two lines.")
    first.press("input[name=_save]")
    second.page.fill("#id_summary", "Bea’s summary.")
    second.press("input[name=_continue]")

    conflict = second.page.locator(".merge-screen tr.conflict")
    assert "conflict" in conflict.locator("th").inner_text()
    # A browser sends a textarea's line breaks as CR LF.
    theirs = conflict.locator(".theirs").inner_text()
    assert theirs.replace("\r\n", "\n") == "Ada’s summary,\nover two lines."
    second.accessible()
    second.page.check("input[name=_theirs_summary]")
    second.press("input[name=_continue]")

    assert second.said() == ["Held as a pending revision: readers still see LIT-004."]
    held = Document.objects.get(number=4).pending_revision()
    assert held.summary == "Ada’s summary,\r\nover two lines."
    assert first.violations() == second.violations() == []


def test_bulk_actions_tag_and_withdraw_the_selected_documents(
    browser, live_server, desk_record
):
    publisher = Desk(browser, live_server, desk_record["publisher"])
    publisher.go("/admin/catalogue/document/")
    publisher.accessible()
    publisher.page.check("#action-toggle")
    publisher.page.select_option("select[name=action]", "add_tag_action")
    publisher.page.fill("input[name=tag]", "reviewed")
    publisher.press("button[name=index]")
    assert publisher.said() == [
        "2 public documents hold “reviewed” as a pending revision, for a "
        "publisher to publish."
    ]

    # Withdrawn, the rows no longer match the list's filter: the message
    # counts what was done, not what the filter finds after.
    publisher.go("/admin/catalogue/document/?status__exact=active")
    publisher.page.check("#action-toggle")
    publisher.page.select_option("select[name=action]", "withdraw_action")
    publisher.press("button[name=index]")
    publisher.page.fill("#id_reason", "Both superseded by the 2024 survey.")
    publisher.press("input[type=submit][value='Withdraw 2 documents']")

    assert publisher.said() == ["Withdrew 2 documents."]
    assert set(Document.objects.values_list("withdrawal_reason", flat=True)) == {
        "Both superseded by the 2024 survey."
    }
    assert publisher.violations() == []


def test_a_csv_import_is_previewed_then_confirmed(
    browser, live_server, desk_record, tmp_path
):
    publisher = Desk(browser, live_server, desk_record["publisher"])
    exported = publisher.page.request.get(
        f"{live_server.url}/export/documents.csv"
    ).text()
    rows = list(csv.DictReader(io.StringIO(exported)))
    rows[0].update(version="2", summary="Revised by CSV — “quoted”.")
    upload = tmp_path / "documents.csv"
    with upload.open("w", encoding="utf-8", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)

    publisher.go("/admin/catalogue/document/import/")
    publisher.page.set_input_files("input[type=file]", str(upload))
    publisher.press("input[type=submit][value=Submit]")
    assert publisher.page.locator(".import-summary").inner_text() == (
        "0 new, 1 updated, 1 unchanged."
    )
    publisher.accessible()
    publisher.press("input[name=confirm]")

    assert Document.objects.get(number=4).summary == "Revised by CSV — “quoted”."
    assert publisher.violations() == []


def test_no_admin_page_meets_a_csp_violation(browser, live_server, desk_record):
    tagged = desk_record["tagged"]
    administrator = UserFactory(username="root", is_superuser=True)
    publisher = Desk(browser, live_server, administrator)
    publisher.open_document("LIT-004")
    publisher.page.fill("#id_title", "Held for review")
    publisher.press("input[name=_continue]")
    paths = [
        "/admin/",
        *(
            f"/admin/catalogue/{model}/{page}"
            for model in ["document", "topic", "registry", "decisionrecord"]
            for page in ["", "add/"]
        ),
        "/admin/catalogue/preface/",
        "/admin/catalogue/brokenreference/",
        "/admin/taggit/tag/",
        "/admin/auditlog/logentry/",
        "/admin/catalogue/document/duplicates/",
        "/admin/catalogue/document/import/",
        "/admin/catalogue/topic/import/",
        "/admin/jobs/job/",
        f"/admin/catalogue/document/{tagged.pk}/change/",
        f"/admin/catalogue/document/{tagged.pk}/review/",
        f"/admin/catalogue/document/{tagged.pk}/preview/",
        f"/admin/catalogue/document/{tagged.pk}/versions/1/",
        f"/admin/catalogue/document/{tagged.pk}/withdraw/",
        f"/admin/catalogue/document/{tagged.pk}/auditlog/",
    ]

    for path in paths:
        publisher.go(path)

    assert publisher.violations() == []

"""Hostile input: script stored in every editable field stays inert everywhere.

A real Chromium visits every page type, public and admin, with the record full
of payloads, and checks that none ran, that none became an element, and that
the Content-Security-Policy was never needed to stop one (no violations).
"""

import pytest

import actions.review
from catalogue.models import Document, DocumentVersion, Preface, Revision
from catalogue.references import write_references
from tests.browser.test_browser import signed_in_page
from tests.factories import (
    DecisionRecordFactory,
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
    UserFactory,
)
from tests.html import csp_refusals

pytestmark = pytest.mark.django_db(transaction=True)

PAYLOADS = [
    "<script>window.__xss = 1</script>",
    '<img src="x" onerror="window.__xss = 2">',
    '"><svg onload="window.__xss = 3">',
    "'-window.__xss = 4-'",
    '<a href="javascript:window.__xss = 5">link</a>',
    '<iframe srcdoc="<script>parent.__xss = 6</script>"></iframe>',
    "{{ 7|add:7 }} {% now 'Y' %}",
    "</textarea><script>window.__xss = 8</script>",
]


def hostile(n, *, count=None):
    """A value carrying payloads (all, or the first ``count`` where a field
    is short), marked ``Field n`` to be found again."""
    return f"Field {n} {' '.join(PAYLOADS[:count])} end"


@pytest.fixture
def hostile_record(editorial_groups):
    registry = RegistryFactory(
        prefix="LIT", name=hostile(0, count=3), description=hostile(1)
    )
    topic = TopicFactory(name=hostile(2, count=3), slug="hostile", scope=hostile(3))
    Preface.objects.create(heading=hostile(4, count=3), text=hostile(5))
    DocumentFactory(registry=registry, topic=topic, number=2, published=True)
    document = DocumentFactory(
        registry=registry,
        topic=topic,
        number=1,
        title=hostile(6),
        authors=hostile(7),
        source_identifier='ARXIV-1"><img src="x" onerror="window.__xss = 9">',
        citation_note=hostile(8),
        summary=f"{hostile(9)} Names LIT-002 and [x](javascript:window.__xss=10).",
        # Written past the form's checks, as a hand-made row could be: its
        # source identifier is no identifier the publish action would take.
        status=Document.Status.ACTIVE,
    )
    document.tags.add(hostile(10, count=2), hostile(11, count=2))
    DocumentVersion.objects.create(
        document=document,
        number=1,
        published_at=document.created_at,
        note=hostile(12),
        **document.content(),
    )
    write_references(documents=[document])
    publisher = UserFactory(
        publisher=True, username="publisher", first_name=hostile(13, count=2)
    )
    Revision.objects.create(
        document=document,
        based_on_version=1,
        note=hostile(14),
        created_by=publisher,
        **{**document.content(), "summary": hostile(15)},
    )
    # A comment on the pending revision's summary, shown on its review page,
    # its change form and (its title) the desk's review queue.
    actions.review.comment(
        subject=document, user=publisher, body=hostile(19), field="summary"
    )
    decision = DecisionRecordFactory(
        number=26,
        title=hostile(16),
        body=f"## {hostile(17)}\n\n{hostile(18)}\n\n[x](javascript:window.__xss=11)",
    )
    write_references(decisions=[decision])
    return {"document": document, "publisher": publisher, "decision": decision}


PUBLIC_PAGES = [
    "/",
    "/topics/hostile/",
    "/unfiled/",
    "/registries/",
    "/registries/LIT/",
    "/LIT-001/",
    "/LIT-001/v1/",
    "/LIT-002/",
    "/decisions/",
    "/decisions/ADR-026/",
    "/search/?q=field",
    "/search/?q=%3Cscript%3Ewindow.__xss%3D1%3C%2Fscript%3E",
]


def admin_pages(record):
    document, decision = record["document"], record["decision"]
    return [
        "/admin/catalogue/document/",
        f"/admin/catalogue/document/{document.pk}/change/",
        f"/admin/catalogue/document/{document.pk}/preview/",
        f"/admin/catalogue/document/{document.pk}/review/",
        "/admin/",
        f"/admin/catalogue/document/{document.pk}/history/",
        "/admin/catalogue/topic/",
        "/admin/catalogue/registry/",
        f"/admin/catalogue/decisionrecord/{decision.pk}/change/",
        "/admin/catalogue/brokenreference/",
        "/admin/catalogue/preface/1/change/",
        "/admin/catalogue/document/import/",
    ]


def visit_all(page, base, paths):
    """Visit every path; return what went wrong, by path."""
    problems = {}
    dialogs, violations = [], csp_refusals(page)
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    for path in paths:
        dialogs.clear()
        violations.clear()
        response = page.goto(base + path)
        found = []
        if response.status >= 400:
            found.append(f"status {response.status}")
        if page.evaluate("window.__xss") is not None:
            found.append(f"payload ran: {page.evaluate('window.__xss')}")
        injected = page.locator(
            "img[src='x'], svg[onload], iframe[srcdoc], a[href^='javascript:']"
        ).count()
        if injected:
            found.append(f"{injected} injected elements")
        if dialogs:
            found.append(f"dialogs {dialogs}")
        if violations:
            found.append(f"CSP violations {violations}")
        if found:
            problems[path] = found
    return problems


def test_payloads_stay_inert_on_every_public_page(page, live_server, hostile_record):
    assert visit_all(page, live_server.url, PUBLIC_PAGES) == {}
    page.goto(live_server.url + "/LIT-001/")
    assert page.locator("h1").inner_text() == hostile(6)


def test_payloads_stay_inert_in_the_admin(browser, live_server, hostile_record):
    page = signed_in_page(browser, live_server, hostile_record["publisher"])

    assert visit_all(page, live_server.url, admin_pages(hostile_record)) == {}


def test_pending_revision_with_payloads_never_reaches_the_public(
    client, hostile_record
):
    content = client.get("/LIT-001/").content.decode()

    assert "Field 15" not in content
    assert Document.objects.get(number=1).summary.startswith("Field 9")

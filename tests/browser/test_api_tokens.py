"""A staff member's API token, from the admin to a script and back: made in
Chromium (its secret shown once), used by a script (httpx, as curl would)
on the staff CSV export and the drafts-aware API, revoked, then refused."""

import httpx
import pytest

from api.models import ApiToken, digest
from tests.browser.test_editorial_journeys import Desk
from tests.factories import DocumentFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_token_made_in_the_admin_works_from_a_script_until_revoked(
    browser, live_server, editorial_groups
):
    DocumentFactory(number=4, title="Published work", published=True)
    DocumentFactory(number=12, title="A draft for the desk only")
    desk = Desk(browser, live_server, UserFactory(editor=True, username="ed"))

    page = desk.go("/admin/api/apitoken/add/")
    page.fill("#id_name", "nightly export")
    page.click("input[name=_save]")
    secret = page.inner_text("#api-token-secret")
    page.click("text=Back to your API tokens")

    assert ApiToken.objects.get().key_digest == digest(secret)
    assert page.locator("#result_list").inner_text().count("nightly export") == 1
    assert secret not in page.content()  # Shown once, on the page that made it.

    def script(path):
        return httpx.get(
            live_server.url + path, headers={"Authorization": f"Bearer {secret}"}
        )

    export = script("/export/documents.csv")
    draft = script("/api/documents/LIT-012/")
    assert export.status_code == 200
    assert "A draft for the desk only" in export.text
    assert draft.status_code == 200
    assert draft.json()["title"] == "A draft for the desk only"
    assert httpx.get(live_server.url + "/api/documents/LIT-012/").status_code == 404

    page.check("#result_list input[name=_selected_action]")
    page.select_option("select[name=action]", "revoke_action")
    page.click("button[name=index]")
    page.wait_for_selector("text=Revoked 1 API token")

    assert script("/export/documents.csv").status_code == 401
    assert script("/api/documents/LIT-012/").status_code == 401
    assert desk.seen == []

"""The API's reference page, /api/docs/, is a page of the site: its frame
(language, landmarks, navigation), every operation with its parameters and
answers, and no accessibility violation in the light or the dark scheme."""

import pytest
from axe_playwright_python.sync_playwright import Axe

from tests.browser.test_browser import BODY_COLOUR, COLOUR_RULES

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def test_the_api_reference_passes_axe_in_light_and_dark(page, live_server):
    axe = Axe()
    page.emulate_media(color_scheme="light")
    response = page.goto(f"{live_server.url}/api/docs/")

    assert response.status == 200
    assert page.locator("html").get_attribute("lang") == "en-GB"
    assert page.get_by_role("main").count() == 1
    page.get_by_role("link", name="GET /api/removed/").click()
    removed = page.get_by_role("region", name="GET /api/removed/")
    assert removed.get_by_role("rowheader", name="since (required)").is_visible()
    light = axe.run(page)
    assert light.violations_count == 0, light.generate_report()

    page.emulate_media(color_scheme="dark")
    assert page.evaluate(BODY_COLOUR) == "rgb(230, 230, 227)"
    dark = axe.run(page, options=COLOUR_RULES)
    assert dark.violations_count == 0, dark.generate_report()

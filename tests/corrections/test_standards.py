"""The correction pages are valid HTML to the Nu HTML checker: the form as it
opens and with its refusals, the private page, the 429 page."""

import pytest
from django.urls import reverse

from tests.databases import WEB_LAYER
from tests.factories import CorrectionFactory, DecisionRecordFactory, DocumentFactory
from tests.html import form_data
from tests.nu import nu_errors

pytestmark = [pytest.mark.django_db, WEB_LAYER]


@pytest.mark.java
@pytest.mark.node
def test_the_nu_html_checker_finds_no_error_on_the_correction_pages(
    client, settings, tmp_path
):
    settings.CORRECTIONS_RATE = "1/hour"
    document = DocumentFactory(number=219, published=True)
    decision = DecisionRecordFactory(number=26)
    path = reverse("corrections:document", kwargs={"identifier": document.identifier})
    correction = CorrectionFactory(document=document)
    data = form_data(client.get(path), "form.correction-form")
    pages = {
        "form": client.get(path),
        "decision form": client.get(
            reverse("corrections:decision", kwargs={"identifier": decision.identifier})
        ),
        "refused": client.post(path, {**data, "year": "x", "email": "x"}),
        "follow": client.get(
            reverse("corrections:follow", kwargs={"token": correction.token()})
        ),
    }
    client.post(path, {**data, "title": "First"})
    pages["limited"] = client.post(path, {**data, "title": "Second"})
    assert [page.status_code for page in pages.values()] == [200] * 4 + [429]
    errors = nu_errors(
        {name: response.content for name, response in pages.items()}, tmp_path
    )
    assert errors == [], "\n".join(errors)

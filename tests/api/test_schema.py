"""The OpenAPI description, run against the API by schemathesis: every
operation, with the parameters the description allows, answers without a
server error and as the description says (status, content type, body)."""

import pytest
import schemathesis
from django.conf import settings
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, given
from hypothesis import settings as examples
from schemathesis.specs.openapi.checks import positive_data_acceptance

from anthology.wsgi import application
from tests.databases import WEB_LAYER
from tests.html import soup_of

pytestmark = [pytest.mark.django_db, WEB_LAYER]


@pytest.fixture
def api_schema(with_draft, settings):
    """The description as the site serves it, called through the WSGI
    application in the test's own process: no network. The rate limit is
    lifted, as schemathesis asks more than a reader would."""
    settings.API_ANONYMOUS_RATE = "100000/minute"
    # As Django's test client does: the test's connection (and its open
    # transaction) outlives each request.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
    # The site refuses a NUL anywhere in a request before any view reads it
    # (public.middleware), the API's addresses included.
    schema.config.generation.update(allow_x00=False)
    yield schema
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def test_every_operation_answers_as_described(api_schema):
    checked = []
    for result in api_schema.get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy())
        @examples(suppress_health_check=list(HealthCheck))
        def answers_as_described(case):
            # Werkzeug's client, which calls the WSGI application, does not
            # unpack the gzip it asks for. A filter naming a registry or a
            # topic the record lacks is refused (400, naming the filter): the
            # description cannot list them, so "any string" is not "valid".
            case.call_and_validate(
                headers={"Accept-Encoding": "identity"},
                excluded_checks=[positive_data_acceptance],
            )

        answers_as_described()
        checked.append(operation.path)

    assert len(checked) == 17


def test_the_description_is_openapi_3_1(client):
    description = client.get("/api/schema/?format=json").json()

    assert description["openapi"] == "3.1.0"
    assert {"/api/documents/", "/api/documents/{identifier}/"} <= set(
        description["paths"]
    )
    assert description["components"]["securitySchemes"]["apiToken"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "A personal API token, made in the admin.",
    }


def test_the_reference_page_states_every_operation_and_parameter_bound(client):
    description = client.get("/api/schema/?format=json").json()

    page = soup_of(client.get("/api/docs/"))

    assert page.html["lang"] == "en-GB"
    operations = {section.h2.get_text(): section for section in page.select("section")}
    assert set(operations) == {f"GET {path}" for path in description["paths"]}
    documents = operations["GET /api/documents/"]
    rows = {
        row.th.get_text(): [cell.get_text() for cell in row.find_all("td")]
        for row in documents.select("tbody tr")
    }
    maximum = settings.API_MAX_PAGE_SIZE
    assert rows["page_size"][:3] == [
        "query",
        "integer",
        f"at least 1; at most {maximum}",
    ]
    assert rows["modified_since"][2].endswith("date-time")
    assert "400" in documents.dl.get_text()
    # It runs no script: its one is the page's structured data.
    assert [script["type"] for script in page.find_all("script")] == [
        "application/ld+json"
    ]

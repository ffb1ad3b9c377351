"""What is public to read, the API, OAI-PMH, the feeds and the citation
downloads, is readable by a script on another origin (CORS, with any origin
and no credentials), from a cached answer as from a rendered one; a session
or a token never crosses origins, and the admin and the site's pages stay
same-origin. A preflight is answered before the database is read."""

import pytest

from api.models import ApiToken
from tests.databases import BOTH, WEB_LAYER
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, WEB_LAYER]


@pytest.fixture
def public_record(module_public_record):
    """The small public record, made once for the module: its tests only read
    it (a token or a session a test makes is rolled back with it)."""
    return module_public_record


ORIGIN = {"Origin": "https://reader.example.net"}
PREFLIGHT = {**ORIGIN, "Access-Control-Request-Method": "GET"}

READABLE = [
    "/api/",
    "/api/documents/",
    "/api/documents/LIT-004/",
    "/api/schema/",
    "/oai/?verb=Identify",
    "/oai/?verb=ListRecords&metadataPrefix=oai_dc",
    "/feed/",
    "/topics/distributed/feed/",
    "/LIT-004/feed/",
    "/decisions/feed/",
    "/LIT-004/cite.json",
    "/LIT-004/cite.bib",
    "/LIT-004/cite.ris",
    "/topics/distributed/cite.bib",
    "/search/cite.ris?q=memory",
    "/LIT-004/linkset",
    "/LIT-004/linkset.json",
    "/LIT-004/metadata.jsonld",
    "/data/index.json",
]
SAME_ORIGIN = [
    "/",
    "/LIT-004/",
    "/topics/distributed/",
    "/search/?q=memory",
    "/admin/login/",
    "/export/documents.csv",
]


def cross_origin_headers(response):
    """The response's CORS headers, by their names in lower case."""
    return {
        name.lower(): value
        for name, value in response.items()
        if name.lower().startswith("access-control-")
    }


READING = {
    "access-control-allow-origin": "*",
    "access-control-expose-headers": "ETag, Link, Retry-After",
}


@pytest.mark.parametrize(
    "method,path",
    [(method, path) for method in ["get", "head"] for path in READABLE],
)
def test_public_reading_is_open_to_every_origin(client, public_record, path, method):
    response = getattr(client, method)(path, headers=ORIGIN)

    assert response.status_code == 200
    assert cross_origin_headers(response) == READING
    assert "origin" in response["Vary"].lower()


@pytest.mark.parametrize(
    "path",
    ["/api/documents/LIT-999/", "/api/documents/?page_size=x", "/LIT-999/cite.json"],
)
def test_a_client_error_is_readable_from_another_origin(client, public_record, path):
    response = client.get(path, headers=ORIGIN)

    assert 400 <= response.status_code < 500
    assert cross_origin_headers(response) == READING


@BOTH
@pytest.mark.parametrize("path", ["/topics/distributed/feed/", "/LIT-004/cite.json"])
def test_a_cached_answer_carries_the_cross_origin_headers(
    client, public_record, path, django_assert_num_queries
):
    first = client.get(path)  # Cached by a request from the site's own pages.

    with django_assert_num_queries(0):
        cached = client.get(path, headers=ORIGIN)
        not_modified = client.get(
            path, headers={**ORIGIN, "If-None-Match": first["ETag"]}
        )

    assert cached.content == first.content
    assert cross_origin_headers(first) == {}
    assert cross_origin_headers(cached) == READING
    assert not_modified.status_code == 304
    assert cross_origin_headers(not_modified) == READING


@pytest.mark.parametrize("path", SAME_ORIGIN)
def test_the_sites_pages_and_the_admin_stay_same_origin(client, public_record, path):
    response = client.get(path, headers=ORIGIN)
    preflight = client.options(path, headers=PREFLIGHT)

    assert cross_origin_headers(response) == {}
    assert cross_origin_headers(preflight) == {}


def test_a_token_never_crosses_origins(client, public_record):
    token = ApiToken(user=UserFactory(editor=True), name="script")
    secret = token.issue_secret()
    token.save()

    response = client.get(
        "/api/documents/",
        headers={**ORIGIN, "Authorization": f"Bearer {secret}"},
    )

    assert response.status_code == 200
    assert cross_origin_headers(response) == {}


def test_a_session_never_crosses_origins(admin_client, public_record):
    for path in ["/api/documents/", "/LIT-004/cite.json", "/admin/"]:
        response = admin_client.get(path, headers=ORIGIN)
        assert response.status_code == 200
        assert cross_origin_headers(response) == {}


@pytest.mark.parametrize(
    "path", ["/api/documents/", "/oai/", "/feed/", "/LIT-004/cite.bib"]
)
@BOTH
def test_a_preflight_is_answered_without_the_database(
    client, path, django_assert_num_queries
):
    with django_assert_num_queries(0):
        response = client.options(
            path,
            headers={**PREFLIGHT, "Access-Control-Request-Headers": "if-none-match"},
        )

    assert response.status_code == 200
    assert response.content == b""
    assert cross_origin_headers(response) == {
        **READING,
        "access-control-allow-headers": (
            "accept, accept-language, if-none-match, if-modified-since"
        ),
        "access-control-allow-methods": "GET, HEAD, OPTIONS",
        "access-control-max-age": "86400",
    }


def test_a_preflight_allows_no_credentials_and_no_token_header(client):
    response = client.options(
        "/api/documents/",
        headers={**PREFLIGHT, "Access-Control-Request-Headers": "authorization"},
    )
    allowed = response["Access-Control-Allow-Headers"].split(", ")

    assert "authorization" not in allowed
    assert "Access-Control-Allow-Credentials" not in response
    assert "POST" not in response["Access-Control-Allow-Methods"]

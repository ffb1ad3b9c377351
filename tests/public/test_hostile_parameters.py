"""Any bytes in any parameter of any public URL get a page or a client error,
never a server error, on SQLite and on PostgreSQL alike."""

import pytest

pytestmark = [
    pytest.mark.django_db,
    # An overlong slug makes an overlong page-cache key, which only memcached
    # would refuse; the site's caches are Redis and process memory.
    pytest.mark.filterwarnings("ignore::django.core.cache.CacheKeyWarning"),
]

# NUL alone and inside words; invalid UTF-8 (a lone continuation byte, an
# overlong encoding, a UTF-16 surrogate, a code point past U+10FFFF); a
# right-to-left override; an overlong value; a run of operators.
VALUES = [
    "%00",
    "a%00b",
    "lit%00325",
    "%ff%fe",
    "%c0%ae%c0%ae",
    "%ed%a0%80",
    "%f4%90%80%80",
    "%e2%80%ae",
    "x" * 3000,
    "-" * 40,
    "%22-%22" * 20,
]
FILTERS = ["registry", "topic", "status", "year_from", "year_to", "tag", "page"]
# A document table's filters and its sort.
TABLE = [*FILTERS, "sort"]

# (path, its query parameters); {} marks a path segment a reader can change.
URLS = [
    ("/", ["q"]),
    ("/topics/{}/", TABLE),
    ("/topics/{}/feed/", []),
    ("/topics/{}/cite.bib", FILTERS),
    ("/unfiled/", TABLE),
    ("/registries/", ["page"]),
    ("/registries/{}/", TABLE),
    ("/tags/", []),
    ("/tags/{}/", TABLE),
    ("/{}/", []),
    ("/LIT-004/v{}/", []),
    ("/{}/cite.bib", []),
    ("/decisions/", ["page"]),
    ("/decisions/{}/", []),
    ("/search/", ["q", *FILTERS]),
    ("/search/cite.ris", ["q", *FILTERS]),
    ("/feed/", []),
    ("/sitemap.xml", []),
    ("/sitemap-{}.xml", ["p"]),
    ("/robots.txt", []),
    ("/favicon.ico", []),
]
# What fills a path segment when the query is under test.
SEGMENTS = {
    "/topics/{}/": "distributed",
    "/topics/{}/feed/": "distributed",
    "/topics/{}/cite.bib": "distributed",
    "/registries/{}/": "LIT",
    "/tags/{}/": "memory",
    "/{}/": "LIT-004",
    "/LIT-004/v{}/": "1",
    "/{}/cite.bib": "LIT-004",
    "/decisions/{}/": "ADR-026",
    "/sitemap-{}.xml": "documents",
}


def requests_for(path, parameters):
    """Every request that puts a hostile value in one place of ``path``."""
    if "{}" in path:
        for value in VALUES:
            yield path.format(value)
        path = path.format(SEGMENTS[path])
    for parameter in parameters:
        for value in VALUES:
            yield f"{path}?{parameter}={value}"
            yield f"{path}?{parameter}=1&{parameter}={value}"
    yield f"{path}?{VALUES[0]}=1"


@pytest.mark.parametrize(("path", "parameters"), URLS, ids=[url for url, _ in URLS])
def test_any_bytes_in_any_parameter_answer_a_page_or_a_client_error(
    client, public_record, path, parameters
):
    answers = {}
    for request in requests_for(path, parameters):
        # A server error would raise here, failing the test with its cause.
        answers[request] = client.get(request).status_code

    assert {
        request: status for request, status in answers.items() if status >= 500
    } == {}


@pytest.mark.parametrize("value", ["%00", "a%00b", "lit%00325"])
def test_a_nul_in_a_search_is_a_client_error(client, public_record, value):
    assert client.get(f"/search/?q={value}").status_code == 400
    assert client.get(f"/search/cite.bib?q={value}").status_code == 400

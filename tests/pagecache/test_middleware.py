"""Public pages cached for anonymous readers, and never stale.

Changes go through the services, which expire pages once their transaction
commits: ``committed`` runs those on-commit callbacks, as a real commit would.
A page served from the cache costs no SQL query, which is how these tests
tell a cached page (warm) from a rendered one.
"""

import gzip

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

import actions.documents
from catalogue.models import Person, Venue
from pagecache import generations, middleware
from pagecache.backends import RedisCache
from pagecache.models import PendingExpiry
from tests.factories import (
    PASSWORD,
    DocumentFactory,
    UserFactory,
)
from tests.html import is_warm, text_of
from tests.tools import RUN_PREFIX, TEST_REDIS_URL

pytestmark = pytest.mark.django_db


def test_a_second_anonymous_request_is_served_from_the_cache(
    client, filed, django_assert_num_queries
):
    path = filed["first"].get_absolute_url()
    first = client.get(path)

    second = is_warm(client, path, django_assert_num_queries)

    assert second.content == first.content
    assert second["Content-Type"] == first["Content-Type"]


def test_a_cached_page_is_answered_before_the_session_with_its_rendered_headers(
    client, filed, django_assert_num_queries
):
    path = filed["first"].get_absolute_url()
    # Generations minted in an earlier second: Last-Modified is sent from the
    # first answer on (within the second of a change it waits), so both carry
    # it, whenever the test runs.
    for scope in middleware._path_scopes(path):
        cache.set(f"gen:{scope}", "1700000000000.test", None)
    first = client.get(path)

    second = is_warm(client, path, django_assert_num_queries)

    # No middleware after the cache's ran: not even the session's.
    assert not hasattr(second.wsgi_request, "session")
    assert hasattr(first.wsgi_request, "session")
    # Yet it carries every header the rendered page had, CSP included.
    assert dict(second.items()) == dict(first.items())
    assert "Content-Security-Policy" in second
    assert second["X-Frame-Options"] == "DENY"


def test_an_editors_view_is_live_private_and_never_served_to_readers(
    client, filed, django_assert_num_queries
):
    path = filed["first"].get_absolute_url()
    editor = UserFactory(editor=True)
    signed_in = client.post(
        "/admin/login/", {"username": editor.username, "password": PASSWORD}
    )
    assert signed_in.status_code == 302

    first = client.get(path)
    with CaptureQueriesContext(connection) as live:
        second = client.get(path)

    assert len(live) > 0
    assert "private" in second["Cache-Control"]
    assert "ETag" not in first
    client.logout()
    reader = client.__class__()
    reader.get(path)  # A reader's first visit renders: the editor's was not kept.
    is_warm(reader, path, django_assert_num_queries)


def test_a_rolled_back_change_expires_nothing(
    admin_client, client, filed, django_assert_num_queries
):
    path = filed["first"].get_absolute_url()
    text_of(client, path)
    draft = DocumentFactory(number=30, draft=True)

    # Withdrawing a draft is refused, so the bulk action changes nothing.
    admin_client.post(
        reverse("admin:catalogue_document_changelist"),
        {"action": "withdraw_action", "_selected_action": [draft.pk]},
    )

    is_warm(client, path, django_assert_num_queries)


def test_a_lost_generation_makes_pages_miss_never_serve_old_ones(client, filed):
    path = filed["first"].get_absolute_url()
    text_of(client, path)

    cache.delete("gen:everything")  # As if evicted, or Redis restarted empty.

    with CaptureQueriesContext(connection) as rendered:
        client.get(path)
    assert len(rendered) > 0


# Conditional requests


def test_a_matching_etag_is_answered_304_without_a_query(
    client, filed, django_assert_num_queries
):
    path = filed["first"].get_absolute_url()
    etag = client.get(path)["ETag"]

    with django_assert_num_queries(0):
        response = client.get(path, headers={"If-None-Match": etag})

    assert response.status_code == 304
    assert response.content == b""
    assert response["ETag"] == etag


def test_after_a_change_the_old_etag_gets_the_new_page(
    client, filed, publisher, committed
):
    path = filed["first"].get_absolute_url()
    etag = client.get(path)["ETag"]

    with committed():
        actions.documents.withdraw(document=filed["document"], user=publisher)
    response = client.get(path, headers={"If-None-Match": etag})

    assert response.status_code == 200
    assert response["ETag"] != etag
    assert "Withdrawn" in response.content.decode()


def test_last_modified_is_the_newest_change_and_answers_if_modified_since(
    client, filed, django_assert_num_queries
):
    path = filed["first"].get_absolute_url()
    scopes = ["everything", "listing", "topic:distributed"]
    # Generations minted in the past (milliseconds since the epoch).
    for n, scope in enumerate(scopes):
        cache.set(f"gen:{scope}", f"{1_700_000_000_000 + n * 1000}.test", None)

    response = client.get(path)
    assert response["Last-Modified"] == "Tue, 14 Nov 2023 22:13:22 GMT"

    with django_assert_num_queries(0):
        again = client.get(
            path, headers={"If-Modified-Since": response["Last-Modified"]}
        )
    assert again.status_code == 304
    earlier = client.get(path, headers={"If-Modified-Since": "Tue, 14 Nov 2023"})
    assert earlier.status_code == 200


def test_a_change_within_the_second_sends_no_last_modified(client, filed):
    # Its date could equal that of a change later in the same second.
    generations.write_expiry(["everything"])

    response = client.get(filed["first"].get_absolute_url())

    assert "Last-Modified" not in response
    assert response["ETag"]


PUBLIC_PAGES = {
    "full index": lambda r: reverse("catalogue:index"),
    "topic": lambda r: r["first"].get_absolute_url(),
    "unfiled": lambda r: reverse("catalogue:unfiled"),
    "registries": lambda r: reverse("catalogue:registry-list"),
    "registry": lambda r: reverse("catalogue:registry-detail", args=["LIT"]),
    "tags": lambda r: reverse("catalogue:tag-list"),
    "document": lambda r: r["document"].get_absolute_url(),
    "version": lambda r: reverse(
        "catalogue:document-version", args=[r["document"].identifier, 1]
    ),
    "decisions": lambda r: reverse("catalogue:decision-list"),
    "search": lambda r: reverse("catalogue:search") + "?q=title",
    "feed": lambda r: reverse("catalogue:feed"),
    "topic feed": lambda r: reverse("catalogue:topic-feed", args=["distributed"]),
    "sitemap": lambda r: reverse("catalogue:sitemap"),
    "robots.txt": lambda r: reverse("catalogue:robots"),
    "people": lambda r: reverse("catalogue:people"),
    "person": lambda r: Person.objects.public().first().get_absolute_url(),
    "person feed": lambda r: reverse(
        "catalogue:person-feed", args=[Person.objects.public().first().slug]
    ),
    "venues": lambda r: reverse("catalogue:venue-list"),
    "venue": lambda r: Venue.objects.first().get_absolute_url(),
}


@pytest.mark.parametrize("page", PUBLIC_PAGES, ids=list(PUBLIC_PAGES))
def test_every_public_page_type_is_cached_with_validators(
    client, filed, page, django_assert_num_queries
):
    path = PUBLIC_PAGES[page](filed)
    first = client.get(path)

    again = is_warm(client, path, django_assert_num_queries)
    with django_assert_num_queries(0):
        not_modified = client.get(path, headers={"If-None-Match": first["ETag"]})

    assert again.content == first.content
    assert not_modified.status_code == 304
    assert "Cookie" in {part.strip() for part in first["Vary"].split(",")}
    assert "no-cache" in first["Cache-Control"]


def test_pages_are_kept_compressed_for_readers_who_accept_gzip(
    client, filed, django_assert_num_queries
):
    path = filed["first"].get_absolute_url()
    plain = client.get(path)
    compressed = client.get(path, headers={"Accept-Encoding": "gzip, br"})

    warm = is_warm(client, path, django_assert_num_queries)
    warm_compressed = client.get(path, headers={"Accept-Encoding": "gzip"})

    assert "Content-Encoding" not in plain and "Content-Encoding" not in warm
    assert compressed["Content-Encoding"] == warm_compressed["Content-Encoding"]
    assert compressed["Content-Encoding"] == "gzip"
    assert gzip.decompress(warm_compressed.content) == plain.content == warm.content
    assert len(compressed.content) < len(plain.content) / 2
    assert compressed["Vary"] == "Cookie, Accept-Encoding"


# A Redis nobody listens on: every call fails at once, as when Redis stops.
UNREACHABLE = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:1/0",
        "OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.25},
    }
}


def test_with_the_cache_down_pages_come_live_from_the_database(
    client, filed, publisher, committed, settings
):
    path = filed["first"].get_absolute_url()
    text_of(client, path)  # Cached while the cache works.
    settings.CACHES = UNREACHABLE

    with committed():
        actions.documents.edit_document(
            document=filed["document"], user=publisher, changes={"title": "Live"}
        )
        actions.documents.publish(document=filed["document"], user=publisher)
    response = client.get(path)

    assert response.status_code == 200
    assert "Live" in response.content.decode()
    # Its ETag is its content's, and still answers 304 while the cache is down.
    again = client.get(path, headers={"If-None-Match": response["ETag"]})
    assert again.status_code == 304


def test_expiry_missed_while_the_cache_was_down_is_written_when_it_returns(
    client, filed, publisher, committed, settings
):
    path = filed["first"].get_absolute_url()
    working = settings.CACHES
    assert "Old title" in text_of(client, path)
    settings.CACHES = UNREACHABLE
    with committed():
        actions.documents.edit_document(
            document=filed["document"],
            user=publisher,
            changes={"title": "Newer"},
        )
        actions.documents.publish(document=filed["document"], user=publisher)

    assert PendingExpiry.objects.unwritten().exists()
    settings.CACHES = working  # Back, with the old page still stored.

    assert "Newer" in text_of(client, path)
    assert not PendingExpiry.objects.exists()


@pytest.mark.redis
def test_the_redis_cache_reuses_its_client_and_still_works():
    # Django's backend makes a Redis client per operation.
    backend = RedisCache(TEST_REDIS_URL, {"KEY_PREFIX": RUN_PREFIX})
    backend.set("page", "‘cached’ — bytes")
    try:
        assert backend.get_many(["page", "missing"]) == {"page": "‘cached’ — bytes"}
        assert backend._cache.get_client() is backend._cache.get_client(write=True)
    finally:
        backend.delete("page")


def test_a_parameter_the_page_does_not_read_is_redirected_away_uncached(
    client, filed, django_assert_num_queries
):
    path = filed["first"].get_absolute_url()
    before = len(cache._cache)

    with django_assert_num_queries(0):
        flood = [client.get(f"{path}?utm_source=x{n}&status=active") for n in range(5)]

    assert {response.status_code for response in flood} == {301}
    assert {response["Location"] for response in flood} == {f"{path}?status=active"}
    # Answered before the cache is read: nothing stored, not even generations.
    assert len(cache._cache) == before
    assert client.get(f"{path}?page=1&status=active").status_code == 200


# Spellings of one query an attacker sent, each stored apart before: another
# encoding, leading zeros, a sign, spaces, the parameter twice, empty values,
# a parameter the page does not read. The order parameters came in is kept.
SPELLINGS = [
    ("page=01", "page=1"),
    ("page=001", "page=1"),
    ("page=%31", "page=1"),
    ("page=+1", "page=1"),
    ("page=%2B1", "page=1"),
    ("page=1%20", "page=1"),
    ("page=1&page=1", "page=1"),
    ("page=2&page=1", "page=1"),
    ("year_from=02000", "year_from=2000"),
    ("status=%61ctive&page=1", "status=active&page=1"),
    ("registry=&status=&page=1", "page=1"),
    ("tag=b&tag=a&tag=b", "tag=b&tag=a"),
    ("sort=year,title", "sort=year%2Ctitle"),
    ("q=x", ""),
]


@pytest.mark.parametrize("query, canonical", SPELLINGS)
def test_a_query_is_redirected_to_its_one_spelling_before_the_cache_is_read(
    client, filed, django_assert_num_queries, query, canonical
):
    path = filed["first"].get_absolute_url()
    before = len(cache._cache)

    with django_assert_num_queries(0):
        response = client.get(f"{path}?{query}")

    assert response.status_code == 301
    assert response["Location"] == path + (f"?{canonical}" if canonical else "")
    assert len(cache._cache) == before


def test_a_canonical_query_is_answered_without_a_redirect(client, filed):
    path = filed["first"].get_absolute_url()

    for _, canonical in SPELLINGS:
        query = f"?{canonical}" if canonical else ""
        # Tags a and b name nothing: the page says so (400), unredirected.
        assert client.get(f"{path}{query}").status_code in {200, 400}, canonical


def test_the_spellings_of_one_page_make_one_cache_entry(client, filed):
    path = filed["first"].get_absolute_url()
    client.get(f"{path}?page=1")
    stored = len(cache._cache)

    for query, _ in SPELLINGS[:8]:
        assert client.get(f"{path}?{query}", follow=True).status_code == 200

    assert len(cache._cache) == stored


def test_an_editor_keeps_every_parameter(client, filed):
    editor = UserFactory(editor=True)
    client.post("/admin/login/", {"username": editor.username, "password": PASSWORD})

    response = client.get(filed["first"].get_absolute_url() + "?utm_source=x")

    assert response.status_code == 200


def test_another_host_or_port_makes_no_cache_entry_of_its_own(
    client, filed, settings, django_assert_num_queries
):
    # ALLOWED_HOSTS allows every port of a name it lists.
    settings.ALLOWED_HOSTS = ["testserver", "localhost"]
    path = filed["first"].get_absolute_url()
    page = client.get(path).content
    stored = len(cache._cache)

    with django_assert_num_queries(0):
        answers = [
            client.get(path, HTTP_HOST=f"localhost:{port}")
            for port in range(20001, 20021)
        ]

    assert {answer.content for answer in answers} == {page}
    assert len(cache._cache) == stored
    # A host the site does not answer to is refused before the cache is read.
    assert client.get(path, HTTP_HOST="elsewhere.example").status_code == 400


def test_an_authorization_header_on_a_public_page_is_served_from_the_cache(
    client, filed, django_assert_num_queries
):
    paths = [filed["first"].get_absolute_url(), reverse("catalogue:sitemap")]
    # A token's first request renders and stores the page as anyone's would.
    client.get(paths[0], HTTP_AUTHORIZATION="Bearer anth_anything")
    page = client.get(paths[0])
    client.get(paths[1])

    with django_assert_num_queries(0):
        answers = [
            client.get(path, HTTP_AUTHORIZATION="Bearer anth_anything")
            for path in paths
        ]

    assert answers[0].content == page.content
    assert {answer.status_code for answer in answers} == {200}
    assert "no-store" not in answers[0]["Cache-Control"]

"""Conditional requests as RFC 9110 has them: If-None-Match compares weakly
for GET and HEAD, the gzip and the plain page are two representations with
an ETag each, and a reader's page carries an ETag and gets its 304 whether
or not the page cache holds it (no Redis, as under `make run`)."""

import gzip

import pytest

import actions.documents

pytestmark = pytest.mark.django_db

GZIP = {"Accept-Encoding": "gzip"}


def weak(etag):
    return f"W/{etag}"


@pytest.mark.parametrize("method", ["get", "head"])
def test_the_weak_form_of_a_cached_pages_etag_is_answered_304(
    client, filed, method, django_assert_num_queries
):
    path = filed["first"].get_absolute_url()
    etag = client.get(path)["ETag"]
    assert not etag.startswith("W/")

    with django_assert_num_queries(0):
        response = getattr(client, method)(path, headers={"If-None-Match": weak(etag)})
        in_a_list = getattr(client, method)(
            path, headers={"If-None-Match": f'"other", {weak(etag)}'}
        )

    assert (response.status_code, in_a_list.status_code) == (304, 304)
    assert response["ETag"] == etag


def test_the_gzip_and_the_plain_page_have_an_etag_each(client, filed):
    path = filed["first"].get_absolute_url()
    plain = client.get(path)
    compressed = client.get(path, headers=GZIP)

    assert compressed["Content-Encoding"] == "gzip"
    assert gzip.decompress(compressed.content) == plain.content
    assert plain["ETag"] != compressed["ETag"]
    assert (
        "Accept-Encoding" in compressed["Vary"] and "Accept-Encoding" in plain["Vary"]
    )
    # Each ETag answers 304 for its own representation only.
    assert client.get(path, headers={"If-None-Match": plain["ETag"]}).status_code == 304
    assert (
        client.get(path, headers={**GZIP, "If-None-Match": plain["ETag"]}).status_code
        == 200
    )
    not_modified = client.get(
        path, headers={**GZIP, "If-None-Match": compressed["ETag"]}
    )
    assert not_modified.status_code == 304
    assert "Accept-Encoding" in not_modified["Vary"]


@pytest.fixture
def without_redis(settings):
    """The settings `make run` has without REDIS_URL: no page cache."""
    settings.PAGE_CACHE = False


@pytest.mark.parametrize("headers", [{}, GZIP], ids=["plain", "gzip"])
def test_without_the_page_cache_pages_carry_etags_and_answer_304(
    client, filed, without_redis, headers
):
    path = filed["first"].get_absolute_url()
    first = client.get(path, headers=headers)
    etag = first["ETag"]

    strong = client.get(path, headers={**headers, "If-None-Match": etag})
    weakly = client.get(path, headers={**headers, "If-None-Match": weak(etag)})
    head = client.head(path, headers={**headers, "If-None-Match": etag})
    other = client.get(path, headers={**headers, "If-None-Match": '"other"'})

    assert [strong.status_code, weakly.status_code, head.status_code] == [304] * 3
    assert strong["ETag"] == etag and strong.content == b""
    assert other.status_code == 200 and other["ETag"] == etag


def test_without_the_page_cache_each_representation_has_its_etag(
    client, filed, without_redis
):
    path = filed["first"].get_absolute_url()
    plain = client.get(path)
    compressed = client.get(path, headers=GZIP)

    assert compressed["Content-Encoding"] == "gzip"
    assert plain["ETag"] != compressed["ETag"]
    assert (
        client.get(path, headers={**GZIP, "If-None-Match": plain["ETag"]}).status_code
        == 200
    )


def test_without_the_page_cache_a_change_changes_the_etag(
    client, filed, without_redis, publisher, committed
):
    path = filed["first"].get_absolute_url()
    etag = client.get(path)["ETag"]
    with committed():
        actions.documents.edit_document(
            document=filed["document"], user=publisher, changes={"title": "New title"}
        )
        actions.documents.publish(document=filed["document"], user=publisher)

    response = client.get(path, headers={"If-None-Match": etag})

    assert response.status_code == 200
    assert "New title" in response.content.decode()

"""Shared caches in front: pages name their keys and a shared lifetime, and a
change purges exactly its keys, after the commit, in the background, retried
until the frontend confirms. Each purge API is a local fake server speaking
its documented request."""

import json
import logging
import xml.etree.ElementTree as ET

import pytest
from django.test import override_settings

import actions.documents
from pagecache import frontends, generations
from public import scopes
from tests.factories import PASSWORD, DocumentFactory, UserFactory
from tests.fake_server import FakeServer

pytestmark = pytest.mark.django_db

CLOUDFRONT_ANSWER = b"""<?xml version="1.0"?>
<Invalidation xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/">
<Id>I2J0I21PCUYOIK</Id><Status>InProgress</Status>
<CreateTime>2026-12-01T06:00:00Z</CreateTime>
<InvalidationBatch><Paths><Quantity>1</Quantity><Items><Path>/*</Path></Items>
</Paths><CallerReference>x</CallerReference></InvalidationBatch></Invalidation>"""


@pytest.fixture
def fake():
    server = FakeServer()
    yield server
    server.close()


def fronted(backend, fake, **options):
    """Settings with one frontend of ``backend`` at the fake server."""
    return override_settings(
        PAGE_CACHE_FRONTENDS={
            "front": {
                "BACKEND": f"pagecache.frontends.{backend}",
                "LOCATION": fake.url,
                **options,
            }
        },
        PAGE_CACHE_PURGE_RETRY_PAUSES=[0, 0],
    )


def purged(keys):
    frontends.purge(keys)
    frontends.wait()


def test_varnish_is_purged_by_xkey(fake):
    with fronted("Varnish", fake):
        purged({"topic:distributed", "doc:LIT-004"})

    [request] = fake.received
    assert (request.method, request.path) == ("PURGE", "/")
    assert request.headers["xkey-purge"] == "doc:LIT-004 topic:distributed"


def test_fastly_is_purged_by_surrogate_key_with_its_token(fake):
    with fronted("Fastly", fake, SERVICE_ID="SU1Z0isxPaozGVKXdv0eY", API_TOKEN="t0k"):
        purged({"lists", "decisions"})

    [request] = fake.received
    assert (request.method, request.path) == (
        "POST",
        "/service/SU1Z0isxPaozGVKXdv0eY/purge",
    )
    assert request.headers["fastly-key"] == "t0k"
    assert request.headers["surrogate-key"] == "decisions lists"


def test_cloudflare_is_purged_by_tag_thirty_at_a_time(fake):
    fake.answers = [(200, b'{"success": true, "errors": [], "result": {"id": "1"}}')]
    keys = {f"doc:LIT-{number:03}" for number in range(31)}
    with fronted(
        "Cloudflare", fake, ZONE_ID="023e105f4ecef8ad9ca31a8372d0c353", API_TOKEN="t"
    ):
        purged(keys)

    assert [request.path for request in fake.received] == [
        "/zones/023e105f4ecef8ad9ca31a8372d0c353/purge_cache"
    ] * 2
    bodies = [json.loads(request.body) for request in fake.received]
    assert [len(body["tags"]) for body in bodies] == [30, 1]
    assert {tag for body in bodies for tag in body["tags"]} == keys
    assert fake.received[0].headers["authorization"] == "Bearer t"


def test_cloudflare_saying_no_is_a_failure_retried(fake, caplog):
    refused = b'{"success": false, "errors": [{"code": 1134, "message": "x"}]}'
    fake.answers = [(200, refused), (200, b'{"success": true}')]
    with (
        fronted("Cloudflare", fake, ZONE_ID="z", API_TOKEN="t"),
        caplog.at_level(logging.WARNING),
    ):
        purged({"lists"})

    assert len(fake.received) == 2
    assert "Cloudflare refused the purge" in caplog.text


def test_cloudfront_invalidates_the_paths_of_the_keys(fake):
    fake.answers = [(201, CLOUDFRONT_ANSWER)]
    with fronted(
        "CloudFront",
        fake,
        DISTRIBUTION_ID="EDFDVBD6EXAMPLE",
        ACCESS_KEY_ID="AKIDEXAMPLE",
        SECRET_ACCESS_KEY="secret",
    ):
        purged({"topic:distributed", "doc:LIT-004"})

    [request] = fake.received
    assert (request.method, request.path) == (
        "POST",
        "/2020-05-31/distribution/EDFDVBD6EXAMPLE/invalidation",
    )
    assert request.headers["authorization"].startswith("AWS4-HMAC-SHA256 ")
    namespace = {"cf": "http://cloudfront.amazonaws.com/doc/2020-05-31/"}
    paths = ET.fromstring(request.body).findall(".//cf:Path", namespace)
    assert [path.text for path in paths] == [
        "/LIT-004/*",
        "/api/documents/LIT-004/*",
        "/topics/distributed/*",
    ]


def test_a_failing_purge_is_retried_then_logged_as_given_up(fake, caplog):
    fake.answers = [(503, b"")]
    with fronted("Varnish", fake), caplog.at_level(logging.WARNING):
        purged({"lists"})

    assert len(fake.received) == 3
    assert [record.levelname for record in caplog.records] == [
        "WARNING",
        "WARNING",
        "ERROR",
    ]
    assert "Purge of lists from Varnish failed 3 times" in caplog.text


def test_an_unreachable_frontend_is_retried_until_it_answers(fake, caplog):
    fake.close()
    with fronted("Varnish", fake), caplog.at_level(logging.WARNING):
        assert not frontends.purge_with_retries(frontends.configured()[0], {"lists"})

    assert "unreachable" in caplog.text


def test_a_publication_purges_its_pages_after_the_commit_without_waiting(
    fake, filed, publisher, django_capture_on_commit_callbacks
):
    draft = DocumentFactory(number=9, topic=filed["first"], draft=True)
    fake.held.clear()  # The frontend answers nothing until told.
    with fronted("Varnish", fake):
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            actions.documents.publish(document=draft, user=publisher)
        assert fake.received == []  # Nothing before the commit.
        for callback in callbacks:
            callback()
        # The save is over while the frontend still holds its answer.
        fake.held.set()
        frontends.wait()

    [request] = fake.received
    draft.refresh_from_db()
    expected = scopes.document_scopes(draft) | {scopes.LISTING}
    assert set(request.headers["xkey-purge"].split()) == expected


def test_a_cached_page_names_its_keys_and_a_shared_lifetime(client, fake, filed):
    path = filed["first"].get_absolute_url()
    with (
        fronted("Varnish", fake),
        override_settings(
            PAGE_CACHE_SHARED_SECONDS=600, PAGE_CACHE_STALE_IF_ERROR_SECONDS=3600
        ),
    ):
        rendered = client.get(path)
        stored = client.get(path)

    for response in rendered, stored:
        assert response["Cache-Control"] == (
            "public, max-age=0, s-maxage=600, stale-if-error=3600"
        )
        assert response["xkey"] == "everything listing topic:distributed"


def test_without_a_frontend_pages_are_public_but_never_kept_unasked(client, filed):
    response = client.get(filed["first"].get_absolute_url())

    assert response["Cache-Control"] == "public, no-cache"
    assert "xkey" not in response


def test_a_page_rendered_across_a_change_is_not_given_to_shared_caches(
    client, fake, filed, monkeypatch
):
    path = filed["first"].get_absolute_url()
    render = generations.read

    def read_then_change(scopes_, key):
        found = render(scopes_, key)
        generations.write_expiry({"listing"})  # A change commits meanwhile.
        return found

    monkeypatch.setattr(generations, "read", read_then_change)
    with fronted("Varnish", fake):
        response = client.get(path)

    assert response["Cache-Control"] == "public, no-cache"
    assert "xkey" not in response


def test_editors_and_uncached_urls_are_private(client, fake, filed):
    editor = UserFactory(editor=True)
    with fronted("Varnish", fake):
        anonymous_login = client.get("/admin/login/")
        client.post(
            "/admin/login/", {"username": editor.username, "password": PASSWORD}
        )
        page = client.get(filed["first"].get_absolute_url())

    assert "private" in anonymous_login["Cache-Control"].split(", ")
    assert set(page["Cache-Control"].split(", ")) == {"private", "no-store"}
    assert "xkey" not in page

"""Public pages cached for anonymous readers, and never stale (issue 6).

Changes go through the services, which expire pages once their transaction
commits: ``committed`` runs those on-commit callbacks, as a real commit would.
A page served from the cache costs no SQL query, which is how these tests
tell a cached page (warm) from a rendered one.
"""

import os

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from catalogue.models import Preface
from catalogue.references import write_references
from editorial import decisions, workflow
from pagecache import generations
from pagecache.backends import RedisCache
from tests.factories import (
    PASSWORD,
    DecisionRecordFactory,
    DocumentFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    return lambda: django_capture_on_commit_callbacks(execute=True)


@pytest.fixture
def publisher():
    return UserFactory(publisher=True)


@pytest.fixture
def record(publisher):
    """Three topics; LIT-004 filed under the first, LIT-007 under the third."""
    first = TopicFactory(name="Distributed optimization", slug="distributed")
    second = TopicFactory(name="Evaluation", slug="evaluation")
    third = TopicFactory(name="Architectures", slug="architectures")
    document = DocumentFactory(number=4, topic=first, draft=True, title="Old title")
    workflow.publish(document=document, user=publisher)
    other = DocumentFactory(number=7, topic=third, title="Unrelated work")
    document.refresh_from_db()
    return {
        "first": first,
        "second": second,
        "third": third,
        "document": document,
        "other": other,
    }


def is_warm(client, path, django_assert_num_queries):
    """The anonymous page comes from the cache: not one query."""
    with django_assert_num_queries(0):
        response = client.get(path)
    assert response.status_code == 200
    return response


def text_of(client, path):
    response = client.get(path)
    assert response.status_code == 200
    return response.content.decode()


def test_a_second_anonymous_request_is_served_from_the_cache(
    client, record, django_assert_num_queries
):
    path = record["first"].get_absolute_url()
    first = client.get(path)

    second = is_warm(client, path, django_assert_num_queries)

    assert second.content == first.content
    assert second["Content-Type"] == first["Content-Type"]


def test_a_cached_page_is_answered_before_the_session_with_its_rendered_headers(
    client, record, django_assert_num_queries
):
    path = record["first"].get_absolute_url()
    first = client.get(path)

    second = is_warm(client, path, django_assert_num_queries)

    # No middleware after the cache's ran: not even the session's.
    assert not hasattr(second.wsgi_request, "session")
    assert hasattr(first.wsgi_request, "session")
    # Yet it carries every header the rendered page had, CSP included.
    assert dict(second.items()) == dict(first.items())
    assert "Content-Security-Policy" in second
    assert second["X-Frame-Options"] == "DENY"


def test_publishing_a_revision_refreshes_its_page_topic_index_and_feeds(
    client, record, publisher, committed, django_assert_num_queries
):
    document = record["document"]
    pages = [
        document.get_absolute_url(),
        record["first"].get_absolute_url(),
        reverse("catalogue:registry-detail", args=["LIT"]),
        reverse("catalogue:feed"),
        reverse("catalogue:topic-feed", args=["distributed"]),
        reverse("catalogue:search") + "?q=title",
    ]
    for path in pages:
        assert "New title" not in text_of(client, path)
    third = record["third"].get_absolute_url()
    text_of(client, third)

    with committed():
        workflow.edit_document(
            document=document, user=publisher, changes={"title": "New title"}
        )
        workflow.publish(document=document, user=publisher)

    for path in pages:
        assert "New title" in text_of(client, path), path
    is_warm(client, third, django_assert_num_queries)


def test_refiling_refreshes_the_old_and_new_topic_and_leaves_others_warm(
    client, record, publisher, committed, django_assert_num_queries
):
    document = record["document"]
    old, new = record["first"].get_absolute_url(), record["second"].get_absolute_url()
    unrelated = record["third"].get_absolute_url()
    for path in (old, new, unrelated, reverse("catalogue:index")):
        text_of(client, path)
    assert "Old title" in text_of(client, old)

    with committed():
        workflow.edit_document(
            document=document, user=publisher, changes={"topic": record["second"]}
        )
        workflow.publish(document=document, user=publisher)

    assert "Old title" not in text_of(client, old)
    assert "Old title" in text_of(client, new)
    assert "Evaluation" in text_of(client, document.get_absolute_url())
    is_warm(client, unrelated, django_assert_num_queries)


def test_a_pending_revision_changes_no_cached_page(
    client, record, publisher, committed, django_assert_num_queries
):
    path = record["document"].get_absolute_url()
    text_of(client, path)

    with committed():
        workflow.edit_document(
            document=record["document"],
            user=publisher,
            changes={"title": "Unpublished title"},
        )

    response = is_warm(client, path, django_assert_num_queries)
    assert "Unpublished title" not in response.content.decode()
    cache.clear()
    assert "Unpublished title" not in text_of(client, path)


def test_first_publication_shows_everywhere_and_updates_every_topic_total(
    client, record, publisher, committed
):
    draft = DocumentFactory(number=9, topic=record["second"], draft=True, title="Fresh")
    unrelated = record["third"].get_absolute_url()
    pages = [
        reverse("catalogue:index"),
        record["second"].get_absolute_url(),
        reverse("catalogue:feed"),
        reverse("catalogue:registry-detail", args=["LIT"]),
    ]
    for path in pages:
        assert "Fresh" not in text_of(client, path)
    assert "1 of 2 LIT documents" in text_of(client, unrelated)
    assert client.get(draft.get_absolute_url()).status_code == 404

    with committed():
        workflow.publish(document=draft, user=publisher)

    assert "Fresh" in text_of(client, draft.get_absolute_url())
    for path in pages[1:]:
        assert "Fresh" in text_of(client, path), path
    assert "1 LIT" in text_of(client, reverse("catalogue:index"))
    # Every topic page prints its registry's total, so every one is fresh.
    assert "1 of 3 LIT documents" in text_of(client, unrelated)


def test_withdrawing_refreshes_the_pages_that_link_to_the_document(
    client, record, publisher, committed
):
    citing = DocumentFactory(
        number=12, topic=record["third"], summary="Builds on LIT-004."
    )
    write_references(documents=[citing])
    own = record["document"].get_absolute_url()
    linking = [citing.get_absolute_url(), record["third"].get_absolute_url()]
    assert "Withdrawn:" not in text_of(client, own)
    for path in linking:
        assert "reference-retired" not in text_of(client, path)

    with committed():
        workflow.withdraw(document=record["document"], user=publisher)

    assert "Withdrawn:" in text_of(client, own)
    for path in linking:
        assert "reference-retired" in text_of(client, path), path


def test_superseding_refreshes_the_superseded_page(
    client, record, publisher, committed
):
    path = record["document"].get_absolute_url()
    assert "Superseded by" not in text_of(client, path)

    with committed():
        workflow.supersede(
            document=record["document"], successor=record["other"], user=publisher
        )

    assert "Superseded by" in text_of(client, path)


def test_editing_a_topic_in_the_admin_refreshes_its_pages(
    client, record, publisher, committed
):
    topic = record["first"]
    pages = [
        topic.get_absolute_url(),
        reverse("catalogue:index"),
        record["document"].get_absolute_url(),
    ]
    for path in pages:
        text_of(client, path)
    editor = UserFactory(is_superuser=True)
    staff = client.__class__()
    staff.force_login(editor)

    with committed():
        response = staff.post(
            reverse("admin:catalogue_topic_change", args=[topic.pk]),
            {
                "name": "Parallel training",
                "slug": topic.slug,
                "scope": topic.scope,
                "flavour": topic.flavour,
                "position": topic.position,
            },
        )
    assert response.status_code == 302

    for path in pages:
        assert "Parallel training" in text_of(client, path), path


def test_editing_the_preface_in_the_admin_refreshes_the_pages_it_opens(
    client, record, committed
):
    Preface.objects.create(heading="Topics", text="The kinds of claim.")
    pages = [reverse("catalogue:index"), record["first"].get_absolute_url()]
    for path in pages:
        text_of(client, path)
    staff = client.__class__()
    staff.force_login(UserFactory(is_superuser=True))

    with committed():
        staff.post(
            reverse("admin:catalogue_preface_change", args=[1]),
            {"heading": "Topics", "text": "The kinds of claim, revised."},
        )

    for path in pages:
        assert "revised" in text_of(client, path), path


def test_publishing_a_decision_refreshes_the_decisions_and_what_names_it(
    client, record, publisher, committed
):
    decision = DecisionRecordFactory(number=26, draft=True, title="One axis")
    naming = DocumentFactory(number=15, topic=record["third"], summary="See ADR-026.")
    write_references(documents=[naming])
    pages = [
        reverse("catalogue:decision-list"),
        naming.get_absolute_url(),
        record["third"].get_absolute_url(),
    ]
    for path in pages:
        assert 'href="/decisions/ADR-026/"' not in text_of(client, path)

    with committed():
        decisions.publish_decision(decision=decision, user=publisher)

    for path in pages:
        assert 'href="/decisions/ADR-026/"' in text_of(client, path), path


def test_an_editors_view_is_live_private_and_never_served_to_readers(
    client, record, django_assert_num_queries
):
    path = record["first"].get_absolute_url()
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
    admin_client, client, record, django_assert_num_queries
):
    path = record["first"].get_absolute_url()
    text_of(client, path)
    draft = DocumentFactory(number=30, draft=True)

    # Withdrawing a draft is refused, so the bulk action changes nothing.
    admin_client.post(
        reverse("admin:catalogue_document_changelist"),
        {"action": "withdraw_action", "_selected_action": [draft.pk]},
    )

    is_warm(client, path, django_assert_num_queries)


def test_a_lost_generation_makes_pages_miss_never_serve_old_ones(client, record):
    path = record["first"].get_absolute_url()
    text_of(client, path)

    cache.delete("gen:everything")  # As if evicted, or Redis restarted empty.

    with CaptureQueriesContext(connection) as rendered:
        client.get(path)
    assert len(rendered) > 0


# Conditional requests


def test_a_matching_etag_is_answered_304_without_a_query(
    client, record, django_assert_num_queries
):
    path = record["first"].get_absolute_url()
    etag = client.get(path)["ETag"]

    with django_assert_num_queries(0):
        response = client.get(path, headers={"If-None-Match": etag})

    assert response.status_code == 304
    assert response.content == b""
    assert response["ETag"] == etag


def test_after_a_change_the_old_etag_gets_the_new_page(
    client, record, publisher, committed
):
    path = record["first"].get_absolute_url()
    etag = client.get(path)["ETag"]

    with committed():
        workflow.withdraw(document=record["document"], user=publisher)
    response = client.get(path, headers={"If-None-Match": etag})

    assert response.status_code == 200
    assert response["ETag"] != etag
    assert "Withdrawn" in response.content.decode()


def test_last_modified_is_the_newest_change_and_answers_if_modified_since(
    client, record, django_assert_num_queries
):
    path = record["first"].get_absolute_url()
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


def test_a_change_within_the_second_sends_no_last_modified(client, record):
    # Its date could equal that of a change later in the same second.
    generations._expire_now(["everything"])

    response = client.get(record["first"].get_absolute_url())

    assert "Last-Modified" not in response
    assert response["ETag"]


PUBLIC_PAGES = {
    "full index": lambda r: reverse("catalogue:index"),
    "topic": lambda r: r["first"].get_absolute_url(),
    "unfiled": lambda r: reverse("catalogue:unfiled"),
    "registries": lambda r: reverse("catalogue:registry-list"),
    "registry": lambda r: reverse("catalogue:registry-detail", args=["LIT"]),
    "document": lambda r: r["document"].get_absolute_url(),
    "version": lambda r: reverse(
        "catalogue:document-version", args=[r["document"].identifier, 1]
    ),
    "decisions": lambda r: reverse("catalogue:decision-list"),
    "search": lambda r: reverse("catalogue:search") + "?q=title",
    "feed": lambda r: reverse("catalogue:feed"),
    "topic feed": lambda r: reverse("catalogue:topic-feed", args=["distributed"]),
    "sitemap": lambda r: reverse("catalogue:sitemap"),
}


@pytest.mark.parametrize("page", PUBLIC_PAGES, ids=list(PUBLIC_PAGES))
def test_every_public_page_type_is_cached_with_validators(
    client, record, page, django_assert_num_queries
):
    path = PUBLIC_PAGES[page](record)
    first = client.get(path)

    again = is_warm(client, path, django_assert_num_queries)
    with django_assert_num_queries(0):
        not_modified = client.get(path, headers={"If-None-Match": first["ETag"]})

    assert again.content == first.content
    assert not_modified.status_code == 304
    assert first["Vary"] == "Cookie"
    assert "no-cache" in first["Cache-Control"]


# A Redis nobody listens on: every call fails at once, as when Redis stops.
UNREACHABLE = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:1/0",
        "OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.25},
    }
}


@pytest.fixture(autouse=True)
def no_unwritten_expiry():
    """Expirations kept from a test with the cache down stay in that test."""
    yield
    generations._unwritten.clear()


def test_with_the_cache_down_pages_come_live_from_the_database(
    client, record, publisher, committed, settings
):
    path = record["first"].get_absolute_url()
    text_of(client, path)  # Cached while the cache works.
    settings.CACHES = UNREACHABLE

    with committed():
        workflow.edit_document(
            document=record["document"], user=publisher, changes={"title": "Live"}
        )
        workflow.publish(document=record["document"], user=publisher)
    response = client.get(path)

    assert response.status_code == 200
    assert "Live" in response.content.decode()
    assert "ETag" not in response


def test_expiry_missed_while_the_cache_was_down_is_written_when_it_returns(
    client, record, publisher, committed, settings
):
    path = record["first"].get_absolute_url()
    working = settings.CACHES
    assert "Old title" in text_of(client, path)
    settings.CACHES = UNREACHABLE
    with committed():
        workflow.edit_document(
            document=record["document"], user=publisher, changes={"title": "Newer"}
        )
        workflow.publish(document=record["document"], user=publisher)

    settings.CACHES = working  # Back, with the old page still stored.

    assert "Newer" in text_of(client, path)
    assert generations._unwritten == set()


def test_the_redis_cache_reuses_its_client_and_still_works():
    # Django's backend makes a Redis client per operation.
    backend = RedisCache(
        "redis://127.0.0.1:6379/15", {"KEY_PREFIX": f"anthology-test-{os.getpid()}"}
    )
    backend.set("page", "‘cached’ — bytes")
    try:
        assert backend.get_many(["page", "missing"]) == {"page": "‘cached’ — bytes"}
        assert backend._cache.get_client() is backend._cache.get_client(write=True)
    finally:
        backend.delete("page")


def test_local_copies_are_served_only_under_their_generations_within_a_size():
    pages = generations.LocalPages(limit=10)
    old, new = {"record": "1.a"}, {"record": "2.b"}
    pages.put("first", (old, 200, b"12345", {}))
    pages.put("second", (old, 200, b"1234", {}))

    assert pages.get("first", new) is None  # A change retires the copy...
    assert pages.get("first", old) is None  # ...for good.
    pages.put("third", (old, 200, b"1234567", {}))  # Over 10 bytes: "second" goes.
    assert pages.get("second", old) is None
    assert pages.get("third", old)[2] == b"1234567"
    pages.put("huge", (old, 200, b"x" * 11, {}))  # Larger than all: not kept.
    assert pages.get("huge", old) is None
    assert pages.size == 7

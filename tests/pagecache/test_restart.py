"""An expiry outlives the process that made it: a change committed while the
shared cache's Redis was cut is written by a process started after, before
it serves a page from the Redis that came back with its old generations.

It imports nothing of the outbox, so that it runs against the page cache as
it was before one (and fails there)."""

import pytest
from django.test import Client

import actions.documents
from tests.factories import DocumentFactory, TopicFactory, UserFactory
from tests.pagecache.processes import in_a_new_process

pytestmark = pytest.mark.django_db(transaction=True)


def shared_cache(server, prefix):
    """CACHES as the site makes them from REDIS_URL and CACHE_KEY_PREFIX."""
    return {
        "default": {
            "BACKEND": "pagecache.backends.RedisCache",
            "LOCATION": server.url,
            "KEY_PREFIX": prefix,
            "OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.5},
        }
    }


READ_PAGE = """
    import json, sys
    from django.test import Client
    response = Client().get(sys.argv[1], headers={"If-None-Match": sys.argv[2]})
    print(json.dumps({
        "status": response.status_code,
        "etag": response.get("ETag"),
        "page": response.content.decode(),
    }))
"""


def test_a_withdrawal_committed_while_redis_was_cut_shows_after_a_restart(
    own_redis, settings
):
    prefix = "anthology-test-restart"
    settings.CACHES = shared_cache(own_redis, prefix)
    topic = TopicFactory(slug="distributed")
    document = DocumentFactory(
        number=4, topic=topic, title="Sublinear memory", published=True
    )
    path = document.get_absolute_url()
    reader = Client()
    reader.get(path)
    cached = reader.get(path)
    assert cached.status_code == 200
    assert "Withdrawn" not in cached.content.decode()

    own_redis.cut()
    actions.documents.withdraw(
        document=document,
        user=UserFactory(is_superuser=True),
        reason="Did not replicate.",
    )
    own_redis.start()  # Back, with the page and generations it held before.
    assert own_redis.client().exists(f"{prefix}:1:gen:everything")

    # The site's worker restarts: a new process reads the page, with the
    # validator the reader kept from before the change.
    seen, process = in_a_new_process(
        READ_PAGE.replace("sys.argv[1]", repr(path)).replace(
            "sys.argv[2]", repr(cached["ETag"])
        ),
        REDIS_URL=own_redis.url,
        CACHE_KEY_PREFIX=prefix,
        PAGE_CACHE="1",
    )

    assert seen is not None, process.stderr
    assert (seen["status"], seen["etag"] == cached["ETag"]) == (200, False)
    assert "Withdrawn" in seen["page"]

"""HEAD through gunicorn, as production serves it, the page cache on: the site
hands gunicorn no body for a HEAD, rendered or cached, so gunicorn never has
one to drop (it logs each it drops: "WSGI app sent body bytes on a no-body
response")."""

import http.client
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.db import connection

from tests.factories import DocumentFactory, TopicFactory
from tests.pagecache.test_instances import wait_for
from tests.tools import RUN_PREFIX, TEST_REDIS_URL, free_port, redis_client

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [
    # gunicorn in a process of its own, its page cache in the test Redis.
    pytest.mark.workers,
    pytest.mark.redis,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        os.environ.get("DATABASE_URL", "").split(":", 1)[0]
        not in {"postgres", "postgresql"},
        reason="gunicorn reads the test database from a process of its own: run "
        "the suite with DATABASE_URL=postgres://… (CI does)",
    ),
]

DROPPED = "sent body bytes on a no-body response"


@pytest.fixture
def served(static_root, tmp_path):
    """gunicorn on a port of its own with the page cache on; the path of
    what it writes to its standard error."""
    db = connection.settings_dict
    prefix = f"{RUN_PREFIX}-{uuid.uuid4().hex}"
    log = tmp_path / "gunicorn.log"
    port = free_port()
    written = log.open("w")
    process = subprocess.Popen(
        [
            *(str(Path(sys.executable).parent / "gunicorn"), "anthology.wsgi"),
            *("--bind", f"127.0.0.1:{port}", "--workers", "1", "--timeout", "60"),
        ],
        cwd=ROOT,
        env={
            **os.environ,
            "DATABASE_URL": (
                f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:"
                f"{db['PORT'] or 5432}/{db['NAME']}"
            ),
            "REDIS_URL": TEST_REDIS_URL,
            "CACHE_KEY_PREFIX": prefix,
            "PAGE_CACHE": "1",
            "DEBUG": "0",
            "ALLOWED_HOSTS": "127.0.0.1",
            "STATIC_ROOT": str(static_root),
        },
        stdout=subprocess.DEVNULL,
        # gunicorn's own log and the site's (the root logger's) both go there.
        stderr=written,
    )
    try:
        wait_for(port)
        yield port, log
    finally:
        process.terminate()
        process.wait(timeout=20)
        written.close()
        keys = list(redis_client().scan_iter(f"{prefix}:*"))
        if keys:
            redis_client().delete(*keys)


def ask(port, method, path, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request(method, path, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_gunicorn_is_handed_no_body_for_a_head(served):
    port, log = served
    topic = TopicFactory(name="Distributed optimization", slug="distributed")
    DocumentFactory(number=4, topic=topic, published=True)
    paths = [
        "/",
        "/LIT-004/",
        "/topics/distributed/",
        "/topics/distributed/feed/",
        "/LIT-004/cite.bib",
        "/api/documents/",
        "/oai/?verb=Identify",
        "/LIT-999/",
    ]

    answers = [
        ask(port, method, path, headers)
        for path in paths
        for headers in [{}, {"Accept-Encoding": "gzip"}]
        # Rendered, then kept; HEAD first, then after a GET kept the page.
        for method in ["HEAD", "HEAD", "GET", "HEAD"]
    ]

    assert [status for status, _ in answers] == [
        404 if path == "/LIT-999/" else 200 for path in paths for _ in range(8)
    ]
    assert DROPPED not in log.read_text()

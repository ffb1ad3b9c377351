"""A HEAD answer carries the GET's headers and no body, whoever answered it:
a view, the page cache replaying a kept page, a 304, an error page.

Django's test client drops a HEAD answer's body itself, as a server would, so
these tests call the WSGI application as gunicorn does and read every byte
it hands back."""

import io
import sys

import pytest
from django.core import signals
from django.core.handlers.wsgi import WSGIHandler
from django.db import close_old_connections

from tests.databases import WEB_LAYER

pytestmark = [pytest.mark.django_db, WEB_LAYER]


def call(method, path, query="", headers=None):
    """``(status, headers, body)`` of the WSGI application's answer."""
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
        **{
            f"HTTP_{name.upper().replace('-', '_')}": value
            for name, value in (headers or {}).items()
        },
    }
    started = {}

    def start_response(status, response_headers, exc_info=None):
        started["status"] = int(status.split()[0])
        started["headers"] = dict(response_headers)

    # As the test client does: the test's transaction keeps its connection.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        answer = WSGIHandler()(environ, start_response)
        try:
            body = b"".join(answer)
        finally:
            answer.close()
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)
    return started["status"], started["headers"], body


PAGES = [
    ("/", ""),
    ("/LIT-004/", ""),
    ("/topics/distributed/", ""),
    ("/topics/distributed/feed/", ""),
    ("/LIT-004/cite.bib", ""),
    ("/api/documents/", ""),
    ("/oai/", "verb=Identify"),
    ("/robots.txt", ""),
    ("/LIT-999/", ""),
]


@pytest.mark.parametrize("path,query", PAGES)
def test_head_has_no_body_rendered_or_cached(public_record, path, query):
    status, got, get_body = call("GET", path, query)
    assert get_body  # The GET has a body.

    rendered = call("HEAD", path, query, {"Accept-Encoding": "identity"})
    call("GET", path, query)  # Kept by the page cache where it keeps pages.
    cached = call("HEAD", path, query)

    for head_status, head_headers, body in (rendered, cached):
        assert body == b""
        assert head_status == status
        assert head_headers["Content-Type"] == got["Content-Type"]
    if "Content-Length" in got:
        assert rendered[1]["Content-Length"] == str(len(get_body))


def test_head_of_a_gzipped_cached_page_has_no_body(public_record):
    gzip = {"Accept-Encoding": "gzip"}
    _, got, get_body = call("GET", "/LIT-004/", headers=gzip)

    status, headers, body = call("HEAD", "/LIT-004/", headers=gzip)

    assert (status, body) == (200, b"")
    assert headers["Content-Encoding"] == got["Content-Encoding"] == "gzip"
    assert headers["Content-Length"] == str(len(get_body))


def test_a_conditional_head_is_a_304_without_a_body(public_record):
    _, got, _ = call("GET", "/LIT-004/")

    status, _, body = call("HEAD", "/LIT-004/", headers={"If-None-Match": got["ETag"]})

    assert (status, body) == (304, b"")

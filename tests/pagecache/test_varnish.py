"""The site behind a real varnishd running deploy/varnish/anthology.vcl: pages
are kept by Varnish until a change purges their keys, so every change shows
on the next request through it; editors pass through; slow clients wait in
Varnish, not in gunicorn's workers."""

import gzip
import os
import socket
import socketserver
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from catalogue.models import Document
from tests.factories import DecisionRecordFactory, DocumentFactory, TopicFactory
from tests.pagecache.test_instances import publisher_on, wait_for
from tests.tools import (
    RUN_PREFIX,
    TEST_REDIS_URL,
    free_port,
    redis_client,
    require_varnishd,
)

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        os.environ.get("DATABASE_URL", "").split(":", 1)[0]
        not in {"postgres", "postgresql"},
        reason="the site behind Varnish shares the test database: run the suite "
        "with DATABASE_URL=postgres://… (CI does)",
    ),
]


class Forwarder(socketserver.ThreadingTCPServer):
    """A port that passes connections to ``target``: Varnish, reachable for
    purges only once the test opens it."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port, target):
        self.target = target

        class Pipe(socketserver.BaseRequestHandler):
            def handle(self):
                with socket.create_connection(("127.0.0.1", target)) as upstream:
                    ends = [(self.request, upstream), (upstream, self.request)]
                    threads = [
                        threading.Thread(target=pipe, args=end, daemon=True)
                        for end in ends
                    ]
                    for thread in threads:
                        thread.start()
                    for thread in threads:
                        thread.join(timeout=30)

        super().__init__(("127.0.0.1", port), Pipe)
        # ``shutdown`` waits for the loop to poll: a fiftieth of a second,
        # not the default half.
        threading.Thread(target=self.serve_forever, args=(0.02,), daemon=True).start()


def pipe(source, destination):
    try:
        while data := source.recv(65536):
            destination.sendall(data)
        destination.shutdown(socket.SHUT_WR)
    except OSError:
        pass


@pytest.fixture
def varnished(static_root, tmp_path, django_db_blocker):
    """gunicorn (one sync worker) behind varnishd on ports of their own; the
    site purges through ``purge_port``, which the test opens."""
    from django.db import connection

    db = connection.settings_dict
    prefix = f"{RUN_PREFIX}-varnish-{tmp_path.name}"
    site, front, purge_port = free_port(), free_port(), free_port()
    (tmp_path / "backend.vcl").write_text(
        f'backend default {{ .host = "127.0.0.1"; .port = "{site}"; }}\n'
    )
    # The canonical host: the one Varnish listens at, as the tests ask it.
    (tmp_path / "site.vcl").write_text(
        f'sub site_host {{ set req.http.X-Site-Host = "127.0.0.1:{front}"; }}\n'
    )
    varnish = subprocess.Popen(
        [
            *(require_varnishd(), "-F", "-a", f"127.0.0.1:{front}"),
            *("-n", str(tmp_path / "v")),
            *("-f", str(ROOT / "deploy" / "varnish" / "anthology.vcl")),
            *("-p", f"vcl_path={tmp_path}:{ROOT / 'deploy' / 'varnish'}"),
            *("-s", "malloc,64m", "-T", "none", "-j", "none"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    env = {
        **os.environ,
        "DATABASE_URL": (
            f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:"
            f"{db['PORT'] or 5432}/{db['NAME']}"
        ),
        "REDIS_URL": TEST_REDIS_URL,
        "CACHE_KEY_PREFIX": prefix,
        "JOBS_QUEUE": prefix,
        "PAGE_CACHE": "1",
        "DEBUG": "0",
        "ALLOWED_HOSTS": "127.0.0.1",
        "STATIC_ROOT": str(static_root),
        "VARNISH_URL": f"http://127.0.0.1:{purge_port}",
        "PURGE_RETRY_PAUSES": "0.2,0.5,1,2,4",
    }
    gunicorn = subprocess.Popen(
        [
            *(str(Path(sys.executable).parent / "gunicorn"), "anthology.wsgi"),
            *("--bind", f"127.0.0.1:{site}", "--workers", "1", "--timeout", "60"),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    forwarders = []

    def open_purges():
        forwarders.append(Forwarder(purge_port, front))

    try:
        wait_for(site)
        wait_for(front)
        yield {
            "front": f"http://127.0.0.1:{front}",
            "site": f"http://127.0.0.1:{site}",
            "site_port": site,
            "front_port": front,
            "open_purges": open_purges,
            # The site's cache and queue, for processes that share them.
            "prefix": prefix,
            # Varnish's working directory, where varnishstat reads it.
            "name": str(tmp_path / "v"),
        }
    finally:
        for forwarder in forwarders:
            forwarder.shutdown()
            forwarder.server_close()
        for process in gunicorn, varnish:
            process.terminate()
        for process in gunicorn, varnish:
            process.wait(timeout=20)
        keys = list(redis_client().scan_iter(f"{prefix}:*"))
        if keys:
            redis_client().delete(*keys)


def through(base, path, cookie=None):
    """The page at ``path`` and whether Varnish answered it from its cache."""
    request = urllib.request.Request(base + path)
    if cookie:
        request.add_header("Cookie", cookie)
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.read().decode(), response.headers


def raw(base, path, accept_encoding):
    """The bytes and headers of ``path`` for a client sending ``accept_encoding``
    (``urllib`` unpacks nothing)."""
    request = urllib.request.Request(
        base + path, headers={"Accept-Encoding": accept_encoding}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.read(), response.headers


def warm(base, path):
    """Read ``path`` until Varnish serves it from its cache; the page."""
    through(base, path)
    page, headers = through(base, path)
    assert headers["X-Cache"] == "HIT"
    return page


def eventually(check):
    """``check()`` once it holds (a purge's retry lands in the background)."""
    for _ in range(200):
        if check():
            return True
        time.sleep(0.1)
    return check()


def test_every_kind_of_change_shows_on_the_next_request_through_varnish(
    editorial_groups, varnished
):
    varnished["open_purges"]()
    front = varnished["front"]
    first = TopicFactory(name="Distributed optimisation", slug="distributed")
    second = TopicFactory(name="Evaluation", slug="evaluation")
    draft = DocumentFactory(topic=first, number=3, draft=True, title="Newly published")
    withdrawn = DocumentFactory(
        topic=first, number=4, title="To be withdrawn", published=True
    )
    moved = DocumentFactory(
        topic=first, number=7, title="To be refiled", published=True
    )
    decision = DecisionRecordFactory(number=26, title="Numbers are kept")
    editor = publisher_on(varnished["site"])
    changelist = "/admin/catalogue/document/"

    def act(action, pk, **extra):
        editor.post(
            changelist,
            {"action": action, "_selected_action": [pk], "index": 0, **extra},
        )

    def after(change, path):
        warm(front, path)
        change()
        # The purge runs after the response, on the site's purge thread.
        assert eventually(lambda: through(front, path)[1]["X-Cache"] == "MISS")
        return through(front, path)[0]

    page = after(lambda: act("publish_action", draft.pk), "/topics/distributed/")
    assert "Newly published" in page

    page = after(
        lambda: act(
            "withdraw_action", withdrawn.pk, reason="Did not replicate.", post="yes"
        ),
        "/LIT-004/",
    )
    assert Document.objects.get(pk=withdrawn.pk).status == Document.Status.WITHDRAWN
    assert "Withdrawn" in page

    act("refile_action", moved.pk, topic=second.pk)
    warm(front, "/topics/distributed/")
    page = after(lambda: act("publish_action", moved.pk), "/topics/evaluation/")
    assert "To be refiled" in page
    assert "To be refiled" not in through(front, "/topics/distributed/")[0]

    page = after(
        lambda: editor.post(
            f"/admin/catalogue/decisionrecord/{decision.pk}/change/",
            {
                "number": 26,
                "title": "Numbers are never reused",
                "status": decision.status,
                "decided_on": "",
                "body": "A withdrawn document keeps its number.",
                "relations-TOTAL_FORMS": "0",
                "relations-INITIAL_FORMS": "0",
                "_publish": "Save and publish",
            },
        ),
        "/decisions/ADR-026/",
    )
    assert "Numbers are never reused" in page


def test_gzip_and_plain_readers_each_get_a_kept_copy_as_the_site_sent_it(
    editorial_groups, varnished
):
    varnished["open_purges"]()
    front, site = varnished["front"], varnished["site"]
    topic = TopicFactory(slug="distributed")
    DocumentFactory.create_batch(
        3, topic=topic, summary="Sharded – “exactly” ×2.", published=True
    )
    draft = DocumentFactory(topic=topic, draft=True, title="Published meanwhile")
    path = "/topics/distributed/"
    browser = "gzip, deflate, br"

    answers = {
        encoding: [raw(front, path, encoding) for _ in range(2)]
        for encoding in [browser, "identity"]
    }
    _, site_headers = raw(site, path, "identity")
    _, site_gzip_headers = raw(site, path, browser)

    (_, first), (zipped, kept_zipped) = answers[browser]
    assert (first["X-Cache"], kept_zipped["X-Cache"]) == ("MISS", "HIT")
    assert kept_zipped["Content-Encoding"] == "gzip"
    (_, first), (plain, kept_plain) = answers["identity"]
    assert (first["X-Cache"], kept_plain["X-Cache"]) == ("MISS", "HIT")
    assert kept_plain["Content-Encoding"] is None
    assert gzip.decompress(zipped) == plain
    # Each kept copy has the ETag the site gave its representation: the
    # gzip page and the plain one have one each.
    assert kept_plain["ETag"] == site_headers["ETag"]
    assert kept_zipped["ETag"] == site_gzip_headers["ETag"]
    assert kept_plain["ETag"] != kept_zipped["ETag"]

    editor = publisher_on(site)
    editor.post(
        "/admin/catalogue/document/",
        {"action": "publish_action", "_selected_action": [draft.pk], "index": 0},
    )

    # One purge drops both copies.
    assert eventually(lambda: b"Published meanwhile" in raw(front, path, "identity")[0])
    zipped, _ = raw(front, path, browser)
    assert b"Published meanwhile" in gzip.decompress(zipped)


def test_an_editors_session_never_gets_or_poisons_a_kept_page(
    editorial_groups, varnished
):
    varnished["open_purges"]()
    front = varnished["front"]
    TopicFactory(slug="distributed")
    DocumentFactory(number=4, draft=True, title="A draft only editors see")
    editor = publisher_on(varnished["site"])
    session = "; ".join(f"{c.name}={c.value}" for c in editor.cookies)

    editors_page, editors_headers = through(
        front, "/admin/catalogue/document/", session
    )
    assert "A draft only editors see" in editors_page
    _, headers = through(front, "/topics/distributed/", session)
    assert headers["X-Cache"] == "MISS"
    assert "no-store" in headers["Cache-Control"]
    through(front, "/topics/distributed/", session)

    readers_page = warm(front, "/topics/distributed/")
    _, again = through(front, "/topics/distributed/", session)
    assert again["X-Cache"] == "MISS"  # Editors still pass through.
    assert "Log out" not in readers_page
    assert editors_headers["X-Cache"] == "MISS"


def test_a_purge_to_an_unreachable_varnish_is_retried(editorial_groups, varnished):
    front = varnished["front"]
    topic = TopicFactory(slug="distributed")
    draft = DocumentFactory(topic=topic, number=4, draft=True, title="Kept for later")
    editor = publisher_on(varnished["site"])
    warm(front, "/topics/distributed/")

    editor.post(
        "/admin/catalogue/document/",
        {"action": "publish_action", "_selected_action": [draft.pk], "index": 0},
    )
    # Varnish cannot be reached for purges: the old page is still kept.
    page, headers = through(front, "/topics/distributed/")
    assert headers["X-Cache"] == "HIT"
    assert "Kept for later" not in page
    varnished["open_purges"]()

    assert eventually(
        lambda: "Kept for later" in through(front, "/topics/distributed/")[0]
    )


def test_slow_clients_wait_in_varnish_not_in_the_sites_workers(varnished):
    TopicFactory(slug="distributed")
    slow = []
    try:
        # More half-sent requests than the site has workers, each kept open.
        for _ in range(8):
            connection = socket.create_connection(
                ("127.0.0.1", varnished["front_port"])
            )
            connection.sendall(b"GET /topics/distributed/ HTTP/1.1\r\nHost: 127.0")
            slow.append(connection)

        page, _ = through(varnished["front"], "/topics/distributed/")
    finally:
        for connection in slow:
            connection.close()

    assert "<html" in page


def test_a_kept_page_carries_the_cross_origin_headers_for_any_origin(varnished):
    topic = TopicFactory(name="Distributed optimisation", slug="distributed")
    DocumentFactory(topic=topic, number=4, published=True)
    front = varnished["front"]

    def read(path, origin=None):
        request = urllib.request.Request(front + path)
        if origin:
            request.add_header("Origin", origin)
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
            return response.headers

    for path in ["/topics/distributed/feed/", "/LIT-004/cite.json"]:
        first = read(path, "https://one.example.net")
        second = read(path, "https://two.example.org")
        same_origin = read(path)

        assert first["Access-Control-Allow-Origin"] == "*"
        assert first["X-Cache"] == "MISS"
        # Another origin is served the same kept copy, headers and all.
        assert second["X-Cache"] == "HIT"
        assert second["Access-Control-Allow-Origin"] == "*"
        assert second["Access-Control-Expose-Headers"] == "ETag, Link, Retry-After"
        assert "Access-Control-Allow-Credentials" not in second
        assert "Access-Control-Allow-Origin" not in same_origin

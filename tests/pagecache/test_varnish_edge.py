"""The edge trusts nothing from the client, with a real varnishd running the
shipped VCL (deploy/varnish/anthology.vcl and its probe in backend.vcl) in
front of gunicorn with HTTPS=1 behind it: the probe finds the site healthy;
a client's X-Forwarded-Proto and X-Forwarded-For are replaced by Varnish's
own, so no plain request gets the https copy of a page and failed logins
count against the client's real address; bodies past their limit are refused
in Varnish; with the site down, a page Varnish does not hold is the site's own
error page."""

import http.client
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.template.loader import render_to_string

from tests.factories import PASSWORD, DocumentFactory, UserFactory
from tests.tools import (
    RUN_PREFIX,
    TEST_REDIS_URL,
    free_port,
    redis_client,
    require_varnishd,
)

ROOT = Path(__file__).resolve().parents[2]
VARNISH = ROOT / "deploy" / "varnish"

pytestmark = [
    pytest.mark.varnish,
    pytest.mark.redis,
    pytest.mark.workers,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        os.environ.get("DATABASE_URL", "").split(":", 1)[0]
        not in {"postgres", "postgresql"},
        reason="the site behind Varnish shares the test database: run the suite "
        "with DATABASE_URL=postgres://… (CI does)",
    ),
]


def until(check, what):
    for _ in range(300):
        found = check()
        if found:
            return found
        time.sleep(0.1)
    pytest.fail(f"never: {what}")


def listens(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def answers(port):
    try:
        return ask(port, "/health/")[0] == 200
    except OSError:
        return False


def ask(port, path, method="GET", headers=None, body=None):
    """``(status, headers, text)`` of one request, redirects not followed."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.headers, response.read().decode()
    finally:
        connection.close()


@pytest.fixture(scope="module")
def edge_env():
    """What the module's site is started with beyond the edge's own settings."""
    return {}


@pytest.fixture(scope="module")
def edge_site(static_root, tmp_path_factory, django_db_setup, edge_env):
    """The ports, the shipped probe's VCL, the settings and the health
    listener `make serve` starts beside the web workers, once for the module:
    the listener renders no page and keeps nothing between requests, so one
    serves every test, while ``edge`` starts gunicorn and varnishd afresh."""
    from django.db import connection

    db = connection.settings_dict
    folder = tmp_path_factory.mktemp("edge")
    site, health, plain, https, admin = (free_port() for _ in range(5))
    probe = (
        (VARNISH / "backend.vcl")
        .read_text()
        .replace('"8000"', f'"{site}"')
        .replace('"8001"', f'"{health}"')
    )
    assert f'"{site}"' in probe and f'"{health}"' in probe
    (folder / "backend.vcl").write_text(probe)
    secret = folder / "secret"
    secret.write_text(secrets.token_hex(16))
    prefix = f"{RUN_PREFIX}-edge-{folder.name}"
    env = {
        **os.environ,
        "DATABASE_URL": (
            f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:"
            f"{db['PORT'] or 5432}/{db['NAME']}"
        ),
        "REDIS_URL": TEST_REDIS_URL,
        "CACHE_KEY_PREFIX": prefix,
        "JOBS_QUEUE": prefix,
        "DEBUG": "0",
        "HTTPS": "1",
        # A site served over HTTPS names its https origin as its canonical one.
        "SITE_URL": "https://anthology.test",
        "BEHIND_PROXY": "1",
        "ALLOWED_HOSTS": "127.0.0.1",
        "STATIC_ROOT": str(static_root),
        "VARNISH_URL": f"http://127.0.0.1:{plain}",
        **edge_env,
    }
    listener = subprocess.Popen(
        [
            *(str(Path(sys.executable).parent / "gunicorn"), "anthology.health_wsgi"),
            *("--bind", f"127.0.0.1:{health}", "--workers", "1", "--threads", "4"),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        until(lambda: answers(health), "the health listener answering")
        yield {
            "folder": folder,
            "env": env,
            "site": site,
            "plain": plain,
            "https": https,
            "admin": admin,
            "secret": secret,
        }
    finally:
        listener.terminate()
        listener.wait(timeout=20)
        delete_keys(prefix)


def delete_keys(prefix):
    keys = list(redis_client().scan_iter(f"{prefix}:*"))
    if keys:
        redis_client().delete(*keys)


@pytest.fixture
def edge(edge_site, tmp_path):
    """gunicorn with HTTPS=1 and BEHIND_PROXY=1 behind varnishd, which has a
    plain listen address and one named "https" (where a TLS terminator would
    connect), and the shipped probe, asking the module's health listener."""
    site, plain, admin = edge_site["site"], edge_site["plain"], edge_site["admin"]
    secret = edge_site["secret"]
    prefix = f"{RUN_PREFIX}-edge-{tmp_path.name}"
    varnish = subprocess.Popen(
        [
            *(require_varnishd(), "-F", "-a", f"127.0.0.1:{plain}"),
            *("-a", f"https=127.0.0.1:{edge_site['https']}"),
            *("-n", str(tmp_path / "v")),
            *("-f", str(VARNISH / "anthology.vcl")),
            *("-p", f"vcl_path={edge_site['folder']}:{VARNISH}"),
            *("-s", "malloc,64m", "-j", "none"),
            *("-T", f"127.0.0.1:{admin}", "-S", str(secret)),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    gunicorn = subprocess.Popen(
        [
            *(str(Path(sys.executable).parent / "gunicorn"), "anthology.wsgi"),
            *("--bind", f"127.0.0.1:{site}", "--workers", "1", "--timeout", "60"),
        ],
        cwd=ROOT,
        env={**edge_site["env"], "CACHE_KEY_PREFIX": prefix, "JOBS_QUEUE": prefix},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def backend_health():
        listed = subprocess.run(
            [
                shutil.which("varnishadm") or "/usr/bin/varnishadm",
                *("-T", f"127.0.0.1:{admin}", "-S", str(secret)),
                "backend.list",
            ],
            capture_output=True,
            text=True,
        ).stdout
        # Its probe's window ("5/5": five good of five) and its health.
        found = re.search(r"^\S*health\s+\S+\s+(\S+)\s+(\S+)", listed, re.MULTILINE)
        return found and (found[1], found[2])

    try:
        until(lambda: answers(site), "gunicorn answering")
        until(lambda: listens(plain), "varnishd listening")
        yield {
            "plain": plain,
            "https": edge_site["https"],
            "site": site,
            "gunicorn": gunicorn,
            "backend_health": backend_health,
        }
    finally:
        for process in gunicorn, varnish:
            process.terminate()
        for process in gunicorn, varnish:
            process.wait(timeout=20)
        delete_keys(prefix)


def test_the_shipped_probe_finds_a_site_under_https_healthy(edge):
    # It begins with three good of five; it reaches five once two of its own
    # probes are answered.
    until(
        lambda: edge["backend_health"]() == ("5/5", "healthy"),
        "the probe's window full of good answers",
    )

    status, _, _ = ask(edge["https"], "/robots.txt")
    assert status == 200


def test_a_plain_request_never_gets_the_https_copy_whatever_it_claims(edge):
    forged, forged_headers, _ = ask(
        edge["plain"], "/robots.txt", headers={"X-Forwarded-Proto": "https"}
    )
    served, _, robots = ask(edge["https"], "/robots.txt")
    again, again_headers, _ = ask(edge["https"], "/robots.txt")
    plain, plain_headers, _ = ask(edge["plain"], "/robots.txt")

    assert forged == 301
    assert forged_headers["Location"].startswith("https://")
    assert served == 200
    assert "Sitemap: https://anthology.test/sitemap.xml" in robots
    assert (again, again_headers["X-Cache"]) == (200, "HIT")
    assert plain == 301
    assert plain_headers["Location"].startswith("https://")


def log_in(port, username, password, forwarded_for):
    """A failed or good sign-in through Varnish's https address, as a browser
    sends it: the form's CSRF token and cookie, the page as Origin."""
    status, headers, page = ask(port, "/admin/login/")
    assert status == 200
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
    cookie = re.search(r"csrftoken=([^;]+)", headers["Set-Cookie"])[1]
    body = f"csrfmiddlewaretoken={token}&username={username}&password={password}"
    status, _, _ = ask(
        port,
        "/admin/login/",
        method="POST",
        body=body,
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={cookie}",
            "Origin": f"https://127.0.0.1:{port}",
            "Referer": f"https://127.0.0.1:{port}/admin/login/",
            "X-Forwarded-For": forwarded_for,
        },
    )
    return status


def test_a_forged_forwarded_for_through_varnish_does_not_dodge_the_lockout(
    edge, editorial_groups
):
    user = UserFactory(editor=True)
    failures = [
        log_in(edge["https"], user.username, "wrong", f"203.0.113.{attempt}")
        for attempt in range(6)
    ]

    # The fifth failure from the one address Varnish saw locks it out.
    assert failures == [200] * 4 + [429] * 2
    assert log_in(edge["https"], user.username, PASSWORD, "203.0.113.99") == 429


@pytest.mark.parametrize(
    ("path", "length", "refused"),
    [
        ("/search/", 1024 * 1024 + 1, True),
        ("/", 1_500_000_000, True),
        ("/admin/login/", 2 * 1024 * 1024, False),
        ("/admin/login/", 65 * 1024 * 1024 + 1, True),
    ],
)
def test_varnish_refuses_a_body_past_its_limit_before_reading_it(
    edge, path, length, refused
):
    with socket.create_connection(("127.0.0.1", edge["https"]), timeout=30) as sock:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {length}\r\nConnection: close\r\n\r\n".encode()
        )
        if not refused:
            sock.sendall(b"a" * length)
        answer = sock.recv(65536).decode(errors="replace")

    assert answer.startswith("HTTP/1.1 413") is refused


def test_with_the_site_down_an_uncached_page_is_the_sites_own_error_page(edge):
    document = DocumentFactory(number=4, published=True)
    path = document.get_absolute_url()
    edge["gunicorn"].terminate()
    edge["gunicorn"].wait(timeout=20)

    status, headers, page = ask(edge["https"], path)

    assert status == 503
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert page == render_to_string("503.html")
    assert "Guru Meditation" not in page


def test_the_vcl_holds_the_sites_error_page_as_the_site_renders_it():
    vcl = (VARNISH / "error_page.vcl").read_text()
    held = vcl[vcl.index('synthetic({"') + len('synthetic({"') : vcl.index('"});')]

    assert held == render_to_string("503.html")

"""The correction form behind a real varnishd running the shipped VCL
(deploy/varnish/anthology.vcl), in front of gunicorn with HTTPS=1: the form
and the private page are never a Varnish hit and reach the site with their
cookies, so the form's CSRF token holds; a flood counts against the address
Varnish saw, whatever X-Forwarded-For the client wrote, and one from many
addresses stops at the total; a 2 MB body is refused, by Varnish in front
and by the site reached directly."""

import http.client
import os
import re
import socket
from urllib.parse import urlencode

import pytest
from bs4 import BeautifulSoup

from catalogue.models import Correction
from tests.factories import DocumentFactory

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

FORM_PATH = "/LIT-219/correct/"
# A CSRF secret as Django makes one: 32 letters and digits.
SECRET = "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"


@pytest.fixture(scope="module")
def edge_env():
    """The corrections' limits, low enough to reach."""
    return {"CORRECTIONS_RATE": "3/hour", "CORRECTIONS_TOTAL_RATE": "5/hour"}


@pytest.fixture
def front(edge):
    """The edge, with the corrections' limits low enough to reach."""
    return edge


@pytest.fixture
def document(front):
    return DocumentFactory(
        number=219, title="Memory-efficient training", published=True
    )


def ask(port, path, method="GET", headers=None, body=None, source="127.0.0.1"):
    """``(status, headers, text)`` of one request from the address ``source``."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=30, source_address=(source, 0)
    )
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.headers, response.read().decode()
    finally:
        connection.close()


def csrf_cookie(headers):
    return re.search(r"csrftoken=([^;]+)", headers["Set-Cookie"])[1]


def posted(port, title, source="127.0.0.1", **headers):
    """The form, fetched and sent back with a new title, as a browser does
    from ``source``: ``(status, headers)`` of the answer to the POST."""
    status, got, page = ask(port, FORM_PATH, source=source)
    assert status == 200
    soup = BeautifulSoup(page, "html.parser")
    data = {
        field["name"]: field.get("value", "")
        for field in soup.select("form.correction-form input[name]")
    }
    data.update(
        {
            field["name"]: field.get_text().removeprefix("\n")
            for field in soup.select("form.correction-form textarea[name]")
        }
    )
    data["title"] = title
    status, answer, _ = ask(
        port,
        FORM_PATH,
        method="POST",
        body=urlencode(data),
        source=source,
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={csrf_cookie(got)}",
            "Origin": f"https://127.0.0.1:{port}",
            "Referer": f"https://127.0.0.1:{port}{FORM_PATH}",
            **headers,
        },
    )
    return status, answer


def test_the_form_and_the_private_page_are_never_a_hit_and_keep_their_cookies(
    front, document
):
    port = front["https"]
    answers = [ask(port, FORM_PATH) for _ in range(3)]
    with_cookie = ask(port, FORM_PATH, headers={"Cookie": f"csrftoken={SECRET}"})
    status, answer = posted(port, "Memory-efficient training of deep nets")
    follow = answer["Location"]
    followed = [ask(port, follow) for _ in range(3)]
    # What Varnish keeps, for contrast: the second request is a hit.
    ask(port, "/robots.txt")
    robots = ask(port, "/robots.txt")

    assert [(s, h["X-Cache"]) for s, h, _ in answers] == [(200, "MISS")] * 3
    assert all("no-store" in h["Cache-Control"] for _, h, _ in answers)
    # The reader's CSRF cookie reached the site: it kept the same secret.
    assert csrf_cookie(with_cookie[1]) == SECRET
    assert status == 302
    assert re.fullmatch(r"/corrections/[^/]+/", follow)
    assert [(s, h["X-Cache"]) for s, h, _ in followed] == [(200, "MISS")] * 3
    assert "Memory-efficient training of deep nets" in followed[-1][2]
    assert robots[1]["X-Cache"] == "HIT"
    assert Correction.objects.count() == 1


def test_a_flood_counts_against_the_address_varnish_saw(front, document):
    answers = [
        posted(front["https"], f"Take {n}", **{"X-Forwarded-For": f"203.0.113.{n}"})
        for n in range(5)
    ]

    assert [status for status, _ in answers] == [302] * 3 + [429] * 2
    assert int(answers[-1][1]["Retry-After"]) > 0
    assert Correction.objects.count() == 3


def test_a_flood_from_many_addresses_stops_at_the_total(front, document):
    answers = [
        posted(front["https"], f"Take {n}", source=f"127.0.0.{10 + n}")
        for n in range(8)
    ]

    assert [status for status, _ in answers] == [302] * 5 + [429] * 3
    assert Correction.objects.count() == 5


def refused_unread(port, length, path=FORM_PATH):
    """The first line of the answer to a POST declaring ``length`` bytes, of
    which none is sent."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "X-Forwarded-Proto: https\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {length}\r\nConnection: close\r\n\r\n".encode()
        )
        return sock.recv(65536).decode(errors="replace").split("\r\n", 1)[0]


def test_a_two_megabyte_body_is_refused_by_varnish_and_by_the_site(front, document):
    two_megabytes = 2 * 1024 * 1024

    assert (
        refused_unread(front["https"], two_megabytes)
        == "HTTP/1.1 413 Request body too large"
    )
    assert refused_unread(front["site"], two_megabytes).startswith("HTTP/1.1 413")
    # Within the site's 1 MiB, past the form's 64 KiB: the form refuses it.
    assert refused_unread(front["site"], 100_000).startswith("HTTP/1.1 413")
    assert not Correction.objects.exists()


def test_a_chunked_body_reaches_the_form_whole(front, document):
    """Sent without a length, straight to gunicorn from the proxy's address."""
    port = front["site"]
    status, got, page = ask(port, FORM_PATH, headers={"X-Forwarded-Proto": "https"})
    assert status == 200
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
    body = urlencode(
        {
            "csrfmiddlewaretoken": token,
            "title": "Memory-efficient training",
            "authors": document.authors,
            "year": document.year,
            "source_identifier": document.source_identifier,
            "author_list": "",
            "note": "Sent in chunks.",
        }
    ).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(
            f"POST {FORM_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "X-Forwarded-Proto: https\r\n"
            "Origin: https://127.0.0.1\r\n"
            f"Cookie: csrftoken={csrf_cookie(got)}\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\n"
            "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n".encode()
            + f"{len(body):x}\r\n".encode()
            + body
            + b"\r\n0\r\n\r\n"
        )
        answer = sock.recv(65536).decode(errors="replace")

    assert answer.startswith("HTTP/1.1 302"), answer[:500]
    assert Correction.objects.get().note == "Sent in chunks."

"""What makes a copy of a page, through a real varnishd running
deploy/varnish/anthology.vcl: the address in its one spelling, and nothing
else a client sends. Another host or port is redirected to the canonical one
before the cache is read, another spelling of a query to its own; an
Authorization header on a public page is served the cached page, while a
token's API request still reaches the site and is counted."""

import http.client
import json
import subprocess
from urllib.parse import urlsplit

import pytest

from tests.api.conftest import make_token
from tests.factories import DocumentFactory, TopicFactory, UserFactory
from tests.pagecache.test_varnish import pytestmark, varnished, warm
from tests.tools import redis_client

__all__ = ["pytestmark", "varnished"]

TOPIC = "/topics/distributed/"


def ask(front, path, **headers):
    """(status, headers, body) of one GET through Varnish, as sent."""
    parts = urlsplit(front)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    conn.putrequest("GET", path, skip_host="Host" in headers)
    for name, value in headers.items():
        conn.putheader(name, value)
    conn.endheaders()
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, response.headers, body


def objects(varnished):
    """The objects Varnish holds now."""
    out = subprocess.run(
        ["varnishstat", "-n", varnished["name"], "-1", "-f", "MAIN.n_object"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return int(out.split()[1])


def redis_keys(varnished):
    return sum(1 for _ in redis_client().scan_iter(f"{varnished['prefix']}:*"))


@pytest.fixture
def topic_page(varnished):
    topic = TopicFactory(name="Distributed optimisation", slug="distributed")
    DocumentFactory(topic=topic, number=4, title="Kept once", published=True)
    warm(varnished["front"], TOPIC)
    warm(varnished["front"], f"{TOPIC}?page=1")
    return varnished


def test_another_host_or_port_is_redirected_and_keeps_no_copy(topic_page):
    front, before = topic_page["front"], objects(topic_page)
    keys = redis_keys(topic_page)

    answers = [
        ask(front, TOPIC, Host=f"localhost:{port}") for port in range(20001, 20041)
    ]

    assert {status for status, _, _ in answers} == {301}
    assert {headers["Location"] for _, headers, _ in answers} == {front + TOPIC}
    assert objects(topic_page) == before
    assert redis_keys(topic_page) == keys
    status, headers, _ = ask(front, TOPIC)
    assert (status, headers["X-Cache"]) == (200, "HIT")


SPELLINGS = ["page=01", "page=001", "page=%31", "page=+1", "page=1%20", "page=1&page=1"]


def test_every_spelling_of_a_query_is_redirected_to_the_one_copy(topic_page):
    front, before = topic_page["front"], objects(topic_page)
    keys = redis_keys(topic_page)

    answers = [ask(front, f"{TOPIC}?{query}") for query in SPELLINGS * 3]

    assert {status for status, _, _ in answers} == {301}
    assert {headers["Location"] for _, headers, _ in answers} == {f"{TOPIC}?page=1"}
    assert objects(topic_page) == before
    assert redis_keys(topic_page) == keys


def test_a_public_page_with_an_authorization_header_is_served_from_the_cache(
    topic_page,
):
    front = topic_page["front"]
    warm(front, "/sitemap.xml")

    for path in [TOPIC, "/sitemap.xml"]:
        status, headers, _ = ask(front, path, Authorization="Bearer anth_anything")
        assert (status, headers["X-Cache"]) == (200, "HIT"), path


def test_a_tokens_api_request_reaches_the_site_and_is_counted(topic_page):
    front = topic_page["front"]
    token, secret = make_token(UserFactory(editor=True))
    warm(front, "/api/topics/")

    answers = [
        ask(front, "/api/topics/", Authorization=f"Bearer {secret}") for _ in range(3)
    ]

    assert [(s, h["X-Cache"]) for s, h, _ in answers] == [(200, "MISS")] * 3
    counts = [
        int(redis_client().get(key))
        for key in redis_client().scan_iter(
            f"{topic_page['prefix']}:*ratelimit:user:{token.user_id}:*"
        )
    ]
    assert sum(counts) == 3
    refused = ask(front, "/api/topics/", Authorization="Bearer anth_nothing")
    assert refused[0] == 401


def test_accept_parameters_shape_no_answer_kept_for_others(topic_page):
    front = topic_page["front"]

    status, _, indented = ask(
        front, "/api/topics/", Accept="application/json; indent=8"
    )
    _, headers, plain = ask(front, "/api/topics/")

    assert status == 200
    assert headers["X-Cache"] == "HIT"
    assert plain == indented
    assert b"\n" not in plain
    assert json.loads(plain)["results"][0]["slug"] == "distributed"

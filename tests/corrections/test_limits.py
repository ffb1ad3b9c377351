"""The form is bounded and rate-limited: a body larger than it takes is
refused before it is read; proposals are counted per client address (as the
login lockout reads it) and in total, and past either limit the answer is
429 with Retry-After, and nothing more is written."""

import io
from urllib.parse import urlencode

import pytest
from django.urls import reverse

from catalogue.models import Correction
from tests.factories import DocumentFactory
from tests.html import form_data, soup_of

pytestmark = pytest.mark.django_db

FORM = "form.correction-form"
# A Varnish in front, on this machine, as deploy/varnish/anthology.vcl sets
# X-Forwarded-For.
PROXIED = {"BEHIND_PROXY": True, "PROXY_COUNT": 1, "TRUSTED_PROXIES": ["127.0.0.1"]}


@pytest.fixture
def document():
    return DocumentFactory(
        number=219, title="Memory-efficient training", published=True
    )


@pytest.fixture
def path(document):
    return reverse("corrections:document", kwargs={"identifier": document.identifier})


@pytest.fixture
def rates(settings):
    settings.CORRECTIONS_RATE = "3/hour"
    settings.CORRECTIONS_TOTAL_RATE = "5/hour"
    return settings


def proposal(client, path, number, **extra):
    data = form_data(client.get(path), FORM)
    data["title"] = f"Memory-efficient training, take {number}"
    return client.post(path, data, **extra)


def test_a_flood_from_one_address_gets_429_after_its_limit(client, path, rates):
    answers = [proposal(client, path, n) for n in range(6)]

    assert [answer.status_code for answer in answers] == [302] * 3 + [429] * 3
    assert Correction.objects.count() == 3
    refused = answers[-1]
    assert 0 < int(refused["Retry-After"]) <= 3600
    assert "no-store" in refused["Cache-Control"]
    page = soup_of_status(refused, 429)
    assert page.select_one("h1").get_text() == "Too many corrections for now"
    assert "Nothing you sent was kept." in page.get_text()


def soup_of_status(response, status):
    assert response.status_code == status
    response.status_code = 200
    return soup_of(response)


def test_a_forged_forwarded_for_from_an_untrusted_peer_counts_as_the_peer(
    client, path, rates
):
    for key, value in PROXIED.items():
        setattr(rates, key, value)
    answers = [
        proposal(
            client,
            path,
            n,
            REMOTE_ADDR="198.51.100.7",
            HTTP_X_FORWARDED_FOR=f"203.0.113.{n}",
        )
        for n in range(5)
    ]

    assert [answer.status_code for answer in answers] == [302] * 3 + [429] * 2
    assert Correction.objects.count() == 3


def test_a_flood_from_many_addresses_stops_at_the_total(client, path, rates):
    for key, value in PROXIED.items():
        setattr(rates, key, value)
    answers = [
        proposal(
            client,
            path,
            n,
            REMOTE_ADDR="127.0.0.1",
            HTTP_X_FORWARDED_FOR=f"203.0.113.{n}",
        )
        for n in range(8)
    ]

    assert [answer.status_code for answer in answers] == [302] * 5 + [429] * 3
    assert Correction.objects.count() == 5


def test_one_addresss_flood_leaves_the_others_their_share(client, path, rates):
    for key, value in PROXIED.items():
        setattr(rates, key, value)
    flood = [
        proposal(client, path, n, HTTP_X_FORWARDED_FOR="203.0.113.1") for n in range(10)
    ]
    other = proposal(client, path, 99, HTTP_X_FORWARDED_FOR="203.0.113.2")

    assert [answer.status_code for answer in flood] == [302] * 3 + [429] * 7
    assert other.status_code == 302
    assert Correction.objects.count() == 4


def test_a_robots_posts_count_and_a_readers_mistakes_do_not(client, path, rates):
    data = form_data(client.get(path), FORM)
    mistakes = [client.post(path, {**data, "year": "x"}) for _ in range(5)]
    robots = [
        client.post(path, {**data, "title": "Spam", "website": "spam"})
        for _ in range(3)
    ]

    assert [answer.status_code for answer in mistakes] == [200] * 5
    assert [answer.status_code for answer in robots] == [302] * 3
    assert proposal(client, path, 1).status_code == 429
    assert not Correction.objects.exists()


def test_a_body_larger_than_the_form_takes_is_refused_unread(client, path, settings):
    settings.CORRECTIONS_MAX_BYTES = 65536
    data = form_data(client.get(path), FORM)
    data["note"] = "x" * 100_000

    refused = client.post(path, data)

    assert refused.status_code == 413
    assert refused["Content-Type"] == "text/plain; charset=utf-8"
    assert "at most 65,536 bytes" in refused.content.decode()
    assert "no-store" in refused["Cache-Control"]
    assert not Correction.objects.exists()


def test_a_two_megabyte_body_is_refused(client, path):
    body = b"title=" + b"x" * (2 * 1024 * 1024)

    refused = client.post(path, body, content_type="application/x-www-form-urlencoded")

    assert refused.status_code == 413
    assert not Correction.objects.exists()


def test_a_body_of_no_stated_length_is_read_no_further_than_the_limit(
    client, path, settings
):
    settings.CORRECTIONS_MAX_BYTES = 65536
    stream = io.BytesIO(b"title=" + b"x" * (2 * 1024 * 1024))

    refused = client.generic(
        "POST",
        path,
        CONTENT_TYPE="application/x-www-form-urlencoded",
        CONTENT_LENGTH="",
        HTTP_TRANSFER_ENCODING="chunked",
        **{"wsgi.input": stream},
    )

    assert refused.status_code == 413
    # The limit and one byte more: enough to know, no more.
    assert stream.tell() == 65537
    assert not Correction.objects.exists()


def test_a_body_of_no_stated_length_within_the_limit_is_read_whole(client, path):
    data = form_data(client.get(path), FORM)
    data["title"] = "Memory-efficient training, sent chunked"
    body = urlencode(data).encode()

    answer = client.generic(
        "POST",
        path,
        CONTENT_TYPE="application/x-www-form-urlencoded",
        CONTENT_LENGTH="",
        HTTP_TRANSFER_ENCODING="chunked",
        **{"wsgi.input": io.BytesIO(body)},
    )

    assert answer.status_code == 302
    assert Correction.objects.get().changes == {
        "title": "Memory-efficient training, sent chunked"
    }


def test_with_the_counts_out_of_reach_nothing_is_taken(client, path, settings):
    data = form_data(client.get(path), FORM)
    data["title"] = "Memory-efficient training, take 1"
    settings.CACHES = {
        "default": {
            "BACKEND": "pagecache.backends.RedisCache",
            # Nothing listens on port 1.
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }

    refused = client.post(path, data)

    assert refused.status_code == 429
    assert refused["Retry-After"] == "60"
    assert not Correction.objects.exists()

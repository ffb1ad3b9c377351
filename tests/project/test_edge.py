"""The site trusts nothing of a client's that the edge should have said: the
client's address and the scheme come from the trusted proxies alone, so
failed logins sent straight to gunicorn with a made-up X-Forwarded-For still
lock out; request bodies larger than their address takes are refused before a
byte is read, on every address."""

import io

import pytest
from django.test import override_settings
from django.urls import reverse

from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

MiB = 1024 * 1024


def log_in(client, user, password, **headers):
    return client.post(
        reverse("admin:login"),
        {"username": user.username, "password": password},
        **headers,
    )


@override_settings(BEHIND_PROXY=True, PROXY_COUNT=1)
def test_straight_to_gunicorn_a_rotating_forwarded_for_still_locks_out(client):
    user = UserFactory(editor=True)
    for attempt in range(7):
        log_in(
            client,
            user,
            "wrong",
            REMOTE_ADDR="198.51.100.20",
            HTTP_X_FORWARDED_FOR=f"203.0.113.{attempt}",
        )

    right = log_in(
        client,
        user,
        PASSWORD,
        REMOTE_ADDR="198.51.100.20",
        HTTP_X_FORWARDED_FOR="203.0.113.99",
    )
    # Through the proxy, another client is not locked out.
    through_proxy = log_in(
        client,
        user,
        PASSWORD,
        REMOTE_ADDR="127.0.0.1",
        HTTP_X_FORWARDED_FOR="203.0.113.99",
    )

    assert right.status_code == 429
    assert through_proxy.status_code == 302


@override_settings(
    BEHIND_PROXY=True,
    TRUSTED_PROXIES=["10.0.0.0/8"],
    SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"),
    SECURE_SSL_REDIRECT=True,
)
@pytest.mark.parametrize(
    ("peer", "redirected"),
    [("198.51.100.20", True), ("127.0.0.1", True), ("10.1.2.3", False)],
)
def test_only_a_trusted_proxy_may_say_a_request_came_over_https(
    client, peer, redirected
):
    response = client.get(
        "/robots.txt", REMOTE_ADDR=peer, HTTP_X_FORWARDED_PROTO="https"
    )

    assert (response.status_code == 301) is redirected


def test_without_a_proxy_no_forwarded_header_is_believed(client):
    user = UserFactory(editor=True)
    for attempt in range(5):
        log_in(
            client,
            user,
            "wrong",
            REMOTE_ADDR="198.51.100.20",
            HTTP_X_FORWARDED_FOR=f"203.0.113.{attempt}",
        )

    assert log_in(client, user, PASSWORD, REMOTE_ADDR="198.51.100.20").status_code == (
        429
    )


class Unreadable(io.RawIOBase):
    """A request body that fails the test if anything reads it."""

    def readable(self):
        return True

    def readinto(self, buffer):
        raise AssertionError("the body was read")


@pytest.mark.parametrize(
    ("path", "limit"),
    [
        ("/search/", 1 * MiB),
        ("/", 1 * MiB),
        ("/admin/login/", 65 * MiB),
        ("/admin/catalogue/decisionrecord/import-folder/", 65 * MiB),
        ("/no-such-page/", 1 * MiB),
    ],
)
def test_a_body_larger_than_its_address_takes_is_refused_unread(client, path, limit):
    response = client.generic(
        "POST",
        path,
        CONTENT_LENGTH=str(limit + 1),
        CONTENT_TYPE="multipart/form-data; boundary=x",
        HTTP_COOKIE="csrftoken=made-up",
        **{"wsgi.input": Unreadable()},
    )

    assert response.status_code == 413
    assert response.content.decode() == (
        f"The request's body is {limit + 1:,} bytes; {path} "
        f"takes at most {limit:,} bytes."
    )


def test_a_body_within_its_limit_is_read(client):
    response = client.post(
        reverse("admin:login"),
        {"username": "nobody", "password": "y", "padding": "x" * (MiB - 4096)},
    )

    # The login form read it, and refused the made-up account.
    assert response.status_code == 200
    assert "Please enter the correct username and password" in response.text

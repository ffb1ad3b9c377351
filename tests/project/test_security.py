"""Security headers, the deploy check, login lockout, and malformed URLs."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from tests.databases import WEB_LAYER
from tests.factories import PASSWORD, DocumentFactory, TopicFactory, UserFactory

pytestmark = [pytest.mark.django_db, WEB_LAYER]

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "path", ["/", "/search/?q=x", "/admin/login/", "/feed/", "/sitemap.xml"]
)
def test_every_response_carries_the_security_headers(client, path):
    response = client.get(path)

    policy = response["Content-Security-Policy"]
    directives = dict(part.split(" ", 1) for part in policy.split("; "))
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert directives["default-src"] == "'self'"
    assert directives["object-src"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"
    assert "unsafe-inline" not in policy
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"


def test_the_deploy_check_passes_with_production_settings():
    environment = {
        **{k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"},
        "DEBUG": "0",
        "HTTPS": "1",
        "SECRET_KEY": "x7G" * 20 + "-not-a-development-key",
        "ALLOWED_HOSTS": "anthology.example.org",
        "OAI_REPOSITORY_IDENTIFIER": "anthology.example.org",
    }

    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "DEBUG"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_production_cookies_are_secure_and_plain_http_redirects():
    environment = {**os.environ, "HTTPS": "1", "SECRET_KEY": "k" * 60}
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT,"
        " s.SECURE_HSTS_SECONDS > 0)"
    )

    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**environment, "DJANGO_SETTINGS_MODULE": "anthology.settings"},
        capture_output=True,
        text=True,
        check=True,
    )

    assert result.stdout.split() == ["True", "True", "True", "True"]


def log_in(client, username, password):
    return client.post(
        reverse("admin:login"),
        {"username": username, "password": password, "next": "/admin/"},
    )


def test_repeated_failed_logins_lock_the_account_out(client):
    UserFactory(username="ada", is_staff=True)

    for _ in range(4):
        assert log_in(client, "ada", "guess").status_code == 200
    fifth = log_in(client, "ada", "guess")
    locked = log_in(client, "ada", PASSWORD)

    assert (fifth.status_code, locked.status_code) == (429, 429)
    assert "_auth_user_id" not in client.session
    assert client.get("/admin/").status_code == 302


def test_a_lockout_leaves_other_accounts_alone(client):
    UserFactory(username="ada", is_staff=True)
    UserFactory(username="grace", is_staff=True)
    for _ in range(5):
        log_in(client, "ada", "guess")

    response = log_in(client, "grace", PASSWORD)

    assert response.status_code == 302
    assert client.get("/admin/").status_code == 200


def test_a_success_before_the_limit_starts_the_count_again(client):
    UserFactory(username="ada", is_staff=True)
    for _ in range(4):
        log_in(client, "ada", "guess")
    assert log_in(client, "ada", PASSWORD).status_code == 302
    client.logout()

    for _ in range(4):
        log_in(client, "ada", "guess")

    assert log_in(client, "ada", PASSWORD).status_code == 302


MALFORMED = [
    "/topics/busy/?page=abc",
    "/topics/busy/?page=0",
    "/topics/busy/?page=99999999999999999999",
    "/topics/busy/?year_from=99999999999",
    "/topics/busy/?year_to=abc",
    "/topics/busy/?registry=%ff",
    "/topics/busy/?tag=%ff%fe",
    "/topics/busy/?status=draft",
    "/registries/LIT/?page=-1",
    "/unfiled/?year_from=1e400",
    "/search/?q=" + "x" * 5000,
    "/search/?q=a&page=abc",
    "/search/?year_to=99999999999",
    "/search/cite.bib?year_from=abc",
    "/LIT-99999999999999/",
    "/LIT-99999999999999999999999999/",
    "/LIT-99999999999999/cite.bib",
    "/LIT-004/v0/",
    "/LIT-004/v99999999999999999999/",
    "/LIT-004/v-1/",
    "/decisions/ADR-99999999999999999999/",
    "/decisions/?page=abc",
    "/registries/%ff/",
    "/tags/%ff/",
    "/topics/%ff/",
    "/sitemap-documents.xml?p=abc",
    "/%ff/",
    "/lit-004/",
]


@pytest.mark.parametrize("path", MALFORMED)
def test_malformed_parameters_get_a_client_error_never_a_server_error(client, path):
    topic = TopicFactory(slug="busy")
    DocumentFactory(number=4, topic=topic, published=True)

    # A query of another spelling (invalid UTF-8 read as U+FFFD, parameters
    # out of order) is first redirected to its one spelling.
    response = client.get(path, follow=True)

    assert len(response.redirect_chain) <= 1
    assert 400 <= response.status_code < 500, response.status_code


@pytest.mark.parametrize(
    "query",
    ["year_from=abc", "year_to=99999999999", "tag=%ff", "status=nope", "topic=%00"],
)
def test_malformed_export_filters_get_a_client_error(client, query):
    client.force_login(UserFactory(is_staff=True))
    DocumentFactory(published=True)

    response = client.get(f"{reverse('catalogue:export-documents')}?{query}")

    assert 400 <= response.status_code < 500, response.status_code


def test_a_query_of_invalid_utf8_is_searched_as_text(client):
    DocumentFactory(title="Sharding", published=True)

    response = client.get("/search/?q=%ff%fe%fd", follow=True)

    assert response.redirect_chain == [("/search/?q=%EF%BF%BD%EF%BF%BD%EF%BF%BD", 301)]
    assert response.status_code == 200

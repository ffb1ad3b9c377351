"""Two real app instances, one PostgreSQL, one Redis: a change made through
one (publishing, withdrawing, refiling, editing a topic or a decision record)
shows on the other's next response, its cache warm before."""

import http.cookiejar
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.db import connection

from catalogue.models import Document
from tests.factories import (
    PASSWORD,
    DecisionRecordFactory,
    DocumentFactory,
    TopicFactory,
    UserFactory,
)
from tests.tools import RUN_PREFIX, TEST_REDIS_URL, free_port, redis_client

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        os.environ.get("DATABASE_URL", "").split(":", 1)[0]
        not in {"postgres", "postgresql"},
        reason="two instances need a database server they can share: run the "
        "suite with DATABASE_URL=postgres://… (CI does)",
    ),
]


@pytest.fixture
def instances(static_root):
    """Two gunicorn processes on their own ports, sharing the test database and
    a Redis key prefix of this run's own; always stopped, keys removed."""
    db = connection.settings_dict
    prefix = f"{RUN_PREFIX}-{uuid.uuid4().hex}"
    env = {
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
    }
    gunicorn = Path(sys.executable).parent / "gunicorn"
    ports = [free_port(), free_port()]
    processes = [
        subprocess.Popen(
            [
                *(str(gunicorn), "anthology.wsgi", "--bind", f"127.0.0.1:{port}"),
                *("--workers", "1", "--timeout", "60"),
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for port in ports
    ]
    try:
        for port in ports:
            wait_for(port)
        yield [f"http://127.0.0.1:{port}" for port in ports]
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=20)
        client = redis_client()
        keys = list(client.scan_iter(f"{prefix}:*"))
        if keys:
            client.delete(*keys)


def wait_for(port):
    for _ in range(150):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/registries/", timeout=20)
            return
        except OSError:  # Refused until gunicorn listens.
            time.sleep(0.1)
    pytest.fail(f"the instance on port {port} did not start")


class Browser:
    """Cookies and CSRF tokens, as a browser keeps them, for one instance."""

    def __init__(self, base):
        self.base = base
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.cookies)
        )

    def get(self, path):
        with self.opener.open(self.base + path, timeout=30) as response:
            return response.read().decode()

    def post(self, path, data):
        page = self.get(path)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
        body = urllib.parse.urlencode(
            {**data, "csrfmiddlewaretoken": token}, doseq=True
        ).encode()
        with self.opener.open(self.base + path, body, timeout=30) as response:
            return response.read().decode()


def signed_in(base, user):
    """``user`` signed in to the instance at ``base``."""
    # The instances know the production hashers, not the tests' fast MD5; few
    # iterations keep the login quick.
    user.password = PBKDF2PasswordHasher().encode(PASSWORD, "salt", 1000)
    user.save(update_fields=["password"])
    browser = Browser(base)
    browser.post(
        "/admin/login/?next=/admin/",
        {"username": user.username, "password": PASSWORD},
    )
    return browser


def publisher_on(base):
    return signed_in(base, UserFactory(publisher=True, username="publisher"))


def test_a_document_published_through_one_instance_shows_on_the_other(
    editorial_groups, instances
):
    a, b = instances
    topic = TopicFactory(slug="distributed")
    draft = DocumentFactory(topic=topic, number=4, draft=True, title="Fresh from A")
    reader = Browser(b)
    topic_page = f"/topics/{topic.slug}/"
    assert "Fresh from A" not in reader.get(topic_page)
    assert "Fresh from A" not in reader.get(topic_page)  # Now from the cache.

    editor = publisher_on(a)
    editor.post(
        "/admin/catalogue/document/",
        {"action": "publish_action", "_selected_action": [draft.pk], "index": 0},
    )

    assert Document.objects.get(pk=draft.pk).status == Document.Status.ACTIVE
    assert "Fresh from A" in reader.get(topic_page)
    assert "Fresh from A" in reader.get("/LIT-004/")
    assert "Fresh from A" in Browser(a).get(topic_page)


def test_every_kind_of_change_through_one_instance_shows_on_the_other(
    editorial_groups, instances
):
    a, b = instances
    first = TopicFactory(name="Distributed optimisation", slug="distributed")
    second = TopicFactory(name="Evaluation", slug="evaluation")
    withdrawn = DocumentFactory(
        topic=first, number=4, title="To be withdrawn", published=True
    )
    moved = DocumentFactory(
        topic=first, number=7, title="To be refiled", published=True
    )
    decision = DecisionRecordFactory(number=26, title="Numbers are kept")
    editor = publisher_on(a)
    # Topics are the administrators' to edit.
    administrator = signed_in(a, UserFactory(username="admin", is_superuser=True))
    reader = Browser(b)
    pages = ["/topics/distributed/", "/topics/evaluation/", "/decisions/ADR-026/"]

    def seen_on_b():
        """Each page as B's next response shows it, B's cache warm before."""
        return {path: reader.get(path) for path in pages}

    def through_a(path, data, browser=editor):
        seen_on_b(), seen_on_b()  # Rendered, then served from B's cache.
        browser.post(path, data)
        return seen_on_b()

    changelist = "/admin/catalogue/document/"
    seen = through_a(
        changelist,
        {
            "action": "withdraw_action",
            "_selected_action": [withdrawn.pk],
            "index": 0,
            # Withdrawing asks for a reason first: this is the answer.
            "reason": "Did not replicate.",
            "post": "yes",
        },
    )
    assert Document.objects.get(pk=withdrawn.pk).status == Document.Status.WITHDRAWN
    assert (
        '<td class="status"><span class="status-flag">Withdrawn</span></td>'
        in seen["/topics/distributed/"]
    )

    editor.post(
        changelist,
        {
            "action": "refile_action",
            "topic": second.pk,
            "_selected_action": [moved.pk],
            "index": 0,
        },
    )
    seen = through_a(
        changelist,
        {"action": "publish_action", "_selected_action": [moved.pk], "index": 0},
    )
    assert Document.objects.get(pk=moved.pk).topic == second
    assert "To be refiled" not in seen["/topics/distributed/"]
    assert "To be refiled" in seen["/topics/evaluation/"]

    seen = through_a(
        f"/admin/catalogue/topic/{second.pk}/change/",
        {
            "name": "Evaluation — methods",
            "slug": second.slug,
            "scope": second.scope,
            "flavour": second.flavour,
            "position": second.position,
        },
        administrator,
    )
    assert "<h1>Evaluation — methods</h1>" in seen["/topics/evaluation/"]

    seen = through_a(
        f"/admin/catalogue/decisionrecord/{decision.pk}/change/",
        {
            "number": 26,
            "title": "Numbers are never reused",
            "status": decision.status,
            "decided_on": "",
            "body": "A withdrawn document keeps its number.",
            "relations-TOTAL_FORMS": "0",
            "relations-INITIAL_FORMS": "0",
            # A published record's edit waits for a publisher: this one is.
            "_publish": "Save and publish",
        },
    )
    assert "Numbers are never reused" in seen["/decisions/ADR-026/"]

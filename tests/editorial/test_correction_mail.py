"""The reader hears back, by mail, through a real SMTP server the test
starts (aiosmtpd): a published correction says so with the private link, a
declined one carries the public reason and never the private one, and a
mail server that cannot be reached leaves the decision as it was taken."""

import base64
import email
import json
import logging
import os
import socket
import subprocess
import sys
from email import policy
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.urls import reverse

import actions.corrections
from catalogue.models import Correction
from tests.databases import WEB_LAYER
from tests.factories import DocumentFactory

ROOT = Path(__file__).resolve().parents[2]
MAIL_SETTINGS = [
    "EMAIL_BACKEND",
    "EMAIL_HOST",
    "EMAIL_PORT",
    "EMAIL_HOST_USER",
    "EMAIL_HOST_PASSWORD",
    "EMAIL_USE_TLS",
    "EMAIL_USE_SSL",
    "EMAIL_TIMEOUT",
]

pytestmark = [pytest.mark.django_db, WEB_LAYER]

GUESTRIN = {"family": "Guestrin", "given": "Carlos"}

# The SMTP server: aiosmtpd's Controller on a port of this machine, its
# handler keeping each envelope as a file in ``folder``. It runs in an
# interpreter of its own (-I: the checkout is not on its path) because
# aiosmtpd imports atpublic's module ``public``, which the project's own
# ``public`` app hides from this process.
SERVER = """
import base64, json, sys
from pathlib import Path
from aiosmtpd.controller import Controller

port, folder = int(sys.argv[1]), Path(sys.argv[2])


class Keeping:
    count = 0

    async def handle_DATA(self, server, session, envelope):
        Keeping.count += 1
        kept = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "content": base64.b64encode(envelope.original_content).decode(),
        }
        partial = folder / f"{Keeping.count:04d}.part"
        partial.write_text(json.dumps(kept))
        partial.rename(partial.with_suffix(".json"))
        return "250 Message accepted for delivery"


controller = Controller(Keeping(), hostname="127.0.0.1", port=port)
controller.start()
print("ready", flush=True)
sys.stdin.read()
controller.stop()
"""


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class MailServer:
    """A real SMTP server (aiosmtpd) on a free port, until closed; what it
    received is ``envelopes``, each message as a mail client reads it
    ``messages()``."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-c", SERVER, str(self.port), str(self.folder)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        ready = self.process.stdout.readline()
        assert ready == "ready\n", "the SMTP server did not start"

    @property
    def envelopes(self):
        # A message is kept before the server answers 250: once Django's
        # send returns, its file is here.
        return [
            SimpleNamespace(
                mail_from=kept["mail_from"],
                rcpt_tos=kept["rcpt_tos"],
                content=base64.b64decode(kept["content"]),
            )
            for kept in (
                json.loads(path.read_text())
                for path in sorted(self.folder.glob("*.json"))
            )
        ]

    def messages(self):
        return [
            email.message_from_bytes(envelope.content, policy=policy.default)
            for envelope in self.envelopes
        ]

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)
        self.process.stdout.close()


def smtp_settings(settings, port):
    """Django's SMTP backend, to ``port`` on this machine, plain SMTP."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = port
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_TIMEOUT = 5


@pytest.fixture
def document():
    return DocumentFactory(
        number=219,
        title="PyTorch Distributed",
        authors="Li et al.",
        year=2020,
        author_list=[{"family": "Li", "given": "Shen"}],
        published=True,
    )


@pytest.fixture
def coauthor(document):
    return actions.corrections.propose(
        target=document,
        changes={"author_list": [*document.author_list, GUESTRIN]},
        reason="The paper's first page lists him.",
        email="reader@example.org",
    )


def page_of(correction):
    return reverse("admin:catalogue_correction_change", args=[correction.pk])


def follow_url(correction):
    token = correction.token()
    return f"http://testserver{reverse('corrections:follow', args=[token])}"


def test_accepting_then_publishing_mails_the_reader_with_the_follow_link(
    client, publisher, committed, mail_server, document, coauthor
):
    client.force_login(publisher)
    with committed():
        client.post(page_of(coauthor), {"_accept": "Accept as proposed"})
    assert mail_server.envelopes == []  # Accepted is not yet published.

    review = reverse("admin:catalogue_document_review", args=[document.pk])
    with committed():
        client.post(review, {"_publish": "Publish"})

    [envelope] = mail_server.envelopes
    assert envelope.rcpt_tos == ["reader@example.org"]
    [message] = mail_server.messages()
    assert message["Subject"] == "Your correction of LIT-219 is published"
    assert message.get_content_type() == "text/plain"
    body = message.get_content()
    assert "was accepted and is published" in body
    assert follow_url(coauthor) in body
    assert "http://testserver/LIT-219/" in body


def test_declining_mails_the_public_reason_and_never_the_private_one(
    client, publisher, committed, mail_server, coauthor
):
    client.force_login(publisher)
    with committed():
        client.post(
            page_of(coauthor),
            {
                "_decline": "Decline",
                "public_reason": "He is thanked, not listed, in v1 <b>and</b> v2.",
                "private_reason": "The reader asked twice already.",
            },
        )

    [envelope] = mail_server.envelopes
    assert envelope.rcpt_tos == ["reader@example.org"]
    [message] = mail_server.messages()
    assert message["Subject"] == "Your correction of LIT-219 was declined"
    # Plain text: what the publisher wrote reaches the reader as written.
    assert not message.is_multipart()
    body = message.get_content()
    assert "Their reason: He is thanked, not listed, in v1 <b>and</b> v2." in body
    assert follow_url(coauthor) in body
    assert b"asked twice" not in envelope.content


def test_declining_several_mails_each_reader_who_gave_an_address(
    client, publisher, committed, mail_server, document, coauthor
):
    silent = actions.corrections.propose(target=document, changes={"year": 2019})
    client.force_login(publisher)
    with committed():
        client.post(
            reverse("admin:catalogue_correction_changelist"),
            {
                "action": "decline_selected",
                "_selected_action": [coauthor.pk, silent.pk],
                "post": "yes",
                "public_reason": "As printed.",
            },
        )

    assert [envelope.rcpt_tos for envelope in mail_server.envelopes] == [
        ["reader@example.org"]
    ]
    assert set(Correction.objects.values_list("status", flat=True)) == {
        Correction.Status.DECLINED
    }


def test_a_mail_server_that_is_down_leaves_the_decision_and_is_logged(
    client, publisher, committed, settings, caplog, coauthor
):
    smtp_settings(settings, free_port())  # Nothing listens there.
    client.force_login(publisher)

    with caplog.at_level(logging.ERROR, logger="actions.mail"), committed():
        response = client.post(
            page_of(coauthor),
            {"_decline": "Decline", "public_reason": "As printed."},
        )

    assert response.status_code == 302
    coauthor.refresh_from_db()
    assert coauthor.status == Correction.Status.DECLINED
    assert coauthor.public_reason == "As printed."
    [record] = caplog.records
    assert record.getMessage() == f"could not mail about correction {coauthor.pk}"
    assert isinstance(record.exc_info[1], ConnectionRefusedError)


def settings_from(environment):
    """The mail settings the site loads with ``environment`` (over this
    process's, with no mail variable of its own), read in a process of their
    own: ``{name: value}``."""
    code = (
        "import django, json; django.setup(); from django.conf import settings; "
        f"print(json.dumps({{n: getattr(settings, n) for n in {MAIL_SETTINGS!r}}}))"
    )
    inherited = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("EMAIL_")
        and name not in {"DEBUG", "PYTEST_XDIST_WORKER"}
    }
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={
            **inherited,
            "DJANGO_SETTINGS_MODULE": "anthology.settings",
            **environment,
        },
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def decline_through_the_desk(client, publisher, committed, correction):
    client.force_login(publisher)
    with committed():
        client.post(
            page_of(correction), {"_decline": "Decline", "public_reason": "As printed."}
        )


@pytest.mark.parametrize(
    "environment",
    [
        pytest.param({"EMAIL_URL": "smtp://127.0.0.1:{port}"}, id="EMAIL_URL"),
        pytest.param(
            {"EMAIL_HOST": "127.0.0.1", "EMAIL_PORT": "{port}", "EMAIL_TIMEOUT": "7"},
            id="EMAIL_HOST",
        ),
    ],
)
def test_the_mail_settings_from_the_environment_reach_the_smtp_server(
    client, publisher, committed, settings, tmp_path, coauthor, environment
):
    server = MailServer(tmp_path / "mail")
    try:
        read = settings_from(
            {
                name: value.format(port=server.port)
                for name, value in environment.items()
            }
        )
        assert read["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
        assert (read["EMAIL_HOST"], read["EMAIL_PORT"]) == ("127.0.0.1", server.port)
        for name, value in read.items():
            setattr(settings, name, value)

        decline_through_the_desk(client, publisher, committed, coauthor)

        [message] = server.messages()
    finally:
        server.close()
    assert message["To"] == "reader@example.org"
    assert message["Subject"] == "Your correction of LIT-219 was declined"


def test_the_mail_settings_name_each_of_the_usual_variables():
    read = settings_from(
        {
            "EMAIL_HOST": "mail.example.org",
            "EMAIL_PORT": "587",
            "EMAIL_HOST_USER": "anthology",
            "EMAIL_HOST_PASSWORD": "s3cret",
            "EMAIL_USE_TLS": "on",
            "EMAIL_TIMEOUT": "20",
        }
    )

    assert read == {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": "mail.example.org",
        "EMAIL_PORT": 587,
        "EMAIL_HOST_USER": "anthology",
        "EMAIL_HOST_PASSWORD": "s3cret",
        "EMAIL_USE_TLS": True,
        "EMAIL_USE_SSL": False,
        "EMAIL_TIMEOUT": 20,
    }


def test_both_tls_and_ssl_is_refused_naming_them():
    code = "import django; django.setup()"
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "anthology.settings",
            "EMAIL_USE_TLS": "1",
            "EMAIL_USE_SSL": "1",
        },
        capture_output=True,
        text=True,
        check=False,
    )

    assert result.returncode != 0
    assert "EMAIL_USE_TLS and EMAIL_USE_SSL" in result.stderr


def test_make_runs_debug_mails_to_the_console_unless_a_server_is_named():
    # make run sets DEBUG=1 and no mail server.
    read = settings_from({"DEBUG": "1"})
    assert read["EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"

    # A server named wins, even under DEBUG.
    named = settings_from({"DEBUG": "1", "EMAIL_HOST": "127.0.0.1"})
    assert named["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    # And without DEBUG nor a server, Django's own SMTP on localhost:25.
    plain = settings_from({"DEBUG": "0"})
    assert (plain["EMAIL_BACKEND"], plain["EMAIL_HOST"], plain["EMAIL_PORT"]) == (
        "django.core.mail.backends.smtp.EmailBackend",
        "localhost",
        25,
    )

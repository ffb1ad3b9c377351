"""The reader hears back, by mail, through a real SMTP server the test
starts (aiosmtpd): a published correction says so with the private link, a
declined one carries the public reason and never the private one, and a
mail server that cannot be reached leaves the decision as it was taken."""

import base64
import email
import json
import logging
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
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db

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

    with caplog.at_level(logging.ERROR, logger="actions.errata"), committed():
        response = client.post(
            page_of(coauthor),
            {"_decline": "Decline", "public_reason": "As printed."},
        )

    assert response.status_code == 302
    coauthor.refresh_from_db()
    assert coauthor.status == Correction.Status.DECLINED
    assert coauthor.public_reason == "As printed."
    [record] = caplog.records
    assert record.getMessage() == f"could not mail correction {coauthor.pk}"
    assert isinstance(record.exc_info[1], ConnectionRefusedError)

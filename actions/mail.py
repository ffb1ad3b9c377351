"""Mail an action sends about a change: sent once the change commits, so a
change rolled back mails nobody, and a mail server out of reach undoes
nothing (the change stands and its page shows it; the failure is logged for
the operator)."""

import logging

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction

logger = logging.getLogger(__name__)


def mail_on_commit(subject, body, recipients, *, about):
    """Send ``body`` to each of ``recipients`` on its own, under ``subject``
    folded onto one line, once the current transaction commits; ``about``
    names the change in the log when a mail cannot be sent."""
    subject = " ".join(subject.split())

    def send():
        for recipient in recipients:
            try:
                send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [recipient])
            except OSError:
                logger.exception("could not mail about %s", about)

    transaction.on_commit(send)

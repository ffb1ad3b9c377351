"""Personal API tokens: a staff member's scripts act as that member, and
nothing more.

A token's secret is shown once, when it is made; only its SHA-256 digest is
kept. A token is a long random string, so a fast digest is enough: there is
no password to guess.
"""

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

# What every secret starts with, so that a leaked one is recognised (secret
# scanners, logs) and told apart from a password.
SECRET_PREFIX = "anth_"
# How many characters of the secret are kept in clear, to tell tokens apart.
SHOWN_CHARACTERS = len(SECRET_PREFIX) + 6


def digest(secret):
    """The SHA-256 digest a secret is kept and looked up by."""
    return hashlib.sha256(secret.encode()).hexdigest()


def default_expiry():
    days = min(settings.API_TOKEN_DAYS, settings.API_TOKEN_MAX_DAYS)
    return timezone.now() + timedelta(days=days)


class ApiTokenQuerySet(models.QuerySet):
    def usable(self, *, now=None):
        """Tokens that still authenticate: not revoked, not expired, of an
        active user."""
        now = now or timezone.now()
        return self.filter(
            revoked_at__isnull=True, expires_at__gt=now, user__is_active=True
        )


class ApiToken(models.Model):
    """A staff member's personal token for scripts: ``Authorization: Bearer``."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="api_tokens",
        editable=False,
    )
    name = models.CharField(
        max_length=100,
        help_text=_("What the token is for: ‘nightly export’, ‘my laptop’."),
    )
    key_digest = models.CharField(max_length=64, unique=True, editable=False)
    key_start = models.CharField(
        max_length=SHOWN_CHARACTERS,
        editable=False,
        help_text=_("The secret's first characters, to recognise it."),
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(
        default=default_expiry,
        help_text=_("After this the token is refused."),
    )
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "API token"

    def __str__(self):
        return f"{self.name} ({self.key_start}…)"

    def clean(self):
        """A new token expires within ``API_TOKEN_MAX_DAYS``, and its user
        holds fewer than ``API_TOKEN_MAX_PER_USER`` usable tokens."""
        if not self._state.adding:
            return
        now = timezone.now()
        longest = settings.API_TOKEN_MAX_DAYS
        if self.expires_at and self.expires_at > now + timedelta(days=longest):
            raise ValidationError(
                {
                    "expires_at": ValidationError(
                        f"A token lasts {longest} days at most: choose an expiry "
                        f"on or before {now + timedelta(days=longest):%Y-%m-%d}.",
                        code="expiry_too_far",
                    )
                }
            )
        if self.expires_at and self.expires_at <= now:
            raise ValidationError(
                {
                    "expires_at": ValidationError(
                        "The expiry has passed: choose one in the future.",
                        code="expiry_passed",
                    )
                }
            )
        most = settings.API_TOKEN_MAX_PER_USER
        if (
            self.user_id
            and ApiToken.objects.usable().filter(user=self.user_id).count() >= most
        ):
            raise ValidationError(
                f"You hold {most} usable API tokens, the most one person may: "
                "revoke one you no longer use before making another.",
                code="too_many_tokens",
            )

    def issue_secret(self):
        """Make this token's secret, keep its digest, and return it: the only
        time the secret is known."""
        secret = SECRET_PREFIX + secrets.token_urlsafe(32)
        self.key_digest = digest(secret)
        self.key_start = secret[:SHOWN_CHARACTERS]
        return secret

    @property
    def is_usable(self):
        return (
            self.revoked_at is None
            and self.expires_at > timezone.now()
            and self.user.is_active
        )

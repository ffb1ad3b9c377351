from django.db import models
from django.utils import timezone


class PendingExpiryQuerySet(models.QuerySet):
    def unwritten(self):
        """Expiries whose new generations the shared cache may not hold yet."""
        return self.filter(written_at__isnull=True)

    def due(self, now=None):
        """Expiries a drain may take now: the process that made one tries it
        first, until its ``retry_at``."""
        return self.filter(retry_at__lte=now or timezone.now())


class PendingExpiry(models.Model):
    """A change's expiry of cached pages, in the outbox.

    Written in the change's own transaction (rolled back with it), so a
    change that committed always has its expiry kept. It leaves the outbox
    once both its stages have landed: its scopes' new generations written to
    the shared cache, then the shared caches in front purged of its scopes.
    """

    scopes = models.JSONField(help_text="The scopes whose pages the change made stale.")
    created_at = models.DateTimeField(default=timezone.now)
    written_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When its new generations were written to the shared cache; "
        "the purge of the shared caches in front waits for it.",
    )
    retry_at = models.DateTimeField(
        help_text="When a drain may try it next; until then the process that "
        "made it, or the drain that tried it last, is at it."
    )
    attempts = models.PositiveIntegerField(
        default=0, help_text="How many times a drain took it."
    )
    last_error = models.TextField(blank=True, help_text="Why its last attempt failed.")

    objects = PendingExpiryQuerySet.as_manager()

    class Meta:
        verbose_name = "pending expiry"
        verbose_name_plural = "pending expiries"
        indexes = [models.Index(fields=["retry_at"], name="pending_expiry_retry_at")]

    def __str__(self):
        return " ".join(sorted(self.scopes))

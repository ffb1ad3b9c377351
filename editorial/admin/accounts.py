"""The sign-in records django-axes keeps, with its clean-up action asking for
the right to delete them, as every bulk deletion does."""

from axes.admin import AccessAttemptAdmin as AxesAccessAttemptAdmin
from axes.models import AccessAttempt
from django.contrib import admin

admin.site.unregister(AccessAttempt)


@admin.register(AccessAttempt)
class AccessAttemptAdmin(AxesAccessAttemptAdmin):
    def get_actions(self, request):
        actions = super().get_actions(request)
        if not self.has_delete_permission(request):
            actions.pop("cleanup_expired_attempts", None)
        return actions

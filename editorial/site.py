"""The admin site, as editors meet it: branded, the record's models first, a
desk of queues for a front page, the desk's statistics, and backups for
superusers."""

from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError

from editorial import desk
from editorial.backups import BackupsAdminMixin
from editorial.review_mail import ReviewMailAdminMixin
from editorial.roles import is_editorial
from editorial.statistics import StatisticsAdminMixin


class EditorialLoginForm(AdminAuthenticationForm):
    """Lets in staff and the members of the editorial groups."""

    def confirm_login_allowed(self, user):
        AuthenticationForm.confirm_login_allowed(self, user)
        if not is_editorial(user):
            raise ValidationError(
                self.error_messages["invalid_login"],
                code="invalid_login",
                params={"username": self.username_field.verbose_name},
            )


class AnthologyAdminSite(
    ReviewMailAdminMixin, StatisticsAdminMixin, BackupsAdminMixin, admin.AdminSite
):
    site_header = "Anthology"
    site_title = "Anthology"
    index_title = "Editors' desk"
    index_template = "admin/desk.html"
    login_form = EditorialLoginForm

    def has_permission(self, request):
        return is_editorial(request.user)

    def get_app_list(self, request, app_label=None):
        apps = super().get_app_list(request, app_label)
        # The record's models first; accounts and the audit trail after.
        return sorted(apps, key=lambda app: app["app_label"] != "catalogue")

    def index(self, request, extra_context=None):
        mine = request.GET.get("review") == "mine"
        context = {
            "desk": desk.queues(request.user, mine=mine),
            **(extra_context or {}),
        }
        return super().index(request, context)

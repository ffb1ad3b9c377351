from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class EditorialConfig(AppConfig):
    """The editorial workflow and the editors' admin: who may do what."""

    default = True
    name = "editorial"
    verbose_name = "Editorial"


class AnthologyAdminConfig(admin_apps.AdminConfig):
    """Django's admin, with the editors' site (editorial.site)."""

    default = False
    default_site = "editorial.site.AnthologyAdminSite"

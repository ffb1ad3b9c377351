"""Staff's personal API tokens in the admin: made (the secret shown once),
listed, revoked. Each member sees and revokes their own; a superuser every
member's. A token is never edited nor deleted: revoking it keeps the record
of what it was."""

from django.contrib import admin, messages
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import add_never_cache_headers

from api.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "key_start",
        "user",
        "created_at",
        "expires_at",
        "last_used_at",
        "state",
    ]
    list_filter = ["revoked_at"]
    fields = ["name", "expires_at"]
    readonly_fields = ["key_start", "user", "created_at", "last_used_at", "revoked_at"]
    actions = ["revoke_action"]

    def get_queryset(self, request):
        tokens = super().get_queryset(request).select_related("user")
        if request.user.is_superuser:
            return tokens
        return tokens.filter(user=request.user)

    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        if obj is not None:
            return form

        class OwnTokenForm(form):
            # The token is the signed-in member's: its limits are counted
            # against them before it is made.
            def _post_clean(self):
                self.instance.user = request.user
                super()._post_clean()

        return OwnTokenForm

    def get_fields(self, request, obj=None):
        return self.fields if obj is None else [*self.fields, *self.readonly_fields]

    def get_readonly_fields(self, request, obj=None):
        return [] if obj is None else [*self.fields, *self.readonly_fields]

    # Everyone who may sign in to the admin makes and revokes their own
    # tokens; a token has its user's permissions, so it grants nothing more.
    def has_module_permission(self, request):
        return self.admin_site.has_permission(request)

    def has_view_permission(self, request, obj=None):
        return self.admin_site.has_permission(request)

    def has_add_permission(self, request):
        return self.admin_site.has_permission(request)

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="State")
    def state(self, token):
        if token.revoked_at is not None:
            return "Revoked"
        if token.expires_at <= timezone.now():
            return "Expired"
        return "Usable"

    def save_model(self, request, obj, form, change):
        obj.user = request.user
        request.api_token_secret = obj.issue_secret()
        super().save_model(request, obj, form, change)

    def response_add(self, request, obj, post_url_continue=None):
        """The secret, shown this once: only its digest is kept."""
        response = TemplateResponse(
            request,
            "admin/api/apitoken/created.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "title": "Your new API token",
                "token": obj,
                "secret": request.api_token_secret,
                "example_url": request.build_absolute_uri(reverse("api:document-list")),
                "list_url": reverse("admin:api_apitoken_changelist"),
            },
        )
        add_never_cache_headers(response)
        return response

    @admin.action(description="Revoke the selected API tokens")
    def revoke_action(self, request, queryset):
        revoked = queryset.filter(revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
        self.message_user(
            request,
            f"Revoked {revoked} API token{'s' if revoked != 1 else ''}: "
            "they are refused from now on.",
            messages.SUCCESS,
        )

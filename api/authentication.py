"""Who an API request comes from, as DRF asks: the token the edge found
(``api.middleware``), else the editor's session."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication


class BearerTokenAuthentication(BaseAuthentication):
    """``Authorization: Bearer <secret>``: the token's user, and the token.

    The secret was checked by ``TokenMiddleware`` before the page cache
    looked at the request; a refused one never reaches a view."""

    def authenticate(self, request):
        token = getattr(request._request, "api_token", None)
        return None if token is None else (token.user, token)

    def authenticate_header(self, request):
        return 'Bearer realm="api"'


class BearerTokenScheme(OpenApiAuthenticationExtension):
    """How the OpenAPI description names the token: HTTP bearer."""

    target_class = BearerTokenAuthentication
    name = "apiToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A personal API token, made in the admin.",
        }

from django.contrib import admin
from django.urls import include, path

from anthology import health

urlpatterns = [
    path("admin/", admin.site.urls),
    path("health/", health.health, name="health"),
    path("health/ready/", health.readiness, name="readiness"),
    path("api/", include("api.urls")),
    path("data/", include("dumps.urls")),
    path("", include("oai.urls")),
    path("", include("corrections.urls")),
    path("", include("public.urls")),
]

# The error pages: 400 a problem under /api/ and the reading room's page
# elsewhere; 404 is Django's view with the site's 404.html; 500 is Django's
# with 500.html (a page without queries: it renders with the database down),
# or 503 when the database cannot be reached.
handler400 = "api.problems.bad_request"
handler500 = "anthology.errors.server_error"

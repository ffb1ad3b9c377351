from django.contrib import admin
from django.urls import include, path

from anthology import health

urlpatterns = [
    path("admin/", admin.site.urls),
    path("health/", health.health, name="health"),
    path("health/ready/", health.readiness, name="readiness"),
    path("api/", include("api.urls")),
    path("", include("oai.urls")),
    path("", include("corrections.urls")),
    path("", include("public.urls")),
]

# The error pages: 400 a problem under /api/ and the reading room's page
# elsewhere; 404 and 500 are Django's views with the
# site's 404.html and 500.html (a page without queries: it renders with the
# database down).
handler400 = "api.problems.bad_request"

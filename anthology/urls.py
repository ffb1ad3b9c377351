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

# The reading room's error pages; 404 and 500 are Django's views with the
# site's 404.html and 500.html (a page without queries: it renders with the
# database down).
handler400 = "public.views.bad_request"

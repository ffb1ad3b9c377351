from django.urls import path

from jobs import health

app_name = "jobs"

urlpatterns = [
    path("health/", health.health, name="health"),
]

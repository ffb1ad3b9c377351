from django.urls import path

from oai import views

app_name = "oai"

urlpatterns = [
    path("oai/", views.endpoint, name="endpoint"),
]

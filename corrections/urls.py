from django.urls import path

from corrections import views

app_name = "corrections"

urlpatterns = [
    path(
        "<identifier:identifier>/correct/",
        views.propose_document,
        name="document",
    ),
    path(
        "decisions/<identifier:identifier>/correct/",
        views.propose_decision,
        name="decision",
    ),
    path(
        "decisions/<slug:log>/<identifier:identifier>/correct/",
        views.propose_decision,
        name="log-decision",
    ),
    path("corrections/<str:token>/", views.follow, name="follow"),
]

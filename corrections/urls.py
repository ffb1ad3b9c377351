from django.urls import path

from corrections import views

app_name = "corrections"

# A decision record's form, in the record's own log or a team's; a second
# file of one number at .../ADR-064/2/correct/.
decisions = [
    path(
        f"decisions/{log}<identifier:identifier>/{twin}correct/",
        name=name,
        view=views.propose_decision,
    )
    for log, name in [("", "decision"), ("<slug:log>/", "log-decision")]
    for twin in ["", "<int:twin>/"]
]

urlpatterns = [
    path(
        "<identifier:identifier>/correct/",
        views.propose_document,
        name="document",
    ),
    *decisions,
    path("corrections/<str:token>/", views.follow, name="follow"),
]

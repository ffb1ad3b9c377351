from django.urls import include, path, register_converter

from catalogue import views
from catalogue.converters import IdentifierConverter

register_converter(IdentifierConverter, "identifier")

app_name = "catalogue"

urlpatterns = [
    path("", include("catalogue.export_urls")),
    path("", views.IndexView.as_view(), name="index"),
    path("topics/<slug:slug>/", views.TopicDetailView.as_view(), name="topic-detail"),
    path("unfiled/", views.UnfiledListView.as_view(), name="unfiled"),
    path(
        "<identifier:identifier>/",
        views.DocumentDetailView.as_view(),
        name="document-detail",
    ),
]

"""Staff CSV exports and readers' citation downloads, included by
``public.urls`` in the ``catalogue`` namespace."""

from django.urls import path

from exchange import views

urlpatterns = [
    path("export/documents.csv", views.document_csv, name="export-documents"),
    path("export/topics.csv", views.topic_csv, name="export-topics"),
    path(
        "export/decision-records.csv",
        views.decision_record_csv,
        name="export-decision-records",
    ),
    path(
        "<identifier:identifier>/cite.<citation_format:fmt>",
        views.document_citation,
        name="document-citation",
    ),
    path(
        "topics/<slug:slug>/cite.<citation_format:fmt>",
        views.topic_citation,
        name="topic-citation",
    ),
]

"""Export and citation URLs, included from ``catalogue/urls.py`` (issue 5)."""

from django.urls import path, register_converter

from catalogue import export_views, views


class CitationFormatConverter:
    regex = "bib|ris|json"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value


register_converter(CitationFormatConverter, "citation_format")

urlpatterns = [
    path("export/documents.csv", export_views.document_csv, name="export-documents"),
    path("export/topics.csv", export_views.topic_csv, name="export-topics"),
    path(
        "export/decision-records.csv",
        export_views.decision_record_csv,
        name="export-decision-records",
    ),
    path(
        "<identifier:identifier>/cite.<citation_format:fmt>",
        export_views.document_citation,
        name="document-citation",
    ),
    path(
        "search/cite.<citation_format:fmt>",
        views.search_citation,
        name="search-citation",
    ),
    path(
        "topics/<slug:slug>/cite.<citation_format:fmt>",
        export_views.topic_citation,
        name="topic-citation",
    ),
]

"""Admin actions that export: CSV and citations of the selected rows.

With "Select all N" the admin hands an action every row matching the current
filters and search, so the same actions serve both.
"""

from django.contrib import admin

from formats import exports
from formats.citations import citation_response


@admin.action(description="Export as CSV", permissions=["view"])
def export_documents_csv(modeladmin, request, queryset):
    return exports.documents_response(queryset, base_url=exports.site_root(request))


@admin.action(
    description="Export as CSV with a byte-order mark (Excel)", permissions=["view"]
)
def export_documents_csv_bom(modeladmin, request, queryset):
    return exports.documents_response(
        queryset, base_url=exports.site_root(request), bom=True
    )


@admin.action(description="Export citations as BibTeX", permissions=["view"])
def export_bibtex(modeladmin, request, queryset):
    return citation_response(queryset, "bib", "documents")


@admin.action(description="Export citations as RIS", permissions=["view"])
def export_ris(modeladmin, request, queryset):
    return citation_response(queryset, "ris", "documents")


@admin.action(description="Export citations as CSL-JSON", permissions=["view"])
def export_csl_json(modeladmin, request, queryset):
    return citation_response(queryset, "json", "documents")


@admin.action(description="Export as CSV", permissions=["view"])
def export_topics_csv(modeladmin, request, queryset):
    return exports.csv_response(exports.topic_chunks(queryset), filename="topics.csv")


@admin.action(description="Export as CSV", permissions=["view"])
def export_decision_records_csv(modeladmin, request, queryset):
    return exports.csv_response(
        exports.decision_record_chunks(queryset), filename="decision-records.csv"
    )


DOCUMENT_ACTIONS = [
    export_documents_csv,
    export_documents_csv_bom,
    export_bibtex,
    export_ris,
    export_csl_json,
]
TOPIC_ACTIONS = [export_topics_csv]
DECISION_RECORD_ACTIONS = [export_decision_records_csv]

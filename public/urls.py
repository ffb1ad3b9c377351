from django.contrib.sitemaps.views import sitemap
from django.urls import path

from public import downloads, feeds, previews, signposting, sitemaps, views

# The public URL namespace keeps the record's name: {% url "catalogue:index" %}.
app_name = "catalogue"

# The full index, search, the site's feed and its sitemap.
site = [
    path("", views.IndexView.as_view(), name="index"),
    path("search/", views.search_view, name="search"),
    path("search/feed/", feeds.SearchFeed(), name="search-feed"),
    path("statistics/", views.StatisticsView.as_view(), name="statistics"),
    path(
        "search/cite.<citation_format:fmt>",
        views.search_citation,
        name="search-citation",
    ),
    path("feed/", feeds.DocumentVersionFeed(), name="feed"),
    path("robots.txt", views.robots_txt, name="robots"),
    # A preview link's page: unpublished text, for whoever holds the link.
    path("preview/<str:token>/", previews.preview, name="preview"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("sitemap.xml", sitemaps.index, name="sitemap"),
    path(
        "sitemap-<section>.xml",
        sitemap,
        {"sitemaps": sitemaps.SITEMAPS},
        name="sitemap-section",
    ),
]

# Lists of documents: by topic, unfiled, by registry, by tag.
lists = [
    path("topics/<slug:slug>/", views.TopicDetailView.as_view(), name="topic-detail"),
    path("topics/<slug:slug>/feed/", feeds.TopicFeed(), name="topic-feed"),
    path("unfiled/", views.UnfiledListView.as_view(), name="unfiled"),
    path("unfiled/feed/", feeds.UnfiledFeed(), name="unfiled-feed"),
    path("registries/", views.RegistryListView.as_view(), name="registry-list"),
    path(
        "registries/<str:prefix>/",
        views.RegistryDetailView.as_view(),
        name="registry-detail",
    ),
    path("registries/<str:prefix>/feed/", feeds.RegistryFeed(), name="registry-feed"),
    path("tags/", views.TagListView.as_view(), name="tag-list"),
    path("tags/<slug:slug>/", views.TagDetailView.as_view(), name="tag-detail"),
    path("tags/<slug:slug>/feed/", feeds.TagFeed(), name="tag-feed"),
]

# The people the record names and the venues it knows, each with their
# public documents.
people = [
    path("people/", views.PersonListView.as_view(), name="people"),
    path(
        "people/<slug:slug>/",
        views.PersonDetailView.as_view(),
        name="person-detail",
    ),
    path("people/<slug:slug>/feed/", feeds.PersonFeed(), name="person-feed"),
    path("venues/", views.VenueListView.as_view(), name="venue-list"),
    path("venues/<slug:slug>/", views.VenueDetailView.as_view(), name="venue-detail"),
    path("venues/<slug:slug>/feed/", feeds.VenueFeed(), name="venue-feed"),
]

# A decision log's pages: the record's own at /decisions/, a team's at
# /decisions/<log>/; a second file of one number at .../ADR-064/2/.
decision_pages = [
    ("", views.DecisionRecordListView.as_view(), "decision-list"),
    ("feed/", feeds.DecisionLogFeed(), "decision-feed"),
    (
        "<identifier:identifier>/",
        views.DecisionRecordDetailView.as_view(),
        "decision-detail",
    ),
    (
        "<identifier:identifier>/<int:twin>/",
        views.DecisionRecordDetailView.as_view(),
        "decision-detail",
    ),
    (
        "<identifier:identifier>/images/<path:name>",
        views.decision_image,
        "decision-image",
    ),
    (
        "<identifier:identifier>/<int:twin>/images/<path:name>",
        views.decision_image,
        "decision-image",
    ),
]
decisions = [
    *(
        path(f"decisions/{route}", view, name=name)
        for route, view, name in decision_pages
    ),
    *(
        path(f"decisions/<slug:log>/{route}", view, name=f"log-{name}")
        for route, view, name in decision_pages
    ),
]

# A document's own pages, at its permanent identifier (LIT-004/, LIT-004/v2/).
documents = [
    path(
        "<identifier:identifier>/",
        views.DocumentDetailView.as_view(),
        name="document-detail",
    ),
    path(
        "<identifier:identifier>/v<int:number>/",
        views.DocumentVersionView.as_view(),
        name="document-version",
    ),
    path("<identifier:identifier>/feed/", feeds.DocumentFeed(), name="document-feed"),
    # Its page's metadata for machines: FAIR Signposting's link sets and the
    # JSON-LD.
    path(
        "<identifier:identifier>/linkset",
        signposting.linkset,
        name="document-linkset",
    ),
    path(
        "<identifier:identifier>/linkset.json",
        signposting.linkset_json,
        name="document-linkset-json",
    ),
    path(
        "<identifier:identifier>/metadata.jsonld",
        signposting.json_ld,
        name="document-json-ld",
    ),
]

# Staff CSV exports and readers' citation downloads.
exports = [
    path("export/documents.csv", downloads.document_csv, name="export-documents"),
    path("export/topics.csv", downloads.topic_csv, name="export-topics"),
    path(
        "export/decision-records.csv",
        downloads.decision_record_csv,
        name="export-decision-records",
    ),
    path(
        "<identifier:identifier>/cite.<citation_format:fmt>",
        downloads.document_citation,
        name="document-citation",
    ),
    path(
        "topics/<slug:slug>/cite.<citation_format:fmt>",
        downloads.topic_citation,
        name="topic-citation",
    ),
]

urlpatterns = [
    *exports,
    *site,
    *lists,
    *people,
    *decisions,
    *documents,
]

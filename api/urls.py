from django.urls import path, re_path

from api import views

app_name = "api"

urlpatterns = [
    path("", views.api_root, name="root"),
    path("schema/", views.SchemaView.as_view(), name="schema"),
    path("docs/", views.docs, name="docs"),
    path("documents/", views.DocumentList.as_view(), name="document-list"),
    path(
        "documents/<identifier:identifier>/",
        views.DocumentDetail.as_view(),
        name="document-detail",
    ),
    path("topics/", views.TopicList.as_view(), name="topic-list"),
    path("topics/<slug:slug>/", views.TopicDetail.as_view(), name="topic-detail"),
    path("registries/", views.RegistryList.as_view(), name="registry-list"),
    path(
        "registries/<str:prefix>/",
        views.RegistryDetail.as_view(),
        name="registry-detail",
    ),
    path("tags/", views.TagList.as_view(), name="tag-list"),
    path("tags/<slug:slug>/", views.TagDetail.as_view(), name="tag-detail"),
    path("removed/", views.RemovedList.as_view(), name="removed-list"),
    path("people/", views.PersonList.as_view(), name="person-list"),
    path("people/<slug:slug>/", views.PersonDetail.as_view(), name="person-detail"),
    path("decision-logs/", views.DecisionLogList.as_view(), name="decision-log-list"),
    path(
        "decision-logs/<slug:log>/",
        views.DecisionLogDetail.as_view(),
        name="decision-log-detail",
    ),
    path(
        "decision-logs/<slug:log>/records/",
        views.DecisionRecordList.as_view(),
        name="decision-record-list",
    ),
    path(
        "decision-logs/<slug:log>/records/<identifier:identifier>/",
        views.DecisionRecordDetail.as_view(),
        name="decision-record",
    ),
    path(
        "decision-logs/<slug:log>/records/<identifier:identifier>/<int:twin>/",
        views.DecisionRecordTwinDetail.as_view(),
        name="decision-record-twin",
    ),
    # Any other address under /api/ is answered in JSON, as the API's own are.
    path("problems/<slug:name>/", views.problem_type, name="problem-type"),
    re_path(r"", views.not_found),
]

from django.urls import path, re_path

from dumps import views

app_name = "dumps"
urlpatterns = [
    path("", views.index, name="index"),
    path("index.json", views.index_json, name="index-json"),
    re_path(r"^latest/(?P<name>[A-Za-z0-9.]+)$", views.latest, name="latest"),
    re_path(
        r"^(?P<dump>\d{4}-\d{2}-\d{2}-\d{6})/(?P<name>[A-Za-z0-9.]+)$",
        views.dump_file,
        name="file",
    ),
]

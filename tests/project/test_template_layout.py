"""Templates and static files live at the top level, in ``templates/`` and
``static/``, and the site is the same as when each app kept its own.

No app holds a ``templates/`` or ``static/`` folder. The site's pages are
compared, byte for byte, with the pages of the layout in which each file lay
in its app (``public`` the reading room's, ``editorial`` the admin's
overrides, ``api`` the token page), loaded as Django loads app folders: in
INSTALLED_APPS order, the first folder that has a name winning, and widgets
through Django's default form renderer. The files are laid back into those
folders from ``templates/`` and ``static/`` as they are when the test runs, so
an edit to a file changes both sides alike; a name that resolves differently
(an override that stops overriding, a folder no longer searched) changes one.
"""

import shutil
from pathlib import Path
from types import SimpleNamespace

import django.forms
import pytest
from django.apps import apps
from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.utils import get_files
from django.core import signing
from django.core.cache import cache
from django.core.files.storage import FileSystemStorage
from django.forms import renderers
from django.http import HttpResponse
from django.middleware import csrf
from django.template import engines
from django.template.loader import render_to_string
from django.test import Client, RequestFactory, override_settings
from django.test.signals import template_rendered
from django.urls import reverse
from django.utils.functional import cached_property
from django.views import defaults
from taggit.models import Tag

import actions.documents
import api.models
from api.models import ApiToken
from catalogue.models import DecisionRecord
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
TOP_LEVEL = {"templates": ROOT / "templates", "static": ROOT / "static"}
# Which app held a template or a static file when each app kept its own: the
# first prefix of its name that matches.
HOMES = {
    "templates": [
        ("admin/api/", "api"),
        ("admin/", "editorial"),
        ("editorial/", "editorial"),
        ("auditlog/", "editorial"),
        ("", "public"),  # catalogue/…, base.html and the error pages
    ],
    "static": [("editorial/", "editorial"), ("", "public")],
}
FORMS_TEMPLATES = Path(django.forms.__file__).parent / "templates"


def names(folder):
    """The files under ``folder``, by their names relative to it."""
    return sorted(
        path.relative_to(folder).as_posix()
        for path in folder.rglob("*")
        if path.is_file()
    )


def is_within(path, folder):
    return Path(path).resolve().is_relative_to(folder.resolve())


def in_project(path):
    """Whether ``path`` is the project's own: in the checkout, and not in a
    virtual environment kept there (``.venv``)."""
    path = Path(path).resolve()
    if not path.is_relative_to(ROOT):
        return False
    return not path.relative_to(ROOT).parts[0].startswith(".")


class AppsLayout:
    """The top-level files copied back into the apps that held them, under
    ``root``: ``root/<app>/<kind>/<name>``."""

    def __init__(self, root):
        self.root = root
        self.laid_back = {kind: {} for kind in TOP_LEVEL}
        for kind, top in TOP_LEVEL.items():
            for name in names(top):
                app = next(
                    app for prefix, app in HOMES[kind] if name.startswith(prefix)
                )
                folder = self.laid_back[kind].setdefault(app, root / app / kind)
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(top / name, folder / name)

    def folders(self, kind):
        """Each installed app's ``kind`` folder, in INSTALLED_APPS order."""
        found = []
        for config in apps.get_app_configs():
            folder = self.laid_back[kind].get(config.label, Path(config.path) / kind)
            if folder.is_dir():
                found.append(folder)
        return found

    def original(self, path):
        """The file a laid-back copy was copied from; any other file itself."""
        path = Path(path).resolve()
        if not path.is_relative_to(self.root.resolve()):
            return path
        _app, kind, *name = path.relative_to(self.root.resolve()).parts
        return TOP_LEVEL[kind].joinpath(*name).resolve()

    def template_settings(self):
        """TEMPLATES and FORM_RENDERER as they load templates from the apps'
        folders alone, by Django's own loaders (the project's context
        processors and other options kept)."""
        options = settings.TEMPLATES[0]["OPTIONS"]
        return override_settings(
            TEMPLATES=[
                {
                    **settings.TEMPLATES[0],
                    "DIRS": self.folders("templates"),
                    "APP_DIRS": False,
                    "OPTIONS": {k: v for k, v in options.items() if k != "loaders"},
                }
            ],
            FORM_RENDERER=f"{__name__}.AppFoldersFormRenderer",
        )


class AppFoldersFormRenderer(renderers.DjangoTemplates):
    """Django's default form renderer: Django's own widget templates, then the
    apps' folders in order (here those the TEMPLATES setting lists)."""

    @cached_property
    def engine(self):
        return self.backend(
            {
                "NAME": "djangoforms",
                "DIRS": [FORMS_TEMPLATES, *settings.TEMPLATES[0]["DIRS"]],
                "APP_DIRS": False,
                "OPTIONS": {},
            }
        )


@pytest.fixture
def apps_layout(tmp_path):
    return AppsLayout(tmp_path)


def test_no_app_holds_templates_or_static_files():
    project_apps = [
        Path(config.path).resolve()
        for config in apps.get_app_configs()
        if in_project(config.path)
    ]
    folders = [
        path.relative_to(ROOT).as_posix()
        for app in project_apps
        for path in app.rglob("*")
        if path.is_dir() and path.name in {"templates", "static"}
    ]

    assert {"catalogue", "public", "editorial", "api"} <= {p.name for p in project_apps}
    assert folders == []


def static_sources():
    """``{path: file}``: the file each static path is served from."""
    ignore = apps.get_app_config("staticfiles").ignore_patterns
    sources = {}
    for finder in finders.get_finders():
        for path, storage in finder.list(ignore):
            sources.setdefault(path, Path(storage.path(path)).resolve())
    return sources


def test_templates_and_static_files_of_the_project_come_from_the_top_level():
    template_folders = [
        folder for folder in engines["django"].template_dirs if in_project(folder)
    ]
    static_files = {
        path: source for path, source in static_sources().items() if in_project(source)
    }

    assert template_folders == [TOP_LEVEL["templates"]]
    assert static_files == {
        name: TOP_LEVEL["static"] / name for name in names(TOP_LEVEL["static"])
    }


def test_every_static_path_serves_the_file_it_served_from_the_apps(apps_layout):
    ignore = apps.get_app_config("staticfiles").ignore_patterns
    from_apps = {}
    for folder in apps_layout.folders("static"):
        for path in get_files(FileSystemStorage(folder), ignore):
            from_apps.setdefault(path, apps_layout.original(folder / path))

    assert static_sources() == from_apps


def every_template_name():
    folders = [*engines["django"].template_dirs, FORMS_TEMPLATES]
    return sorted({name for folder in folders for name in names(Path(folder))})


def form_template_engine():
    """The engine the form renderer in use finds widgets' templates with."""
    renderer = renderers.get_default_renderer()
    if isinstance(renderer, renderers.TemplatesSetting):
        return engines["django"].engine
    return renderer.engine.engine


def resolved(engine, original):
    """``{name: file}``: the file ``engine`` loads for each template name (the
    first its loaders find; none is compiled, as some apps' templates need
    libraries not installed here)."""
    found = {}
    for name in every_template_name():
        found[name] = next(
            (
                original(origin.name)
                for loader in engine.template_loaders
                for origin in loader.get_template_sources(name)
                if Path(origin.name).is_file()
            ),
            None,
        )
    return found


def test_every_template_name_resolves_to_the_file_it_did_from_the_apps(apps_layout):
    original = apps_layout.original
    pages = resolved(engines["django"].engine, original)
    widgets = resolved(form_template_engine(), original)
    with apps_layout.template_settings():
        pages_from_apps = resolved(engines["django"].engine, original)
        widgets_from_apps = resolved(form_template_engine(), original)

    top_level = TOP_LEVEL["templates"].resolve()
    assert pages["admin/base_site.html"] == top_level / "admin/base_site.html"
    assert widgets["editorial/widgets/tags.html"] == (
        top_level / "editorial/widgets/tags.html"
    )
    assert pages == pages_from_apps
    assert widgets == widgets_from_apps


@pytest.fixture
def site(public_record, editor, publisher, client, admin_client):
    """The public record, LIT-004 with a revision waiting for review, tags
    that overlap, a draft, and who reads it: a reader, a publisher at the
    desk, a superuser."""
    document = public_record["cited"]
    DocumentFactory(
        number=9,
        topic=public_record["topic"],
        title="Memory-efficient attention",
        tags=["memory", "memory efficiency"],
        published=True,
    )
    DocumentFactory(number=12, unfiled=True, title="Checkpointing, revisited")
    actions.documents.edit_document(
        document=document,
        user=editor,
        changes={"title": "Training Deep Nets with Sublinear Memory Cost"},
        note="The title as the paper has it.",
    )
    desk = Client()
    desk.force_login(publisher)
    return SimpleNamespace(
        reader=client,
        desk=desk,
        superuser=admin_client,
        topic=public_record["topic"],
        document=document,
        decision=DecisionRecord.objects.get(number=26),
        tags=list(Tag.objects.filter(name__startswith="memory").order_by("name")),
    )


def new_token(site):
    """The page that shows a new API token's secret, once (the token made for
    an earlier render is removed: its secret, and so its digest, is this one's)."""
    ApiToken.objects.all().delete()
    return site.desk.post(
        reverse("admin:api_apitoken_add"),
        {"name": "Harvester", "expires_at_0": "2031-01-31", "expires_at_1": "12:00"},
    )


def document_admin(page):
    return lambda site: site.desk.get(
        reverse(f"admin:catalogue_document_{page}", args=[site.document.pk])
    )


# Each page, as whoever reads it asks for it, and the status it answers.
PAGES = {
    "index": (200, lambda site: site.reader.get("/")),
    "topic": (200, lambda site: site.reader.get(site.topic.get_absolute_url())),
    "document": (200, lambda site: site.reader.get(site.document.get_absolute_url())),
    "document version": (
        200,
        lambda site: site.reader.get(
            reverse(
                "catalogue:document-version",
                kwargs={"identifier": site.document.identifier, "number": 1},
            )
        ),
    ),
    "decision records": (200, lambda site: site.reader.get("/decisions/")),
    "decision record": (
        200,
        lambda site: site.reader.get(site.decision.get_absolute_url()),
    ),
    "search": (200, lambda site: site.reader.get("/search/", {"q": "memory"})),
    "feed": (200, lambda site: site.reader.get("/feed/")),
    "tags": (200, lambda site: site.reader.get("/tags/")),
    "tag": (200, lambda site: site.reader.get("/tags/memory/")),
    "registry": (200, lambda site: site.reader.get("/registries/LIT/")),
    "statistics": (200, lambda site: site.reader.get("/statistics/")),
    "not found": (404, lambda site: site.reader.get("/topics/no-such-topic/")),
    "bad request": (400, lambda site: site.reader.get("/search/", {"q": "\x00"})),
    "server error": (
        500,
        lambda site: defaults.server_error(RequestFactory().get("/")),
    ),
    # As Varnish holds it, to answer in the site's place when it is down.
    "site down": (
        503,
        lambda site: HttpResponse(render_to_string("503.html"), status=503),
    ),
    "sign-in": (200, lambda site: site.reader.get(reverse("admin:login"))),
    "desk": (200, lambda site: site.desk.get(reverse("admin:index"))),
    "document change form": (200, document_admin("change")),
    "document review": (200, document_admin("review")),
    "document history": (200, document_admin("auditlog")),
    "documents": (
        200,
        lambda site: site.desk.get(reverse("admin:catalogue_document_changelist")),
    ),
    "document import": (
        200,
        lambda site: site.desk.get(reverse("admin:catalogue_document_import")),
    ),
    "decision change form": (
        200,
        lambda site: site.desk.get(
            reverse("admin:catalogue_decisionrecord_change", args=[site.decision.pk])
        ),
    ),
    "decision list": (
        200,
        lambda site: site.desk.get(
            reverse("admin:catalogue_decisionrecord_changelist")
        ),
    ),
    "topics": (
        200,
        lambda site: site.desk.get(reverse("admin:catalogue_topic_changelist")),
    ),
    "tag merge": (
        200,
        lambda site: site.desk.post(
            reverse("admin:taggit_tag_changelist"),
            {
                "action": "merge_tags_action",
                "_selected_action": [tag.pk for tag in site.tags],
            },
        ),
    ),
    "desk statistics": (200, lambda site: site.desk.get(reverse("admin:statistics"))),
    "API token created": (200, new_token),
    "backups": (200, lambda site: site.superuser.get(reverse("admin:backups"))),
}
# Declarative feeds write their XML without a template.
WITHOUT_TEMPLATES = {"feed"}


def forget_rendered():
    """Nothing rendered before is kept: pages are rendered again."""
    cache.clear()


def render(page, site):
    """The status and bytes of ``page``, and the template files it used."""
    used = []

    def note(sender, template, **kwargs):
        if template.origin.name != "<unknown source>":
            used.append(Path(template.origin.name))

    forget_rendered()
    template_rendered.connect(note)
    try:
        response = PAGES[page][1](site)
    finally:
        template_rendered.disconnect(note)
    return response.status_code, response.content, used


@pytest.fixture
def repeatable(monkeypatch):
    """What differs between two renders of a page by chance is fixed: the CSRF
    secret and the mask each form's token is drawn with, a new API token's
    secret, and the second a signed value is stamped with."""
    monkeypatch.setattr(
        csrf, "_get_new_csrf_string", lambda: "a" * csrf.CSRF_SECRET_LENGTH
    )
    monkeypatch.setattr(
        api.models,
        "secrets",
        SimpleNamespace(token_urlsafe=lambda nbytes: "b" * (nbytes * 4 // 3 + 1)),
    )
    stamp = signing.TimestampSigner().timestamp()
    monkeypatch.setattr(signing.TimestampSigner, "timestamp", lambda signer: stamp)


@pytest.mark.parametrize("page", PAGES)
def test_page_is_the_same_from_the_top_level_as_from_the_apps(
    page, site, apps_layout, repeatable
):
    status, content, used = render(page, site)
    with apps_layout.template_settings():
        status_from_apps, content_from_apps, used_from_apps = render(page, site)

    assert status == PAGES[page][0]
    assert bool(used) == (page not in WITHOUT_TEMPLATES)
    assert not any(is_within(path, apps_layout.root) for path in used)
    assert not any(is_within(path, TOP_LEVEL["templates"]) for path in used_from_apps)
    assert [apps_layout.original(path) for path in used_from_apps] == [
        path.resolve() for path in used
    ]
    assert (status_from_apps, content_from_apps) == (status, content)

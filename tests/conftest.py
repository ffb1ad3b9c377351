import io
import itertools
import os
from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import transaction
from django.test import override_settings
from hypothesis import settings as hypothesis_settings
from playwright.sync_api import sync_playwright

import actions.documents
from jobs import queue, runner
from pagecache import generations
from tests.boundary import (  # noqa: F401  (the write boundary, watched in every test)
    _watching_the_write_boundary,
    only_actions_write_the_record,
)
from tests.editorial.test_correction_mail import MailServer, smtp_settings
from tests.factories import (
    DecisionRecordFactory,
    DocumentFactory,
    TopicFactory,
    UserFactory,
    editorial_group,
    make_known_venues,
)
from tests.sources.fake_sources import FakeSources
from tests.tools import CHROMIUM, REQUIREMENTS, RUN_PREFIX, TEST_REDIS_URL, require_tool

# Which database a test runs on, and each worker's database cloned from one
# migrated once per run (tests/databases.py).
pytest_plugins = ["tests.databases"]

BROWSER_TESTS = Path(__file__).resolve().parent / "browser"

# Every property test tries the same examples on every run (derandomised, no
# example database carried over from an earlier run), as many as the suite's
# budget, and has no deadline: a machine busy with other work does not make a
# function slow. `pytest --hypothesis-profile=explore` tries many more, new
# ones each run.
hypothesis_settings.register_profile(
    "suite", max_examples=25, derandomize=True, database=None, deadline=None
)
hypothesis_settings.register_profile("explore", max_examples=1000, deadline=None)
hypothesis_settings.load_profile("suite")

# What a test needs from outside Python follows from the fixtures it uses
# (and from living in tests/browser/); tests that reach Redis another way,
# through the jobs' queue, carry the ``redis`` marker themselves.
FIXTURE_MARKERS = {
    "browser": {"browser"},
    "page": {"browser"},
    "on_the_queue": {"redis"},
    "start_worker": {"redis", "workers"},
    "instances": {"redis", "workers"},
    "varnished": {"redis", "varnish", "workers"},
}


def pytest_collection_modifyitems(items):
    for item in items:
        names = set()
        if item.path.is_relative_to(BROWSER_TESTS):
            names.add("browser")
        for fixture in getattr(item, "fixturenames", ()):
            names |= FIXTURE_MARKERS.get(fixture, set())
        for name in sorted(names):
            item.add_marker(name)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """A test whose marker names a program or a service that is missing is
    skipped, naming what to install (failed under CI), before any fixture."""
    for name, require in REQUIREMENTS.items():
        if item.get_closest_marker(name):
            require()


SEED = Path(__file__).resolve().parent.parent / "seeds" / "000_173d26dda2e0601e.txt"


@pytest.fixture(scope="module")
def module_db(django_db_setup, django_db_blocker):
    """A transaction held open for the module that asks for it and rolled
    back after its last test; yields a context manager under which a
    module-scoped fixture writes what every test of the module starts from.
    Each test's own changes (through ``db``) roll back to it, as to an empty
    record. A module using it holds no transactional test: that test's
    flush would run inside the held transaction."""
    with django_db_blocker.unblock():
        held = transaction.atomic()
        held.__enter__()
    yield django_db_blocker.unblock
    with django_db_blocker.unblock():
        transaction.set_rollback(True)
        held.__exit__(None, None, None)


@pytest.fixture(scope="module")
def module_seed(module_db):
    """The seed imported once for the module that asks for it (``module_db``)."""
    with module_db():
        call_command("import_index", str(SEED), stdout=io.StringIO())


@pytest.fixture
def seed_path():
    return SEED


@pytest.fixture
def seed_text():
    return SEED.read_text(encoding="utf-8")


@pytest.fixture
def seed_rows(seed_text):
    """The seed's table as lists of cell texts, split by hand, not by our parser."""
    lines = seed_text.split("\n")
    return [line[2:-2].split(" | ") for line in lines[5:] if line.strip()]


@pytest.fixture
def imported_seed(db, seed_path):
    call_command("import_index", str(seed_path), stdout=io.StringIO())


# Playwright's sync API runs an event loop in the test's thread; the ORM calls
# the tests make beside it are still synchronous.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
# The workers and servers the tests start make no public dumps between jobs:
# the dumps' own tests make them where they test them.
os.environ.setdefault("DUMPS_EVERY_HOURS", "0")

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
]


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, driven by Playwright (it cannot download its own)."""
    chromium = require_tool(CHROMIUM, "apt-get install chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture(scope="session")
def related_model_dirs(tmp_path_factory):
    """A new, not yet made, directory under one of the run's at each ``next``:
    numbered by a counter, not by pytest's ``tmp_path``, which lists every
    test's directory made before to number each new one."""
    folder = tmp_path_factory.mktemp("related-models")
    return (folder / str(number) for number in itertools.count())


@pytest.fixture(autouse=True)
def related_model_dir(settings, related_model_dirs):
    """Each test keeps its related-work model in a directory of its own, never
    in the checkout's, which the tests running beside it share."""
    settings.RELATED_MODEL_DIR = next(related_model_dirs)
    return settings.RELATED_MODEL_DIR


@pytest.fixture
def known_venues(transactional_db):
    """The known venues (OSDI, IEEE TAC…) of their data migration, made
    again after a transactional test's flush; asked for before the seed is
    imported, so that its citations are read into them."""
    make_known_venues()


@pytest.fixture
def editorial_groups(transactional_db):
    """The Editor and Publisher groups, made again by their own migration's code:
    a transactional test's flush empties every table, data migrations' too."""
    editorial_group("Editor")
    editorial_group("Publisher")


# Background jobs run at once, in the test's own process and transaction, on
# a queue of this run's own in the test Redis.
TEST_QUEUE = RUN_PREFIX


def backup_storages(location):
    """STORAGES as the tests have them, backups kept under ``location``."""
    return {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {
            "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        },
        "backups": {
            "BACKEND": "imports.backups.BackupFileSystemStorage",
            "OPTIONS": {"location": location, "file_permissions_mode": 0o600},
        },
    }


@pytest.fixture(scope="session", autouse=True)
def serving_settings(tmp_path_factory):
    """Tests read static files from their sources (no collectstatic), cache in
    their own process's memory whatever REDIS_URL says (so a run never touches
    a shared Redis), cache public pages as production does, run background
    jobs at once on a queue of their own, and keep backups in a folder of
    their own. The canonical origin is the test client's own host, so the
    absolute addresses pages write are those the tests request. A change tells
    no one of the documents it changed (no related-work job after each one):
    the tests of related work turn that on where they test it. Readers' pages
    are not limited per address (a property test asks for hundreds in one
    test): the tests of the limits set them. No chore makes public dumps: the
    dumps' tests ask for them. Test users' passwords need no strength
    (PBKDF2 would cost seconds), in a test or in a module's fixture."""
    with override_settings(
        PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],
        SITE_URL="http://testserver",
        JOBS_QUEUE=TEST_QUEUE,
        JOBS_RELATED_QUEUE=f"{TEST_QUEUE}-related",
        JOBS_IN_PROCESS=False,
        PAGE_CACHE_DRAIN_IN_PROCESS=False,
        JOBS_CHORES_IN_PROCESS=False,
        RQ_QUEUES={
            name: {"URL": TEST_REDIS_URL, "ASYNC": False}
            for name in [TEST_QUEUE, f"{TEST_QUEUE}-related"]
        },
        RQ={"COMMIT_MODE": "auto"},
        STORAGES=backup_storages(tmp_path_factory.mktemp("backups")),
        CACHES={
            "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
        },
        PAGE_CACHE=True,
        RECORD_CHANGED="",
        READER_SEARCH_RATE=None,
        READER_PAGE_RATE=None,
        DUMPS_EVERY_HOURS=0,
    ):
        yield


@pytest.fixture(autouse=True)
def empty_cache(monkeypatch):
    """Every test starts with nothing cached, and with the cache trusted:
    each test's outbox starts empty (its database is), so there is nothing
    for a first read to write, and the pages it counts the queries of cost
    what they cost in a process that has been up a while (a process that
    just started reads the outbox once)."""

    cache.clear()
    monkeypatch.setattr(generations, "_suspect", False)
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def background_jobs_ended():
    """No test leaves behind a thread of coalesced jobs (JOBS_IN_PROCESS)
    writing into the next test's database."""
    yield
    runner.wait_for_background()


@pytest.fixture
def backup_dir(settings, tmp_path):
    """Where this test's backups are kept: a folder of its own, empty."""
    folder = tmp_path / "backups"
    settings.STORAGES = backup_storages(folder)
    return folder


@pytest.fixture
def editor():
    return UserFactory(editor=True)


@pytest.fixture
def publisher():
    return UserFactory(publisher=True)


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Run what the transaction deferred to its commit, as a real commit would."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


@pytest.fixture
def filed(publisher):
    """Three topics; LIT-004 filed under the first, LIT-007 under the third."""
    first = TopicFactory(name="Distributed optimization", slug="distributed")
    second = TopicFactory(name="Evaluation", slug="evaluation")
    third = TopicFactory(name="Architectures", slug="architectures")
    document = DocumentFactory(number=4, topic=first, draft=True, title="Old title")
    actions.documents.publish(document=document, user=publisher)
    other = DocumentFactory(
        number=7, topic=third, title="Unrelated work", published=True
    )
    document.refresh_from_db()
    return {
        "first": first,
        "second": second,
        "third": third,
        "document": document,
        "other": other,
    }


@pytest.fixture
def public_record():
    """A small public record, as the desk makes one: a topic, LIT-004 and
    LIT-007 (which cites it and is tagged "memory"), both published, and a
    published decision record, ADR-026."""
    return make_public_record()


@pytest.fixture(scope="module")
def module_public_record(module_db):
    """``public_record`` made once for the module that asks for it
    (``module_db``), for tests that only read it."""
    with module_db():
        return make_public_record()


def make_public_record():
    topic = TopicFactory(name="Distributed optimization", slug="distributed")
    cited = DocumentFactory(
        number=4, topic=topic, title="Sublinear memory", published=True
    )
    citing = DocumentFactory(
        number=7,
        topic=topic,
        summary="Builds on LIT-004.",
        tags=["memory"],
        published=True,
    )
    DecisionRecordFactory(number=26, title="One axis for both registries")
    return {"topic": topic, "cited": cited, "citing": citing}


@pytest.fixture(scope="session")
def fake_sources():
    """The local stand-in for arXiv and Crossref, one for the whole run."""
    with FakeSources() as sources:
        yield sources


@pytest.fixture
def metadata_sources(settings, fake_sources):
    """Metadata lookups go to the fake arXiv and Crossref, and give up after
    a second and a half, the whole lookup (the fake's slow and dripping
    answers take longer; a loaded machine still answers the others within it)."""
    settings.METADATA_ARXIV_URL = f"{fake_sources.url}/arxiv/api/query"
    settings.METADATA_CROSSREF_URL = f"{fake_sources.url}/crossref"
    settings.METADATA_MAILTO = "editors@example.org"
    settings.METADATA_TIMEOUT = 1.5
    return fake_sources


@pytest.fixture
def offline_sources(settings):
    """Metadata lookups go to a port nothing listens on: no network."""
    settings.METADATA_ARXIV_URL = "http://127.0.0.1:9/arxiv/api/query"
    settings.METADATA_CROSSREF_URL = "http://127.0.0.1:9/crossref"
    settings.METADATA_TIMEOUT = 1.5


@pytest.fixture
def on_the_queue():
    """Put a job on the test queue in RQ's ``status`` (a JobStatus), as a
    worker would have left it, without running it; removed after."""
    held = []

    def put(job, status):
        queued = queue.get_queue().create_job(print, job_id=str(job.pk))
        queued.save()
        queued.set_status(status)
        held.append(queued)
        return queued

    yield put
    for queued in held:
        queued.delete()


@pytest.fixture
def mail_server(settings, tmp_path):
    """A real SMTP server, and Django's mail sent to it."""
    server = MailServer(tmp_path / "mail")
    smtp_settings(settings, server.port)
    yield server
    server.close()

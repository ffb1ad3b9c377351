"""The test databases: which tests run on which database, and how each
pytest-xdist worker gets its own database without migrating one.

A test marked ``database("sqlite", "postgresql", reason=…)`` runs only on the
databases it names (Django's vendor names) and is left out, at collection, of
a run on any other; a browser journey runs on SQLite unless it names its own,
and so does a test that never reaches the database. A module of what the web
layer decides (``WEB_LAYER``) runs on SQLite alone; what the database decides
(queries and their counts, search, ordering, locking, input the database may
refuse) runs on both.
A run says how many tests it left to another database.

Under pytest-xdist the first worker that needs a database migrates a template
of it, once per run, under a lock; every worker clones the template (a copied
SQLite file, PostgreSQL's ``CREATE DATABASE … TEMPLATE``, as Django's own
parallel runner does); the controller drops the template when the run ends.
The template is named after the run, so no run reads what another left.
"""

import fcntl
import secrets
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection, connections
from pytest_django.fixtures import _disable_migrations, _get_databases_for_setup
from pytest_django.plugin import blocking_manager_key

# The databases a browser journey runs on when it names none: a journey tests
# what an editor or a reader does, which every database serves alike.
BROWSER_DATABASES = ("sqlite",)
VENDORS = {"sqlite", "postgresql"}

# Where the controller tells each worker the run's token and shared folder,
# and where each worker tells the controller what it left out.
RUN_KEY = "anthology_test_databases"
LEFT_OUT_KEY = "anthology_left_to_other_databases"

left_out = pytest.StashKey[int]()


# Which tests run on which database.


# What a module checking the web layer runs on: who may see and do what, the
# forms, headers, templates and rendering. Its tests reach the record only
# through the ORM's plain reads and writes, which every database serves alike;
# a test in it that counts queries names both databases itself.
WEB_LAYER = pytest.mark.database(
    "sqlite",
    reason="the web layer decides what this module checks (permissions, forms, "
    "headers, templates, rendering), through plain ORM reads and writes",
)
BOTH = pytest.mark.database(
    "sqlite", "postgresql", reason="counts the queries, which differ by database"
)


# What a test that never reaches the database runs on: pytest-django refuses
# it any query, so no database can make it pass or fail otherwise.
NO_DATABASE = ("sqlite",)
DATABASE_FIXTURES = {
    "db",
    "transactional_db",
    "django_db_reset_sequences",
    "django_db_serialized_rollback",
    "live_server",
}


def reaches_the_database(item):
    return bool(
        item.get_closest_marker("django_db")
        or DATABASE_FIXTURES & set(getattr(item, "fixturenames", ()))
    )


def databases_of(item):
    """The vendors ``item`` runs on, or None for every database."""
    marker = item.get_closest_marker("database")
    if marker is None:
        if item.get_closest_marker("browser"):
            return BROWSER_DATABASES
        return None if reaches_the_database(item) else NO_DATABASE
    if not marker.kwargs.get("reason"):
        raise pytest.UsageError(
            f"{item.nodeid}: the database marker says why (reason=…)"
        )
    unknown = set(marker.args) - VENDORS
    if not marker.args or unknown:
        raise pytest.UsageError(
            f"{item.nodeid}: the database marker names databases among "
            f"{sorted(VENDORS)}, not {sorted(unknown) or 'none'}"
        )
    return marker.args


@pytest.hookimpl(trylast=True)  # After tests/conftest.py marked the browser tests.
def pytest_collection_modifyitems(config, items):
    kept, others = [], []
    for item in items:
        vendors = databases_of(item)
        (kept if vendors is None or connection.vendor in vendors else others).append(
            item
        )
    if others:
        config.hook.pytest_deselected(items=others)
        items[:] = kept
    config.stash[left_out] = len(others)
    if hasattr(config, "workeroutput"):
        config.workeroutput[LEFT_OUT_KEY] = len(others)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """Each worker collected the whole suite: any one's count is the run's."""
    count = getattr(node, "workeroutput", {}).get(LEFT_OUT_KEY)
    if count is not None:
        node.config.stash[left_out] = count


def pytest_terminal_summary(terminalreporter, config):
    count = config.stash.get(left_out, 0)
    if count:
        terminalreporter.write_line(
            f"{count} tests left to the run on another database than "
            f"{connection.vendor} (their database marker, a browser journey's "
            f"{', '.join(BROWSER_DATABASES)}, or none reached): deselected, "
            "not skipped"
        )


# One migrated template per run, cloned by each worker.


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """Give every worker the run's token and the folder its workers share."""
    config = node.config
    if not hasattr(config, RUN_KEY):
        setattr(
            config,
            RUN_KEY,
            {
                "token": secrets.token_hex(4),
                "folder": tempfile.mkdtemp(prefix="anthology-test-databases-"),
            },
        )
    node.workerinput[RUN_KEY] = getattr(config, RUN_KEY)


def pytest_sessionfinish(session):
    """The controller drops the run's templates, once every worker is done."""
    run = getattr(session.config, RUN_KEY, None)
    if run is None:
        return
    folder = Path(run["folder"])
    with session.config.stash[blocking_manager_key].unblock():
        for claimed in sorted(folder.glob("*.name")):
            drop_database(connections[claimed.stem], claimed.read_text())
    shutil.rmtree(folder, ignore_errors=True)


def template_name(creation, *, token, worker):
    """The run's template of the test database ``creation`` makes: the test
    database's own name (without the worker's suffix) with the run's token."""
    name = creation._get_test_db_name().removesuffix(f"_{worker}")
    if creation.connection.vendor == "sqlite":
        path = Path(name)
        return str(path.with_name(f"{path.stem}-{token}{path.suffix}"))
    return f"{name}_{token}"


def drop_database(connection, name):
    if connection.vendor == "sqlite":
        for path in Path(name).parent.glob(f"{Path(name).name}*"):
            path.unlink(missing_ok=True)
        return
    connection.close()
    with connection._nodb_cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS {connection.ops.quote_name(name)}")


def is_in_memory(connection):
    """Whether the test database is SQLite's in memory: no file to copy."""
    creation = connection.creation
    return connection.vendor == "sqlite" and creation.is_in_memory_db(
        creation._get_test_db_name()
    )


@contextmanager
def locked(path):
    with path.open("a") as file:
        fcntl.flock(file, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(file, fcntl.LOCK_UN)


def clone_template(connection, *, run, worker, verbosity, serialize):
    """Point ``connection`` at a clone of the run's template, made first if no
    worker has made it yet; return the name to restore when done."""
    creation = connection.creation
    folder = Path(run["folder"])
    alias = connection.alias
    original = connection.settings_dict["NAME"]
    template = template_name(creation, token=run["token"], worker=worker)
    with locked(folder / f"{alias}.lock"):
        ready = folder / f"{alias}.ready"
        if ready.exists():
            connection.settings_dict["NAME"] = template
        else:
            # Claimed before it exists, so the controller drops even a
            # template whose migration failed halfway.
            (folder / f"{alias}.name").write_text(template)
            test_settings = connection.settings_dict["TEST"]
            worker_name, test_settings["NAME"] = test_settings["NAME"], template
            try:
                creation.create_test_db(
                    verbosity=verbosity, autoclobber=True, serialize=False
                )
            finally:
                test_settings["NAME"] = worker_name
            ready.touch()
        connection.close()
        # Cloned under the lock too: PostgreSQL copies a template no other
        # session is connected to.
        creation.clone_test_db(suffix=worker, verbosity=verbosity, autoclobber=True)
    clone = creation.get_test_db_clone_settings(worker)
    connection.settings_dict.update(clone)
    settings.DATABASES[alias]["NAME"] = clone["NAME"]
    connection.close()
    if serialize:
        connection._test_serialized_contents = creation.serialize_db_to_string()
    return original


@pytest.fixture(scope="session")
def django_db_setup(
    request,
    django_test_environment,
    django_db_blocker,
    django_db_use_migrations,
    django_db_keepdb,
    django_db_createdb,
    django_db_modify_db_settings,
):
    """pytest-django's, except that under pytest-xdist each worker clones the
    run's template instead of migrating a database of its own. A database
    kept between runs (--reuse-db), made without migrations or in memory is
    made as pytest-django makes it."""
    from django.test.utils import setup_databases, teardown_databases

    workerinput = getattr(request.config, "workerinput", {})
    run = workerinput.get(RUN_KEY)
    keepdb = django_db_keepdb and not django_db_createdb
    verbosity = request.config.option.verbose
    aliases, serialized = _get_databases_for_setup(request.session.items)
    in_memory = any(is_in_memory(connections[alias]) for alias in aliases)
    if run is None or keepdb or not django_db_use_migrations or in_memory:
        if not django_db_use_migrations:
            _disable_migrations()
        with django_db_blocker.unblock():
            made = setup_databases(
                verbosity=verbosity,
                interactive=False,
                aliases=aliases,
                serialized_aliases=serialized,
                keepdb=keepdb,
            )
        yield
        if not django_db_keepdb:
            with django_db_blocker.unblock():
                teardown_databases(made, verbosity=verbosity)
        return

    restore = []
    with django_db_blocker.unblock():
        for alias in sorted(aliases):
            database = connections[alias]
            original = clone_template(
                database,
                run=run,
                worker=workerinput["workerid"],
                verbosity=verbosity,
                serialize=alias in serialized,
            )
            restore.append((database, original))
    yield
    with django_db_blocker.unblock():
        for database, original in restore:
            database.creation.destroy_test_db(original, verbosity)

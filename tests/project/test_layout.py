"""The layout holds: data flows one way between the apps, and every import of
project code is at the top of its module.

    pagecache, jobs          generic: import no project code
    catalogue                the record's models and values
    actions    <- catalogue  the only code that changes the record (see
                             test_write_boundary.py)
    formats    <- catalogue  files read and written; no database writes
    sources    <- actions    arXiv, Crossref and the enrichment they feed
    imports    <- actions, formats
    public     <- formats    the reading room: reads only
    similarity <- actions    related work and candidate topics, computed
    oai        <- formats    OAI-PMH for harvesters: reads only
    api        <- public     the record for machines: reads only (and keeps
                             its own API tokens)
    corrections <- actions, public   readers' proposed corrections: the form
                             and the private page that follows one
    dumps      <- api        the whole public record as files: reads only
    editorial  <- all of the above: the admin

Every app may also use the page cache and the background jobs, and read the
environment through its declaration (``anthology.environment``, which imports
no project code); the project package (``anthology``) imports only the jobs'
queue, for ``/health/``.
``actions`` reaches the public site's page map only through settings.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Generic apps: the page cache and the background jobs know no other app.
GENERIC = {"pagecache", "jobs"}
APPS = {
    "catalogue": set(),
    "actions": {"catalogue"},
    "formats": {"catalogue"},
    "sources": {"catalogue", "actions"},
    "imports": {"catalogue", "actions", "formats"},
    "public": {"catalogue", "formats"},
    "similarity": {"catalogue", "actions", "formats"},
    "oai": {"catalogue", "formats"},
    "api": {"catalogue", "formats", "public"},
    "corrections": {"catalogue", "actions", "formats", "public"},
    "dumps": {"catalogue", "formats", "public", "api"},
    "editorial": {
        *("catalogue", "actions", "formats", "sources", "imports", "public"),
        *("similarity", "corrections", "dumps"),
    },
}
MAY_IMPORT = {
    "anthology": {"anthology", "jobs"},
    **{app: {app} for app in GENERIC},
    **{app: {app, *below, *GENERIC} for app, below in APPS.items()},
}
PROJECT = set(MAY_IMPORT)
# Modules of the project every app may import.
EVERYWHERE = {"anthology.environment"}


def imported_modules(node):
    """The modules an Import or ImportFrom node names."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    if node.level:  # A relative import stays inside its own package.
        return set()
    submodules = {f"{node.module}.{alias.name}" for alias in node.names}
    if node.module not in EVERYWHERE and submodules <= EVERYWHERE:
        return submodules
    return {node.module}


def imported_packages(node):
    """The top-level packages an Import or ImportFrom node names, leaving out
    the modules every app may import."""
    return {name.split(".")[0] for name in imported_modules(node) - EVERYWHERE}


def layout_problems(app, source, filename="<source>"):
    """Every import in ``source`` (a module of ``app``) that breaks the layout."""
    problems = []
    tree = ast.parse(source, filename)
    top_level = set(map(id, tree.body))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        project = imported_packages(node) & PROJECT
        for package in sorted(project - MAY_IMPORT[app]):
            problems.append(f"{filename}:{node.lineno}: {app} imports {package}")
        if project and id(node) not in top_level:
            problems.append(
                f"{filename}:{node.lineno}: imports project code inside a function"
            )
    return problems


def modules(app):
    return sorted((ROOT / app).rglob("*.py"))


@pytest.mark.parametrize("app", sorted(MAY_IMPORT))
def test_each_app_imports_only_down_the_dependency_order(app):
    found = []
    for path in modules(app):
        found += layout_problems(app, path.read_text(), str(path.relative_to(ROOT)))

    assert found == []


@pytest.mark.parametrize(
    ("app", "source", "problem"),
    [
        ("catalogue", "from public import views\n", "catalogue imports public"),
        ("public", "import editorial.admin\n", "public imports editorial"),
        ("actions", "from public import scopes\n", "actions imports public"),
        ("pagecache", "from catalogue.models import Document\n", "imports catalogue"),
        ("anthology", "from public import urls\n", "anthology imports public"),
        ("editorial", "from anthology import settings\n", "imports anthology"),
        (
            "catalogue",
            "from anthology import environment, edge\n",
            "catalogue imports anthology",
        ),
        ("public", "from imports import resources\n", "public imports imports"),
        ("formats", "from actions import pages\n", "formats imports actions"),
        (
            "editorial",
            "def late():\n    from catalogue import models\n",
            "inside a function",
        ),
    ],
)
def test_the_check_catches_an_import_up_or_inside_a_function(app, source, problem):
    [found] = layout_problems(app, source)

    assert problem in found


@pytest.mark.parametrize(
    "source",
    [
        "from anthology import environment as env\n",
        "import anthology.environment\n",
        "from anthology.environment import read\n",
    ],
)
def test_any_app_reads_the_environment_through_its_declaration(source):
    assert layout_problems("pagecache", source) == []


def test_imports_of_libraries_anywhere_are_left_alone():
    source = "import re\n\ndef late():\n    import json\n    from django import forms\n"

    assert layout_problems("catalogue", source) == []


# What runs after a commit is registered through Django's public API alone
# (``transaction.on_commit``): the connection's own lists of waiting callbacks
# and of savepoints change between releases without notice.
PRIVATE_TRANSACTION_STATE = {"run_on_commit", "savepoint_ids"}


def private_transaction_state(source):
    return sorted(
        node.attr
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute) and node.attr in PRIVATE_TRANSACTION_STATE
    )


@pytest.mark.parametrize("app", sorted(MAY_IMPORT))
def test_no_app_reads_the_connections_private_transaction_state(app):
    found = {
        str(path.relative_to(ROOT)): names
        for path in modules(app)
        if (names := private_transaction_state(path.read_text()))
    }

    assert found == {}


def test_the_check_finds_a_read_of_the_callbacks_waiting():
    source = "waiting = any(f is g for _, f, _ in connection.run_on_commit)\n"

    assert private_transaction_state(source) == ["run_on_commit"]

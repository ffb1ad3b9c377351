"""Every environment variable is declared once, in ``anthology/environment.py``,
and read through that declaration alone: no module of the project reads the
environment itself, no name is read undeclared, none is declared unread, and
the operators' reference names every one.

Django's entry points (``manage.py``, ``anthology/wsgi.py``,
``anthology/asgi.py``) keep Django's own idiom, naming the settings module
with ``os.environ.setdefault("DJANGO_SETTINGS_MODULE", ...)`` before any
settings exist: that one call is allowed there, with the name and the default
the declaration gives.
"""

import ast
import re
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from markdown_it import MarkdownIt

from anthology import environment
from anthology.environment import DECLARED, Variable, reference_markdown

ROOT = Path(__file__).resolve().parents[2]
THE_DECLARATION = "anthology/environment.py"
ENTRY_POINTS = {"manage.py", "anthology/wsgi.py", "anthology/asgi.py"}
# Not the site's code: the tests, the benchmarks and the documentation's build
# make environments of their own for the site they start.
OUTSIDE = {"tests", "bench", "docs", "mutants"}
# What reads the process environment in the os module.
OS_READERS = {"environ", "environb", "getenv", "getenvb"}


def project_modules():
    """The project's Python modules, as paths relative to the checkout."""
    for top in sorted(ROOT.iterdir()):
        if top.name.startswith(".") or top.name in OUTSIDE:
            continue
        paths = [top] if top.suffix == ".py" else sorted(top.rglob("*.py"))
        yield from (path.relative_to(ROOT).as_posix() for path in paths)


def literal(node):
    """The string ``node`` writes out, or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def named_variable(node, parent):
    """The name of the variable a use of ``os.environ`` or ``os.getenv`` reads,
    when it is written out: ``os.environ.get("X")``, ``os.environ["X"]``,
    ``"X" in os.environ``, ``os.getenv("X")``, ``os.environ.setdefault("X")``."""
    if isinstance(parent, ast.Subscript):
        return literal(parent.slice)
    if isinstance(parent, ast.Compare):
        return literal(parent.left)
    if isinstance(parent, ast.Call) and parent.func is node and parent.args:
        return literal(parent.args[0])
    if isinstance(parent, ast.Attribute):
        call = getattr(parent, "parent", None)
        if isinstance(call, ast.Call) and call.func is parent and call.args:
            return literal(call.args[0])
    return None


def is_settings_module_default(node):
    """Whether ``node`` is Django's naming of the settings module, with the
    declared name and default."""
    call = getattr(getattr(node, "parent", None), "parent", None)
    variable = DECLARED["DJANGO_SETTINGS_MODULE"]
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "setdefault"
        and call.func.value is node
        and [literal(argument) for argument in call.args]
        == [variable.name, variable.default]
    )


def aliases(tree):
    """The names ``tree`` binds to the os module, to ``anthology.environment``
    and to its ``read``."""
    found = {"os": set(), "environment": set(), "read": set()}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "os" or alias.name.startswith("os."):
                    found["os"].add(alias.asname or "os")
                if alias.name == "anthology.environment" and alias.asname:
                    found["environment"].add(alias.asname)
        elif isinstance(node, ast.ImportFrom) and not node.level:
            for alias in node.names:
                if node.module == "anthology" and alias.name == "environment":
                    found["environment"].add(alias.asname or alias.name)
                if node.module == "anthology.environment" and alias.name == "read":
                    found["read"].add(alias.asname or alias.name)
    return found


def is_declared_read(call, bound):
    """Whether ``call`` calls ``anthology.environment.read``."""
    function = call.func
    if isinstance(function, ast.Name):
        return function.id in bound["read"]
    if not isinstance(function, ast.Attribute) or function.attr != "read":
        return False
    owner = function.value
    if isinstance(owner, ast.Name):
        return owner.id in bound["environment"]
    return ast.unparse(owner) == "anthology.environment"


def parsed(source, filename):
    tree = ast.parse(source, filename)
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            child.parent = node
    return tree


def reads(source, filename="<source>"):
    """The names ``source`` reads through the declaration (``env.read("X")``),
    and those its entry-point idiom sets a default for."""
    tree = parsed(source, filename)
    bound = aliases(tree)
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and is_declared_read(node, bound):
            names.add(literal(node.args[0]) if node.args else None)
        if is_os_reader(node, bound) and is_settings_module_default(node):
            names.add("DJANGO_SETTINGS_MODULE")
    return names - {None}


def is_os_reader(node, bound):
    return (
        isinstance(node, ast.Attribute)
        and node.attr in OS_READERS
        and isinstance(node.value, ast.Name)
        and node.value.id in bound["os"]
    )


def environment_problems(path, source):
    """Every read of the environment in ``source`` (the module at ``path``,
    relative to the checkout) that does not go through the declaration."""
    if path == THE_DECLARATION:
        return []
    tree = parsed(source, path)
    bound = aliases(tree)
    problems = []
    for node in ast.walk(tree):
        where = f"{path}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.ImportFrom) and node.module == "os":
            for alias in node.names:
                if alias.name in OS_READERS:
                    problems.append(f"{where}: imports {alias.name} from os")
        elif is_os_reader(node, bound):
            if path in ENTRY_POINTS and is_settings_module_default(node):
                continue
            name = named_variable(node, node.parent)
            what = f"reads {name}" if name else f"uses os.{node.attr}"
            problems.append(f"{where}: {what} outside {THE_DECLARATION}")
        elif isinstance(node, ast.Call) and is_declared_read(node, bound):
            name = literal(node.args[0]) if node.args else None
            if name is None:
                problems.append(
                    f"{where}: reads a variable whose name is not written out"
                )
            elif name not in DECLARED:
                problems.append(f"{where}: reads {name}, which is not declared")
    return problems


def makefile_reads():
    """The names the Makefile reads: shell expansions (``$${DEBUG:-1}``) and
    make variables an operator may give (``$(HOST)``)."""
    text = (ROOT / "Makefile").read_text()
    shell = set(re.findall(r"\$\$\{(\w+)", text))
    made = set(re.findall(r"\$\((\w+)\)", text))
    return shell, made


def test_no_module_reads_the_environment_but_through_the_declaration():
    found = []
    for path in project_modules():
        found += environment_problems(path, (ROOT / path).read_text())

    assert found == []


@pytest.mark.parametrize(
    ("path", "source", "problem"),
    [
        (
            "catalogue/models/x.py",
            "import os\nSIZE = os.environ.get('PAGE_SIZE', '50')\n",
            "catalogue/models/x.py:2: reads PAGE_SIZE outside anthology/environment.py",
        ),
        (
            "anthology/settings.py",
            "import os\nKEY = os.environ['SECRET_KEY']\n",
            "reads SECRET_KEY outside",
        ),
        ("public/views.py", "import os\nos.getenv('DEBUG')\n", "reads DEBUG outside"),
        (
            "jobs/worker.py",
            "import os\nif 'REDIS_URL' in os.environ:\n    pass\n",
            "reads REDIS_URL outside",
        ),
        (
            "imports/jobs.py",
            "import os\nos.environ.setdefault('IMPORT_MAX_BYTES', '1')\n",
            "reads IMPORT_MAX_BYTES outside",
        ),
        (
            "api/views.py",
            "import os as system\nsystem.environ.get('API_TOKEN_DAYS')\n",
            "reads API_TOKEN_DAYS outside",
        ),
        ("jobs/runner.py", "import os\nenv = dict(os.environ)\n", "uses os.environ"),
        ("sources/fetch.py", "from os import environ\n", "imports environ from os"),
        ("sources/fetch.py", "from os import getenv as g\n", "imports getenv from os"),
        (
            "anthology/settings.py",
            "from anthology import environment as env\nX = env.read('PAGE_SIZE')\n",
            "reads PAGE_SIZE, which is not declared",
        ),
        (
            "editorial/x.py",
            "from anthology.environment import read\nread(name)\n",
            "name is not written out",
        ),
        (
            "manage.py",
            "import os\nos.environ.setdefault('DJANGO_SETTINGS_MODULE', 'other')\n",
            "reads DJANGO_SETTINGS_MODULE outside",
        ),
        (
            "catalogue/apps.py",
            "import os\n"
            "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'anthology.settings')\n",
            "reads DJANGO_SETTINGS_MODULE outside",
        ),
        (
            "anthology/wsgi.py",
            "import os\nDEBUG = os.environ.get('DEBUG')\n",
            "reads DEBUG outside",
        ),
    ],
)
def test_the_check_catches_a_read_of_the_environment_elsewhere(path, source, problem):
    [found] = environment_problems(path, source)

    assert problem in found


def test_the_entry_points_name_the_declared_settings_module():
    source = (
        "import os\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'anthology.settings')\n"
    )

    assert [environment_problems(path, source) for path in sorted(ENTRY_POINTS)] == [
        [],
        [],
        [],
    ]
    assert reads(source) == {"DJANGO_SETTINGS_MODULE"}


def test_reads_through_the_declaration_are_left_alone():
    source = (
        "import anthology.environment\n"
        "from anthology import environment as env\n"
        "from anthology.environment import read as value\n"
        "A = env.read('SITE_URL')\n"
        "B = value('DEBUG')\n"
        "C = anthology.environment.read('REDIS_URL')\n"
    )

    assert environment_problems("anthology/settings.py", source) == []
    assert reads(source) == {"SITE_URL", "DEBUG", "REDIS_URL"}


def test_every_declared_variable_is_read_somewhere():
    read = set()
    for path in project_modules():
        read |= reads((ROOT / path).read_text(), path)
    shell, made = makefile_reads()

    assert sorted(set(DECLARED) - read - shell - made) == []


def test_every_variable_the_makefile_reads_from_the_shell_is_declared():
    shell, _ = makefile_reads()

    assert "SITE_URL" in shell
    assert sorted(shell - set(DECLARED)) == []


def test_an_undeclared_variable_is_refused_when_read(monkeypatch):
    monkeypatch.setenv("PAGE_SIZE", "50")

    with pytest.raises(ImproperlyConfigured, match="PAGE_SIZE is read but not"):
        environment.read("PAGE_SIZE")


def test_the_settings_refuse_to_load_with_an_undeclared_read(tmp_path):
    settings = (ROOT / "anthology" / "settings.py").read_text()
    planted = settings.replace(
        'DEBUG = env.read("DEBUG")', 'DEBUG = env.read("DEBUG_TOOLBAR")'
    )
    assert planted != settings

    with pytest.raises(ImproperlyConfigured, match="DEBUG_TOOLBAR is read but not"):
        exec(compile(planted, "settings.py", "exec"), {"__file__": str(tmp_path)})


def test_a_variable_is_read_as_its_declared_type(monkeypatch):
    monkeypatch.setenv("DEBUG", " Yes ")
    monkeypatch.setenv("ALLOWED_HOSTS", " a.example , b.example,,")
    monkeypatch.setenv("PURGE_RETRY_PAUSES", "1, 2.5")
    monkeypatch.setenv("IMPORT_MAX_BYTES", "1000")
    monkeypatch.setenv("BACKUP_DIR", "/srv/backups")

    assert environment.read("DEBUG") is True
    assert environment.read("ALLOWED_HOSTS") == ["a.example", "b.example"]
    assert environment.read("PURGE_RETRY_PAUSES") == [1.0, 2.5]
    assert environment.read("IMPORT_MAX_BYTES") == 1000
    assert environment.read("BACKUP_DIR", default=None) == Path("/srv/backups")


def test_an_unset_variable_has_its_declared_default(monkeypatch):
    for name in ["ALLOWED_HOSTS", "PAGE_CACHE_SECONDS", "HTTPS", "VARNISH_URL"]:
        monkeypatch.delenv(name, raising=False)

    assert environment.read("ALLOWED_HOSTS") == ["localhost", "127.0.0.1", "[::1]"]
    assert environment.read("PAGE_CACHE_SECONDS") == 24 * 3600
    assert environment.read("HTTPS") is False
    assert environment.read("VARNISH_URL") is None
    assert environment.read("PAGE_CACHE", default=True) is True


def test_a_variable_set_empty_is_read_as_empty_not_as_its_default(monkeypatch):
    monkeypatch.setenv("PAGE_CACHE", "")
    monkeypatch.setenv("ALLOWED_HOSTS", "")
    monkeypatch.setenv("RECORD_CHANGED", "")

    assert environment.read("PAGE_CACHE", default=True) is False
    assert environment.read("ALLOWED_HOSTS") == []
    assert environment.read("RECORD_CHANGED") == ""


def test_a_value_that_is_not_of_its_type_names_the_variable(monkeypatch):
    monkeypatch.setenv("CONN_MAX_AGE", "a minute")

    with pytest.raises(ImproperlyConfigured, match="CONN_MAX_AGE='a minute' cannot"):
        environment.read("CONN_MAX_AGE")


def test_a_derived_default_is_given_by_its_reader_and_only_then():
    with pytest.raises(TypeError, match="UPLOAD_MAX_BYTES_PER_USER"):
        environment.read("UPLOAD_MAX_BYTES_PER_USER")
    with pytest.raises(TypeError, match="IMPORT_MAX_BYTES"):
        environment.read("IMPORT_MAX_BYTES", default=1)


@pytest.mark.parametrize("variable", environment.VARIABLES, ids=str)
def test_each_declared_default_reads_as_its_type(variable):
    assert variable.name.isupper()
    assert variable.meaning.endswith(".")
    if variable.default and not variable.derived:
        variable.parse(variable.default)


def rows(reference):
    """The cells of each body row of the tables in ``reference``, as
    markdown-it (the parser MyST builds on) reads them."""
    found, row, cell = [], None, False
    for token in MarkdownIt("commonmark").enable("table").parse(reference):
        if token.type == "tr_open":
            row = []
        elif token.type == "td_open":
            cell = True
        elif token.type == "inline" and cell:
            row.append(token.content)
            cell = False
        elif token.type == "tr_close" and row:
            found.append(row)
    return found


def test_the_reference_names_every_declared_variable():
    reference = reference_markdown()

    assert reference.startswith("# Settings\n")
    sections = {v.section for v in environment.VARIABLES}
    assert {f"## {section}" for section in sections} <= set(reference.splitlines())
    assert [row[0] for row in rows(reference)] == [
        f"`{v.name}`" for v in environment.VARIABLES
    ]
    assert {len(row) for row in rows(reference)} == {4}


def test_the_reference_has_four_cells_a_row_whatever_a_meaning_holds(monkeypatch):
    monkeypatch.setattr(
        environment,
        "VARIABLES",
        [
            Variable(
                "PAGE_CACHE_SECONDS",
                "seconds",
                "86400",
                "Kept for `a | b` seconds.",
                "Cache and pages",
            )
        ],
    )

    assert rows(reference_markdown()) == [
        [
            "`PAGE_CACHE_SECONDS`",
            "seconds",
            "`86400` (a day)",
            "Kept for `a | b` seconds.",
        ]
    ]

"""Only ``actions`` writes the record: read in the code, and watched in use.

Two nets, each catching what the other cannot:

- **read**: every module of the project outside ``actions`` is parsed, and
  any write to a model of the record (``catalogue``'s models and taggit's
  tags) is refused: a ``save``, ``create``, ``get_or_create``, ``update``,
  ``update_or_create``, ``delete``, ``bulk_create`` or ``bulk_update`` on a
  model's manager or a query of it, or on an instance made or fetched in the
  same function; an ``add``, ``remove``, ``set``, ``clear`` (or ``create``…)
  on a related manager of the record (``document.tags.set(…)``); a call of
  one of ``catalogue``'s own writers (``write_references``); or SQL that
  writes a table of the record. ``catalogue`` itself defines those writers
  and its models' ``save``; only the actions call them.
- **watched** (``tests/boundary.py``): while the whole suite runs, every
  statement that writes a table of the record must come from code running
  inside ``actions``; the tests below show the watch catching each shape.

The exceptions, the only ones, are the migrations (which make the tables
before any action exists) and the restore of a snapshot
(``imports.snapshots.import_record``), which brings rows back exactly as
the snapshot holds them, audit trail and all, into an empty record.
"""

import ast
import re
from pathlib import Path

import pytest
from django.apps import apps
from django.db import connection
from taggit.models import Tag

from catalogue.models import Document, Registry
from tests.boundary import WATCH, Write, record_tables
from tests.factories import DocumentFactory, RegistryFactory

ROOT = Path(__file__).resolve().parents[2]
NOT_PROJECT = {"tests", "bench", "docs", "actions"}
RESTORE = ("imports/snapshots.py", "import_record")
WRITES = {
    "save",
    "delete",
    "create",
    "get_or_create",
    "update",
    "update_or_create",
    "bulk_create",
    "bulk_update",
}
RELATED_WRITES = WRITES | {"add", "remove", "set", "clear"}
# What a query of a model returns an instance of, to be saved or deleted.
FETCHES = {"get", "first", "last", "latest", "earliest", "create", "get_or_create"}
SQL_WRITE_RE = re.compile(
    r"\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|TRUNCATE)\s+\"?(\w+)", re.IGNORECASE
)


def record_models():
    return [
        *apps.get_app_config("catalogue").get_models(),
        *apps.get_app_config("taggit").get_models(),
    ]


def related_names():
    """The names of the record's related managers: ``tags``, ``images``,
    ``versions``…"""
    names = set()
    for model in record_models():
        for field in model._meta.get_fields():
            if field.many_to_many or field.one_to_many:
                accessor = getattr(field, "get_accessor_name", None)
                names.add(accessor() if field.auto_created and accessor else field.name)
    return names - {None}


def chain_root(node):
    """The name a chain of attributes and calls starts from (``Document`` in
    ``Document.objects.filter(...).update``), or None."""
    while isinstance(node, ast.Attribute | ast.Call | ast.Subscript):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def chain_attributes(node):
    """The attribute names along a chain, innermost first."""
    names = []
    while isinstance(node, ast.Attribute | ast.Call | ast.Subscript):
        if isinstance(node, ast.Attribute):
            names.append(node.attr)
        node = node.func if isinstance(node, ast.Call) else node.value
    return names[::-1]


class Reader(ast.NodeVisitor):
    """Finds the writes of the record in one module."""

    def __init__(self, filename, *, models, relations, writers, tables):
        self.filename = filename
        self.models, self.relations, self.writers = models, relations, writers
        self.tables = tables
        self.found = []
        self.function = None
        self.instances = [set()]

    def note(self, node, what):
        self.found.append(f"{self.filename}:{node.lineno}: {what}")

    def visit_FunctionDef(self, node):
        if (self.filename, node.name) == RESTORE:
            return
        outer, self.function = self.function, node.name
        self.instances.append(set())
        self.generic_visit(node)
        self.instances.pop()
        self.function = outer

    visit_AsyncFunctionDef = visit_FunctionDef

    def is_record_chain(self, node):
        return chain_root(node) in self.models

    def bind(self, target, value):
        """``target = value``: an instance of the record, when ``value`` makes
        or fetches one."""
        if not isinstance(target, ast.Name):
            return
        attributes = chain_attributes(value)
        makes = isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
        if self.is_record_chain(value) and (
            (makes and value.func.id in self.models)
            or (attributes and attributes[-1] in FETCHES)
        ):
            self.instances[-1].add(target.id)

    def visit_Assign(self, node):
        for target in node.targets:
            self.bind(target, node.value)
            # ``obj, created = Model.objects.get_or_create(...)``
            if isinstance(target, ast.Tuple) and target.elts:
                self.bind(target.elts[0], node.value)
        self.generic_visit(node)

    def visit_For(self, node):
        if isinstance(node.target, ast.Name) and self.is_record_chain(node.iter):
            self.instances[-1].add(node.target.id)
        self.generic_visit(node)

    def visit_Call(self, node):
        function = node.func
        if isinstance(function, ast.Name) and function.id in self.writers:
            self.note(node, f"calls {function.id}, which writes the record")
        if isinstance(function, ast.Attribute):
            method, receiver = function.attr, function.value
            names = chain_attributes(receiver)
            if method in WRITES and self.is_record_chain(receiver):
                self.note(node, f"{chain_root(receiver)}…{method}()")
            elif (
                method in WRITES
                and isinstance(receiver, ast.Name)
                and receiver.id in self.instances[-1]
            ):
                self.note(node, f"{receiver.id}.{method}()")
            elif method in RELATED_WRITES and set(names) & self.relations:
                self.note(node, f"{'.'.join(names)}.{method}()")
            elif method in self.writers:
                self.note(node, f"calls {method}, which writes the record")
        self.generic_visit(node)

    def visit_Constant(self, node):
        if isinstance(node.value, str):
            for table in SQL_WRITE_RE.findall(node.value):
                if table in self.tables:
                    self.note(node, f"SQL writes {table}")


def catalogue_writers(models, relations, tables):
    """The functions of ``catalogue``'s modules (not its models' methods)
    that write the record: only actions may call them."""
    writers = set()
    for path in sorted((ROOT / "catalogue").glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                reader = Reader(
                    "", models=models, relations=relations, writers=set(), tables=tables
                )
                reader.visit(node)
                # In catalogue's own modules whatever is saved is the record's.
                saves = any(
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Attribute)
                    and call.func.attr == "save"
                    for call in ast.walk(node)
                )
                if reader.found or saves:
                    writers.add(node.name)
    return writers


@pytest.fixture(scope="module")
def knowledge():
    models = {model.__name__ for model in record_models()}
    relations = related_names()
    tables = {model._meta.db_table for model in record_models()}
    writers = catalogue_writers(models, relations, tables)
    return {
        "models": models,
        "relations": relations,
        "writers": writers,
        "tables": tables,
    }


def writes_in(source, knowledge, filename="<source>"):
    reader = Reader(filename, **knowledge)
    reader.visit(ast.parse(source, filename))
    return reader.found


def project_modules():
    """Every module of the project outside ``actions``, the tests and the
    benchmarks, and ``catalogue``'s own (which define the writers), but for
    the migrations."""
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).parts
        if (
            len(parts) > 1
            and parts[0] not in NOT_PROJECT
            and parts[0] != "catalogue"
            and not parts[0].startswith(".")
            and "migrations" not in parts
        ):
            yield path


def test_no_module_outside_actions_writes_the_record(knowledge):
    found = []
    for path in project_modules():
        filename = str(path.relative_to(ROOT))
        found += writes_in(path.read_text(), knowledge, filename)

    assert found == []


def test_catalogue_names_its_writers(knowledge):
    assert {"write_references", "issue_number", "mark_issued"} <= knowledge["writers"]
    assert "find_names" not in knowledge["writers"]


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("Topic.objects.create(name=n)\n", "Topic…create()"),
        (
            "Registry.objects.get_or_create(prefix=p)\n",
            "Registry…get_or_create()",
        ),
        ("Document.objects.filter(pk=1).update(title=t)\n", "Document…update()"),
        ("Reference.objects.filter(document=d).delete()\n", "Reference…delete()"),
        ("DecisionImage.objects.bulk_create(images)\n", "DecisionImage…bulk_create()"),
        ("Document.objects.bulk_update(documents, ['title'])\n", "bulk_update()"),
        (
            "def f():\n    preface = Preface.objects.filter(pk=1).first()\n"
            "    preface.save()\n",
            "preface.save()",
        ),
        (
            "def f():\n    topic = Topic(name=n)\n    topic.save(update_fields=[])\n",
            "topic.save()",
        ),
        (
            "def f():\n    registry, _ = Registry.objects.get_or_create(prefix=p)\n"
            "    registry.delete()\n",
            "registry.delete()",
        ),
        (
            "def f():\n    for d in DecisionRecord.objects.all():\n        d.save()\n",
            "d.save()",
        ),
        ("document.tags.set(names, clear=False)\n", "tags.set()"),
        ("decision.images.filter(name=n).delete()\n", "images.filter.delete()"),
        ("write_references(decisions=written)\n", "calls write_references"),
        ("numbering.mark_issued(registry=r, number=5)\n", "calls mark_issued"),
        (
            "cursor.execute('UPDATE catalogue_document SET title = %s', [t])\n",
            "SQL writes catalogue_document",
        ),
        ("sql = 'DELETE FROM \"taggit_taggeditem\"'\n", "SQL writes taggit_taggeditem"),
    ],
)
def test_the_reading_catches_each_write(knowledge, source, problem):
    found = writes_in(source, knowledge)

    assert any(problem in line for line in found), found


@pytest.mark.parametrize(
    "source",
    [
        "cache.delete(key)\n",
        "seen = set()\nseen.add(name)\n",
        "form.save(commit=False)\n",
        "Document.objects.filter(pk=1).exists()\n",
        "def f():\n    topic = Topic.objects.get(pk=1)\n    print(topic.save_as)\n",
        "ApiToken.objects.create(user=user)\n",
        "storage.delete(name)\n",
        "query = 'SELECT * FROM catalogue_document FOR UPDATE'\n",
    ],
)
def test_the_reading_leaves_other_writes_alone(knowledge, source):
    assert writes_in(source, knowledge) == []


def test_the_restore_and_the_migrations_are_the_only_exceptions(knowledge):
    source = "def import_record(stream):\n    obj = Document(title=t)\n    obj.save()\n"

    assert writes_in(source, knowledge, RESTORE[0]) == []
    assert writes_in(source, knowledge, "imports/other.py") != []
    assert not any("migrations" in path.parts for path in project_modules())


# The watch of the suite (tests/boundary.py), shown catching each shape.
# Planted code runs under a file name of the project's, as the code of that
# module would.


def planted(app, source, **names):
    """Run ``source`` as if it were a module of ``app``; what the watch
    noted of it."""
    WATCH.found = []
    code = compile(source, str(ROOT / app / "planted.py"), "exec")
    exec(code, {"connection": connection, **names})
    found, WATCH.found = list(WATCH.found), []
    return found


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("source", "table"),
    [
        ("Registry(prefix='PR', name='PR').save()", "catalogue_registry"),
        ("Registry.objects.create(prefix='PR', name='PR')", "catalogue_registry"),
        ("Document.objects.filter(pk=document.pk).update(year=2020)", "document"),
        ("Document.objects.filter(pk=document.pk).delete()", "catalogue_document"),
        ("document.tags.add('memory')", "taggit_taggeditem"),
        ("Tag.objects.bulk_create([Tag(name='x', slug='x')])", "taggit_tag"),
        (
            "connection.cursor().execute('UPDATE catalogue_document SET year = 2020')",
            "catalogue_document",
        ),
    ],
)
def test_the_watch_catches_a_write_from_outside_actions(source, table):
    document = DocumentFactory(tags=["parallelism"])

    found = planted(
        "imports",
        source,
        Document=Document,
        Registry=Registry,
        Tag=Tag,
        document=document,
    )

    assert found
    assert all(isinstance(write, Write) for write in found)
    assert any(table in write.table for write in found)
    assert all(write.where.startswith("imports/planted.py:") for write in found)


@pytest.mark.django_db
def test_the_watch_lets_actions_and_the_tests_write():
    registry = RegistryFactory()

    assert (
        planted("actions", "Registry(prefix='AX', name='AX').save()", Registry=Registry)
        == []
    )
    assert planted("tests", "registry.save()", registry=registry) == []
    assert planted("catalogue/migrations", "registry.save()", registry=registry) == []


def test_the_watch_knows_the_record_tables():
    tables = record_tables()

    assert {"catalogue_document", "catalogue_reference", "taggit_taggeditem"} <= tables
    assert "auditlog_logentry" not in tables
    assert "pagecache_pendingexpiry" not in tables

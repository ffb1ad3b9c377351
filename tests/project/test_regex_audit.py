"""Every regular expression of the application's code runs in linear time.

Patterns see user text: searches, typed identifiers, summaries, imported
files. One whose quantifiers compete for the same characters backtracks
(``(a|b ?)*c`` on a long line costs seconds per request). regexploit reads
each pattern's syntax, not its timing, and names any that can backtrack more
than quadratically; the patterns are found in the modules' globals (built
with f-strings or not), in calls to ``re`` with a literal pattern, and in
validators.
"""

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import pytest
from django.core.validators import RegexValidator
from regexploit.ast.sre import SreOpParser
from regexploit.redos import find

from tests.project.test_layout import PROJECT

ROOT = Path(__file__).resolve().parents[2]
APPS = sorted(PROJECT)
RE_FUNCTIONS = {"compile", "match", "fullmatch", "search", "sub", "subn", "split"}
RE_FUNCTIONS |= {"findall", "finditer"}


def application_modules():
    for app in APPS:
        package = importlib.import_module(app)
        for info in pkgutil.walk_packages(package.__path__, f"{app}."):
            if ".migrations" not in info.name:
                yield importlib.import_module(info.name)


def patterns_in_globals(module):
    for name, value in vars(module).items():
        values = value if isinstance(value, list | tuple) else [value]
        for item in values:
            item = item[0] if isinstance(item, tuple) and item else item
            if isinstance(item, RegexValidator):
                item = item.regex
            if isinstance(item, re.Pattern):
                yield f"{module.__name__}.{name}", item.pattern, item.flags


def patterns_in_calls(module):
    tree = ast.parse(Path(module.__file__).read_text(), module.__file__)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.func.attr in RE_FUNCTIONS
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            yield f"{module.__name__}:{node.lineno}", node.args[0].value, 0


def all_patterns():
    found = {}
    for module in application_modules():
        for where, pattern, flags in [
            *patterns_in_globals(module),
            *patterns_in_calls(module),
        ]:
            found.setdefault((pattern, flags), where)
    return found


def backtracking(pattern, flags):
    """regexploit's findings for ``pattern`` worse than quadratic."""
    parsed = SreOpParser().parse_sre(pattern, flags)
    return [redos for redos in find(parsed) if redos.starriness > 2]


def test_the_audit_finds_the_applications_patterns():
    patterns = all_patterns()

    assert len(patterns) > 40
    assert any("madr" in where for where in patterns.values())
    assert any(where.startswith("formats.madr:") for where in patterns.values())


def test_the_audit_would_catch_a_backtracking_pattern():
    # The shape an attacker found in the decision-folder importer.
    assert backtracking(r"(?P<words>[A-Za-z][A-Za-z ]*?)\s*:?\s*\[.*\]\(.*", 0)


@pytest.mark.parametrize(
    ("pattern", "flags"), sorted(all_patterns(), key=lambda key: key[0])
)
def test_no_pattern_backtracks_worse_than_quadratically(pattern, flags):
    assert backtracking(pattern, flags) == []

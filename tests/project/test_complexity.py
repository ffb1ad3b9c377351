"""No function of the application is harder to follow than radon's grade C
(cyclomatic complexity 20 or less): a branchier one is split where it reads
best, not waved through."""

from pathlib import Path

import pytest
from radon.complexity import cc_rank, cc_visit

from tests.project.test_layout import PROJECT

ROOT = Path(__file__).resolve().parents[2]
APPS = sorted(PROJECT)


def too_complex(source, filename="<source>"):
    """The blocks of ``source`` graded worse than C, by name and grade."""
    found = []
    for block in cc_visit(source):
        for item in [block, *getattr(block, "methods", [])]:
            if cc_rank(item.complexity) > "C":
                found.append(
                    f"{filename}:{item.lineno} {item.fullname}: {item.complexity}"
                )
    return sorted(set(found))


@pytest.mark.parametrize("app", APPS)
def test_no_function_is_graded_worse_than_c(app):
    found = []
    for path in sorted((ROOT / app).rglob("*.py")):
        if "migrations" not in path.parts:
            found += too_complex(path.read_text(), str(path.relative_to(ROOT)))

    assert found == []


def test_the_check_catches_a_function_of_twenty_one_branches():
    branches = "".join(f"    if x == {n}:\n        return {n}\n" for n in range(21))

    assert too_complex(f"def f(x):\n{branches}") == ["<source>:1 f: 22"]

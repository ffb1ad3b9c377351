"""The documentation holds: every command it shows works or is marked as an
example, every page is reachable, the editors' pages name no code, the
README stays a front door, and the project's decisions are read by the
anthology's own decision folder import.

Shell is shown in ``console`` blocks, commands after ``$ ``:

- a ```` ```console ```` block is *runnable*: it is run from the checkout,
  with a plain environment and a time limit, and must succeed, print every
  line shown under its commands (``…`` stands for lines left out) and change
  nothing git tracks;
- a ```` ```{code-block} console ```` directive with ``:class: example`` is an
  *example*, to adapt before use (in README.md, which the forge renders and
  which knows no directives, the fence ```` ```console example ````).

Every command line of either kind is checked: ``make TARGET`` must be a
target whose dry run prints a recipe, ``manage.py NAME`` a command Django
knows, a ``.venv/bin/`` program one the virtual environment has, and a
relative path a file or folder of the checkout. Shell in a block of another
language (``sh``, ``bash``, or ``$`` lines in ``text``) is refused, so no
command escapes the check. ``make docs`` itself is CI's to run.
"""

import fnmatch
import importlib.util
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest
import yaml
from django.core.management import get_commands

from catalogue.models import DecisionLog, DecisionRecord
from imports.decision_folders import import_decisions

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
README_MAX_LINES = 120

SHELL_LANGUAGES = {"sh", "bash", "shell", "zsh", "shell-session"}
DIRECTIVE_RE = re.compile(r"\{(code-block|code|sourcecode)\}\s*(\S*)")
FENCE_RE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
OPTION_RE = re.compile(r"^:([\w-]+):\s*(.*)$")
ASSIGNMENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# A token that stands for something the reader fills in, or is not a path.
NOT_A_PATH_RE = re.compile(r"[$<>…*?{}=]|://|^[-~/]")
RUN_SECONDS = 120
# What a runnable block may rely on from the environment it is run in.
PLAIN_ENVIRONMENT = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "TERM")


def load_conf():
    spec = importlib.util.spec_from_file_location("docs_conf", DOCS / "conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    return conf


GENERATED = set(load_conf().GENERATED)


def pages():
    """Every page of the docs written by hand, by its name under docs/."""
    return {
        path.relative_to(DOCS).as_posix(): path
        for path in sorted(DOCS.rglob("*.md"))
        if "_build" not in path.relative_to(DOCS).parts
        and path.relative_to(DOCS).as_posix() not in GENERATED
    }


def shown_files():
    """The README and every page: every file whose commands readers see."""
    return {"README.md": README, **{f"docs/{n}": p for n, p in pages().items()}}


@dataclass
class Block:
    """A fenced block of a page: its language, the words after it in the
    fence, a directive's options, its lines and the line it starts on."""

    where: str
    line: int
    language: str
    words: list
    options: dict
    lines: list = field(default_factory=list)
    directive: str = ""

    @property
    def is_example(self):
        return (
            "example" in self.words
            or "example" in self.options.get("class", "").split()
        )

    @property
    def is_shell(self):
        return self.language == "console"

    @property
    def location(self):
        return f"{self.where}:{self.line}"

    def commands(self):
        """The commands after ``$ `` prompts, each with the output lines
        shown under it; a line ending in a backslash goes on."""
        found = []
        lines = iter(self.lines)
        for line in lines:
            if line.startswith("$ "):
                command = line[2:]
                while command.endswith("\\"):
                    command = command[:-1] + " " + next(lines, "").strip()
                found.append((command, []))
            elif found and line.strip():
                found[-1][1].append(line.strip())
        return found


def blocks(where, text):
    """The fenced blocks of ``text``, directives' included."""
    found = []
    open_block = None
    for number, line in enumerate(text.splitlines(), start=1):
        match = FENCE_RE.match(line)
        if open_block is not None:
            block, fence = open_block
            if match and match["fence"].startswith(fence) and not match["info"]:
                found.append(block)
                open_block = None
            elif block.directive and not block.lines and OPTION_RE.match(line):
                option = OPTION_RE.match(line)
                block.options[option[1]] = option[2]
            else:
                block.lines.append(line)
            continue
        if match is None:
            continue
        info = match["info"].strip()
        directive = DIRECTIVE_RE.match(info)
        if directive:
            language, words, name = directive[2], [], directive[1]
        elif info.startswith("{"):
            name = info[1 : info.index("}")] if "}" in info else info
            language, words = "", [info[info.find("}") + 1 :].strip()]
        else:
            language, *words = info.split() or [""]
            name = ""
        block = Block(where, number, language, words, {}, directive=name)
        open_block = (block, match["fence"])
    return found


def all_blocks():
    return [
        block
        for where, path in shown_files().items()
        for block in blocks(where, path.read_text(encoding="utf-8"))
    ]


def simple_commands(command):
    """The programs and arguments of a command line, split at ``&&``, ``||``,
    ``;`` and ``|``, without the variables it sets before each."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars="|&;")
    lexer.whitespace_split = True
    current, found = [], []
    for token in lexer:
        if token and set(token) <= set("|&;"):
            found.append(current)
            current = []
        else:
            current.append(token)
    found.append(current)
    stripped = []
    for words in found:
        while words and ASSIGNMENT_RE.match(words[0]):
            words = words[1:]
        if words:
            stripped.append(words)
    return stripped


@cache
def make_target_problem(target):
    done = subprocess.run(
        ["make", "--no-print-directory", "-n", target],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    if done.returncode != 0:
        return done.stderr.strip() or f"make -n {target} failed"
    if not done.stdout.strip() or "Nothing to be done" in done.stdout:
        return f"make {target} has no recipe"
    return None


def venv_bin():
    linked = ROOT / ".venv" / "bin"
    return linked if linked.is_dir() else Path(sys.executable).parent


def command_problems(words):
    """What is wrong with one simple command: its make targets, its
    manage.py command, its program and its paths."""
    problems = []
    program, arguments = words[0], words[1:]
    if program == "make":
        targets = [word for word in arguments if not word.startswith("-")]
        targets = [word for word in targets if not ASSIGNMENT_RE.match(word)]
        problems += filter(None, map(make_target_problem, targets))
    if program.startswith(".venv/bin/"):
        if not (venv_bin() / program.removeprefix(".venv/bin/")).exists():
            problems.append(f"{program} is not in the virtual environment")
    elif "/" in program and not (ROOT / program).exists():
        problems.append(f"{program} is not a file of the checkout")
    if "manage.py" in words:
        after = words[words.index("manage.py") + 1 :]
        name = after[1] if after[:1] == ["help"] and len(after) > 1 else after[0]
        if name not in get_commands():
            problems.append(f"manage.py {name} is no command")
    for word in arguments:
        path = word.removeprefix("$PWD/")
        if NOT_A_PATH_RE.search(path) or not ("/" in path or path.endswith(".py")):
            continue
        if not (ROOT / path).exists():
            problems.append(f"{word} is not a file or folder of the checkout")
    return problems


def test_every_shell_command_is_a_real_target_command_program_or_path():
    problems = []
    for block in all_blocks():
        if block.language in SHELL_LANGUAGES:
            problems.append(
                f"{block.location}: a {block.language} block; write it as a "
                "console block, runnable or marked as an example"
            )
            continue
        if not block.is_shell:
            if any(line.startswith("$ ") for line in block.lines):
                problems.append(
                    f"{block.location}: shell in a {block.language or 'plain'} "
                    "block; write it as a console block"
                )
            continue
        if not block.commands():
            problems.append(f"{block.location}: a console block without $ prompts")
        for command, _ in block.commands():
            for words in simple_commands(command):
                problems += [
                    f"{block.location}: {problem}"
                    for problem in command_problems(words)
                ]
    assert problems == [], "\n".join(problems)


def runnable_blocks():
    return [block for block in all_blocks() if block.is_shell and not block.is_example]


def tracked_changes():
    done = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    return done.stdout if done.returncode == 0 else None


def missing_output(shown, printed):
    """The lines of ``shown`` not printed, in order (``…`` skips lines)."""
    printed = iter(line.strip() for line in printed.splitlines())
    return [
        line
        for line in shown
        if line != "…" and not any(line == out for out in printed)
    ]


@pytest.mark.parametrize("block", runnable_blocks(), ids=lambda block: block.location)
def test_runnable_block_runs(block):
    environment = {
        name: os.environ[name] for name in PLAIN_ENVIRONMENT if name in os.environ
    }
    before = tracked_changes()
    for command, shown in block.commands():
        done = subprocess.run(
            ["bash", "-c", f"set -euo pipefail\n{command}"],
            cwd=ROOT,
            env=environment,
            capture_output=True,
            text=True,
            timeout=RUN_SECONDS,
        )
        printed = done.stdout + done.stderr
        assert done.returncode == 0, f"$ {command}\n{printed}"
        assert missing_output(shown, printed) == [], f"$ {command}\n{printed}"
    assert tracked_changes() == before


def test_there_are_runnable_blocks():
    assert runnable_blocks()


def test_readme_is_a_front_door():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= README_MAX_LINES


def code_names_re():
    packages = sorted(
        path.parent.name for path in ROOT.glob("*/__init__.py") if path.parent != DOCS
    )
    names = "|".join([*packages, "tests", "bench"])
    return re.compile(
        r"[\w-]+\.py\b"  # a module's file
        rf"|(?<![\w/.-])(?:{names})/"  # a folder of the code
        rf"|(?<![\w.])(?:{names})\.(?!md\b)[a-z_]\w*"  # a dotted module name
        r"|\b[a-z_]+\.[a-z_]+\.[a-z_]+\b"  # any dotted path
        r"|\btest_\w+"  # a test's name
    )


def test_editors_pages_name_no_code():
    code_name = code_names_re()
    found = [
        f"docs/{name}:{number}: {match}"
        for name, path in pages().items()
        if name.startswith("editors/")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for match in code_name.findall(line)
    ]
    assert found == [], "\n".join(found)


def toctree_entries(name, path):
    """The pages the toctrees of page ``name`` name, as names under docs/."""
    here = Path(name).parent
    entries = []
    for block in blocks(name, path.read_text(encoding="utf-8")):
        if block.directive != "toctree":
            continue
        for line in block.lines:
            entry = line.strip()
            if not entry:
                continue
            target = (here / entry).as_posix()
            if "glob" in block.options:
                everything = {*pages(), *GENERATED}
                entries += fnmatch.filter(sorted(everything), f"{target}.md")
            else:
                entries.append(f"{target}.md")
    return entries


def test_every_page_is_reachable_from_the_index():
    known = {**pages(), **dict.fromkeys(GENERATED)}
    reached, waiting, broken = set(), ["index.md"], []
    while waiting:
        name = waiting.pop()
        if name in reached:
            continue
        reached.add(name)
        if known[name] is None:
            continue
        for entry in toctree_entries(name, known[name]):
            if entry in known:
                waiting.append(entry)
            else:
                broken.append(f"{name} names {entry}")
    assert broken == []
    assert sorted(set(known) - reached) == []


def written(path):
    """A decision file's status and title, as its author wrote them."""
    text = path.read_text(encoding="utf-8")
    _, front_matter, body = text.split("---\n", 2)
    title = next(line for line in body.splitlines() if line.startswith("# "))
    return yaml.safe_load(front_matter)["status"], title.removeprefix("# ")


@pytest.mark.django_db
def test_the_projects_decisions_are_read_as_written():
    folder = DOCS / "decisions"
    files = sorted(folder.glob("[0-9][0-9][0-9][0-9]-*.md"))

    report = import_decisions(folder, log="The anthology's decisions")

    log = DecisionLog.objects.get(name="The anthology's decisions")
    records = DecisionRecord.objects.filter(log=log).order_by("number")
    assert [
        (record.number, record.source_name, record.status, record.title)
        for record in records
    ] == [(int(path.name[:4]), path.name, *written(path)) for path in files]
    assert all(record.published_at for record in records)
    assert report.notes == []

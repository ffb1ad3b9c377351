"""`manage.py add_editor` makes a new account's password from wherever it is
given: ADD_EDITOR_PASSWORD, standard input when that is not a terminal (a
pipe, a file), or typed twice on a terminal; each checked by the password
validators, none printed, an empty one refused."""

import io
import subprocess
import sys

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from tests.databases import WEB_LAYER
from tests.pagecache.processes import ROOT, site_environment

pytestmark = [pytest.mark.django_db, WEB_LAYER]

PASSPHRASE = "a long passphrase"


@pytest.fixture(autouse=True)
def no_password_variable(monkeypatch):
    monkeypatch.delenv("ADD_EDITOR_PASSWORD", raising=False)


class Terminal(io.StringIO):
    """A terminal where the person running a command types ``answers``."""

    def __init__(self, monkeypatch, *answers):
        super().__init__()
        self.answers = list(answers)
        self.prompts = []
        monkeypatch.setattr(
            "editorial.management.commands.add_editor.getpass", self.getpass
        )

    def isatty(self):
        return True

    def getpass(self, prompt):
        self.prompts.append(prompt)
        return self.answers.pop(0)


def add_editor(*arguments, stdin):
    """What ``add_editor arguments`` printed, given ``stdin``."""
    output = io.StringIO()
    call_command("add_editor", *arguments, stdin=stdin, stdout=output)
    return output.getvalue()


def test_add_editor_takes_a_new_accounts_password_from_its_variable(monkeypatch):
    monkeypatch.setenv("ADD_EDITOR_PASSWORD", PASSPHRASE)
    terminal = Terminal(monkeypatch)

    output = add_editor("ada", "--publisher", stdin=terminal)

    assert terminal.prompts == []
    assert output == (
        "Created the account ada.\nada is a publisher and can sign in at /admin/.\n"
    )
    user = User.objects.get(username="ada")
    assert user.check_password(PASSPHRASE)
    assert [group.name for group in user.groups.all()] == ["Publisher"]


def test_add_editor_reads_the_password_from_standard_input_when_not_a_terminal():
    output = add_editor("ada", stdin=io.StringIO(f"{PASSPHRASE}\n"))

    assert PASSPHRASE not in output
    assert User.objects.get(username="ada").check_password(PASSPHRASE)


def test_only_the_line_end_is_taken_off_a_password_from_standard_input():
    add_editor("ada", stdin=io.StringIO(f" {PASSPHRASE} \r\nthe next line\n"))

    assert User.objects.get(username="ada").check_password(f" {PASSPHRASE} ")


def test_the_variable_is_taken_before_standard_input(monkeypatch):
    monkeypatch.setenv("ADD_EDITOR_PASSWORD", PASSPHRASE)

    add_editor("ada", stdin=io.StringIO("another long passphrase\n"))

    assert User.objects.get(username="ada").check_password(PASSPHRASE)


def test_add_editor_on_a_terminal_still_asks_twice(monkeypatch):
    terminal = Terminal(monkeypatch, PASSPHRASE, PASSPHRASE)

    add_editor("ada", stdin=terminal)

    assert terminal.prompts == ["Password for ada: ", "The same password again: "]
    assert User.objects.get(username="ada").check_password(PASSPHRASE)


@pytest.mark.parametrize(
    ("variable", "stdin", "source"),
    [
        ("", "", "ADD_EDITOR_PASSWORD"),
        (None, "\n", "standard input"),
        (None, "", "standard input"),
        (None, None, "the terminal"),
    ],
)
def test_add_editor_refuses_an_empty_password(monkeypatch, variable, stdin, source):
    if variable is not None:
        monkeypatch.setenv("ADD_EDITOR_PASSWORD", variable)
    terminal = Terminal(monkeypatch, "")

    with pytest.raises(CommandError) as refusal:
        add_editor("ada", stdin=terminal if stdin is None else io.StringIO(stdin))

    assert str(refusal.value) == (
        f"The password from {source} is empty: no account ada was made."
    )
    assert not User.objects.filter(username="ada").exists()


@pytest.mark.parametrize(
    ("password", "message"),
    [
        ("20260101", "This password is entirely numeric."),
        ("iloveyou", "This password is too common."),
        ("Xq3z", "This password is too short."),
        ("ada.lovelace1", "The password is too similar to the username."),
    ],
)
@pytest.mark.parametrize("given", ["variable", "standard input"])
def test_add_editor_checks_a_given_password_with_the_validators(
    monkeypatch, given, password, message
):
    if given == "variable":
        monkeypatch.setenv("ADD_EDITOR_PASSWORD", password)

    with pytest.raises(CommandError) as refusal:
        add_editor("ada.lovelace", stdin=io.StringIO(f"{password}\n"))

    assert message in str(refusal.value)
    assert str(refusal.value).endswith("No account ada.lovelace was made.")
    assert password not in str(refusal.value)
    assert not User.objects.filter(username="ada.lovelace").exists()


@pytest.mark.django_db(transaction=True)
def test_a_password_piped_to_the_command_makes_the_account_unechoed(
    settings, editorial_groups
):
    # The command's own process hashes with the site's hasher, not the tests'.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    environment = site_environment()
    environment.pop("ADD_EDITOR_PASSWORD", None)

    finished = subprocess.run(
        [sys.executable, "manage.py", "add_editor", "grace", "--publisher"],
        cwd=ROOT,
        env=environment,
        input=f"{PASSPHRASE}\n",
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert (finished.returncode, finished.stderr) == (0, "")
    assert finished.stdout == (
        "Created the account grace.\ngrace is a publisher and can sign in at /admin/.\n"
    )
    assert User.objects.get(username="grace").check_password(PASSPHRASE)


@pytest.mark.django_db(transaction=True)
def test_an_empty_pipe_makes_no_account():
    environment = site_environment()
    environment.pop("ADD_EDITOR_PASSWORD", None)

    finished = subprocess.run(
        [sys.executable, "manage.py", "add_editor", "grace"],
        cwd=ROOT,
        env=environment,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert finished.returncode == 1
    assert finished.stderr == (
        "CommandError: The password from standard input is empty: no account "
        "grace was made.\n"
    )
    assert not User.objects.filter(username="grace").exists()

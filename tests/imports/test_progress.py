"""Long commands draw a progress bar on a terminal and stay quiet elsewhere."""

import io

import pytest
from django.core.management import call_command

from imports import progress

pytestmark = pytest.mark.django_db


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize(
    ("command", "arguments"),
    [
        ("generate_sample", ["--documents", "120"]),
        ("import_index", ["{seed}"]),
        ("export_record", ["{tmp}/record.json"]),
    ],
)
def test_a_long_command_draws_a_bar_on_a_terminal_only(
    command, arguments, monkeypatch, tmp_path, seed_path, imported_seed
):
    arguments = [
        argument.format(seed=seed_path, tmp=tmp_path) for argument in arguments
    ]
    terminal, log = Terminal(), io.StringIO()

    monkeypatch.setattr("sys.stderr", log)
    call_command(command, *arguments, stdout=io.StringIO())
    monkeypatch.setattr("sys.stderr", terminal)
    call_command(command, *arguments, stdout=io.StringIO())

    assert log.getvalue() == ""
    assert "100%" in terminal.getvalue()


def test_reports_reach_the_listener_every_so_often_and_at_the_end():
    heard = []
    with progress.reporting(lambda done, total: heard.append((done, total))):
        assert list(progress.counted(range(7), 7, every=3)) == list(range(7))

    assert heard == [(3, 7), (6, 7), (7, 7)]

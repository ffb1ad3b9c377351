"""`make run` and `make serve` give the site the address they serve it at as
its canonical origin (SITE_URL), unless one is given: feeds, canonical links,
OAI-PMH's baseURL and the API's url fields point where something answers.

The targets run for real, on a virtual environment whose programs print what
they were started with instead of starting anything."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    shutil.which("make") is None, reason="needs make (apt-get install make)"
)

# Each program the targets start notes how it was started in the file
# `started`, in place of starting anything.
PROGRAM = """#!/bin/sh
echo "SITE_URL=$SITE_URL DEBUG=$DEBUG $(basename $0) $*" >> "$(dirname $0)/../started"
"""
# gunicorn, once the background-job worker and the health listener started
# beside it have: `make serve` stops them when gunicorn stops. The health
# listener (a gunicorn too) notes itself at once.
GUNICORN = """#!/bin/sh
case "$*" in *health_wsgi*) ;; *)
for wait in $(seq 100); do
    grep -q run_workers "$(dirname $0)/../started" 2>/dev/null \
        && grep -q health_wsgi "$(dirname $0)/../started" 2>/dev/null && break
    sleep 0.1
done ;;
esac
""" + PROGRAM.removeprefix("#!/bin/sh\n")


@pytest.fixture
def venv(tmp_path):
    """A virtual environment, installed as far as make can tell, whose python
    and gunicorn note their environment's SITE_URL and DEBUG and their
    arguments."""
    directory = tmp_path / "venv"
    (directory / "bin").mkdir(parents=True)
    for name, text in [("python", PROGRAM), ("gunicorn", GUNICORN)]:
        program = directory / "bin" / name
        program.write_text(text)
        program.chmod(0o755)
    (directory / ".installed").touch()
    return directory


def make(venv, *arguments, **environment):
    """How the programs ``make arguments`` starts were started, in order."""
    inherited = {
        name: value
        for name, value in os.environ.items()
        if name
        not in {
            "SITE_URL",
            "HOST",
            "SERVE_BIND",
            "HEALTH_BIND",
            "DEBUG",
            "JOBS_WORKERS",
            "JOBS_RELATED_WORKERS",
        }
        and not name.startswith("MAKE")
    }
    subprocess.run(
        ["make", "--silent", f"VENV={venv}", *arguments],
        cwd=ROOT,
        env={**inherited, **environment},
        capture_output=True,
        check=True,
        timeout=60,
    )
    return (venv / "started").read_text().splitlines()


def test_make_run_gives_the_site_the_address_it_serves_at(venv):
    assert make(venv, "run", "HOST=127.0.0.1:8011") == [
        "SITE_URL=http://127.0.0.1:8011 DEBUG=1 python manage.py migrate --no-input",
        "SITE_URL=http://127.0.0.1:8011 DEBUG=1 python manage.py import_index "
        "--if-empty seeds/000_173d26dda2e0601e.txt",
        "SITE_URL=http://127.0.0.1:8011 DEBUG=1 python manage.py runserver "
        "127.0.0.1:8011",
    ]


def test_make_run_on_a_port_alone_serves_on_the_loopback_address(venv):
    assert make(venv, "run", "HOST=8012")[-1] == (
        "SITE_URL=http://127.0.0.1:8012 DEBUG=1 python manage.py runserver 8012"
    )


def test_make_run_serves_at_port_8000_by_default(venv):
    assert make(venv, "run")[-1] == (
        "SITE_URL=http://127.0.0.1:8000 DEBUG=1 python manage.py runserver "
        "127.0.0.1:8000"
    )


def test_make_run_keeps_a_site_url_given_in_the_environment(venv):
    lines = make(
        venv, "run", "HOST=127.0.0.1:8011", SITE_URL="https://anthology.example.org"
    )

    assert {line.split()[0] for line in lines} == {
        "SITE_URL=https://anthology.example.org"
    }


def test_make_run_keeps_a_site_url_given_to_make(venv):
    lines = make(venv, "run", "HOST=127.0.0.1:8011", "SITE_URL=https://a.example")

    assert {line.split()[0] for line in lines} == {"SITE_URL=https://a.example"}


def test_make_run_without_debug_collects_the_static_files_for_that_address(venv):
    lines = make(venv, "run", "HOST=127.0.0.1:8011", DEBUG="0")

    assert lines[1] == (
        "SITE_URL=http://127.0.0.1:8011 DEBUG=0 python manage.py collectstatic "
        "--no-input --verbosity 0"
    )
    assert {line.split()[1] for line in lines} == {"DEBUG=0"}


def test_make_serve_gives_the_site_the_address_gunicorn_binds(venv):
    lines = make(venv, "serve", "SERVE_BIND=127.0.0.1:8013")

    assert {line.split(" ", 2)[0] for line in lines} == {
        "SITE_URL=http://127.0.0.1:8013"
    }
    assert sorted(line.split(" ", 2)[2] for line in lines) == [
        "gunicorn anthology.health_wsgi --bind 127.0.0.1:8001 --workers 1 --threads 4",
        "gunicorn anthology.wsgi --bind 127.0.0.1:8013 --workers 2 --access-logfile -",
        "python manage.py check --deploy --tag pagecache",
        "python manage.py collectstatic --no-input --verbosity 0",
        "python manage.py expire_pages",
        "python manage.py migrate --no-input",
        "python manage.py run_workers --workers 1 --related-workers 1",
    ]


def test_make_serve_keeps_a_site_url_given_in_the_environment(venv):
    lines = make(
        venv, "serve", "SERVE_BIND=127.0.0.1:8013", SITE_URL="https://a.example"
    )

    assert {line.split()[0] for line in lines} == {"SITE_URL=https://a.example"}

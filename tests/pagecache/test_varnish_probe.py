"""The probe is answered whatever the web workers are doing: a real varnishd
runs the shipped VCL in front of one web worker (gunicorn, one sync process)
and the health listener `make serve` starts beside it, and an attack of fresh
nonsense searches from several clients at once keeps the web worker busy. The
probe's backend is never marked sick meanwhile and readers' pages are
answered, nor while the web worker takes no request at all (stopped); with
the health listener gone, the backend is sick and an uncached page is the
site's own error page."""

import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from django.template.loader import render_to_string

from tests.factories import DocumentFactory
from tests.pagecache.test_varnish_edge import answers, ask, listens, until
from tests.tools import (
    RUN_PREFIX,
    TEST_REDIS_URL,
    free_port,
    redis_client,
    require_varnishd,
)

ROOT = Path(__file__).resolve().parents[2]
VARNISH = ROOT / "deploy" / "varnish"
GUNICORN = str(Path(sys.executable).parent / "gunicorn")

pytestmark = [
    pytest.mark.varnish,
    pytest.mark.redis,
    pytest.mark.workers,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        os.environ.get("DATABASE_URL", "").split(":", 1)[0]
        not in {"postgres", "postgresql"},
        reason="the site behind Varnish shares the test database: run the suite "
        "with DATABASE_URL=postgres://… (CI does)",
    ),
]

ATTACKERS = 6
# The shipped probe (deploy/varnish/backend.vcl) marks a backend sick at three
# bad of five, two seconds apart. Here it asks four times as often, the rest
# of it as shipped: whether the health listener keeps the backend healthy
# does not depend on the interval, and the tests wait a quarter as long for
# a window to fill.
SHIPPED_INTERVAL = ".interval = 2s;"
PROBE_INTERVAL = 0.5
PROBES_TO_SICKEN = 5
# Each attacker's searches: fresh nonsense, three words a query; the attack
# lasts several of the probe's windows.
SEARCHES_EACH = 20


@pytest.fixture
def site(static_root, tmp_path):
    """varnishd with the shipped VCL and probe in front of one sync web worker
    and the health listener, as `make serve` runs them behind a proxy. Readers
    are not limited here: the attack reaches the web worker whole."""
    from django.db import connection

    db = connection.settings_dict
    prefix = f"{RUN_PREFIX}-probe-{tmp_path.name}"
    web, health, front, admin = (free_port() for _ in range(4))
    backends = (
        (VARNISH / "backend.vcl")
        .read_text()
        .replace('"8000"', f'"{web}"')
        .replace('"8001"', f'"{health}"')
    )
    assert SHIPPED_INTERVAL in backends
    backends = backends.replace(SHIPPED_INTERVAL, f".interval = {PROBE_INTERVAL}s;")
    (tmp_path / "backend.vcl").write_text(backends)
    secret = tmp_path / "secret"
    secret.write_text(secrets.token_hex(16))
    varnish = subprocess.Popen(
        [
            *(require_varnishd(), "-F", "-a", f"127.0.0.1:{front}"),
            *("-n", str(tmp_path / "v")),
            *("-f", str(VARNISH / "anthology.vcl")),
            *("-p", f"vcl_path={tmp_path}:{VARNISH}"),
            *("-s", "malloc,64m", "-j", "none"),
            *("-T", f"127.0.0.1:{admin}", "-S", str(secret)),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    env = {
        **os.environ,
        "DATABASE_URL": (
            f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:"
            f"{db['PORT'] or 5432}/{db['NAME']}"
        ),
        "REDIS_URL": TEST_REDIS_URL,
        "CACHE_KEY_PREFIX": prefix,
        "JOBS_QUEUE": prefix,
        "DEBUG": "0",
        "BEHIND_PROXY": "1",
        "ALLOWED_HOSTS": "127.0.0.1",
        "STATIC_ROOT": str(static_root),
        "VARNISH_URL": f"http://127.0.0.1:{front}",
        "READER_SEARCH_RATE": "1000000/minute",
        "READER_PAGE_RATE": "1000000/minute",
    }
    processes = [
        subprocess.Popen(
            [
                *(GUNICORN, "anthology.wsgi", "--bind", f"127.0.0.1:{web}"),
                *("--workers", "1", "--timeout", "60"),
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        ),
        subprocess.Popen(
            [
                *(GUNICORN, "anthology.health_wsgi", "--bind", f"127.0.0.1:{health}"),
                *("--workers", "1", "--threads", "4"),
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        ),
    ]

    def backend_health():
        listed = subprocess.run(
            [
                shutil.which("varnishadm") or "/usr/bin/varnishadm",
                *("-T", f"127.0.0.1:{admin}", "-S", str(secret)),
                "backend.list",
            ],
            capture_output=True,
            text=True,
        ).stdout
        # The probed backend's window ("5/5": five good of five) and health.
        found = re.search(r"^\S*health\s+\S+\s+(\S+)\s+(\S+)", listed, re.MULTILINE)
        return found and (found[1], found[2])

    try:
        until(lambda: answers(web), "the web worker answering")
        until(lambda: answers(health), "the health listener answering")
        until(lambda: listens(front), "varnishd listening")
        until(lambda: backend_health() == ("5/5", "healthy"), "a healthy backend")
        yield {
            "front": front,
            "web": web,
            "health": health,
            "web_process": processes[0],
            "listener": processes[1],
            "backend_health": backend_health,
        }
    finally:
        for process in [*processes, varnish]:
            process.terminate()
        for process in [*processes, varnish]:
            process.wait(timeout=20)
        keys = list(redis_client().scan_iter(f"{prefix}:*"))
        if keys:
            redis_client().delete(*keys)


def nonsense(attacker, n):
    return "+".join(f"zq{attacker}x{n}v{word}k" for word in range(3))


def attack(front, attacker, statuses):
    for n in range(SEARCHES_EACH):
        status, _, _ = ask(front, f"/search/?q={nonsense(attacker, n)}")
        statuses.append(status)


def test_the_probe_stays_healthy_while_nonsense_searches_keep_the_workers_busy(
    site,
):
    for number in range(1, 101):
        DocumentFactory(number=number, published=True)
    reader = DocumentFactory(number=500, title="Pipeline parallelism", published=True)
    statuses, states, pages = [], [], []
    attackers = [
        threading.Thread(target=attack, args=(site["front"], n, statuses))
        for n in range(ATTACKERS)
    ]
    for thread in attackers:
        thread.start()
    while any(thread.is_alive() for thread in attackers):
        states.append(site["backend_health"]())
        # A reader's page no cache holds: a search of its own, new each time.
        status, _, page = ask(site["front"], f"/search/?q=pipeline+{len(pages)}")
        pages.append((status, "Pipeline parallelism" in page or status))
    for thread in attackers:
        thread.join()

    assert statuses == [200] * ATTACKERS * SEARCHES_EACH
    assert len(states) >= 3
    assert {health for _, health in states} == {"healthy"}
    assert {status for status, _ in pages} <= {200}
    assert ask(site["front"], reader.get_absolute_url())[0] == 200


def test_without_the_health_listener_the_backend_is_sick_and_pages_the_error_page(
    site,
):
    document = DocumentFactory(number=4, published=True)
    site["listener"].terminate()
    site["listener"].wait(timeout=20)

    until(lambda: site["backend_health"]()[1] == "sick", "the backend marked sick")
    status, _headers, page = ask(site["front"], document.get_absolute_url())

    assert status == 503
    assert page == render_to_string("503.html")


def workers_of(master):
    """The pids of a gunicorn master's worker processes."""
    children = Path(f"/proc/{master}/task/{master}/children").read_text()
    return [int(pid) for pid in children.split()]


def test_the_probe_stays_healthy_while_the_web_worker_answers_nothing(site):
    # The extreme of a busy web worker: one that takes no request at all, for
    # longer than the probe takes to mark a backend sick.
    workers = workers_of(site["web_process"].pid)
    for pid in workers:
        os.kill(pid, signal.SIGSTOP)
    states = []
    try:
        for _ in range(PROBES_TO_SICKEN * 2):
            time.sleep(PROBE_INTERVAL)
            states.append(site["backend_health"]())
    finally:
        for pid in workers:
            os.kill(pid, signal.SIGCONT)

    assert workers
    assert {health for _, health in states} == {"healthy"}

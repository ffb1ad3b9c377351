"""``manage.py run_workers`` (what ``make serve`` and ``make worker`` start)
keeps a worker listening on each queue: one that exits, killed or failed, is
started again; SIGTERM stops them all. On a redis-server of the test's own."""

import os
import signal
import subprocess
import sys

import pytest
from rq import Queue, Worker

from jobs.models import _alive as process_alive
from tests.jobs.test_worker_outage import ROOT, redis_server, until  # noqa: F401

pytestmark = pytest.mark.workers


@pytest.fixture
def supervisor(redis_server, tmp_path):  # noqa: F811
    log = tmp_path / "workers.log"
    env = {
        **os.environ,
        "REDIS_URL": redis_server.url,
        "JOBS_QUEUE": "supervised",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'worker.sqlite3'}",
    }
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "run_workers", "--workers", "1"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    yield process
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
    print(log.read_text(errors="replace"))


def listening(redis_server, name):  # noqa: F811
    """The pids of the workers registered on the queue ``name``, alive."""
    queue = Queue(name, connection=redis_server.client())
    return {
        worker.pid for worker in Worker.all(queue=queue) if process_alive(worker.pid)
    }


def test_a_killed_worker_is_started_again_and_sigterm_stops_them_all(
    redis_server,  # noqa: F811
    supervisor,
):
    main = until(lambda: listening(redis_server, "supervised"), "a worker")
    related = until(
        lambda: listening(redis_server, "supervised-related"), "a related worker"
    )

    os.kill(main.pop(), signal.SIGKILL)
    again = until(lambda: listening(redis_server, "supervised"), "another worker")

    assert again and listening(redis_server, "supervised-related") == related
    supervisor.send_signal(signal.SIGTERM)
    assert supervisor.wait(timeout=60) == 0
    assert not any(map(process_alive, again | related))

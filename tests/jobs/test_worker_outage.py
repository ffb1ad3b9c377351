"""A worker outlives its Redis: killed (``kill -9``) while a job runs and
started again, empty, the queue's Redis finds the worker still alive, listed
among the queue's workers again, and taking the next job. Each test runs a
redis-server of its own, on a port of its own: the shared one is never
touched."""

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from rq import Queue, Worker

from tests.tools import free_port, missing

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.workers


def note(path, seconds):
    """The job: wait ``seconds``, then write ``path``."""
    time.sleep(seconds)
    Path(path).write_text("done")


class RedisServer:
    """A redis-server of the test's own, keeping nothing on disk, that the
    test kills and starts again on the same port."""

    def __init__(self, folder):
        self.program = shutil.which("redis-server") or missing(
            "redis-server", "apt-get install redis-server"
        )
        self.folder = folder
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = None

    def start(self):
        self.process = subprocess.Popen(
            [
                self.program,
                *("--port", str(self.port), "--save", "", "--appendonly", "no"),
                *("--dir", str(self.folder)),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = self.client()
        until(lambda: _answers(client), "the test's redis-server answers")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def client(self):
        return redis.Redis.from_url(self.url, socket_connect_timeout=1)


def _answers(client):
    try:
        return client.ping()
    except redis.RedisError:
        return False


def until(check, what, seconds=60):
    for _ in range(seconds * 10):
        found = check()
        if found:
            return found
        time.sleep(0.1)
    pytest.fail(f"never: {what}")


@pytest.fixture
def redis_server(tmp_path):
    server = RedisServer(tmp_path)
    server.start()
    yield server
    if server.process.poll() is None:
        server.kill()


@pytest.fixture
def worker(redis_server, tmp_path):
    """``manage.py rqworker`` on the queue ``outage`` of the test's Redis,
    with a heartbeat a second while a job runs; what it logged is printed
    after the test (pytest shows it when the test failed)."""
    log = tmp_path / "worker.log"
    env = {
        **os.environ,
        "REDIS_URL": redis_server.url,
        "JOBS_QUEUE": "outage",
        "JOBS_HEARTBEAT_SECONDS": "1",
        "JOBS_CHORE_SECONDS": "1",
        # The worker's chores read a database: one of its own, empty.
        "DATABASE_URL": f"sqlite:///{tmp_path / 'worker.sqlite3'}",
    }
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "rqworker", "outage"],
            cwd=ROOT,
            env=env,
            start_new_session=True,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    queue = Queue("outage", connection=redis_server.client())
    until(lambda: Worker.all(queue=queue), "the worker listens on the queue")
    yield process
    try:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        print(log.read_text(errors="replace"))


# How long the job runs, and when Redis comes back after it was killed, a
# second into the job: back while the job runs, or only after it ended.
OUTAGES = {"shorter than the job": (4, 1.5), "outlasting the job": (2, 4)}


@pytest.mark.parametrize("job_seconds, down_seconds", OUTAGES.values(), ids=OUTAGES)
def test_a_worker_outlives_its_redis_killed_mid_job_and_takes_the_next_job(
    redis_server, worker, tmp_path, job_seconds, down_seconds
):
    queue = Queue("outage", connection=redis_server.client())
    first, second = tmp_path / "first", tmp_path / "second"
    queue.enqueue(note, str(first), job_seconds)
    until(lambda: Worker.all(queue=queue)[0].get_current_job_id(), "the job began")
    time.sleep(1)

    redis_server.kill()
    time.sleep(down_seconds)
    redis_server.start()
    # The job's own work was never the queue's: it ran to its end.
    until(first.exists, "the first job wrote its file")

    # Redis came back empty: the worker registered itself again.
    until(lambda: Worker.all(queue=queue), "the worker listens again")
    queue = Queue("outage", connection=redis_server.client())
    queue.enqueue(note, str(second), 0)
    until(second.exists, "the worker took the next job")
    assert worker.poll() is None

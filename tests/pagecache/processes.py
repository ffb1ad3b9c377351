"""Processes of the site's own, started and stopped by a test: a Redis to cut
and restore, and a fresh process of the site (as after a restart) running a
few lines against the test's database."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import redis
from django.db import connection

from tests.pagecache.test_instances import free_port

ROOT = Path(__file__).resolve().parents[2]


class OwnRedis:
    """A redis-server of the test's own, on a free port, keeping its data in
    ``folder``: cut (killed), then started again on the same port with what
    it last saved, as after a network blink."""

    def __init__(self, folder):
        self.folder = folder
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = None
        self.start()

    def start(self):
        self.process = subprocess.Popen(
            [
                *("redis-server", "--port", str(self.port), "--bind", "127.0.0.1"),
                *("--dir", str(self.folder), "--dbfilename", "dump.rdb"),
                *("--save", "", "--appendonly", "no"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(100):
            try:
                if self.client().ping():
                    return
            except redis.RedisError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server on port {self.port} did not start")

    def client(self):
        return redis.Redis.from_url(self.url, socket_connect_timeout=1)

    def cut(self):
        """Save what it holds, then die at once, as a machine does."""
        self.client().save()
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=20)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)


def database_url():
    """The test database, as DATABASE_URL names it to another process."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    return (
        f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}"
    )


def site_environment(**settings):
    """The environment of a process of the site on the test's database."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "anthology.settings",
        "DATABASE_URL": database_url(),
        "ALLOWED_HOSTS": "testserver",
        # Static files are named from their sources, as for the tests.
        "DEBUG": "1",
        **settings,
    }


def in_a_new_process(code, **settings):
    """Run ``code`` in a new process of the site with ``settings`` in its
    environment; what it printed last, read as JSON, and its exit status."""
    script = "import django\ndjango.setup()\n" + textwrap.dedent(code)
    finished = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=site_environment(**settings),
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = finished.stdout.strip().splitlines()
    answer = json.loads(lines[-1]) if lines else None
    return answer, finished

"""What the suite needs from outside Python (programs, a Redis, free ports) and
the one rule for when it is missing: a test that needs it is skipped with the
package to install, except under CI (``CI=true``), where it fails, so that CI
never passes by skipping."""

import functools
import glob
import os
import secrets
import shutil
import socket
import subprocess
import threading
from pathlib import Path

import pytest
import redis

# Tests share whatever Redis TEST_REDIS_URL names with other runs and other
# projects: they keep their keys and queues under a prefix of their process's
# own and never flush a database.
TEST_REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
RUN_PREFIX = f"anthology-test-{os.getpid()}-{secrets.token_hex(4)}"

CHROMIUM = os.environ.get("CHROMIUM", "chromium")
# The clients from npm the tests read answers with (package.json, installed by
# `make test` into node_modules when npm is there).
NODE_MODULES = Path(__file__).resolve().parent.parent / "node_modules"
VARNISHD = os.environ.get("VARNISHD", "varnishd")


def in_ci():
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def missing(what, install_hint):
    """Skip the running test for want of ``what``; under CI, fail it."""
    message = f"{what} is missing: {install_hint}"
    if in_ci():
        pytest.fail(f"{message} (under CI no test may skip for it)", pytrace=False)
    pytest.skip(message)


def require_tool(name, install_hint, *, also=()):
    """The path of the program ``name`` (a name on PATH or a path), else of the
    first of ``also`` that exists; ``missing`` when none does."""
    found = shutil.which(name) or next(
        (path for path in also if shutil.which(path)), None
    )
    if found is None:
        missing(name, install_hint)
    return found


def require_varnishd():
    """varnishd (often in /usr/sbin, off a user's PATH) and its xkey vmod."""
    varnishd = require_tool(
        VARNISHD, "apt-get install varnish", also=["/usr/sbin/varnishd"]
    )
    if not glob.glob("/usr/lib/*/varnish/vmods/libvmod_xkey.so"):
        missing("varnish's xkey vmod", "apt-get install varnish-modules")
    return varnishd


def require_node_package(name):
    """The folder of the npm package ``name`` under node_modules, with Node
    to run it; ``missing`` when either is absent."""
    require_tool("node", "apt-get install nodejs")
    folder = NODE_MODULES / name
    if not (folder / "package.json").exists():
        missing(f"the npm package {name}", "npm ci (make test runs it)")
    return folder


def require_checkout(variable, url, commit):
    """The folder ``variable`` names: a git checkout of ``url`` at ``commit``.

    The one exception to ``missing``: CI cannot reach GitHub and the project
    keeps no copy of another project's repository, so where ``variable`` is
    unset the test is skipped, under CI too, naming the commit and how to get
    it; what such a test reads is also asserted by a test that always runs. A
    checkout at another commit fails: its answers are not the pinned ones."""
    folder = os.environ.get(variable)
    if not folder:
        pytest.skip(
            f"{variable} is unset: it names a checkout of {url} at {commit} "
            f"(git clone {url} DIR && git -C DIR checkout {commit}; "
            f"{variable}=DIR); skipped under CI too, which cannot reach GitHub"
        )
    head = subprocess.run(
        ["git", "-C", folder, "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    if head != commit:
        pytest.fail(f"{variable} ({folder}) is at {head or 'no commit'}, not {commit}")
    return folder


# What the ``node`` marker asks for: every package of package.json.
NODE_PACKAGES = ("citeproc", "jsdom", "vnu-jar")


def redis_client():
    return redis.Redis.from_url(TEST_REDIS_URL, socket_connect_timeout=1)


@functools.cache
def redis_is_up():
    try:
        return redis_client().ping()
    except redis.RedisError:
        return False


def require_redis():
    if not redis_is_up():
        missing(
            f"a Redis at {TEST_REDIS_URL}",
            "apt-get install redis-server, or name one in TEST_REDIS_URL",
        )


def free_port():
    """A port nothing listens on now, so runs side by side never collide."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# What each marker needs, checked before each test that carries it.
REQUIREMENTS = {
    "browser": lambda: require_tool(CHROMIUM, "apt-get install chromium"),
    "redis": require_redis,
    "varnish": require_varnishd,
    "java": lambda: require_tool("java", "apt-get install default-jre-headless"),
    "biber": lambda: require_tool("biber", "apt-get install biber"),
    "pandoc": lambda: require_tool("pandoc", "apt-get install pandoc"),
    "bibutils": lambda: require_tool("bib2xml", "apt-get install bibutils"),
    "node": lambda: [require_node_package(name) for name in NODE_PACKAGES],
}


class SilentServer:
    """A local port that accepts every connection and never answers, as a
    Redis that hangs does; counts the connections it took. A context manager
    whose ``url`` is a Redis URL for it."""

    def __init__(self):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.accepted = []
        self._thread = None

    def _accept(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:  # Closed: the test is over.
                return
            self.accepted.append(connection)

    def __enter__(self):
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self.listener.close()
        for connection in self.accepted:
            connection.close()

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pagecache.processes import OwnRedis

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def static_root(tmp_path_factory):
    """Collected static files, as `make serve` makes them, for the sites the
    tests start in processes of their own."""
    root = tmp_path_factory.mktemp("static")
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--no-input", "-v0"],
        cwd=ROOT,
        env={**os.environ, "STATIC_ROOT": str(root)},
        check=True,
    )
    return root


@pytest.fixture
def own_redis(tmp_path):
    """A Redis of the test's own, to cut and restore; stopped after."""
    server = OwnRedis(tmp_path)
    yield server
    server.stop()

import subprocess
import sys

import pytest


@pytest.fixture
def dead_pid():
    """The id of a process that ran on this host and has ended."""
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    return ended.pid

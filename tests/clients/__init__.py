"""Readers' own tools, run as they run for readers, for the tests to read the
anthology's answers with."""

import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def run_node(harness, request):
    """What the Node script ``harness`` answers, as JSON on its standard
    output, to ``request`` given as JSON on its standard input; run from the
    checkout, where node_modules is."""
    answer = subprocess.run(
        ["node", str(harness)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=ROOT,
    )
    return json.loads(answer.stdout)

"""A stop asked for while the worker is idle stops it, wherever the signal
lands: inside a chore that handles every error of its own too."""

import contextlib
import os
import signal

import pytest
from rq import Queue

from jobs.worker import Worker
from tests.jobs.test_worker_outage import redis_server  # noqa: F401

pytestmark = pytest.mark.workers

SIGNALLED = []


def swallowing_chore():
    """A chore as the outbox's drain is: any error it meets is logged and
    gone. The first run is where SIGTERM lands; a second SIGTERM, on a later
    run, would be the operator's cold shutdown."""
    SIGNALLED.append(True)
    with contextlib.suppress(Exception):
        os.kill(os.getpid(), signal.SIGTERM)


@pytest.fixture
def signal_handlers():
    kept = {
        number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)
    }
    yield
    for number, handler in kept.items():
        signal.signal(number, handler)


def test_sigterm_landing_in_a_chore_that_handles_every_error_stops_the_worker(
    redis_server,  # noqa: F811
    signal_handlers,
    settings,
):
    settings.JOBS_CHORES = [f"{__name__}.swallowing_chore"]
    settings.JOBS_CHORE_SECONDS = 1
    SIGNALLED.clear()
    worker = Worker(
        [Queue("stopping", connection=redis_server.client())],
        connection=redis_server.client(),
    )

    try:
        worker.work(with_scheduler=False)
    except SystemExit:
        pytest.fail("the worker stopped only on a second SIGTERM (a cold shutdown)")

    assert SIGNALLED == [True]

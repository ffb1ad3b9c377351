"""Progress of long imports and exports, told to whoever is listening: a
progress bar on a terminal (``bar``), a background job's page, or no one.

The work calls ``report(done, total)`` or iterates through ``counted``; the
caller chooses the listener with ``reporting``.
"""

import contextvars
import sys
from contextlib import contextmanager

from tqdm import tqdm

_listener = contextvars.ContextVar("progress listener", default=None)


@contextmanager
def reporting(listener):
    """Send the progress reported inside the block to ``listener(done, total)``."""
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)


def report(done, total):
    listener = _listener.get()
    if listener is not None:
        listener(done, total)


def counted(items, total, every=500):
    """``items``, reporting every ``every`` of ``total`` and the last."""
    for done, item in enumerate(items, start=1):
        yield item
        if done % every == 0 or done == total:
            report(done, total)


@contextmanager
def bar(description, unit="rows"):
    """A progress bar on the terminal (tqdm) for the block's reports; nothing
    at all when standard error is not a terminal (CI logs, cron, pipes)."""
    with tqdm(
        desc=description, unit=unit, file=sys.stderr, disable=None
    ) as progress_bar:

        def update(done, total):
            if progress_bar.total != total:
                progress_bar.total = total
            progress_bar.update(done - progress_bar.n)

        with reporting(update):
            yield

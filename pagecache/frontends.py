"""Shared caches in front of the site, purged by the keys of what changed.

A cached page tells the shared caches in front (Varnish, a CDN) how long they
may keep it (``s-maxage``) and which keys it shows: its scopes. When scopes
expire (``generations.expire``, after the change commits), every configured
frontend is asked to drop the pages carrying those keys, so a reader's next
request through it is exact.

Purges run on one background thread of each process: a slow or unreachable
frontend never holds up the editor's save. A failed purge is retried with a
growing pause, each failure logged, and logged as an error when it gives up;
the expiry it belongs to stays in the outbox (``generations``), and a drain
sends it again until it lands. The thread stops with its process, so a
process that ends right after its change (a command, a job's work horse)
first gives its purges the time of one attempt (``finish``); a forked process
starts a thread of its own.

``PAGE_CACHE_FRONTENDS`` names the frontends, as ``CACHES`` names caches::

    PAGE_CACHE_FRONTENDS = {
        "varnish": {"BACKEND": "pagecache.frontends.Varnish",
                    "LOCATION": "http://127.0.0.1:6081"},
    }

Fastly and Cloudflare purge by key as Varnish does; CloudFront knows only
paths, which ``PAGE_CACHE_SCOPE_PATHS`` (the site's function from a scope to
path patterns) gives.
"""

import atexit
import json
import logging
import os
import queue
import threading
import time
import uuid
from functools import cache

import httpx
from django.conf import settings
from django.utils.module_loading import import_string

logger = logging.getLogger(__name__)


class PurgeFailed(Exception):
    """The frontend did not confirm the purge."""


def _send(method, url, *, timeout, headers, body=None):
    """The body of the answer, or PurgeFailed naming why there is none."""
    try:
        response = httpx.request(
            method, url, headers=headers, content=body, timeout=timeout
        )
    except httpx.HTTPError as error:
        raise PurgeFailed(f"{url} unreachable: {error!r}") from error
    if response.is_error:
        raise PurgeFailed(f"{url} answered {response.status_code}")
    return response.content


class Frontend:
    """One shared cache in front: the header it reads keys from, its purge."""

    # The response header naming a page's keys, and what separates them.
    key_header = None
    key_separator = " "
    # Keys one purge request may name.
    batch_size = 256

    def __init__(self, *, location="", timeout=5, **options):
        self.location = location.rstrip("/")
        self.timeout = timeout
        self.options = options

    def key_header_value(self, keys):
        return self.key_separator.join(sorted(keys))

    def purge(self, keys):
        keys = sorted(keys)
        for start in range(0, len(keys), self.batch_size):
            self.purge_batch(keys[start : start + self.batch_size])

    def purge_batch(self, keys):
        raise NotImplementedError


class Varnish(Frontend):
    """Varnish with the xkey vmod: ``PURGE`` with an ``xkey-purge`` header
    (deploy/varnish/anthology.vcl answers it)."""

    key_header = "xkey"

    def purge_batch(self, keys):
        _send(
            "PURGE",
            self.location + "/",
            timeout=self.timeout,
            headers={"xkey-purge": " ".join(keys)},
        )


class Fastly(Frontend):
    """Fastly's purge by surrogate key, up to 256 keys a request."""

    key_header = "Surrogate-Key"

    def purge_batch(self, keys):
        base = self.location or "https://api.fastly.com"
        _send(
            "POST",
            f"{base}/service/{self.options['SERVICE_ID']}/purge",
            timeout=self.timeout,
            headers={
                "Fastly-Key": self.options["API_TOKEN"],
                "Surrogate-Key": " ".join(keys),
                "Accept": "application/json",
            },
        )


class Cloudflare(Frontend):
    """Cloudflare's purge by cache tag (``Cache-Tag``), 30 tags a request."""

    key_header = "Cache-Tag"
    key_separator = ","
    batch_size = 30

    def purge_batch(self, keys):
        base = self.location or "https://api.cloudflare.com/client/v4"
        answer = _send(
            "POST",
            f"{base}/zones/{self.options['ZONE_ID']}/purge_cache",
            timeout=self.timeout,
            headers={
                "Authorization": f"Bearer {self.options['API_TOKEN']}",
                "Content-Type": "application/json",
            },
            body=json.dumps({"tags": keys}).encode(),
        )
        try:
            success = json.loads(answer).get("success")
        except (ValueError, AttributeError) as error:
            raise PurgeFailed(f"Cloudflare answered {answer[:200]!r}") from error
        if success is not True:
            raise PurgeFailed(f"Cloudflare refused the purge: {answer[:500]!r}")


class CloudFront(Frontend):
    """Amazon CloudFront's invalidation of paths, signed by boto3; a key
    becomes the paths ``PAGE_CACHE_SCOPE_PATHS`` gives for it."""

    batch_size = 3000

    def purge_batch(self, keys):
        paths = sorted({path for key in keys for path in _scope_paths()(key)})
        if not paths:
            return
        try:
            self._client().create_invalidation(
                DistributionId=self.options["DISTRIBUTION_ID"],
                InvalidationBatch={
                    "Paths": {"Quantity": len(paths), "Items": paths},
                    "CallerReference": uuid.uuid4().hex,
                },
            )
        except Exception as error:  # botocore's errors share no base class.
            raise PurgeFailed(f"CloudFront: {error}") from error

    def _client(self):
        # boto3 is imported by the sites purging CloudFront alone: it adds
        # about a tenth of a second to every process's start.
        import boto3
        from botocore.config import Config

        return boto3.client(
            "cloudfront",
            endpoint_url=self.location or None,
            region_name="us-east-1",
            config=Config(
                connect_timeout=self.timeout,
                read_timeout=self.timeout,
                retries={"max_attempts": 1},
            ),
            **{
                name: self.options[option]
                for name, option in [
                    ("aws_access_key_id", "ACCESS_KEY_ID"),
                    ("aws_secret_access_key", "SECRET_ACCESS_KEY"),
                ]
                if self.options.get(option)
            },
        )


@cache
def _scope_paths():
    return import_string(settings.PAGE_CACHE_SCOPE_PATHS)


def configured():
    """The frontends ``PAGE_CACHE_FRONTENDS`` names, made once per settings."""
    return _configured(json.dumps(settings.PAGE_CACHE_FRONTENDS, sort_keys=True))


@cache
def _configured(spec):
    frontends = []
    for options in json.loads(spec).values():
        options = dict(options)
        backend = import_string(options.pop("BACKEND"))
        location = options.pop("LOCATION", "")
        timeout = options.pop("TIMEOUT", 5)
        frontends.append(backend(location=location, timeout=timeout, **options))
    return frontends


def key_headers(keys):
    """The response headers naming ``keys`` for every configured frontend."""
    return {
        frontend.key_header: frontend.key_header_value(keys)
        for frontend in configured()
        if frontend.key_header
    }


def purge(keys, *, then=None, keep_trying=False):
    """Drop the pages carrying ``keys`` from every frontend, in the background;
    then call ``then`` (on the purge thread) once every one confirmed.

    ``keep_trying``: once the pauses are spent, try again at the last pause
    until the purge lands (for a process no job worker drains behind).
    """
    frontends = configured()
    if keys and frontends:
        purger = _purger()
        purger.patience = max(purger.patience, *(f.timeout for f in frontends))
        purger.put((frontends, frozenset(keys), then, keep_trying))


def wait(timeout=None):
    """Return once every purge asked for so far has succeeded or given up, or
    once ``timeout`` seconds have passed; whether they all had."""
    if not _purger.cache_info().currsize:
        return True
    purger = _purger()
    with purger.all_tasks_done:
        return purger.all_tasks_done.wait_for(
            lambda: not purger.unfinished_tasks, timeout
        )


def finish():
    """Before this process ends, wait for the purges asked for so far, up to
    the longest TIMEOUT of their frontends (what an attempt may take); what
    has not landed by then stays in the outbox, and a drain sends it again.

    The purge thread stops with its process: a process that ends as soon as
    its change commits (a command, a job's work horse) would otherwise leave
    its purges unsent, and the pages in front stale until a drain."""
    if _purger.cache_info().currsize:
        purger = _purger()
        if not wait(timeout=purger.patience):
            logger.warning(
                "Purges still unsent as the process ends: left to the outbox's drain"
            )


class Purger(queue.Queue):
    """One thread purging what it is given, retrying each frontend apart."""

    def __init__(self):
        super().__init__()
        # The longest TIMEOUT of the frontends it was given (``finish``).
        self.patience = 0
        threading.Thread(target=self._run, name="frontend-purge", daemon=True).start()

    def _run(self):
        while True:
            frontends, keys, then, keep_trying = self.get()
            try:
                landed = [
                    purge_with_retries(frontend, keys, keep_trying=keep_trying)
                    for frontend in frontends
                ]
                if then is not None and all(landed):
                    then()
            except Exception:
                # A misconfigured frontend must not stop the purges of others.
                logger.exception("Purge of %s failed", " ".join(sorted(keys)))
            finally:
                self.task_done()


@cache
def _purger():
    return Purger()


# A forked process has none of its parent's threads: its purges need a thread
# of its own, and its parent's still waiting are the parent's to send.
os.register_at_fork(after_in_child=_purger.cache_clear)
# At the interpreter's exit daemon threads still run, until the handlers end.
atexit.register(finish)


def purge_with_retries(frontend, keys, *, keep_trying=False):
    """Purge ``keys`` from ``frontend``, retrying; True once it confirmed."""
    pauses = settings.PAGE_CACHE_PURGE_RETRY_PAUSES
    attempt = 0
    while True:
        attempt += 1
        try:
            frontend.purge(keys)
            return True
        except PurgeFailed as error:
            if attempt > len(pauses) and not keep_trying:
                logger.error(
                    "Purge of %s from %s failed %d times, given up: %s",
                    " ".join(sorted(keys)),
                    type(frontend).__name__,
                    attempt,
                    error,
                )
                return False
            # Kept trying without pauses configured: every half minute.
            pause = pauses[min(attempt, len(pauses)) - 1] if pauses else 30
            logger.warning(
                "Purge from %s failed (attempt %d), retrying in %ss: %s",
                type(frontend).__name__,
                attempt,
                pause,
                error,
            )
            time.sleep(pause)

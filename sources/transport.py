"""Every outbound request of a lookup, made one way: bounded in time, in size
and in where it may lead.

- **A deadline for the whole lookup** (``METADATA_TIMEOUT``): connecting,
  redirects, headers and the whole body share it. The request is read in a
  thread of its own and the caller waits for it no longer than the deadline,
  so a server that drips a byte every few seconds (which never trips a
  per-read timeout) holds nobody past it; the connection is then closed,
  which ends the thread's read.
- **A maximum answer** (``METADATA_MAX_BYTES``), counted while the body is
  read (decompressed), so a huge or endless answer is never held whole.
- **Redirects stay with the service**: to the same host and port as the
  address asked, over HTTP or HTTPS, five at most. Anywhere else (another
  port of the same machine, the site itself) is refused with one message,
  whatever the target, before anything is asked of it: the lookup cannot be
  turned into a probe of other addresses. A caller that checks arbitrary
  addresses (the link check) gives its own ``follows`` rule instead, which
  sees every target before it is asked.

Each failure is a ``LookupFailed`` with a message for the editor.
"""

import functools
import json
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as WaitedTooLong
from dataclasses import dataclass

import httpx
from django.conf import settings

MAX_REDIRECTS = 5
# Lookups waiting on slow servers at once; more wait their turn (within their
# own deadline).
_readers = ThreadPoolExecutor(max_workers=8, thread_name_prefix="lookup")


class LookupFailed(Exception):
    """A lookup that found nothing usable; ``message`` is for the editor."""

    def __init__(self, message, *, code):
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass(frozen=True)
class Answer:
    """A service's answer, read whole and within the bounds."""

    status_code: int
    headers: httpx.Headers
    content: bytes

    def json(self):
        return json.loads(self.content)


def get(service, url, *, params=None, user_agent="", follows=None, body=True):
    """GET ``url`` from ``service`` (its name, for messages): the Answer, or
    LookupFailed for no network, the deadline passed, an answer too large,
    a redirect elsewhere or a rate limit.

    ``follows(target)`` (an httpx.URL) raises LookupFailed for a redirect
    not to be followed; by default only the service's own host and port are.
    Without ``body`` only the status and headers are read."""
    timeout = settings.METADATA_TIMEOUT
    deadline = time.monotonic() + timeout
    client = httpx.Client(
        headers={"User-Agent": user_agent},
        timeout=timeout,
        follow_redirects=False,
        verify=_ssl_context(),
    )
    try:
        reading = _readers.submit(
            _read, service, client, url, params, deadline, follows, body
        )
        answer = reading.result(timeout=max(0.0, deadline - time.monotonic()))
    except (WaitedTooLong, httpx.TimeoutException):
        raise _too_slow(service) from None
    except httpx.HTTPError as error:
        raise LookupFailed(
            f"{service} could not be reached ({error.__class__.__name__}): is this "
            "server offline? Fill in the form by hand, or try again later.",
            code="unreachable",
        ) from None
    finally:
        client.close()
    if answer.status_code == 429:
        wait = answer.headers.get("Retry-After", "")
        later = f"in {wait} seconds" if wait.isdigit() else "later"
        raise LookupFailed(
            f"{service} is limiting our requests (429 Too Many Requests); try again "
            f"{later}.",
            code="rate_limited",
        )
    return answer


@functools.cache
def _ssl_context():
    """The certificates every request verifies against, loaded once: loading
    them takes tens of milliseconds, far more than a local request."""
    return httpx.create_ssl_context()


def _too_slow(service):
    return LookupFailed(
        f"{service} did not answer within {settings.METADATA_TIMEOUT:g} "
        "seconds; try again later, or fill in the form by hand.",
        code="timeout",
    )


def _read(service, client, url, params, deadline, follows=None, body=True):
    """The answer at ``url``, following redirects that stay with the service
    (or that ``follows`` allows)."""
    asked = httpx.URL(url)
    for _ in range(MAX_REDIRECTS + 1):
        with client.stream("GET", url, params=params) as response:
            if not response.is_redirect:
                content = _body(service, response, deadline) if body else b""
                return Answer(response.status_code, response.headers, content)
            url, params = _redirect_target(service, asked, response, follows), None
    raise LookupFailed(
        f"{service} redirected us more than {MAX_REDIRECTS} times; try again later.",
        code="redirect",
    )


def _redirect_target(service, asked, response, follows=None):
    target = response.next_request.url if response.next_request else None
    if target is not None and target.scheme in {"http", "https"} and follows:
        follows(target)
        return target
    if (
        target is None
        or target.scheme not in {"http", "https"}
        or (target.host, target.port) != (asked.host, asked.port)
    ):
        raise LookupFailed(
            f"{service} sent us to another address than its own; nothing was "
            "asked of it, and nothing was filled in.",
            code="redirect",
        )
    return target


def _body(service, response, deadline):
    """The body, read a chunk at a time: refused once past the size limit or
    the deadline."""
    limit = settings.METADATA_MAX_BYTES
    chunks, size = [], 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > limit:
            raise LookupFailed(
                f"{service}'s answer is larger than {limit:,} bytes; it was not "
                "read. Fill in the form by hand.",
                code="too_large",
            )
        if time.monotonic() > deadline:
            raise _too_slow(service)
        chunks.append(chunk)
    return b"".join(chunks)

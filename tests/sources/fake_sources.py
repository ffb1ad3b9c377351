"""A local stand-in for the arXiv API and Crossref's REST API.

It serves the recorded answers under ``sources/`` (written from arXiv's Atom
and Crossref's JSON formats) at ``/arxiv/api/query?id_list=…`` and
``/crossref/works/<doi>``, and the ways each service fails: an unknown
identifier, a rate limit, a malformed answer, an answer about another work,
a server error and an answer too slow to wait for. No test reaches the
internet.

And the ways a hostile server answers (``HOSTILE``): dripping its answer a
byte at a time (headers or body), an answer too large, a gzip bomb, JSON
nested deeper than a parser recurses, redirects to another port of the
machine (``10.5555/redirect-to-<port>``); and ``/moved/…``, which redirects
to the same address without ``/moved``, as a service moving its API does.
"""

import gzip
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

SOURCES = Path(__file__).parent / "answers"
# Seconds the slow identifiers keep the client waiting: longer than the
# tests' METADATA_TIMEOUT.
SLOW = 3.0
ATOM = "application/atom+xml; charset=utf-8"
JSON = "application/json"
NOT_FOUND = (404, "text/plain", b"Resource not found.")


def _file(path, content_type):
    return 200, content_type, (SOURCES / path).read_bytes()


# How each service answers for an identifier that has no recording of its own.
ARXIV = {
    "9999.99999": lambda: _file("arxiv/empty.xml", ATOM),
    "cond-mat/0000000": lambda: _file("arxiv/error.xml", ATOM),
    "1111.11111": lambda: _file("arxiv/malformed.xml", ATOM),
    # Answers with 1604.06174: another paper than the one asked for.
    "2222.22222": lambda: _file("arxiv/1604.06174.xml", ATOM),
    "4444.44444": lambda: (429, "text/plain", b"Rate exceeded."),
    "5555.55555": lambda: (503, "text/plain", b"Service Unavailable"),
}
CROSSREF = {
    "10.5555/malformed": lambda: _file("crossref/malformed.json", JSON),
    "10.5555/no-title": lambda: _file("crossref/no-title.json", JSON),
    # Answers with 10.1109/tac.1986.1104412: another work than the one asked for.
    "10.5555/other": lambda: _file("crossref/other.json", JSON),
    "10.5555/limited": lambda: (429, "text/plain", b"Too Many Requests"),
}
SLOW_IDENTIFIERS = {"3333.33333", "10.5555/slow"}
# Seconds between two bytes of a dripped answer; 30 bytes take 3 seconds,
# twice the tests' METADATA_TIMEOUT, every byte well within it.
DRIP = 0.1
DRIPPED = b'{"message": {"DOI": "10.5555/drip"}}'[:30]
REDIRECT_RE = re.compile(r"10\.5555/redirect-to-(?P<port>\d+)")


def arxiv_answer(arxiv_id):
    recorded = SOURCES / "arxiv" / f"{arxiv_id.replace('/', '_')}.xml"
    if recorded.exists():
        return 200, ATOM, recorded.read_bytes()
    return ARXIV.get(arxiv_id, lambda: _file("arxiv/empty.xml", ATOM))()


def crossref_answer(doi):
    recorded = SOURCES / "crossref" / f"{doi.replace('/', '_')}.json"
    if recorded.exists():
        return 200, JSON, recorded.read_bytes()
    return CROSSREF.get(doi, lambda: NOT_FOUND)()


class Handler(BaseHTTPRequestHandler):
    requests = []

    def do_GET(self):
        url = urlsplit(self.path)
        self.requests.append((url.path, self.headers.get("User-Agent")))
        if url.path.startswith("/moved/"):
            return self._redirect(self.path.removeprefix("/moved"))
        if url.path == "/arxiv/api/query":
            identifier = parse_qs(url.query).get("id_list", [""])[0]
            answer = arxiv_answer
        elif url.path.startswith("/crossref/works/"):
            identifier = unquote(url.path.removeprefix("/crossref/works/"))
            answer = crossref_answer
        else:
            return self._send(*NOT_FOUND)
        if hostile := HOSTILE.get(identifier):
            return hostile(self)
        if redirect := REDIRECT_RE.fullmatch(identifier):
            return self._redirect(f"http://127.0.0.1:{redirect['port']}/admin/")
        if identifier in SLOW_IDENTIFIERS:
            time.sleep(SLOW)
        status, content_type, body = answer(identifier)
        headers = {"Retry-After": "30"} if status == 429 else {}
        return self._send(status, content_type, body, headers)

    def _send(self, status, content_type, body, headers=None):
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # A client that timed out has gone.

    def _redirect(self, location):
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _drip(self, data):
        try:
            for byte in data:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(DRIP)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def drip_body(self):
        self.send_response(200)
        self.send_header("Content-Type", JSON)
        self.send_header("Content-Length", str(len(DRIPPED)))
        self.end_headers()
        self._drip(DRIPPED)

    def drip_headers(self):
        self._drip(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n")

    def huge(self):
        # Three megabytes of an endless JSON string, never closed.
        self.send_response(200)
        self.send_header("Content-Type", JSON)
        self.end_headers()
        try:
            self.wfile.write(b'{"message": "')
            for _ in range(3 * 16):
                self.wfile.write(b"x" * 65536)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def gzip_bomb(self):
        body = gzip.compress(b" " * (3 * 1024 * 1024))
        self.send_response(200)
        self.send_header("Content-Type", JSON)
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def nested(self):
        self._send(200, JSON, b'{"message": ' + b"[" * 100000 + b"]" * 100000 + b"}")

    def log_message(self, format, *args):
        pass


HOSTILE = {
    "10.5555/drip": Handler.drip_body,
    "10.5555/drip-headers": Handler.drip_headers,
    "10.5555/huge": Handler.huge,
    "10.5555/gzip-bomb": Handler.gzip_bomb,
    "10.5555/nested": Handler.nested,
    # The site itself, where an editor's session would be.
    "10.5555/redirect-to-site": lambda handler: handler._redirect(
        "http://localhost:8000/admin/"
    ),
}


class FakeSources:
    """The fake services on a free local port, in a thread of their own."""

    def __init__(self):
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def requests(self):
        return Handler.requests

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

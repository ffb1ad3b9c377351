"""A local stand-in for what ``check_sources`` asks: arXiv's API answering a
batch of ids (``id_list=a,b,c``) in one Atom feed, Crossref's works, the DOI
resolver's handle API, and link targets answering any status.

- ``/arxiv/api/query``: one feed holding an entry for each id asked, in
  arXiv's shape. An id with a recording under ``answers/checks/arxiv/``
  answers its entry; ``9999.*`` is omitted from the feed (as arXiv leaves
  out what it cannot find); ``cond-mat/0000000`` makes the whole answer
  arXiv's error feed, as one malformed id does; ``1111.11111`` a malformed
  feed, ``4444.44444`` a 429 and ``5555.55555`` a 503. Any other id answers
  a generated entry, at v2 for an id ending in 3 and at v1 otherwise, so a
  benchmark's hundred thousand ids are known and some have moved on.
- ``/crossref/works/<doi>``: a recording under ``answers/checks/crossref/``,
  else 404 for ``10.5555/missing*``, 429 for ``10.5555/limited``, 503 for
  ``10.5555/down``, else a generated work with no updates.
- ``/doi/api/handles/<doi>``: ``10.5555/unresolved*`` is not found (HTTP 404,
  responseCode 100), anything else found (responseCode 1).
- ``/links/<status>/…`` answers ``<status>``; ``/links/moved/<status>/…``
  redirects there first.

Each server keeps what it was asked (``requests``: path, query, User-Agent),
unless told not to (``record=False``: a benchmark's memory is the checks').
"""

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

ANSWERS = Path(__file__).parent / "answers" / "checks"
ATOM = "application/atom+xml; charset=utf-8"
JSON = "application/json"
ENTRY_RE = re.compile(rb"<entry>.*?</entry>", re.S)
FEED_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<feed xmlns="http://www.w3.org/2005/Atom" '
    'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
    'xmlns:arxiv="http://arxiv.org/schemas/atom">\n'
    "  <id>https://arxiv.org/api/fake-batch</id>\n"
    "  <title>arXiv Query: search_query=&amp;id_list={ids}&amp;start=0&amp;"
    "max_results={most}</title>\n"
    "  <updated>2026-12-03T00:00:00Z</updated>\n"
    '  <link href="https://arxiv.org/api/query?search_query=&amp;id_list={ids}'
    '&amp;start=0&amp;max_results={most}" type="application/atom+xml"/>\n'
    "  <opensearch:itemsPerPage>{most}</opensearch:itemsPerPage>\n"
    "  <opensearch:totalResults>{total}</opensearch:totalResults>\n"
    "  <opensearch:startIndex>0</opensearch:startIndex>\n"
)
GENERATED_ENTRY = """  <entry>
    <id>http://arxiv.org/abs/{id}v{version}</id>
    <title>Generated paper {id}</title>
    <updated>2024-01-01T00:00:00Z</updated>
    <link href="https://arxiv.org/abs/{id}v{version}" rel="alternate" type="text/html"/>
    <summary>A generated abstract.</summary>
    <published>2024-01-01T00:00:00Z</published>
    <arxiv:comment>8 pages</arxiv:comment>
    <arxiv:primary_category term="cs.LG"/>
    <author>
      <name>Generated Author</name>
    </author>
  </entry>
"""
ERROR_FEED = b"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">
  <id>https://arxiv.org/api/errors</id>
  <title>arXiv Query: search_query=&amp;id_list=cond-mat/0000000</title>
  <updated>2026-12-03T00:00:00Z</updated>
  <opensearch:totalResults>1</opensearch:totalResults>
  <entry>
    <id>http://arxiv.org/api/errors#incorrect_id_format_for_cond-mat/0000000</id>
    <title>Error</title>
    <summary>incorrect id format for cond-mat/0000000</summary>
    <updated>2026-12-03T00:00:00Z</updated>
    <author><name>arXiv api core</name></author>
  </entry>
</feed>
"""
MALFORMED_FEED = (
    b'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><entry>'
)
GENERATED_WORK = (
    '{{"status":"ok","message-type":"work","message-version":"1.0.0","message":'
    '{{"DOI":"{doi}","type":"journal-article","source":"Crossref",'
    '"title":["Generated work"],"author":[{{"given":"A.","family":"Author",'
    '"sequence":"first","affiliation":[]}}],"issued":{{"date-parts":[[2024,1]]}},'
    '"URL":"https://doi.org/{doi}"}}}}'
)


def arxiv_answer(ids):
    if "cond-mat/0000000" in ids:
        return 200, ATOM, ERROR_FEED
    if "1111.11111" in ids:
        return 200, ATOM, MALFORMED_FEED
    if "4444.44444" in ids:
        return 429, "text/plain", b"Rate exceeded."
    if "5555.55555" in ids:
        return 503, "text/plain", b"Service Unavailable"
    entries = []
    for arxiv_id in ids:
        if arxiv_id.startswith("9999."):
            continue
        recorded = ANSWERS / "arxiv" / f"{arxiv_id.replace('/', '_')}.xml"
        if recorded.exists():
            entries.append(b"  " + ENTRY_RE.search(recorded.read_bytes())[0] + b"\n")
        else:
            version = 2 if arxiv_id.endswith("3") else 1
            entries.append(
                GENERATED_ENTRY.format(id=arxiv_id, version=version).encode()
            )
    head = FEED_HEAD.format(ids=",".join(ids), most=len(ids), total=len(entries))
    return 200, ATOM, head.encode() + b"".join(entries) + b"</feed>\n"


def crossref_answer(doi):
    recorded = ANSWERS / "crossref" / f"{doi.replace('/', '_')}.json"
    if recorded.exists():
        return 200, JSON, recorded.read_bytes()
    if doi.startswith("10.5555/missing"):
        return 404, "text/plain", b"Resource not found."
    if doi == "10.5555/limited":
        return 429, "text/plain", b"Too Many Requests"
    if doi == "10.5555/down":
        return 503, "text/html", b"<html><body>Service Unavailable</body></html>"
    return 200, JSON, GENERATED_WORK.format(doi=doi).encode()


def handle_answer(doi):
    name = "not-found" if doi.startswith("10.5555/unresolved") else "found"
    body = (ANSWERS / "doi" / f"{name}.json").read_text().replace("{handle}", doi)
    return (404 if name == "not-found" else 200), JSON, body.encode()


class Handler(BaseHTTPRequestHandler):
    requests = None  # Each server's own list (FakeChecks).

    def do_GET(self):
        url = urlsplit(self.path)
        self.requests.append((url.path, url.query, self.headers.get("User-Agent")))
        if url.path == "/arxiv/api/query":
            ids = parse_qs(url.query).get("id_list", [""])[0].split(",")
            return self._send(*arxiv_answer([i for i in ids if i]))
        if url.path.startswith("/crossref/works/"):
            doi = unquote(url.path.removeprefix("/crossref/works/"))
            return self._send(*crossref_answer(doi))
        if url.path.startswith("/doi/api/handles/"):
            doi = unquote(url.path.removeprefix("/doi/api/handles/"))
            return self._send(*handle_answer(doi))
        if url.path.startswith("/links/moved/"):
            return self._redirect(url.path.replace("/links/moved/", "/links/", 1))
        if match := re.fullmatch(r"/links/(\d{3})(?:/.*)?", url.path):
            return self._send(int(match[1]), "text/html", b"<html>a page</html>")
        return self._send(404, "text/plain", b"Not found.")

    def _send(self, status, content_type, body):
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            if status == 429:
                self.send_header("Retry-After", "30")
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _redirect(self, location):
        self.send_response(301)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format, *args):
        pass


class Forgetting(list):
    """A list that keeps nothing appended to it."""

    def append(self, item):
        pass


class FakeChecks:
    """The fake services on a local port (a free one by default), in a thread
    of their own."""

    def __init__(self, port=0, record=True):
        self.requests = [] if record else Forgetting()
        handler = type("CountingHandler", (Handler,), {"requests": self.requests})
        self.server = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        # Closing waits for the serving loop to see the shutdown, which it
        # looks for once a poll: the default half second, per server closed.
        self.thread = threading.Thread(
            target=self.server.serve_forever, args=(0.02,), daemon=True
        )

    def asked(self, prefix):
        """The requests whose path starts with ``prefix``."""
        return [request for request in self.requests if request[0].startswith(prefix)]

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

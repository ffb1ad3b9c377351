"""A local HTTP server that records what it is sent and answers as told, for
outside services (CDN purge APIs) spoken to in their documented format."""

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    method: str
    path: str
    headers: dict
    body: bytes


@dataclass
class FakeServer:
    """Answers each request with the next of ``answers`` (status, body), the
    last one repeated; holds every answer while ``held`` is clear."""

    answers: list = field(default_factory=lambda: [(200, b"{}")])
    received: list = field(default_factory=list)
    held: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self):
        self.held.set()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                fake.received.append(
                    Received(
                        self.command,
                        self.path,
                        {k.lower(): v for k, v in self.headers.items()},
                        self.rfile.read(length),
                    )
                )
                fake.held.wait(timeout=30)
                index = min(len(fake.received), len(fake.answers)) - 1
                status, body = fake.answers[index]
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PURGE = _answer

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        # ``close`` waits for the serving loop to see the shutdown, which it
        # looks for once a poll: the default half second, per server closed.
        threading.Thread(
            target=self.server.serve_forever, args=(0.02,), daemon=True
        ).start()

    def close(self):
        self.held.set()
        self.server.shutdown()
        self.server.server_close()

"""The servers a serving benchmark runs, and the clients it measures them with.

varnishd with a VCL of the benchmark's choosing in front of its gunicorn,
nginx serving a page's bytes as files (the baseline an edge must not fall
behind), wrk and one-off requests.
"""

import gzip
import http.client
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VARNISHD = shutil.which("varnishd") or "/usr/sbin/varnishd"
NGINX_BIN = shutil.which("nginx") or "/usr/sbin/nginx"
# What a browser says it takes; wrk and http.client say nothing.
BROWSER = "gzip, deflate, br"


def require(*tools):
    """Stop with what to install unless every one of ``tools`` is here."""
    for tool in tools:
        if not shutil.which(tool) and not Path(tool).exists():
            raise SystemExit(f"{tool} is missing: apt-get install wrk varnish")


def wait_for(port, path="/health/"):
    """Return once ``path`` on ``port`` answers, within a minute."""
    for _ in range(600):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", path)
            conn.getresponse().read()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"nothing answers on port {port}")


def start_gunicorn(port, *, overrides=None, access_log=None):
    """The site on ``port`` as `make serve` runs it (2 workers), with the
    settings of ``overrides`` on top of this process's environment; answering
    once started."""
    log = ["--access-logfile", str(access_log)] if access_log else []
    process = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("gunicorn")),
            "anthology.wsgi",
            *("--bind", f"127.0.0.1:{port}", "--workers", "2", *log),
        ],
        cwd=ROOT,
        env={**os.environ, **(overrides or {})},
        stderr=subprocess.DEVNULL,
    )
    wait_for(port)
    return process


def start_varnish(port, vcl, *, site, work):
    """varnishd on ``port`` with ``vcl``, whose ``include "backend.vcl"`` is
    the site on port ``site``; answering once started."""
    (work / "backend.vcl").write_text(
        f'backend default {{ .host = "127.0.0.1"; .port = "{site}"; '
        ".first_byte_timeout = 60s; }\n"
    )
    process = subprocess.Popen(
        [
            *(VARNISHD, "-F", "-a", f"127.0.0.1:{port}"),
            *("-n", str(work / f"varnish-{uuid.uuid4().hex[:6]}")),
            *("-f", str(vcl)),
            *("-p", f"vcl_path={work}:{ROOT / 'deploy' / 'varnish'}"),
            *("-s", "malloc,512m", "-T", "none", "-j", "none"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for(port)
    return process


def start_nginx(port, work, plain, zipped):
    """nginx on ``port`` serving ``plain`` as /page.html, and ``zipped`` (its
    gzip, as the site sent it) to clients that take gzip; None without nginx.
    It is checked to serve exactly those bytes."""
    if not Path(NGINX_BIN).exists():
        return None
    root = work / "nginx"
    root.mkdir(exist_ok=True)
    # nginx's workers run as another user than its master.
    for folder in work, root:
        folder.chmod(0o755)
    (root / "page.html").write_bytes(plain)
    (root / "page.html.gz").write_bytes(zipped)
    config = work / "nginx.conf"
    config.write_text(
        f"""daemon off; worker_processes 2; pid {work}/nginx.pid;
error_log {work}/nginx-error.log;
events {{ worker_connections 1024; }}
http {{ access_log off; sendfile on; keepalive_requests 100000;
  types {{ text/html html; }} gzip_static on; gzip_vary on;
  server {{ listen 127.0.0.1:{port}; root {root}; }} }}
"""
    )
    process = subprocess.Popen(
        [NGINX_BIN, "-c", str(config), "-e", str(work / "e.log")]
    )
    wait_for(port, "/page.html")
    served = get(port, "/page.html")[0], get(port, "/page.html", BROWSER)[0]
    if served != (plain, zipped):
        stop(process)
        raise SystemExit("nginx does not serve the page's bytes")
    return process


def stop(*processes):
    """Stop every one of ``processes`` that was started, and wait for it."""
    started = [process for process in processes if process is not None]
    for process in started:
        process.terminate()
    for process in started:
        process.wait(timeout=30)


def get(port, path, accept_encoding=None):
    """The body (as sent) and the X-Cache header of ``path`` on ``port``."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Accept-Encoding": accept_encoding} if accept_encoding else {}
    conn.request("GET", path, headers=headers)
    response = conn.getresponse()
    return response.read(), response.getheader("X-Cache")


def shows(port, path, text):
    """Whether the page at ``path`` (read as a browser reads it) shows ``text``."""
    body, _ = get(port, path, BROWSER)
    return text.encode() in (gzip.decompress(body) if body[:2] == b"\x1f\x8b" else body)


def wrk(port, path, seconds, accept_encoding=None):
    """Requests/s of ``path`` on ``port`` by wrk, 2 threads and 16 connections;
    an answer other than 2xx stops the benchmark."""
    headers = ["-H", f"Accept-Encoding: {accept_encoding}"] if accept_encoding else []
    output = subprocess.run(
        [
            *("wrk", "-t2", "-c16", f"-d{seconds}s"),
            *headers,
            f"http://127.0.0.1:{port}{path}",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    if "Non-2xx" in output:
        raise SystemExit(f"port {port} answered {path} with errors:\n{output}")
    return float(re.search(r"Requests/sec:\s+([\d.]+)", output)[1])

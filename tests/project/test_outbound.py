"""Outbound requests go through one client each: a lookup's through
``sources/transport.py`` (a deadline in all, a maximum answer, redirects kept
to the service), the page cache's purges through ``pagecache/frontends.py``
(to the CDN APIs the operator configured). A module of the project that
imports an HTTP client of its own would escape those bounds."""

import ast

from tests.project.test_layout import MAY_IMPORT, ROOT, modules

# Packages that are HTTP clients, and the standard library's modules that are.
HTTP_PACKAGES = {"httpx", "requests", "urllib3", "aiohttp"}
HTTP_MODULES = {"http.client", "urllib.request"}
MAY_REQUEST = {"sources/transport.py", "pagecache/frontends.py"}


def clients_imported(source):
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level:
            found.add(node.module)
    return {
        name
        for name in found
        if name.split(".")[0] in HTTP_PACKAGES or name in HTTP_MODULES
    }


def test_only_the_transports_import_an_http_client():
    importing = {
        str(path.relative_to(ROOT))
        for app in MAY_IMPORT
        for path in modules(app)
        if clients_imported(path.read_text())
    }

    assert importing == MAY_REQUEST


def test_the_check_sees_an_http_client_imported():
    assert clients_imported("import httpx\nfrom urllib.request import urlopen\n") == {
        "httpx",
        "urllib.request",
    }

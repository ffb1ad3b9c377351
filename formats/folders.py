"""Paths a folder's own contents name, kept inside that folder.

A decision folder names other paths: ``decision-logs.json`` names each log's
folder, a record's Markdown names its images, an export names the files it
writes. Every such path is joined to its folder here, and only here
(``tests/imports/test_paths.py`` reads every join of ``formats/``,
``imports/`` and ``sources/`` to hold them to it): the path is resolved,
links followed, and refused unless it lies inside the folder. A refusal
names the path as the folder wrote it, never where the folder is on the
server.
"""

import re
from pathlib import Path

# A Windows drive (``C:``) begins an absolute path as ``/`` does.
DRIVE_RE = re.compile(r"[A-Za-z]:")


class OutsideFolder(ValueError):
    """A path a folder names that does not lie inside it; the message says
    why, in the folder's own terms."""


def within(root, *names):
    """The path ``names`` (as the folder writes them: relative, with ``/``)
    name inside the folder ``root``, resolved; OutsideFolder when one is
    absolute or empty, holds a NUL, or the path resolves (through ``..`` or
    a link) outside ``root``."""
    root = Path(root).resolve()
    parts = []
    for name in names:
        text = str(name).replace("\\", "/")
        if not text:
            raise OutsideFolder("it is empty")
        if "\x00" in text:
            raise OutsideFolder("it holds a NUL character")
        if text.startswith("/") or DRIVE_RE.match(text):
            raise OutsideFolder("it is an absolute path")
        parts.append(text)
    path = root.joinpath(*parts).resolve()
    if not path.is_relative_to(root):
        raise OutsideFolder("it leads outside the folder")
    return path


def is_within(root, *names):
    """Whether ``within(root, *names)`` finds a path."""
    try:
        within(root, *names)
    except OutsideFolder:
        return False
    return True

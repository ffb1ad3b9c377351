"""A decision folder uploaded as a .zip archive: checked, then unpacked safely.

An archive is what zipping a folder gives, or GitHub's "Download ZIP" of a
repository: the decisions may sit at its top, in one top-level directory or
deeper (``project-main/docs/adr/``). The folder imported is the directory
holding decision files (``.md`` files named as decisions, ``0001-title.md``,
``adr-001-title.md``,
or ``20200925-title.md``); where directories inside it hold some too
(``docs/adr/archive/``), it is the outermost, read as ``import_decisions``
reads a folder (its own files; its subfolders for the images its files
show). Decision files in two directories apart (``docs/adr/`` and
``legacy/adr/``) are refused: the editor zips the one meant.

Nothing in the archive may lead outside it: an absolute path or a ``..``
entry anywhere refuses the whole archive, and so does a symbolic link, an
encrypted entry or one in a compression we cannot read inside the folder.
The archive may hold ``IMPORT_MAX_FILES`` entries at most, and the folder
``IMPORT_MAX_UNPACKED_BYTES`` once unpacked, counted as it is written (a zip
bomb stops there, whatever its headers say). Only the folder is unpacked.
"""

import io
import lzma
import posixpath
import stat
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.template.defaultfilters import filesizeformat

from formats.folders import DRIVE_RE, OutsideFolder, within
from formats.madr import DECISION_NAMES, name_parts

READABLE = {
    zipfile.ZIP_STORED: "stored",
    zipfile.ZIP_DEFLATED: "deflate",
    zipfile.ZIP_BZIP2: "bzip2",
    zipfile.ZIP_LZMA: "LZMA",
}
# What macOS's Finder adds to an archive besides the files: resource forks.
FINDER_EXTRAS = "__MACOSX/"
CHUNK = 1024 * 1024


@dataclass(frozen=True)
class DecisionArchive:
    """An archive found safe, and the decision folder within it."""

    name: str
    folder: str  # "docs/adr", or "" for the archive's top
    members: tuple  # the folder's files, as ZipInfo

    @property
    def where(self):
        """The folder as editors read it: ``docs/adr/``, or the archive's top."""
        return f"{self.folder}/" if self.folder else "the archive's top"

    @property
    def unpacked_bytes(self):
        return sum(member.file_size for member in self.members)


def refuse(message, code):
    return ValidationError(message, code=code)


def open_archive(data, name):
    """``data`` as a ZipFile, or a ValidationError saying why it is not one."""
    if not zipfile.is_zipfile(io.BytesIO(data)):
        raise refuse(
            f"{name} is not a .zip archive: zip the folder (or download it with "
            "GitHub’s “Download ZIP”) and upload the .zip file.",
            "not_zip",
        )
    try:
        return zipfile.ZipFile(io.BytesIO(data))
    # NotImplementedError: an entry that needs a later zip version than
    # zipfile reads, as a damaged "version needed" byte claims.
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        EOFError,
        ValueError,
        NotImplementedError,
    ) as error:
        raise refuse(
            f"{name} is a damaged .zip archive ({error}); zip the folder again.",
            "damaged",
        ) from error


def entry_path(info):
    """The entry's path with forward slashes (some Windows tools write
    backslashes), without the slash that ends a directory's."""
    return info.filename.replace("\\", "/").rstrip("/")


def _unsafe(path):
    """Why an entry at ``path`` could lead outside the archive, or None (a
    name is read up to a NUL, if it holds one, by zipfile itself)."""
    if path.startswith("/") or DRIVE_RE.match(path):
        return "it is an absolute path"
    if ".." in path.split("/"):
        return "it leads out of its folder (..)"
    return None


def _is_link(info):
    return stat.S_ISLNK(info.external_attr >> 16)


def read_archive(data, *, name):
    """The decision folder of the .zip archive ``data`` (named ``name``), found
    from its central directory alone (nothing is unpacked), or a
    ValidationError naming what is wrong and where."""
    archive = open_archive(data, name)
    entries = archive.infolist()
    limit = settings.IMPORT_MAX_FILES
    if len(entries) > limit:
        raise refuse(
            f"{name} holds {len(entries):,} entries; the import takes archives of "
            f"up to {limit:,}. Zip the decision folder alone.",
            "too_many_files",
        )
    files = []
    for info in entries:
        path = entry_path(info)
        problem = _unsafe(path)
        if problem:
            raise refuse(
                f"{name}: the entry “{info.filename}” is refused: {problem}. "
                "Nothing in an archive may lead outside it.",
                "unsafe_entry",
            )
        if not info.is_dir() and not path.startswith(FINDER_EXTRAS):
            files.append((path, info))
    folder = _decision_folder(name, [path for path, _ in files])
    inside = f"{folder}/" if folder else ""
    members = tuple(info for path, info in files if path.startswith(inside))
    found = DecisionArchive(name=name, folder=folder, members=members)
    for info in members:
        _check_member(found, info)
    limit = settings.IMPORT_MAX_UNPACKED_BYTES
    if found.unpacked_bytes > limit:
        size = filesizeformat(found.unpacked_bytes)
        raise refuse(
            f"{name}: the folder {found.where} is {size} unpacked; the import "
            f"takes up to {filesizeformat(limit)}.",
            "too_large",
        )
    return found


def _decision_folder(name, paths):
    """The directory holding the archive's decision files: the one folder
    holding every file named as a decision (its sub-folders, by year or by
    area, included), else every Markdown file; a ValidationError when the
    archive holds no Markdown at all."""
    markdown = [path for path in paths if path.lower().endswith(".md")]
    named = [path for path in markdown if name_parts(posixpath.basename(path))]
    if not markdown:
        raise refuse(
            f"{name} holds no decision files: no .md file in it ({DECISION_NAMES}).",
            "no_decisions",
        )
    directories = [posixpath.dirname(path) for path in named or markdown]
    common = posixpath.commonpath(directories) if all(directories) else ""
    return common


def _check_member(found, info):
    """Refuse what the folder's files cannot be: links, encrypted, unreadable."""
    name = found.name
    if _is_link(info):
        raise refuse(
            f"{name}: the entry “{info.filename}” is a symbolic link; a decision "
            "folder's entries must be files.",
            "symlink",
        )
    if info.flag_bits & 0x1:
        raise refuse(
            f"{name}: the entry “{info.filename}” is encrypted; zip the folder "
            "without a password.",
            "encrypted",
        )
    if info.compress_type not in READABLE:
        raise refuse(
            f"{name}: the entry “{info.filename}” is compressed in a way we "
            f"cannot read (method {info.compress_type}); zip the folder again "
            "with the usual (deflate) compression.",
            "compression",
        )


def unpack(data, found, target):
    """Write the folder of ``found`` under ``target``; its path there.

    Bytes are counted as they are written: past ``IMPORT_MAX_UNPACKED_BYTES``,
    or at an entry that does not read back as its checksum says, it stops
    with a ValidationError naming the entry.
    """
    archive = open_archive(data, found.name)
    target = Path(target)
    limit = settings.IMPORT_MAX_UNPACKED_BYTES
    written = 0
    for info in found.members:
        entry = info.filename
        try:
            path = within(target, entry_path(info))
        except OutsideFolder as error:
            raise refuse(
                f"{found.name}: the entry “{entry}” is refused: {error}. Nothing "
                "in an archive may lead outside it.",
                "unsafe_entry",
            ) from None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise refuse(
                f"{found.name}: the entry “{entry}” cannot be unpacked: a file "
                "of the archive has its folder's name.",
                "unpack",
            ) from error
        try:
            with _opened(archive, info, found) as source, path.open("xb") as copy:
                for chunk in _chunks(source, found, entry):
                    written += len(chunk)
                    if written > limit:
                        raise refuse(
                            f"{found.name}: the folder {found.where} is larger "
                            f"than {filesizeformat(limit)} unpacked; the import "
                            "takes up to that.",
                            "too_large",
                        )
                    copy.write(chunk)
        except FileExistsError as error:
            raise refuse(
                f"{found.name}: the entry “{entry}” is in the archive twice.",
                "duplicate",
            ) from error
        except OSError as error:
            raise refuse(
                f"{found.name}: the entry “{entry}” cannot be unpacked "
                f"({error.strerror or error}).",
                "unpack",
            ) from error
    return within(target, found.folder) if found.folder else target


# What zipfile and the decompressors raise for an entry whose bytes are not
# what its header says, whatever its compression: deflate's zlib.error,
# LZMA's LZMAError, bzip2's OSError ("Invalid data stream"), a CRC mismatch's
# BadZipFile, a stream cut short's EOFError.
DAMAGED_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    lzma.LZMAError,
    EOFError,
    OSError,
    ValueError,
    NotImplementedError,
)


def _damaged(found, entry, error):
    return refuse(
        f"{found.name}: the entry “{entry}” is damaged ({error}); zip the "
        "folder again.",
        "damaged",
    )


def _opened(archive, info, found):
    try:
        return archive.open(info)
    except DAMAGED_ERRORS as error:
        raise _damaged(found, info.filename, error) from error


def _chunks(source, found, entry):
    """The entry's bytes as they are decompressed; a damaged entry, refused."""
    while True:
        try:
            chunk = source.read(CHUNK)
        except DAMAGED_ERRORS as error:
            raise _damaged(found, entry, error) from error
        if not chunk:
            return
        yield chunk

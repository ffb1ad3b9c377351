"""The dumps kept in the backups storage, under ``DUMPS_PREFIX``.

A dump is a folder named by the time it was begun
(``dumps/2026-12-07-053000/``) holding one gzip file a format, a
``SHA256SUMS`` file (``sha256sum -c`` reads it) and a ``manifest.json``
saying what each file holds: its documents, its bytes, its SHA-256, and the
licence. The manifest is written last, and a dump is listed only once its
manifest is there, so a dump appears whole or not at all; each file itself
is saved whole (``BackupFileSystemStorage`` writes it under a hidden name
first, an object store shows an object once it is uploaded).

Each file is written a document at a time from a chunked query into a
nameless temporary file, compressed as it goes: memory does not grow with the
record.
"""

import gzip
import hashlib
import io
import json
import logging
import os
import posixpath
import re
import tempfile
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core.files import File
from django.core.files.storage import storages
from django.utils import timezone

from dumps import writers

logger = logging.getLogger(__name__)

NAME_RE = re.compile(r"\d{4}-\d{2}-\d{2}-\d{6}")
NAME_FORMAT = "%Y-%m-%d-%H%M%S"
MANIFEST = "manifest.json"
SUMS = "SHA256SUMS"
# A folder without a manifest this old was left by a writer that stopped: its
# files are deleted when dumps are pruned.
ABANDONED_AFTER = timedelta(days=1)


@dataclass(frozen=True)
class DumpFile:
    """One file of a dump, as its manifest describes it."""

    name: str
    format: str
    label: str
    media_type: str
    documents: int
    bytes: int
    uncompressed_bytes: int
    sha256: str


@dataclass(frozen=True)
class Dump:
    """A whole dump: its ``name`` (the time it was begun), its files and
    the licence it is offered under."""

    name: str
    made_at: datetime
    license: str
    license_url: str
    files: tuple

    def file(self, name):
        """The file called ``name`` in this dump, or None."""
        return next((file for file in self.files if file.name == name), None)

    @property
    def sums(self):
        """The text of its ``SHA256SUMS``: a digest, two spaces, a name, a line
        each, as ``sha256sum`` writes them."""
        return "".join(f"{file.sha256}  {file.name}\n" for file in self.files)


def backup_storage():
    """The backups storage (``STORAGES``), which keeps the dumps too."""
    return storages["backups"]


def folder(name):
    return posixpath.join(settings.DUMPS_PREFIX, name)


def path_of(dump_name, file_name):
    return posixpath.join(settings.DUMPS_PREFIX, dump_name, file_name)


def _folder_names():
    """The names of the dump folders in the storage, newest first, whole or not."""
    try:
        names, _ = backup_storage().listdir(settings.DUMPS_PREFIX)
    except FileNotFoundError:  # No dump was ever made here.
        return []
    return sorted((name for name in names if NAME_RE.fullmatch(name)), reverse=True)


def _read_manifest(name):
    storage = backup_storage()
    path = path_of(name, MANIFEST)
    if not storage.exists(path):
        return None
    try:
        with storage.open(path, "rb") as manifest:
            data = json.load(manifest)
    except FileNotFoundError:  # Pruned meanwhile.
        return None
    return Dump(
        name=data["name"],
        made_at=datetime.fromisoformat(data["made_at"]),
        license=data["license"],
        license_url=data["license_url"],
        files=tuple(DumpFile(**file) for file in data["files"]),
    )


def finished_dumps():
    """Every whole dump kept, newest first."""
    return [dump for name in _folder_names() if (dump := _read_manifest(name))]


def find_dump(name):
    """The whole dump called ``name``, or None."""
    if not NAME_RE.fullmatch(name):
        return None
    return _read_manifest(name)


def newest_dump():
    for name in _folder_names():
        if dump := _read_manifest(name):
            return dump
    return None


def open_file(dump, name):
    """The stored file ``name`` of ``dump``, open for reading."""
    return backup_storage().open(path_of(dump.name, name), "rb")


def _write_file(fmt, destination):
    """Write ``fmt``'s text of the record, gzip-compressed, into the binary
    file ``destination``; its DumpFile fields but the digest and size."""
    documents = writers.Counted(fmt.documents())
    # No name and no time in the gzip header: the same record gives the same
    # bytes, and so the same checksum.
    with gzip.GzipFile(
        filename="", mode="wb", fileobj=destination, mtime=0
    ) as compressed:
        text = io.TextIOWrapper(compressed, encoding="utf-8", newline="")
        for line in fmt.lines(documents):
            text.write(line)
        text.flush()
        text.detach()  # Written through; the gzip stream ends with the block.
        uncompressed = compressed.tell()
    return documents.count, uncompressed


def _save(name, content):
    """Save ``content`` (a binary file) at ``name``; refuse a name taken."""
    saved = backup_storage().save(name, File(content, name=posixpath.basename(name)))
    if saved != name:
        backup_storage().delete(saved)
        raise FileExistsError(f"{name} is taken: a dump was begun in the same second.")
    return saved


def write_dump(*, now=None, progress=None):
    """Write a dump of the public record to the backups storage; the dump."""
    # Whole seconds: the time is the dump's name.
    now = (now or timezone.now()).astimezone(UTC).replace(microsecond=0)
    name = f"{now:{NAME_FORMAT}}"
    files = []
    for done, fmt in enumerate(writers.FORMATS):
        if progress is not None:
            progress(done, len(writers.FORMATS))
        with tempfile.TemporaryFile() as temporary:
            documents, uncompressed = _write_file(fmt, temporary)
            temporary.seek(0)
            sha256 = hashlib.file_digest(temporary, "sha256").hexdigest()
            size = temporary.tell()
            temporary.seek(0)
            _save(path_of(name, fmt.name), temporary)
        files.append(
            DumpFile(
                name=fmt.name,
                format=fmt.key,
                label=fmt.label,
                media_type=fmt.media_type,
                documents=documents,
                bytes=size,
                uncompressed_bytes=uncompressed,
                sha256=sha256,
            )
        )
    dump = Dump(
        name=name,
        made_at=now,
        license=settings.DUMPS_LICENSE,
        license_url=settings.DUMPS_LICENSE_URL,
        files=tuple(files),
    )
    _save(path_of(name, SUMS), io.BytesIO(dump.sums.encode("ascii")))
    manifest = {
        "name": dump.name,
        "made_at": dump.made_at.isoformat(),
        "license": dump.license,
        "license_url": dump.license_url,
        "files": [asdict(file) for file in files],
    }
    # Last: the dump is listed from now on.
    _save(path_of(name, MANIFEST), io.BytesIO(json.dumps(manifest).encode()))
    if progress is not None:
        progress(len(writers.FORMATS), len(writers.FORMATS))
    return dump


def prune(*, now=None):
    """Delete the whole dumps beyond the newest ``DUMPS_KEEP`` (one at least),
    and the folders left without a manifest for ``ABANDONED_AFTER``; the
    names of the folders deleted."""
    now = now or timezone.now()
    keep = max(settings.DUMPS_KEEP, 1)
    kept = 0
    deleted = []
    for name in _folder_names():
        whole = backup_storage().exists(path_of(name, MANIFEST))
        if whole:
            kept += 1
            if kept <= keep:
                continue
        else:
            begun = datetime.strptime(name, NAME_FORMAT).replace(tzinfo=UTC)
            if now - begun < ABANDONED_AFTER:
                continue  # Perhaps still being written.
        _delete_folder(name)
        deleted.append(name)
    return deleted


def _delete_folder(name):
    storage = backup_storage()
    # The manifest first: the dump is no longer listed while its files go.
    if storage.exists(path_of(name, MANIFEST)):
        storage.delete(path_of(name, MANIFEST))
    _, files = storage.listdir(folder(name))
    for file in files:
        storage.delete(path_of(name, file))
    if hasattr(storage, "path"):  # A directory on a disk: remove it, empty.
        try:
            os.rmdir(storage.path(folder(name)))
        except OSError:
            logger.warning("The dump folder %s could not be removed", name)

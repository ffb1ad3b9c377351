"""Backups of the whole record (``backup.export_record``'s snapshot), written
by a background job and kept in the ``backups`` storage (``STORAGES``): a
directory (``BACKUP_DIR``) by default, any Django storage (S3-compatible, say)
where workers run on other machines than the web processes.

A backup is kept whole or not at all. The snapshot is written to a temporary
file of the worker, which has no name (a worker killed meanwhile leaves
nothing), then saved to the storage; on a disk, ``BackupFileSystemStorage``
writes it under a hidden name and renames it once it is whole, and an
object store shows an object once it is uploaded whole. Only names a
finished backup takes (``anthology-2026-01-31-093000.json``) are listed.
"""

import io
import os
import posixpath
import re
import tempfile
import uuid
from dataclasses import dataclass
from datetime import datetime

from django.core.files import File
from django.core.files.storage import FileSystemStorage, storages
from django.utils import timezone

from imports.snapshots import export_record

NAME_RE = re.compile(r"anthology-\d{4}-\d{2}-\d{2}-\d{6}(?:_[A-Za-z0-9]+)?\.json")


class BackupFileSystemStorage(FileSystemStorage):
    """A directory whose files appear whole or not at all: each is written
    under a hidden name of its own beside its name, then linked there."""

    def _save(self, name, content):
        directory, base = posixpath.split(name)
        hidden = posixpath.join(directory, f".{base}.{uuid.uuid4().hex}.partial")
        try:
            hidden = super()._save(hidden, content)
            while True:
                try:
                    # A link, unlike a rename, never replaces a file.
                    os.link(self.path(hidden), self.path(name))
                except FileExistsError:
                    name = self.get_available_name(name)
                else:
                    return name
        finally:
            if os.path.exists(self.path(hidden)):
                os.remove(self.path(hidden))


@dataclass(frozen=True)
class Backup:
    """A finished backup, as the storage keeps it."""

    name: str
    size: int
    made_at: datetime


def backup_storage():
    return storages["backups"]


def finished_backups():
    """Every backup kept, newest first."""
    storage = backup_storage()
    try:
        _, names = storage.listdir("")
    except FileNotFoundError:  # No backup was ever made here.
        return []
    backups = [
        Backup(name, storage.size(name), storage.get_modified_time(name))
        for name in names
        if NAME_RE.fullmatch(name)
    ]
    return sorted(backups, key=lambda backup: backup.made_at, reverse=True)


def find_backup(name):
    """The kept backup called ``name``, or None."""
    if not NAME_RE.fullmatch(name) or not backup_storage().exists(name):
        return None
    storage = backup_storage()
    return Backup(name, storage.size(name), storage.get_modified_time(name))


def write_backup():
    """Write a snapshot of the whole record to the backups storage; the
    backup kept."""
    name = f"anthology-{timezone.now():%Y-%m-%d-%H%M%S}.json"
    with tempfile.TemporaryFile() as snapshot:
        text = io.TextIOWrapper(snapshot, encoding="utf-8")
        export_record(text)
        text.detach()  # Written through; the file itself stays open.
        saved = backup_storage().save(name, File(snapshot, name=name))
    return find_backup(saved)

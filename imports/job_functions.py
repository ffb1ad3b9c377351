"""Imports and backups run as background jobs (``jobs.runner``): an import
reads its upload from the shared cache, reports its progress by row or file
and is one transaction; a backup reports the rows it has written and is kept
only once whole."""

import logging
import tempfile

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.template.defaultfilters import filesizeformat
from django.utils.module_loading import import_string
from import_export.formats.base_formats import CSV
from import_export.tmp_storages import CacheStorage
from tablib.exceptions import InvalidDimensions

from actions.steps import audited
from formats import archives, topic_page
from formats.problems import ImportRefused
from imports import backups, progress
from imports.decision_folders import import_decisions
from imports.outcomes import outcome_of
from imports.topic_page import import_topic_text
from jobs import runner

logger = logging.getLogger(__name__)

ENCODING = "utf-8-sig"  # Reads files with or without Excel's BOM.


class UploadStorage(CacheStorage):
    """An upload kept in the shared cache for ``JOBS_UPLOAD_SECONDS`` (an
    hour) at most, under ``key``."""

    @property
    def CACHE_LIFETIME(self):  # django-import-export's name for it
        return settings.JOBS_UPLOAD_SECONDS

    @property
    def key(self):
        return self.CACHE_PREFIX + self.name


def upload_storage(name=None):
    """Where an uploaded file waits for its job: the shared cache, for an hour
    at most, so that any worker can read it and nothing is left on a disk."""
    return UploadStorage(name=name, encoding=ENCODING, read_mode="r")


def kept_upload(file_name, original_name, user_id):
    """The upload ``file_name`` waiting for its job, its bytes and the user who
    sent it; a ValueError once the cache no longer keeps it."""
    storage = upload_storage(file_name)
    data = storage.read()
    if data is None:
        raise ValueError(f"{original_name} is no longer kept; upload it again.")
    return storage, data, get_user_model().objects.filter(pk=user_id).first()


def import_csv(*, resource, file_name, original_name, dry_run, user_id):
    """Import the uploaded CSV ``file_name`` with ``resource`` (a dotted
    path): a dry run, or the writing of the whole file in one transaction."""
    storage, data, user = kept_upload(file_name, original_name, user_id)
    dataset = read_csv(data, original_name)
    importer = import_string(resource)()
    # What the import saves besides its documents (a registry it creates) is
    # audited as the user's, as in the request that started it.
    with progress.reporting(runner.progress), audited(user):
        result = importer.import_data(
            dataset,
            dry_run=dry_run,
            raise_errors=False,
            use_transactions=True,
            rollback_on_validation_errors=True,
            file_name=original_name,
            user=user,
        )
    failed = result.has_errors() or result.has_validation_errors()
    if not dry_run and not failed:
        storage.remove()
    return summary(result, dry_run=dry_run), outcome_of(result, list_changes=dry_run)


def import_page(*, file_name, original_name, user_id):
    """Import the uploaded topic page ``file_name`` (UTF-8 text), as
    ``import_index`` does: all or nothing."""
    storage, data, user = kept_upload(file_name, original_name, user_id)
    try:
        with progress.reporting(runner.progress):
            report = import_topic_text(
                topic_page.parse(data.decode("utf-8")),
                source=original_name,
                user=user,
            )
    except ImportRefused as error:
        raise ValueError(
            f"{original_name}: the page was not imported; nothing was written.\n{error}"
        ) from error
    storage.remove()
    return f"Imported {original_name}.", str(report)


def import_decision_folder(*, file_name, original_name, user_id, log=""):
    """Import the decision folder of the uploaded .zip archive ``file_name``
    (``formats.archives``) into the decision log named ``log`` (the record's
    own if empty), as ``import_decisions`` imports a folder: all or nothing,
    with the same report."""
    storage, data, user = kept_upload(file_name, original_name, user_id)
    try:
        found = archives.read_archive(data, name=original_name)
        with tempfile.TemporaryDirectory(prefix="anthology-decisions-") as unpacked:
            folder = archives.unpack(data, found, unpacked)
            with progress.reporting(runner.progress):
                report = import_decisions(
                    folder,
                    log=log or None,
                    user=user,
                    via=f"the admin's import of {original_name} ({found.where})",
                    shown=found.where,
                )
    except ValidationError as error:
        raise ValueError(f"{' '.join(error.messages)} Nothing was written.") from error
    except ImportRefused as error:
        raise ValueError(
            f"{original_name}: the folder {found.where} was not imported; nothing "
            f"was written.\n{error}"
        ) from error
    storage.remove()
    # The report's first line is its totals: said once, in the summary the
    # jobs list shows too, and the rest of the report below it.
    counts, *details = str(report).splitlines()
    summary = f"Imported {original_name} ({found.where}). {counts}"
    return summary, "\n".join(details).strip("\n")


def write_backup():
    """Write a backup of the whole record to the backups storage."""
    with progress.reporting(runner.progress):
        backup = backups.write_backup()
    return f"Wrote the backup {backup.name} ({filesizeformat(backup.size)}).", backup


def read_csv(data, name):
    """The file's rows, or a ValueError saying why it is not CSV we can read."""
    try:
        dataset = CSV(encoding=ENCODING).create_dataset(data)
    except InvalidDimensions as error:
        raise ValueError(
            f"{name} is not CSV we can read: a row has more cells than the "
            "header; nothing was written."
        ) from error
    except Exception as error:  # tablib and csv fail in several ways.
        logger.info("%s is not CSV we can read", name, exc_info=error)
        raise ValueError(
            f"{name} is not CSV we can read: save it from the spreadsheet as CSV "
            "(UTF-8, comma-separated); nothing was written."
        ) from error
    if not dataset:
        raise ValueError(f"{name} holds no rows; nothing was written.")
    return dataset


def summary(result, *, dry_run):
    """One line for the job list: what the file does, or why it cannot."""
    totals = result.totals
    counts = (
        f"{totals['new']} new, {totals['update']} updated, {totals['skip']} unchanged"
    )
    if result.has_errors() or result.has_validation_errors():
        refused = len(result.invalid_rows) + len(list(result.row_errors()))
        problems = refused or len(result.base_errors)
        plural = "" if problems == 1 else "s"
        return f"Refused: {problems} problem{plural}; nothing written."
    return f"Checked: {counts}." if dry_run else f"Imported: {counts}."

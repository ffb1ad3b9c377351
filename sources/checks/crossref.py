"""Crossref's notices about each cited work: retractions, corrections.

Crossref's work record lists the notices that update it under
``updated-by`` (the publisher's own, and since 2023 Retraction Watch's:
the same notice may come twice, from each ``source``), each with the
notice's ``DOI``, its ``type``, its ``label`` and the date it was
``updated`` (``date-parts``). The notice's own record names the work under
``update-to``: the same relation seen from the notice, so the work's
``updated-by`` is read and nothing else is asked.

- a ``retraction``, ``withdrawal`` or ``removal`` is proposed as a
  withdrawal ("Crossref: retracted 2026-05-02"), for a document not
  already withdrawn;
- a ``correction``, ``corrigendum``, ``erratum`` or ``partial_retraction``
  as an erratum notice;
- any other notice (an expression of concern, an addendum, a new version)
  as a note for the editors, changing nothing.

The finding names the work, the type and the notice
(``crossref:10.…:retraction:10.…``). A DOI Crossref does not know (another
agency's) is left to the DOI check. Crossref asks for modest use: one
request at a time, ``SOURCES_CROSSREF_INTERVAL`` apart.
"""

from urllib.parse import quote

from django.conf import settings

from catalogue.models import Correction, Document
from sources import metadata
from sources.checks.base import (
    SERVICE_DOWN,
    finding_key,
    in_chunks,
    known_findings,
    with_doi,
)
from sources.checks.base import propose as propose_finding
from sources.checks.pacing import Pace
from sources.metadata import DOT_SEGMENTS, LookupFailed

SERVICE = "crossref"
Proposes = Correction.Proposes
WITHDRAWING = {
    "retraction": "retracted",
    "withdrawal": "withdrawn",
    "removal": "removed",
}
CORRECTING = {"correction", "corrigendum", "erratum", "partial_retraction"}


def check(run):
    pace = Pace(settings.SOURCES_CROSSREF_INTERVAL, run.clock)
    for chunk in in_chunks(with_doi(run.documents)):
        known = known_findings(chunk, "crossref:")
        works = {}
        for document in chunk:
            if SERVICE in run.report.stopped:
                return
            doi = document.work_doi.lower()
            if doi not in works:
                works[doi] = _work(run, pace, doi)
            for update in notices(works[doi] or {}):
                _propose(run, document, doi, update, known.get(document.pk, set()))


def _work(run, pace, doi):
    """Crossref's record of ``doi`` (its ``message``), or None."""
    if DOT_SEGMENTS & set(doi.split("/")):
        run.report.failed(SERVICE, f"DOI {doi} is not asked: a part of it is . or ..")
        return None
    pace.wait()
    run.report.requests[SERVICE] += 1
    url = f"{settings.METADATA_CROSSREF_URL.rstrip('/')}/works/{quote(doi, safe='/')}"
    try:
        answer = metadata.get("Crossref", url, {"mailto": settings.METADATA_MAILTO})
    except LookupFailed as error:
        if error.code in SERVICE_DOWN:
            run.report.stop(SERVICE, error.message)
        else:
            run.report.failed(SERVICE, f"DOI {doi}: {error.message}")
        return None
    if answer.status_code == 404:
        return None
    if answer.status_code >= 500:
        run.report.stop(SERVICE, f"Crossref answered {answer.status_code}.")
        return None
    if answer.status_code != 200:
        run.report.failed(
            SERVICE, f"DOI {doi}: Crossref answered {answer.status_code}."
        )
        return None
    try:
        work = answer.json()["message"]
        if not isinstance(work, dict):
            raise TypeError("the message is not an object")
    except (ValueError, KeyError, TypeError, RecursionError) as error:
        run.report.failed(
            SERVICE,
            f"DOI {doi}: Crossref's answer could not be read (malformed "
            f"JSON: {error.__class__.__name__} {error}).",
        )
        return None
    return work


def notices(work):
    """The notices of ``work``'s ``updated-by``, each once: (type, notice DOI,
    date, label, sources)."""
    found = {}
    updates = work.get("updated-by")
    for update in updates if isinstance(updates, list) else []:
        if not isinstance(update, dict):
            continue
        kind = str(update.get("type") or "").lower().replace("-", "_")
        notice = str(update.get("DOI") or "").lower()
        if not kind:
            continue
        key = (kind, notice)
        if key not in found:
            found[key] = [kind, notice, _date(update.get("updated")), "", []]
        entry = found[key]
        entry[3] = entry[3] or str(update.get("label") or "")
        source = str(update.get("source") or "")
        if source and source not in entry[4]:
            entry[4].append(source)
    return [tuple(entry) for entry in found.values()]


def _date(value):
    """2026-05-02 from Crossref's ``{"date-parts": [[2026, 5, 2]]}``, or ""."""
    try:
        parts = [int(part) for part in value["date-parts"][0] if part is not None]
    except (TypeError, KeyError, IndexError, ValueError):
        return ""
    return "-".join(
        f"{part:02d}" if index else str(part) for index, part in enumerate(parts)
    )


def _propose(run, document, doi, update, known):
    kind, notice, date, label, sources = update
    where = f"the notice: DOI {notice}" if notice else "no notice DOI"
    if label:
        where += f", “{label}”"
    if sources:
        where += f", from {', '.join(sources)}"
    when = f" {date}" if date else ""
    if kind in WITHDRAWING:
        if document.status == Document.Status.WITHDRAWN:
            return
        proposes = Proposes.WITHDRAWAL
        note = f"Crossref: {WITHDRAWING[kind]}{when} ({where})."
    elif kind in CORRECTING:
        proposes = Proposes.ERRATUM
        note = f"Crossref: corrected{when} ({where})."
    else:
        proposes = Proposes.EDIT
        what = (label or kind.replace("_", " ")).lower()
        note = f"Crossref: {what}{when} ({where}); nothing is changed by it."
    propose_finding(
        run,
        SERVICE,
        document,
        proposes=proposes,
        note=note,
        finding=finding_key("crossref", doi, kind, notice),
        known=known,
    )

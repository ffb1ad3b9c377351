"""Whether each cited DOI still resolves: the DOI resolver's handle API
(``SOURCES_DOI_URL``, ``https://doi.org/api/handles/<doi>``).

The API answers JSON: ``responseCode`` 1 for a handle found, 100 for none
(with HTTP 404), 2 for an error of its own, 200 for a handle without the
values asked. Only 100 is a finding: "The DOI 10.… does not resolve
(doi.org: handle not found)", proposed as a note (finding
``doi:<doi>:unresolved``). A DOI that comes back and goes again is not
proposed a second time: the editors heard of it once.
"""

from urllib.parse import quote

from django.conf import settings

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

SERVICE = "doi"
NOT_FOUND = 100


def check(run):
    pace = Pace(settings.SOURCES_DOI_INTERVAL, run.clock)
    for chunk in in_chunks(with_doi(run.documents)):
        known = known_findings(chunk, "doi:")
        resolves = {}
        for document in chunk:
            if SERVICE in run.report.stopped:
                return
            doi = document.work_doi.lower()
            if doi not in resolves:
                resolves[doi] = _resolves(run, pace, doi)
            if resolves[doi] is False:
                propose_finding(
                    run,
                    SERVICE,
                    document,
                    note=(
                        f"The DOI {doi} does not resolve (doi.org: handle not found)."
                    ),
                    finding=finding_key("doi", doi, "unresolved"),
                    known=known.get(document.pk, set()),
                )


def _resolves(run, pace, doi):
    """True, False (the handle is not found), or None when it cannot be told."""
    if DOT_SEGMENTS & set(doi.split("/")):
        run.report.failed(SERVICE, f"DOI {doi} is not asked: a part of it is . or ..")
        return None
    pace.wait()
    run.report.requests[SERVICE] += 1
    url = f"{settings.SOURCES_DOI_URL.rstrip('/')}/{quote(doi, safe='/')}"
    try:
        answer = metadata.get("doi.org", url)
    except LookupFailed as error:
        if error.code in SERVICE_DOWN:
            run.report.stop(SERVICE, error.message)
        else:
            run.report.failed(SERVICE, f"DOI {doi}: {error.message}")
        return None
    if answer.status_code >= 500:
        run.report.stop(SERVICE, f"doi.org answered {answer.status_code}.")
        return None
    try:
        code = answer.json().get("responseCode")
    except (ValueError, AttributeError, RecursionError):
        code = None
    if code == 1:
        return True
    if code == NOT_FOUND:
        return False
    run.report.failed(
        SERVICE,
        f"DOI {doi}: doi.org answered {answer.status_code}"
        + (f" (responseCode {code})." if code is not None else ", not its JSON."),
    )
    return None

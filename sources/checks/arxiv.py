"""arXiv's newest version of each cited paper, and its withdrawal.

The arXiv API answers a batch of ids (``id_list``, ``SOURCES_ARXIV_BATCH``
at a time) asked without a version with each paper's newest version: its
``<id>`` ends in ``vN``. A withdrawal is a new version whose
``<arxiv:comment>`` says so ("This paper has been withdrawn by the
authors", "arXiv admin note: This paper has been withdrawn by arXiv",
"Withdrawn due to …"); arXiv's abstract page keeps answering 200 for it.

- A record citing ``ARXIV-2403.00026v2`` when arXiv has v3 is proposed the
  identifier ``ARXIV-2403.00026v3`` (finding ``arxiv:2403.00026:v3``: a v4
  later is a new finding).
- A record citing no version (``ARXIV-2403.00026``) cites the work in its
  newest version, as a lookup by identifier takes it: no version is
  proposed for it, only a withdrawal.
- A withdrawal is proposed as one (finding ``arxiv:<id>:withdrawn``) with
  arXiv's comment as its note, for a document not already withdrawn; a
  withdrawn paper's new version is not proposed besides.

arXiv asks for one request every 3 seconds at most (``SOURCES_ARXIV_INTERVAL``).
"""

import re
from collections import defaultdict
from xml.etree.ElementTree import ParseError

from defusedxml import ElementTree
from defusedxml.common import DefusedXmlException
from django.conf import settings

from catalogue.models import Correction, Document
from sources import metadata
from sources.checks.base import SERVICE_DOWN, finding_key, in_chunks, known_findings
from sources.checks.base import propose as propose_finding
from sources.checks.pacing import Pace
from sources.metadata import ARXIV, ARXIV_VERSION_RE, ATOM, LookupFailed

SERVICE = "arxiv"
ERRORS = "http://arxiv.org/api/errors"
VERSION_RE = re.compile(r"v(\d+)$")
# How arXiv and its authors say a paper is withdrawn, and not a comment that
# merely mentions a withdrawn draft.
WITHDRAWN_RE = re.compile(
    r"\b(?:has|have) been withdrawn\b|\b(?:is|was) withdrawn\b|\bpaper withdrawn\b"
    r"|^\s*(?:arXiv admin note:\s*)?withdraw(?:n|al)\b",
    re.IGNORECASE,
)


class BatchRefused(Exception):
    """arXiv's answer to a batch is its error feed (one id it cannot read
    refuses the whole batch)."""


def check(run):
    documents = run.documents.filter(source_key__startswith="arxiv:")
    pace = Pace(settings.SOURCES_ARXIV_INTERVAL, run.clock)
    for chunk in in_chunks(documents, settings.SOURCES_ARXIV_BATCH):
        if SERVICE in run.report.stopped:
            return
        cited = defaultdict(list)
        for document in chunk:
            cited[ARXIV_VERSION_RE.sub("", document.arxiv_id)].append(document)
        entries = _entries(run, pace, list(cited))
        if entries is None:
            continue
        known = known_findings(chunk, "arxiv:")
        for arxiv_id, citing in cited.items():
            if arxiv_id not in entries:
                run.report.failed(
                    SERVICE,
                    f"arXiv's answer omits {arxiv_id} (cited by "
                    f"{', '.join(str(d.identifier) for d in citing)}).",
                )
                continue
            if entries[arxiv_id] is None:
                continue
            newest, comment = entries[arxiv_id]
            for document in citing:
                _examine(run, document, arxiv_id, newest, comment, known)


def _entries(run, pace, ids):
    """{id: (newest version, comment)} for ``ids``, or None once reported.
    An error feed naming some of the ids is asked again once without them."""
    try:
        return _ask(run, pace, ids)
    except BatchRefused as error:
        named = [arxiv_id for arxiv_id in ids if _names(str(error), arxiv_id)]
        for arxiv_id in named:
            run.report.failed(SERVICE, f"arXiv refuses the id {arxiv_id}: {error}")
        rest = [arxiv_id for arxiv_id in ids if arxiv_id not in named]
        if not named or not rest:
            if not named:
                run.report.failed(
                    SERVICE, f"arXiv refused a batch of {len(ids)} ids: {error}"
                )
            return None
    try:
        entries = _ask(run, pace, rest)
    except BatchRefused as error:
        run.report.failed(SERVICE, f"arXiv refused a batch of {len(rest)} ids: {error}")
        return None
    if entries is not None:
        # Reported already: refused, not omitted.
        entries.update(dict.fromkeys(named))
    return entries


def _names(message, arxiv_id):
    """Whether arXiv's error ``message`` names ``arxiv_id`` itself, not an id
    it is the start of."""
    return re.search(rf"(?<![\w./-]){re.escape(arxiv_id)}(?![\w-]|\.\w)", message)


def _ask(run, pace, ids):
    pace.wait()
    run.report.requests[SERVICE] += 1
    batch = f"a batch of {len(ids)} ids ({ids[0]}…)"
    try:
        answer = metadata.get(
            "arXiv",
            settings.METADATA_ARXIV_URL,
            {"id_list": ",".join(ids), "max_results": len(ids)},
        )
    except LookupFailed as error:
        if error.code in SERVICE_DOWN:
            run.report.stop(SERVICE, error.message)
        else:
            run.report.failed(SERVICE, f"{batch}: {error.message}")
        return None
    if answer.status_code == 429 or answer.status_code >= 500:
        run.report.stop(SERVICE, f"arXiv answered {answer.status_code}.")
        return None
    if answer.status_code != 200:
        run.report.failed(SERVICE, f"{batch}: arXiv answered {answer.status_code}.")
        return None
    try:
        feed = ElementTree.fromstring(answer.content)
    except (ParseError, DefusedXmlException, RecursionError) as error:
        run.report.failed(
            SERVICE,
            f"{batch}: arXiv's answer could not be read (malformed XML: {error}).",
        )
        return None
    entries = {}
    for entry in feed.findall(f"{ATOM}entry"):
        answered = _text(entry, f"{ATOM}id")
        if answered.startswith(ERRORS):
            raise BatchRefused(_text(entry, f"{ATOM}summary") or answered)
        answered = answered.rsplit("/abs/", 1)[-1]
        version = VERSION_RE.search(answered)
        if version is None:
            continue
        entries[ARXIV_VERSION_RE.sub("", answered)] = (
            int(version[1]),
            _text(entry, f"{ARXIV}comment"),
        )
    return entries


def _text(element, name):
    found = element.find(name)
    return " ".join((found.text or "").split()) if found is not None else ""


def _examine(run, document, arxiv_id, newest, comment, known):
    known = known.get(document.pk, set())
    if WITHDRAWN_RE.search(comment):
        if document.status != Document.Status.WITHDRAWN:
            propose_finding(
                run,
                SERVICE,
                document,
                proposes=Correction.Proposes.WITHDRAWAL,
                note=f"arXiv: {comment}",
                finding=finding_key("arxiv", arxiv_id, "withdrawn"),
                known=known,
            )
        return
    cited = VERSION_RE.search(document.arxiv_id)
    if cited is None or newest <= int(cited[1]):
        return
    propose_finding(
        run,
        SERVICE,
        document,
        changes={"source_identifier": f"ARXIV-{arxiv_id}v{newest}"},
        note=(
            f"arXiv has v{newest} of {document.identifier}, the record cites "
            f"v{cited[1]}."
        ),
        finding=finding_key("arxiv", arxiv_id, f"v{newest}"),
        known=known,
    )

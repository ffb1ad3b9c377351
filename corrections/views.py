"""The readers' side of a correction: propose, then follow.

Every page here is the reader's own: never cached (here, by the page cache,
which names none of them, or by Varnish, which passes them), never indexed.
"""

import functools
import secrets

from django.core import signing
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_http_methods

import actions.corrections
from catalogue.models import Correction, DecisionRecord, Document
from catalogue.models.correction import TOKEN_SALT
from corrections import limits
from corrections.forms import (
    DecisionCorrectionForm,
    DocumentCorrectionForm,
    reader_author_lines,
)

# A robot's "proposal" (the honeypot filled) is answered with a link of this
# shape, which names no proposal: its page says it is waiting, as a new one.
DECOY = "received-"


def guarded(view):
    """A form view whose body is bounded before anything reads it: Django's
    CSRF middleware would parse the body first, so the view is exempt from
    the middleware and checks the token itself once the size is known."""

    protected = csrf_protect(view)

    @functools.wraps(view)
    def bounded(request, *args, **kwargs):
        refused = limits.bounded_body(request)
        if refused is not None:
            return refused
        return protected(request, *args, **kwargs)

    return never_cache(
        csrf_exempt(require_http_methods(["GET", "HEAD", "POST"])(bounded))
    )


def private(response):
    """A reader's page is for them: search engines keep none of it."""
    response["X-Robots-Tag"] = "noindex, nofollow"
    return response


@guarded
def propose_document(request, identifier):
    """The correction form of a public document.

    Template: ``catalogue/corrections/form.html``. Context: ``form``,
    ``target`` (the document), ``kind`` ("document").
    """
    try:
        document = (
            Document.objects.public()
            .select_related("registry")
            .get(registry__prefix=identifier.prefix, number=identifier.number)
        )
    except Document.DoesNotExist:
        raise Http404(f"No public document {identifier}.") from None
    return _propose(request, document, DocumentCorrectionForm, "document")


@guarded
def propose_decision(request, identifier, log=None, twin=1):
    """The correction form of a published decision record (the record's own
    log's at /decisions/…, a team's at /decisions/<log>/…).

    Template: ``catalogue/corrections/form.html``. Context: ``form``,
    ``target`` (the decision record), ``kind`` ("decision").
    """
    in_log = {"log__slug": log, "log__is_own": False} if log else {"log__is_own": True}
    try:
        decision = (
            DecisionRecord.objects.public()
            .select_related("log")
            .get(
                log__prefix=identifier.prefix,
                number=identifier.number,
                twin=twin,
                **in_log,
            )
        )
    except DecisionRecord.DoesNotExist:
        raise Http404(f"No decision record {identifier}.") from None
    return _propose(request, decision, DecisionCorrectionForm, "decision")


def _propose(request, target, form_class, kind):
    if request.method != "POST":
        return _form_page(request, form_class(target=target), target, kind)
    refused = limits.refusal(request, count=False)
    if refused is not None:
        return refused
    form = form_class(request.POST, target=target)
    if form.is_robot():
        # Answered as a reader's proposal is, and counted as one: nothing kept.
        refused = limits.refusal(request, count=True)
        decoy = signing.Signer(salt=TOKEN_SALT).sign(DECOY + secrets.token_hex(8))
        return refused or redirect("corrections:follow", token=decoy)
    if form.is_valid():
        refused = limits.refusal(request, count=True)
        if refused is not None:
            return refused
        try:
            correction = actions.corrections.propose(target=target, **form.proposal())
        except ValidationError as error:
            form.add_action_errors(error)
        else:
            return redirect("corrections:follow", token=correction.token())
    return _form_page(request, form, target, kind)


def _form_page(request, form, target, kind):
    form.describe()
    return private(
        render(
            request,
            "catalogue/corrections/form.html",
            {"form": form, "target": target, "kind": kind},
        )
    )


@never_cache
def follow(request, token):
    """A reader's request, at its private link: what was proposed beside what
    readers saw, its status, the reason given if declined, and once published
    the page that shows it. A link names one request and shows nothing of any
    other; any other token is not found.

    Template: ``catalogue/corrections/follow.html``. Context: ``correction``
    (None for a link the form gave a robot), ``target``, ``rows`` ((label,
    seen, proposed) triples).
    """
    try:
        named = signing.Signer(salt=TOKEN_SALT).unsign(token)
    except signing.BadSignature:
        raise Http404("No such correction.") from None
    if named.startswith(DECOY):
        return private(render(request, "catalogue/corrections/follow.html", {}))
    pk = Correction.pk_from_token(token)
    correction = (
        Correction.objects.select_related("document__registry", "decision__log")
        .filter(pk=pk)
        .first()
        if pk
        else None
    )
    if correction is None:
        raise Http404("No such correction.")
    form_class = (
        DocumentCorrectionForm if correction.document_id else DecisionCorrectionForm
    )
    context = {
        "correction": correction,
        "target": correction.target,
        "rows": [
            (
                form_class.base_fields[name].label,
                shown(name, correction.current.get(name)),
                shown(name, correction.changes[name]),
            )
            for name in correction.proposed_fields()
        ],
    }
    return private(render(request, "catalogue/corrections/follow.html", context))


def shown(name, value):
    """A proposal's value as the follow page prints it."""
    if name == "author_list" and isinstance(value, list):
        return reader_author_lines(value)
    if value in (None, ""):
        return "(none)"
    return str(value)

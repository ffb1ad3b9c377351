"""Add a document by identifier: the editor pastes an arXiv id, a DOI or an
address of either on the add form, and the form comes back filled in with
what arXiv or Crossref knows. A source the record already cites is named
first, and nothing is asked; a lookup that fails says why and leaves the form
as usable as without it.

The lookup is a form of its own, sent by POST with its CSRF token: a request
to another service is made only when an editor submits it, never by a link
(``?identifier=…``) a page could make an editor follow."""

import copy

from django.contrib import messages
from django.urls import reverse
from django.utils.html import format_html

from catalogue.citations import source_key
from catalogue.duplicates import same_source
from sources.metadata import LookupFailed, look_up, recorded_identifier

# The lookup form's field holding what the editor pasted, and its button.
IDENTIFIER = "identifier"
LOOKUP = "_lookup"


class AddByIdentifierMixin:
    """The add form, filled in from the lookup form's POST."""

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        if object_id is None and request.method == "POST" and LOOKUP in request.POST:
            # The add form is shown, as for a GET, with what the lookup found;
            # nothing is saved. The POST's CSRF token was checked on the way in.
            pasted = request.POST.get(IDENTIFIER, "").strip()
            request = copy.copy(request)
            request.method = "GET"
            request.looked_up = filled_in(request, pasted) if pasted else {}
        return super().changeform_view(request, object_id, form_url, extra_context)

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        initial.pop(IDENTIFIER, None)
        initial.update(getattr(request, "looked_up", {}))
        return initial


def filled_in(request, pasted):
    """The add form's initial values for ``pasted``, each outcome told to the
    editor as a message."""
    try:
        identifier = recorded_identifier(pasted)
    except LookupFailed as error:
        messages.error(request, error.message)
        return {}
    same = same_source(source_key(identifier)).first()
    if same is not None:
        messages.error(
            request,
            format_html(
                '<a href="{}">{}</a> already cites {}: edit it rather than adding it '
                "again.",
                reverse("admin:catalogue_document_change", args=[same.pk]),
                same,
                identifier,
            ),
        )
        return {}
    try:
        work = look_up(identifier)
    except LookupFailed as error:
        messages.warning(
            request, f"{error.message} The form is yours to fill in by hand."
        )
        return {"source_identifier": identifier}
    source = "arXiv" if identifier.startswith("ARXIV-") else "Crossref"
    messages.success(
        request,
        f"Filled in from {source}: check the title, authors, year, venue and type, "
        "then write the summary, file it and save.",
    )
    return work.form_fields()

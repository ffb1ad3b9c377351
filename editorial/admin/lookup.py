"""Add a document by identifier: the editor pastes an arXiv id, a DOI or an
address of either on the add form, and the form comes back filled in with
what arXiv or Crossref knows. A source the record already cites is named
first, and nothing is asked; a lookup that fails says why and leaves the form
as usable as without it."""

from django.contrib import messages
from django.urls import reverse
from django.utils.html import format_html

from catalogue.citations import source_key
from catalogue.duplicates import same_source
from sources.metadata import LookupFailed, look_up, recorded_identifier

# The add form's query parameter holding what the editor pasted.
IDENTIFIER = "identifier"


class AddByIdentifierMixin:
    """The add form, filled in from ``?identifier=…``."""

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        pasted = request.GET.get(IDENTIFIER, "").strip()
        initial.pop(IDENTIFIER, None)
        if pasted:
            initial.update(filled_in(request, pasted))
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

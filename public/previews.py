"""A preview link's page: a document's unpublished text, for whoever holds
the link, without an account.

The page is the reader's own view of the document (its template), marked
"Preview" and kept by nobody: never by the page cache (the page map names
no preview), nor by Varnish (which passes ``/preview/``), nor by a browser
or a search engine (``Cache-Control: private, no-store``, ``noindex``). A
link revoked, expired or whose text was published since answers 410, saying
which; a token that is not a link's is not found.
"""

from types import SimpleNamespace

from django.http import Http404
from django.shortcuts import render
from django.utils import timezone
from django.utils.text import slugify
from taggit.models import Tag

from catalogue.models import Document, PreviewLink
from catalogue.references import resolve


def kept_by_nobody(response):
    """No cache keeps the page, and no search engine lists it."""
    response["Cache-Control"] = "private, no-store"
    response["X-Robots-Tag"] = "noindex, nofollow"
    return response


def preview(request, token):
    """The unpublished text a preview link shows: a draft as it reads now,
    or a public document with its pending revision applied.

    Template: ``catalogue/document_detail.html`` with ``is_preview`` and
    ``preview`` (the link); ``catalogue/preview_gone.html`` (410) for a link
    revoked, expired or whose text was published, with ``why`` and
    ``published`` (the document, if it is public now).
    """
    pk = PreviewLink.pk_from_token(token)
    link = PreviewLink.objects.filter(pk=pk).first() if pk else None
    if link is None:
        raise Http404("No such preview link.")
    document = Document.objects.select_related("registry", "topic").get(
        pk=link.document_id
    )
    revision = document.pending_revision() if document.is_public else None
    if link.revoked_at is not None:
        return gone(request, document, "revoked")
    if link.expires_at <= timezone.now():
        return gone(request, document, "expired")
    if document.is_public and revision is None:
        return gone(request, document, "published")
    tags = document.tags.all()
    if revision is not None:
        revision.applied_to(document)
        known = {
            tag.name: tag for tag in Tag.objects.filter(name__in=revision.tag_names)
        }
        tags = [
            known.get(name) or SimpleNamespace(name=name, slug=slugify(name))
            for name in sorted(revision.tag_names)
        ]
    context = {
        "document": document,
        "tags": tags,
        "versions": document.versions.all(),
        "references": resolve([document.summary]),
        "is_preview": True,
        "preview": link,
        "preview_of": "pending revision" if revision is not None else "draft",
    }
    return kept_by_nobody(render(request, "catalogue/document_detail.html", context))


def gone(request, document, why):
    """A link that no longer shows anything, and why (410): nothing of the
    document but, once it is public, the address of its page."""
    context = {"why": why, "published": document if document.is_public else None}
    return kept_by_nobody(
        render(request, "catalogue/preview_gone.html", context, status=410)
    )

"""The document admin's own pages: the preview of a pending revision, and a
published version compared with the one before (and reverted to)."""

from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse

from catalogue.references import resolve
from editorial import workflow
from public.versions import version_comparison


class DocumentReviewMixin:
    """Adds ``<pk>/preview/`` and ``<pk>/versions/<n>/`` to a document admin."""

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path(
                "<path:object_id>/preview/",
                view(self.preview_view),
                name="catalogue_document_preview",
            ),
            path(
                "<path:object_id>/versions/<int:number>/",
                view(self.version_view),
                name="catalogue_document_version",
            ),
            *super().get_urls(),
        ]

    def _viewable(self, request, object_id):
        document = self.get_object(request, object_id)
        if document is None or not self.has_view_permission(request, document):
            raise PermissionDenied
        return document

    def preview_view(self, request, object_id):
        """The public page as it will read once the pending revision is published.

        Template: the public ``catalogue/document_detail.html``, with
        ``is_preview``.
        """
        document = self._viewable(request, object_id)
        revision = document.pending_revision()
        if revision is not None:
            revision.applied_to(document)
        return TemplateResponse(
            request,
            "catalogue/document_detail.html",
            {
                "document": document,
                "versions": document.versions.all(),
                "references": resolve([document.summary]),
                "is_preview": True,
            },
        )

    def version_view(self, request, object_id, number):
        """One published version, compared word by word with the one before.

        POST reverts to it: a new pending revision, history untouched.
        Template: ``admin/catalogue/document/version.html``.
        """
        document = self._viewable(request, object_id)
        version = get_object_or_404(document.versions, number=number)
        can_revert = self.has_change_permission(request, document)
        if request.method == "POST":
            if not can_revert:
                raise PermissionDenied
            workflow.revert(document=document, version=version, user=request.user)
            self.message_user(
                request,
                f"v{number} is now the pending revision; a publisher publishes it "
                "as a new version.",
            )
            return HttpResponseRedirect(
                reverse("admin:catalogue_document_change", args=[document.pk])
            )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "original": document,
            "title": f"{document.identifier} v{number}",
            "comparison": version_comparison(version),
            "version": version,
            "can_revert": can_revert,
        }
        return TemplateResponse(
            request, "admin/catalogue/document/version.html", context
        )

"""Preview links from a document's admin: made by a button on the change
form (a draft's, or a pending revision's), listed there with their address
and state, each revoked by its own button."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponseNotAllowed, HttpResponseRedirect
from django.urls import path, reverse
from django.utils import timezone

from actions import previews
from catalogue.addresses import absolute_url


class PreviewLinkPagesMixin:
    """Adds ``<pk>/preview-links/`` (a POST makes a link) and
    ``<pk>/preview-links/revoke/`` (a POST naming the link) to the document
    admin, and the document's links to its change form."""

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path(
                "<path:object_id>/preview-links/",
                view(self.make_preview_link_view),
                name="catalogue_document_make_preview_link",
            ),
            path(
                "<path:object_id>/preview-links/revoke/",
                view(self.revoke_preview_link_view),
                name="catalogue_document_revoke_preview_link",
            ),
            *super().get_urls(),
        ]

    def _posted_document(self, request, object_id):
        if request.method != "POST":
            return None, HttpResponseNotAllowed(["POST"])
        document = self.get_object(request, object_id)
        if document is None:
            raise PermissionDenied
        return document, None

    def make_preview_link_view(self, request, object_id):
        """Make a link of the document's unpublished text; its address is
        listed on the change form."""
        document, refused = self._posted_document(request, object_id)
        if refused:
            return refused
        try:
            link = previews.make_link(document=document, user=request.user)
        except ValidationError as error:
            self.message_user(request, " ".join(error.messages), messages.ERROR)
        else:
            self.message_user(
                request,
                f"Made a preview link of {document.identifier}, open until "
                f"{timezone.localtime(link.expires_at):%d %b %Y %H:%M %Z}: "
                f"{absolute_url(link.get_absolute_url())}",
                messages.SUCCESS,
            )
        return self._to_links(document)

    def revoke_preview_link_view(self, request, object_id):
        """Revoke the link the POST names: its address answers 410 at once."""
        document, refused = self._posted_document(request, object_id)
        if refused:
            return refused
        link = document.preview_links.filter(pk=request.POST.get("link")).first()
        if link is None:
            self.message_user(
                request,
                "There is no such preview link of this document.",
                messages.ERROR,
            )
        else:
            previews.revoke_link(link=link, user=request.user)
            self.message_user(
                request,
                f"Revoked the preview link of {document.identifier} made "
                f"{timezone.localtime(link.created_at):%d %b %Y %H:%M}: it "
                "answers “revoked” from now on.",
                messages.SUCCESS,
            )
        return self._to_links(document)

    def _to_links(self, document):
        url = reverse("admin:catalogue_document_change", args=[document.pk])
        return HttpResponseRedirect(f"{url}#preview-links")

    def render_change_form(self, request, context, add=False, change=False, **kw):
        document = context.get("original")
        if document is not None:
            now = timezone.now()
            links = list(
                document.preview_links.select_related("created_by", "revoked_by")
            )
            for link in links:
                link.address = absolute_url(link.get_absolute_url())
                link.open = link.is_open(now)
            context["preview_links"] = links
            context["may_make_preview_link"] = previews.MAKE.is_offered(
                document, context.get("pending_revision"), request.user
            )
            context["may_revoke_preview_link"] = request.user.has_perm(
                previews.REVOKE.permission
            )
        return super().render_change_form(request, context, add, change, **kw)

"""The document admin's own pages: the review of a pending revision, the
preview of the public page it would make, a published version compared with
the one before (and reverted to), and withdrawing, which asks first."""

from types import SimpleNamespace

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.text import slugify
from taggit.models import Tag

import actions.documents
from catalogue.citations import author_lines
from catalogue.duplicates import likely_pairs
from catalogue.models import Document, Topic
from catalogue.references import resolve
from editorial.admin.conversation import conversation, kept_reviews
from editorial.admin.forms import WithdrawalForm
from public.diffs import render_word_diff
from public.versions import FieldComparison, version_comparison


def revision_comparison(document, revision):
    """The fields ``revision`` changes, each compared word by word with what
    readers see now."""
    topics = dict(
        Topic.objects.filter(pk__in=[document.topic_id, revision.topic_id]).values_list(
            "pk", "name"
        )
    )
    published = actions.documents.published_state(document)
    held = actions.documents.revision_state(revision)

    def text(state, name):
        if name == "topic":
            return topics.get(state["topic"], "Unfiled")
        if name == "tags":
            return ", ".join(state["tags"])
        if name == "author_list":
            return author_lines(state[name])
        return str(state[name])

    fields = [
        (name, document._meta.get_field(name).verbose_name.capitalize())
        for name in [*Document.CONTENT_FIELDS, *Document.BIBLIOGRAPHIC_FIELDS]
    ]
    fields += [("topic", "Topic"), ("tags", "Tags")]
    return [
        FieldComparison(
            label=label,
            html=render_word_diff(text(published, name), text(held, name)),
            changed=True,
        )
        for name, label in fields
        if published[name] != held[name]
    ]


def held_tags(revision):
    """The tags ``revision`` gives its document, as the page lists them; a
    tag no document carries yet has the slug it will get."""
    known = {tag.name: tag for tag in Tag.objects.filter(name__in=revision.tag_names)}
    return [
        known.get(name) or SimpleNamespace(name=name, slug=slugify(name))
        for name in sorted(revision.tag_names)
    ]


class DocumentPagesMixin:
    """Adds the review, preview, version and withdrawal pages to a document
    admin, at ``<pk>/review/``, ``<pk>/preview/``, ``<pk>/versions/<n>/`` and
    ``<pk>/withdraw/``, and the list of likely duplicates at ``duplicates/``."""

    def get_urls(self):
        # Each page's URL name is catalogue_document_<name>, as the admin's own.
        pages = {
            "duplicates": ("duplicates/", self.duplicates_view),
            "review": ("<path:object_id>/review/", self.review_view),
            "preview": ("<path:object_id>/preview/", self.preview_view),
            "version": ("<path:object_id>/versions/<int:number>/", self.version_view),
            "withdraw": ("<path:object_id>/withdraw/", self.withdraw_view),
        }
        view = self.admin_site.admin_view
        return [
            *(
                path(route, view(page), name=f"catalogue_document_{name}")
                for name, (route, page) in pages.items()
            ),
            *super().get_urls(),
        ]

    def _viewable(self, request, object_id):
        document = self.get_object(request, object_id)
        if document is None or not self.has_view_permission(request, document):
            raise PermissionDenied
        return document

    def _page(self, request, document, template, title, **context):
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "original": document,
            "title": title,
            **context,
        }
        return TemplateResponse(request, template, context)

    def _back_to(self, document):
        return HttpResponseRedirect(
            reverse("admin:catalogue_document_change", args=[document.pk])
        )

    def review_view(self, request, object_id):
        """A pending revision beside the published text, field by field, with
        its note and who wrote it; Publish and Discard on the same page. A
        document never published is reviewed whole, as readers will read it
        (``_first_publication``).

        Template: ``admin/catalogue/document/review.html``.
        """
        document = self._viewable(request, object_id)
        revision = document.pending_revision()
        if revision is None and document.is_public:
            self.message_user(
                request, f"{document.identifier} has no pending revision."
            )
            return self._back_to(document)
        if request.method == "POST":
            return self._decide(request, document)
        if revision is None:
            return self._first_publication(request, document)
        return self._page(
            request,
            document,
            "admin/catalogue/document/review.html",
            f"Review the pending revision of {document.identifier}",
            revision=revision,
            fields=revision_comparison(document, revision),
            can_publish=actions.documents.PUBLISH.is_offered(
                document, revision, request.user
            ),
            can_discard=actions.documents.DISCARD.is_offered(
                document, revision, request.user
            ),
            review=conversation(
                document, revision, request.user, next_url=request.get_full_path()
            ),
        )

    def _first_publication(self, request, document):
        """The whole document as readers will read it (text, citation, topic,
        tags), with Publish and Back to editing.

        Template: ``admin/catalogue/document/review_first.html``.
        """
        return self._page(
            request,
            document,
            "admin/catalogue/document/review_first.html",
            f"Review {document.identifier} before its first publication",
            tags=document.tags.order_by("name"),
            references=resolve([document.summary]),
            can_publish=actions.documents.PUBLISH.is_offered(
                document, None, request.user
            ),
            review=conversation(
                document, None, request.user, next_url=request.get_full_path()
            ),
        )

    def _decide(self, request, document):
        if "_publish" in request.POST:
            version = actions.documents.publish(document=document, user=request.user)
            document.refresh_from_db()
            number = version.number if version else document.version
            self.message_user(
                request, f"Published {document.identifier} v{number}.", messages.SUCCESS
            )
        elif "_discard_revision" in request.POST:
            actions.documents.discard_revision(document=document, user=request.user)
            self.message_user(
                request,
                f"Discarded the pending revision of {document.identifier}; readers "
                f"still see {document.label}.",
                messages.SUCCESS,
            )
        return self._back_to(document)

    def preview_view(self, request, object_id):
        """The public page as it will read once the pending revision is published.

        Template: the public ``catalogue/document_detail.html``, with
        ``is_preview``; the tags are the revision's.
        """
        document = self._viewable(request, object_id)
        revision = document.pending_revision()
        tags = document.tags.all()
        if revision is not None:
            revision.applied_to(document)
            tags = held_tags(revision)
        return TemplateResponse(
            request,
            "catalogue/document_detail.html",
            {
                "document": document,
                "tags": tags,
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
        version = get_object_or_404(
            document.versions.select_related("published_by", "written_by"),
            number=number,
        )
        can_revert = self.has_change_permission(request, document)
        if request.method == "POST":
            if not can_revert:
                raise PermissionDenied
            actions.documents.revert(
                document=document, version=version, user=request.user
            )
            self.message_user(
                request,
                f"v{number} is now the pending revision; a publisher publishes it "
                "as a new version.",
            )
            return self._back_to(document)
        return self._page(
            request,
            document,
            "admin/catalogue/document/version.html",
            f"{document.identifier} v{number}",
            comparison=version_comparison(version),
            version=version,
            can_revert=can_revert,
            kept_reviews=kept_reviews(version=version),
        )

    def duplicates_view(self, request):
        """The pairs of documents that may be one work: one source, or titles
        alike. Template: ``admin/catalogue/document/duplicates.html``."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        return self._page(
            request,
            None,
            "admin/catalogue/document/duplicates.html",
            "Likely duplicates",
            pairs=likely_pairs(),
        )

    def withdraw_view(self, request, object_id):
        """Withdrawing asks first, for a reason readers will see.

        Template: ``admin/catalogue/document/withdraw.html``.
        """
        document = self._viewable(request, object_id)
        if not actions.documents.WITHDRAW.is_offered(document, None, request.user):
            raise PermissionDenied
        form = WithdrawalForm(request.POST or None)
        if form.is_valid():
            actions.documents.withdraw(
                document=document, user=request.user, reason=form.cleaned_data["reason"]
            )
            self.message_user(
                request,
                f"Withdrew {document.identifier}: readers see it marked withdrawn, "
                "with your reason and today's date.",
                messages.SUCCESS,
            )
            return self._back_to(document)
        return self._page(
            request,
            document,
            "admin/catalogue/document/withdraw.html",
            f"Withdraw {document.identifier}?",
            form=form,
            submit_label=f"Withdraw {document.identifier}",
            cancel_url=reverse("admin:catalogue_document_change", args=[document.pk]),
        )

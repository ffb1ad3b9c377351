from django.http import Http404
from django.shortcuts import get_object_or_404, redirect
from django.views.generic import DetailView, ListView, TemplateView

from catalogue.models import Document, Preface, Topic
from catalogue.versions import version_comparison


class IndexView(TemplateView):
    """The full index: every topic in editorial order with its counts.

    Template: ``catalogue/index.html``. Context: ``preface``, ``topics`` (each
    with ``counts``, a list of (prefix, n)), ``unfiled_counts``.
    """

    template_name = "catalogue/index.html"

    def get_context_data(self, **kwargs):
        counts = Document.objects.public().topic_counts()
        topics = list(Topic.objects.all())
        for topic in topics:
            topic.counts = sorted(counts.get(topic.pk, {}).items())
        return super().get_context_data(
            preface=Preface.objects.first(),
            topics=topics,
            unfiled_counts=sorted(counts.get(None, {}).items()),
            **kwargs,
        )


class TopicDetailView(DetailView):
    """A topic page: the preface, the topic, its counts and its documents.

    Template: ``catalogue/topic_detail.html``. Context: ``topic``, ``preface``,
    ``counts`` (RegistryCount per registry), ``documents`` in number order.
    """

    model = Topic
    context_object_name = "topic"

    def get_context_data(self, **kwargs):
        public = Document.objects.public()
        return super().get_context_data(
            preface=Preface.objects.first(),
            counts=public.registry_counts(topic=self.object),
            documents=public.in_topic(self.object).in_number_order(),
            **kwargs,
        )


class UnfiledListView(ListView):
    """Public documents filed against no topic, in number order.

    Template: ``catalogue/unfiled_list.html``. Context: ``documents``, ``counts``.
    """

    template_name = "catalogue/unfiled_list.html"
    context_object_name = "documents"

    def get_queryset(self):
        return Document.objects.public().unfiled().in_number_order()

    def get_context_data(self, **kwargs):
        return super().get_context_data(
            counts=Document.objects.public().registry_counts(topic=None), **kwargs
        )


class DocumentDetailView(DetailView):
    """A document's own page, at its permanent identifier.

    Template: ``catalogue/document_detail.html``. Context: ``document``.
    """

    context_object_name = "document"

    def get_queryset(self):
        return (
            Document.objects.public()
            .select_related("registry", "topic", "superseded_by__registry")
            .prefetch_related("tags")
        )

    def get_object(self, queryset=None):
        prefix, _, number = self.kwargs["identifier"].partition("-")
        try:
            return self.get_queryset().get(registry__prefix=prefix, number=int(number))
        except (Document.DoesNotExist, OverflowError):
            raise Http404(f"No public document {self.kwargs['identifier']}.") from None

    def get(self, request, *args, **kwargs):
        self.object = self.get_object()
        if self.kwargs["identifier"] != self.object.identifier:
            return redirect(self.object, permanent=True)
        context = self.get_context_data(object=self.object)
        return self.render_to_response(context)

    def get_context_data(self, **kwargs):
        # Issue 3: the published versions, listed by catalogue/_versions.html.
        kwargs.setdefault("versions", self.object.versions.all())
        return super().get_context_data(**kwargs)


class DocumentVersionView(DocumentDetailView):
    """One published version of a public document, compared with the one before.

    Template: ``catalogue/documentversion_detail.html``. Context: ``document``,
    ``version``, ``comparison`` (a VersionComparison), ``versions``. Only
    published versions exist as rows: pending revisions are never shown.
    """

    template_name = "catalogue/documentversion_detail.html"

    def get(self, request, *args, **kwargs):
        self.object = self.get_object()
        if self.kwargs["identifier"] != self.object.identifier:
            return redirect(
                "catalogue:document-version",
                identifier=self.object.identifier,
                number=self.kwargs["number"],
                permanent=True,
            )
        version = get_object_or_404(self.object.versions, number=self.kwargs["number"])
        version.document = self.object
        context = self.get_context_data(
            object=self.object, version=version, comparison=version_comparison(version)
        )
        return self.render_to_response(context)

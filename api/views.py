"""The API's views: read-only lists and details of the record.

Anonymous readers see exactly what the public pages show (the ``public()``
querysets); a signed-in editor or a token's user who may view a model in
the admin also sees its drafts, in the document and decision record views.
"""

import django_filters
from django.db.models import Count, Exists, OuterRef, Prefetch, Q, Value
from django.http import Http404, HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.cache import patch_cache_control, patch_vary_headers
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from drf_spectacular.views import SpectacularAPIView
from rest_framework import generics, status
from rest_framework.decorators import api_view
from rest_framework.response import Response

from api import problems, reference, serializers, sync
from api.pagination import RecordCursorPagination
from api.renderers import RecordJSONRenderer
from catalogue.filters import DecisionRecordFilter, DocumentFilter
from catalogue.models import (
    PUBLIC_STATUSES,
    Authorship,
    DecisionLog,
    DecisionRecord,
    DecisionRelation,
    Document,
    DocumentNotice,
    Person,
    PersonAddress,
    Registry,
    Topic,
)
from public.views import decision_relations

# A tag is named by its slug: the public lists' tag filter reads taggit's
# slugs, a path the description cannot follow through taggit's manager.
extend_schema_field(OpenApiTypes.STR)(DocumentFilter.base_filters["tag"])


def sees_drafts(request, model):
    """Whether ``request``'s user may see ``model``'s drafts: those who may
    view them in the admin, by session or by token, and no one else."""
    user = request.user
    return user.is_authenticated and user.has_perm(
        f"{model._meta.app_label}.view_{model._meta.model_name}"
    )


# Filters given once for each value they take (``tag=a&tag=b``).
REPEATABLE_FILTERS = (
    django_filters.MultipleChoiceFilter,
    django_filters.ModelMultipleChoiceFilter,
)


def check_parameters(request, taken, repeatable=()):
    """Refuse, naming it, a query parameter not ``taken``, empty, or given
    twice when not ``repeatable``: nothing a client sends is ignored."""
    errors = {}
    offered = ", ".join(sorted(taken)) or "none"
    for name, values in request.query_params.lists():
        if name not in taken:
            errors[name] = [f"This address takes no {name!r} (it takes: {offered})."]
        elif "" in values:
            errors[name] = ["Empty: give a value, or leave the parameter out."]
        elif len(values) > 1 and name not in repeatable:
            errors[name] = [f"Given {len(values)} times: give it once."]
    if errors:
        raise problems.ParameterError(errors)


class RecordView:
    """What every API view shares: pages by cursor, query parameters read
    or refused, and answers that say whom they are for. An answer to a token
    or a session is that user's alone and is never kept by any cache; the
    page cache keeps the others."""

    pagination_class = RecordCursorPagination
    # The field of a list's rows that is their modification time, for a
    # sync (``modified_since``); None where the list takes none.
    modified_field = None

    @property
    def sync_parameter(self):
        """The OpenAPI description of the sync's parameter, where it is taken."""
        if self.modified_field is None:
            return None
        return sync.parameter(
            sync.SINCE,
            "Only the rows modified at or after this time, in (modification "
            "time, id) order, until the time the sync's first page was asked "
            "(`until`), the next sync's `modified_since`.",
            required=False,
        )

    @property
    def syncing(self):
        return (
            self.modified_field is not None and sync.SINCE in self.request.query_params
        )

    @property
    def paginator(self):
        if not self.syncing:
            return super().paginator
        if not hasattr(self, "_sync_paginator"):
            self._sync_paginator = sync.SyncPagination(self.modified_field)
        return self._sync_paginator

    def initial(self, request, *args, **kwargs):
        check_parameters(request, *self.parameters())
        super().initial(request, *args, **kwargs)

    def parameters(self):
        """The query parameters this view takes, and those it takes repeated."""
        if not hasattr(self, "list"):
            return (), ()
        filterset = getattr(self, "filterset_class", None)
        filters = filterset.base_filters if filterset is not None else {}
        paging = self.pagination_class
        taken = {paging.cursor_query_param, paging.page_size_query_param, *filters}
        if self.modified_field is not None:
            taken.add(sync.SINCE)
        repeatable = [
            name
            for name, filter_ in filters.items()
            if isinstance(filter_, REPEATABLE_FILTERS)
        ]
        return taken, repeatable

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        patch_vary_headers(response, ["Authorization"])
        if request.user.is_authenticated:
            patch_cache_control(response, private=True, no_store=True)
        return response


class RecordFilterBackend(DjangoFilterBackend):
    """The view's filterset, offering every status to those who see drafts."""

    def get_filterset_kwargs(self, request, queryset, view):
        kwargs = super().get_filterset_kwargs(request, queryset, view)
        kwargs["public"] = not sees_drafts(request, queryset.model)
        return kwargs


def documents_for(request):
    if sees_drafts(request, Document):
        return Document.objects.all()
    return Document.objects.public()


def current_authorships(*, drafts):
    """The author positions of the documents' text now, each with its person
    and whether a reader may see that person (``person_is_public``). Among
    public documents alone every person is: a public document names them."""
    positions = (
        Authorship.objects.filter(version__isnull=True)
        .select_related("person")
        .order_by("position")
    )
    if not drafts:
        return positions.annotate(person_is_public=Value(True))
    public = Person.objects.public().filter(pk=OuterRef("person_id"))
    return positions.annotate(person_is_public=Exists(public))


def document_rows(documents, *, drafts=False):
    """Documents with everything a row shows, read in a fixed number of
    queries whatever the page's size; ``drafts``: the rows may hold drafts,
    whose authors may be no public person."""
    positions = Prefetch(
        "authorships",
        queryset=current_authorships(drafts=drafts),
        to_attr="current_authorships",
    )
    return documents.select_related(
        "registry", "topic", "superseded_by__registry"
    ).prefetch_related("tags", positions)


class DocumentList(RecordView, generics.ListAPIView):
    """Documents, filtered as the public lists are: registry, topic
    (``unfiled`` for none), status, year range and tags (all of them)."""

    serializer_class = serializers.DocumentSerializer
    filter_backends = [RecordFilterBackend]
    filterset_class = DocumentFilter
    modified_field = "updated_at"

    def get_queryset(self):
        drafts = sees_drafts(self.request, Document)
        return document_rows(documents_for(self.request), drafts=drafts)


class DocumentDetail(RecordView, generics.RetrieveAPIView):
    """A document at its permanent identifier, with its versions, its
    notices (corrections, withdrawals…), what it supersedes and its
    references both ways."""

    serializer_class = serializers.DocumentDetailSerializer

    def get_object(self):
        identifier = self.kwargs["identifier"]
        documents = documents_for(self.request)
        drafts = sees_drafts(self.request, Document)
        queryset = document_rows(documents, drafts=drafts).prefetch_related(
            "versions",
            "references",
            # A supersession's notice names its successor.
            Prefetch(
                "notices",
                queryset=DocumentNotice.objects.select_related("successor__registry"),
            ),
        )
        try:
            document = queryset.get(
                registry__prefix=identifier.prefix, number=identifier.number
            )
        except Document.DoesNotExist:
            raise Http404(f"No document {identifier}.") from None
        self.related = {
            "supersedes": documents.filter(superseded_by=document).in_number_order(),
            "referenced_by": documents.naming(document.identifier).in_number_order(),
            "decisions": decisions_for(self.request).naming(document.identifier),
        }
        return document

    def get_serializer_context(self):
        return {**super().get_serializer_context(), **getattr(self, "related", {})}


class TopicView(RecordView):
    serializer_class = serializers.TopicSerializer

    def get_queryset(self):
        return Topic.objects.annotate(
            document_count=Count(
                "documents", filter=Q(documents__status__in=PUBLIC_STATUSES)
            )
        )


class TopicList(TopicView, generics.ListAPIView):
    """Every topic, with its count of public documents. A sync's topics
    (``modified_since``) are those whose own fields changed: a document's
    filing changes the document."""

    modified_field = "modified_at"

    def get_queryset(self):
        topics = super().get_queryset()
        if self.syncing:
            topics = topics.annotate(modified_at=sync.topic_modified_at())
        return topics


class TopicDetail(TopicView, generics.RetrieveAPIView):
    """A topic; its documents are ``documents_url``'s."""

    lookup_field = "slug"


class RegistryView(RecordView):
    serializer_class = serializers.RegistrySerializer

    def get_queryset(self):
        return Registry.objects.public().with_public_counts()


class RegistryList(RegistryView, generics.ListAPIView):
    """Every registry holding a public document, with their count."""


class RegistryDetail(RegistryView, generics.RetrieveAPIView):
    """A registry; its documents are ``documents_url``'s."""

    lookup_field = "prefix"


class TagView(RecordView):
    serializer_class = serializers.TagSerializer

    def get_queryset(self):
        return Document.objects.public().tag_counts()


class TagList(TagView, generics.ListAPIView):
    """Every tag a public document carries, with their count."""


class TagDetail(TagView, generics.RetrieveAPIView):
    """A tag a public document carries; its documents are ``documents_url``'s."""

    lookup_field = "slug"


def public_authorships():
    """A person's positions in public documents' text, in number order."""
    positions = Authorship.objects.filter(
        version__isnull=True, document__status__in=PUBLIC_STATUSES
    ).select_related("document__registry")
    return Prefetch(
        "authorships",
        queryset=positions.order_by(
            "document__registry__prefix", "document__number", "position"
        ),
        to_attr="public_authorships",
    )


class PersonView(RecordView):
    def get_queryset(self):
        named = Q(
            authorships__version__isnull=True,
            authorships__document__status__in=PUBLIC_STATUSES,
        )
        return (
            Person.objects.public()
            .annotate(
                document_count=Count(
                    "authorships__document", filter=named, distinct=True
                )
            )
            .prefetch_related(public_authorships())
        )


class PersonList(PersonView, generics.ListAPIView):
    """The people public documents name, with their public documents."""

    serializer_class = serializers.PersonSerializer


FORMER_ADDRESS = OpenApiResponse(
    description="A former address of one person (merged or renamed): Location "
    "names their address now."
)
SPLIT_ADDRESS = OpenApiResponse(
    response={
        "type": "object",
        "properties": {
            "detail": {"type": "string"},
            "people": {"type": "array", "items": {"type": "string", "format": "uri"}},
        },
        "required": ["detail", "people"],
    },
    description="A former address of a name since split into several people: "
    "their addresses.",
)


@extend_schema_view(
    get=extend_schema(
        responses={
            200: serializers.PersonDetailSerializer,
            300: SPLIT_ADDRESS,
            301: FORMER_ADDRESS,
        }
    )
)
class PersonDetail(PersonView, generics.RetrieveAPIView):
    """A person, with each of their positions in a public document's text.
    A former address answers 301 to the person's address now; that of a
    split name, 300 with the addresses of the people it names."""

    serializer_class = serializers.PersonDetailSerializer

    def retrieve(self, request, *args, **kwargs):
        slug = kwargs["slug"]
        person = self.get_queryset().filter(slug=slug).first()
        if person is not None:
            return Response(self.get_serializer(person).data)
        return self.former_address(slug)

    def former_address(self, slug):
        """The answer at a slug no public person holds now: where the people
        it named are, or 404."""
        address = PersonAddress.objects.filter(slug=slug).first()
        named = [] if address is None else address.persons.public().order_by("pk")
        urls = [serializers.api_url("person-detail", slug=p.slug) for p in named]
        if not urls:
            raise Http404(f"No person at {slug}.")
        if len(urls) == 1:
            return HttpResponsePermanentRedirect(urls[0])
        return Response(
            {
                "detail": f"{slug} was one name's address; it names "
                f"{len(urls)} people now.",
                "people": urls,
            },
            status=status.HTTP_300_MULTIPLE_CHOICES,
        )


def decisions_for(request):
    if sees_drafts(request, DecisionRecord):
        return DecisionRecord.objects.all()
    return DecisionRecord.objects.public()


def logs_for(request):
    """The decision logs a reader may see: the record's own, and those
    holding a public decision record (or any, for those who see drafts)."""
    if sees_drafts(request, DecisionRecord):
        return DecisionLog.objects.all()
    return DecisionLog.objects.public()


class DecisionLogView(RecordView):
    serializer_class = serializers.DecisionLogSerializer

    def get_queryset(self):
        return logs_for(self.request)


class DecisionLogList(DecisionLogView, generics.ListAPIView):
    """The decision logs: the record's own and the teams'."""


class DecisionLogDetail(DecisionLogView, generics.RetrieveAPIView):
    """A decision log; its records are ``records_url``'s."""

    lookup_field = "slug"
    lookup_url_kwarg = "log"


class DecisionRecordList(RecordView, generics.ListAPIView):
    """A decision log's records; ``status`` keeps those of one status
    (``none``: those stating none), as the log's page does."""

    serializer_class = serializers.DecisionRecordSerializer
    filter_backends = [RecordFilterBackend]
    filterset_class = DecisionRecordFilter
    modified_field = "updated_at"

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return DecisionRecord.objects.none()
        log = get_object_or_404(logs_for(self.request), slug=self.kwargs["log"])
        return decisions_for(self.request).filter(log=log)


class DecisionRecordDetail(RecordView, generics.RetrieveAPIView):
    """A decision record at its identifier in its log (a second file of one
    number at ``…/ADR-064/2/``), with its body and relations."""

    serializer_class = serializers.DecisionRecordDetailSerializer

    def get_object(self):
        identifier = self.kwargs["identifier"]
        log = get_object_or_404(logs_for(self.request), slug=self.kwargs["log"])
        decision = get_object_or_404(
            decisions_for(self.request),
            log=log,
            number=identifier.number,
            twin=self.kwargs.get("twin", 1),
        )
        if identifier.prefix != log.prefix:
            raise Http404(f"No decision record {identifier} in {log.slug}.")
        self.relations = self.relations_of(decision)
        return decision

    def relations_of(self, decision):
        if not sees_drafts(self.request, DecisionRecord):
            return decision_relations(decision)
        rows = DecisionRelation.objects.filter(
            Q(source=decision) | Q(target=decision)
        ).select_related("source__log", "target__log")
        return [
            (relation.get_kind_display(), relation.target)
            if relation.source_id == decision.pk
            else (DecisionRelation.Kind(relation.kind).inverse_label, relation.source)
            for relation in rows.order_by("kind", "source__number", "target__number")
        ]

    def get_serializer_context(self):
        context = super().get_serializer_context()
        return {**context, "relations": getattr(self, "relations", [])}


@extend_schema_view(get=extend_schema(operation_id="decision_record_twin_retrieve"))
class DecisionRecordTwinDetail(DecisionRecordDetail):
    """A second (third, …) file of one number in a decision log."""


class RemovedList(RecordView, generics.ListAPIView):
    """What readers could see and since ``since`` no longer can, or see
    withdrawn: documents withdrawn (and not reinstated since), topics
    deleted, published decision records deleted; oldest first."""

    serializer_class = serializers.RemovedSerializer

    @property
    def paginator(self):
        if not hasattr(self, "_removed_paginator"):
            self._removed_paginator = sync.RemovedPagination()
        return self._removed_paginator

    sync_parameter = sync.parameter(
        "since",
        "What left readers' view at or after this time, until the time the "
        "first page was asked (`until`), the next call's `since`.",
        required=True,
    )

    def parameters(self):
        return {"since", "cursor", "page_size"}, ()

    def get_queryset(self):
        # The rows come from the withdrawn documents and the audit trail's
        # deletions, read by the paginator: a page is one query a kind.
        return Document.objects.none()


ROOT = {
    "documents": "document-list",
    "topics": "topic-list",
    "registries": "registry-list",
    "tags": "tag-list",
    "people": "person-list",
    "decision_logs": "decision-log-list",
    "removed": "removed-list",
    "schema": "schema",
    "docs": "docs",
}


@extend_schema(
    responses={200: {"type": "object", "additionalProperties": {"type": "string"}}}
)
# HEAD as every other reading of the API answers it (its headers alone).
@api_view(["GET", "HEAD"])
def api_root(request):
    """Where each of the API's lists, its description and its docs are."""
    check_parameters(request, ())
    return Response({key: serializers.api_url(name) for key, name in ROOT.items()})


class SchemaView(SpectacularAPIView):
    """The OpenAPI description, in YAML or, given ``format=json``, JSON. It
    takes no other parameter, and refuses as every address of the API does:
    a problem, in JSON, whatever format was asked."""

    def initial(self, request, *args, **kwargs):
        check_parameters(request, {"format"})
        formats = sorted({renderer.format for renderer in self.renderer_classes})
        asked = request.query_params.get("format")
        if asked is not None and asked not in formats:
            raise problems.refused(
                "format", f"Give one of {', '.join(formats)}, not {asked!r}."
            )
        super().initial(request, *args, **kwargs)

    def finalize_response(self, request, response, *args, **kwargs):
        if response.status_code >= 400:
            request.accepted_renderer = RecordJSONRenderer()
            request.accepted_media_type = problems.CONTENT_TYPE
        return super().finalize_response(request, response, *args, **kwargs)


def docs(request):
    """The API's reference: every operation of its OpenAPI description, with
    its parameters, their bounds and its answers, in the site's frame.
    Template: ``api/docs.html``. Context: ``info``, ``operations`` and the
    description's addresses, ``schema_json`` and ``schema_yaml``."""
    if request.GET:
        name = next(iter(request.GET))
        return problems.response_of(
            problems.parameter_body({name: [f"This address takes no {name!r}."]})
        )
    description = reference.api_description()
    schema = reverse("api:schema")
    context = {
        "info": description["info"],
        "operations": reference.operations(description),
        "schema_json": f"{schema}?format=json",
        "schema_yaml": schema,
    }
    return render(request, "api/docs.html", context)


def not_found(request):
    """An address under /api/ that names nothing: 404, a problem."""
    return problems.problem(404, f"The API has nothing at {request.path}.")


def problem_type(request, name):
    """What a problem type of the API's own means, at its ``type`` address."""
    if name not in problems.TYPES:
        return not_found(request)
    if request.GET:
        name = next(iter(request.GET))
        return problems.response_of(
            problems.parameter_body({name: [f"This address takes no {name!r}."]})
        )
    return JsonResponse(
        {
            "type": problems.type_url(name),
            "title": problems.TYPES[name],
            "description": problems.DESCRIPTIONS[name],
        }
    )

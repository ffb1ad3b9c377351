"""Staff CSV exports and readers' citation downloads.

The CSV writing lives in ``exports.py``, the citation formats in
``citation_formats.py``; these views only choose the rows.
"""

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import BadRequest, PermissionDenied
from django.http import Http404, HttpResponseBadRequest, QueryDict
from django.shortcuts import get_object_or_404
from django.urls import reverse

from catalogue.filters import DocumentFilter
from catalogue.models import DecisionRecord, Document, Topic
from formats import exports
from formats.citations import citation_response


def may_view(model):
    """An export of every ``model`` row, drafts included, is for those who may
    view them in the admin: anonymous visitors are sent to log in, anyone else
    without the model's view permission gets 403, staff or not."""
    permission = f"{model._meta.app_label}.view_{model._meta.model_name}"

    def decorator(view):
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            user = request.user
            if not user.is_authenticated:
                login = reverse("admin:login")
                return redirect_to_login(request.get_full_path(), login)
            if not user.has_perm(permission):
                raise PermissionDenied(f"Exporting needs the {permission} permission.")
            return view(request, *args, **kwargs)

        return wrapped

    return decorator


def wants_bom(request):
    """``?bom=1``: start the file with the byte-order mark Excel needs."""
    return request.GET.get("bom", "") in {"1", "true", "yes"}


@may_view(Document)
def document_csv(request):
    """Documents matching the public lists' filters, every status offered."""
    filterset = DocumentFilter(
        request.GET, queryset=Document.objects.all(), public=False
    )
    if not filterset.is_valid():
        return HttpResponseBadRequest(
            f"Invalid filters: {filterset.errors.as_text()}", content_type="text/plain"
        )
    return exports.documents_response(
        filterset.qs, base_url=exports.site_root(request), bom=wants_bom(request)
    )


@may_view(Topic)
def topic_csv(request):
    chunks = exports.topic_chunks(Topic.objects.all())
    return exports.csv_response(chunks, filename="topics.csv", bom=wants_bom(request))


@may_view(DecisionRecord)
def decision_record_csv(request):
    chunks = exports.decision_record_chunks(DecisionRecord.objects.all())
    filename = "decision-records.csv"
    return exports.csv_response(chunks, filename=filename, bom=wants_bom(request))


def document_citation(request, identifier, fmt):
    """One public document's entry; withdrawn ones too, in their own file."""
    documents = Document.objects.public().filter(
        registry__prefix=identifier.prefix, number=identifier.number
    )
    if not documents.exists():
        raise Http404(f"No public document {identifier}.")
    return citation_response(documents, fmt, identifier, keep_withdrawn=True)


def topic_citation(request, slug, fmt):
    """A topic's public documents under the topic page's filters, withdrawn
    ones left out unless the filters ask for them."""
    topic = get_object_or_404(Topic, slug=slug)
    filterset = DocumentFilter(
        request.GET or None, queryset=Document.objects.public().in_topic(topic)
    )
    del filterset.filters["topic"]
    if filterset.is_bound and not filterset.is_valid():
        raise BadRequest(filterset.errors.as_text())
    page = request.GET.get("page", "1")
    return filtered_citation_response(filterset, fmt, topic.slug, page)


# The most entries one citation download of a list holds; ``?page=2`` gives
# the next ones, so no request renders the whole record.
CITATIONS_PER_FILE = 1000


def filtered_citation_response(filterset, fmt, filename, page_number="1"):
    """The documents of a valid ``filterset`` as a citation download, a
    thousand at most (``page_number``, in number order, announced by a
    ``Link: rel="next"`` header while more follow). A filter on the withdrawn
    status keeps them, as the list it came from does."""
    status = filterset.form.cleaned_data.get("status") if filterset.is_bound else ""
    documents = filterset.qs
    if status != Document.Status.WITHDRAWN:
        documents = documents.exclude(status=Document.Status.WITHDRAWN)
    page = _page(page_number)
    start = (page - 1) * CITATIONS_PER_FILE
    pks = list(
        documents.in_number_order().values_list("pk", flat=True)[
            start : start + CITATIONS_PER_FILE + 1
        ]
    )
    if page > 1 and not pks:
        raise Http404(f"Page {page} of this download is empty.")
    response = citation_response(
        Document.objects.filter(pk__in=pks[:CITATIONS_PER_FILE]),
        fmt,
        filename if page == 1 else f"{filename}-{page}",
        keep_withdrawn=True,
    )
    if len(pks) > CITATIONS_PER_FILE:
        response["Link"] = f'<?{_with_page(filterset, page + 1)}>; rel="next"'
    return response


def _page(number):
    if not str(number).isdigit() or int(number) < 1 or len(str(number)) > 6:
        raise BadRequest(f"The page of a download is a number from 1, not {number!r}.")
    return int(number)


def _with_page(filterset, page):
    query = filterset.data.copy() if filterset.is_bound else QueryDict(mutable=True)
    query["page"] = str(page)
    return query.urlencode()

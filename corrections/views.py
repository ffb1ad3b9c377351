"""The readers' side of a correction: propose, then follow."""

from django.http import Http404, HttpResponse
from django.views.decorators.cache import never_cache

from catalogue.models import Correction


@never_cache
def propose_document(request, identifier):
    raise Http404


@never_cache
def propose_decision(request, identifier, log=None):
    raise Http404


@never_cache
def follow(request, token):
    pk = Correction.pk_from_token(token)
    correction = Correction.objects.filter(pk=pk).first() if pk else None
    if correction is None:
        raise Http404
    return HttpResponse(correction.get_status_display())

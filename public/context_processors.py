"""What every public template may print about the page itself."""

from urllib.parse import urlencode

from catalogue.addresses import absolute_url

# The parameters that make a page another page: a list's page number and a
# search's words. Filters, sorting and anything else a link may carry
# (utm_source=…) are views of the same page, and are left out of its address.
IDENTIFYING_PARAMETERS = ["q", "page"]


def canonical_url(request):
    """``canonical_url``: the page's absolute address for canonical links and
    OpenGraph, under the canonical origin, without the parameters that do not
    make it a page of its own."""
    kept = [
        (name, request.GET[name])
        for name in IDENTIFYING_PARAMETERS
        if request.GET.get(name) and not (name == "page" and request.GET[name] == "1")
    ]
    query = f"?{urlencode(kept)}" if kept else ""
    return {"canonical_url": absolute_url(request.path) + query}

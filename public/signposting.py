"""FAIR Signposting (https://signposting.org/FAIR/), levels 1 and 2: what a
document's page and its versions' pages say of themselves in HTTP ``Link``
headers, and each document's link set (RFC 9264) at its own address.

A page names its permanent address (``cite-as``: the document's, or the
version's own for a version's page), what it is (``type``: schema.org's
``ScholarlyArticle``, the work, and ``AboutPage``, the page about it), where
its metadata is (``describedby``: each citation download and the JSON-LD,
with their media types and the profile of their schema where one exists),
the work's PDF where its identifier tells (``item``, arXiv's), its authors'
ORCID iDs once an editor verified them (``author``), and its link sets
(``linkset``). Everything is read from what the page itself shows: the
public document, its current author positions or the version's; never a
draft or a pending revision.
"""

import json

from django.http import Http404, HttpResponse, JsonResponse
from django.urls import reverse

from catalogue.addresses import absolute_url
from catalogue.models import Authorship, Document
from formats.citations import FORMATS
from public.structured import SCHEMA, document_graph

TYPES = [f"{SCHEMA}/ScholarlyArticle", f"{SCHEMA}/AboutPage"]
JSON_LD = "application/ld+json"
# The schema each metadata format follows, where it has an address of its own.
PROFILES = {
    "json": "https://resource.citationstyles.org/schema/v1.0/input/json/csl-data.json",
    "jsonld": SCHEMA,
}
LINKSET = "application/linkset"
LINKSET_JSON = "application/linkset+json"


def links(document, *, version=None, authorships=()):
    """The page's signposts, as ``(rel, address, attributes)`` in order."""
    identifier = document.identifier
    page = document.get_absolute_url()
    if version is not None:
        page = reverse(
            "catalogue:document-version",
            kwargs={"identifier": identifier, "number": version.number},
        )
    found = [("cite-as", absolute_url(page), {})]
    found += [("type", address, {}) for address in TYPES]
    for fmt, content_type in FORMATS.items():
        address = reverse(
            "catalogue:document-citation", kwargs={"identifier": identifier, "fmt": fmt}
        )
        attributes = {"type": content_type.split(";")[0]}
        if fmt in PROFILES:
            attributes["profile"] = PROFILES[fmt]
        found.append(("describedby", absolute_url(address), attributes))
    json_ld = reverse("catalogue:document-json-ld", kwargs={"identifier": identifier})
    found.append(
        (
            "describedby",
            absolute_url(json_ld),
            {"type": JSON_LD, "profile": PROFILES["jsonld"]},
        )
    )
    if document.pdf_url:
        found.append(("item", document.pdf_url, {"type": "application/pdf"}))
    found += [
        ("author", authorship.person.orcid_url, {})
        for authorship in authorships
        if authorship.person.is_verified
    ]
    for name, content_type in [("linkset", LINKSET), ("linkset-json", LINKSET_JSON)]:
        address = reverse(
            f"catalogue:document-{name}", kwargs={"identifier": identifier}
        )
        found.append(("linkset", absolute_url(address), {"type": content_type}))
    return found


def link_value(rel, address, attributes, anchor=None):
    """One link as RFC 8288 writes it: ``<address>; rel="cite-as"; …``."""
    parts = [f"<{address}>"]
    if anchor:
        parts.append(f'anchor="{anchor}"')
    parts.append(f'rel="{rel}"')
    parts += [f'{name}="{value}"' for name, value in attributes.items()]
    return "; ".join(parts)


def link_header(found):
    return ", ".join(link_value(*link) for link in found)


def signpost(response, document, *, version=None, authorships=()):
    """``response`` with the page's signposts as its ``Link`` header."""
    found = links(document, version=version, authorships=authorships)
    response["Link"] = link_header(found)
    return response


# A document's link set: the signposts of its page, at addresses of their own.


def public_document(identifier, *related):
    """The public document ``identifier`` names, with its current author
    positions and their people; Http404 for none."""
    document = (
        Document.objects.public()
        .select_related("registry", "topic", *related)
        .filter(registry__prefix=identifier.prefix, number=identifier.number)
        .first()
    )
    if document is None:
        raise Http404(f"No public document {identifier}.")
    document.current_authorships = list(
        Authorship.objects.filter(document=document, version__isnull=True)
        .select_related("person")
        .order_by("position")
    )
    return document


def document_links(identifier):
    document = public_document(identifier)
    anchor = absolute_url(document.get_absolute_url())
    return anchor, links(document, authorships=document.current_authorships)


def linkset(request, identifier):
    """The document's link set as ``application/linkset`` (RFC 9264 §4.1):
    its page's links, each anchored at the page, one a line."""
    anchor, found = document_links(identifier)
    text = ",\n".join(link_value(*link, anchor=anchor) for link in found)
    return HttpResponse(f"{text}\n", content_type=LINKSET)


def linkset_json(request, identifier):
    """The document's link set as ``application/linkset+json`` (RFC 9264 §4.2)."""
    anchor, found = document_links(identifier)
    context = {"anchor": anchor}
    for rel, address, attributes in found:
        context.setdefault(rel, []).append({"href": address, **attributes})
    body = json.dumps({"linkset": [context]}, ensure_ascii=False, indent=2)
    return HttpResponse(f"{body}\n", content_type=LINKSET_JSON)


def json_ld(request, identifier):
    """The document page's JSON-LD (schema.org), on its own for machines."""
    document = public_document(identifier, "superseded_by__registry")
    page_url = absolute_url(document.get_absolute_url())
    data = {"@context": SCHEMA, **document_graph(document, page_url)}
    return JsonResponse(
        data,
        content_type=JSON_LD,
        json_dumps_params={"ensure_ascii": False, "indent": 2},
    )

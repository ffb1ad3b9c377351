"""The dumps for readers: ``/data/`` lists them (and ``/data/index.json`` for
machines); each file is streamed from the storage with its checksum, the
newest of each also at ``/data/latest/<name>``.

The lists read the storage, never the database: a dump holds only what was
public when it was made.
"""

import hashlib

from django.http import FileResponse, Http404, HttpResponse, JsonResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.cache import get_conditional_response
from django.utils.http import http_date, quote_etag
from django.views.decorators.http import require_safe

from catalogue.addresses import absolute_url
from dumps import store, writers


def file_url(dump, name):
    return absolute_url(reverse("dumps:file", args=[dump.name, name]))


def latest_url(name):
    return absolute_url(reverse("dumps:latest", args=[name]))


@require_safe
def index(request):
    """The dumps kept, newest first, each file with its counts and SHA-256,
    and the stable addresses of the newest. Template: ``dumps/index.html``."""
    dumps = store.finished_dumps()
    return TemplateResponse(
        request,
        "dumps/index.html",
        {"dumps": dumps, "newest": dumps[0] if dumps else None},
    )


def describe(dump):
    return {
        "name": dump.name,
        "made_at": dump.made_at.isoformat(),
        "license": dump.license,
        "license_url": dump.license_url,
        "sha256sums_url": file_url(dump, store.SUMS),
        "files": [
            {
                "name": file.name,
                "format": file.format,
                "media_type": file.media_type,
                "encoding": "gzip",
                "documents": file.documents,
                "bytes": file.bytes,
                "uncompressed_bytes": file.uncompressed_bytes,
                "sha256": file.sha256,
                "url": file_url(dump, file.name),
            }
            for file in dump.files
        ],
    }


@require_safe
def index_json(request):
    """The same list as JSON: the dumps newest first, and ``latest``, each
    format's stable address."""
    dumps = store.finished_dumps()
    latest = {fmt.key: latest_url(fmt.name) for fmt in writers.FORMATS} | {
        "sha256sums": latest_url(store.SUMS)
    }
    return JsonResponse(
        {"latest": latest if dumps else {}, "dumps": [describe(d) for d in dumps]},
        json_dumps_params={"ensure_ascii": False},
    )


def served(request, dump, name):
    """The file ``name`` of ``dump`` (or its ``SHA256SUMS``): its SHA-256 its
    ETag, 304 when the client holds it, else streamed from the storage."""
    if name == store.SUMS:
        body = dump.sums.encode("ascii")
        digest = hashlib.sha256(body).hexdigest()
    else:
        file = dump.file(name)
        if file is None:
            raise Http404(f"The dump {dump.name} has no file {name}.")
        digest = file.sha256
    etag = quote_etag(digest)
    last_modified = int(dump.made_at.timestamp())
    response = get_conditional_response(request, etag=etag, last_modified=last_modified)
    if response is None and name == store.SUMS:
        response = HttpResponse(body, content_type="text/plain; charset=us-ascii")
        response["Content-Disposition"] = f'attachment; filename="{name}"'
    elif response is None:
        response = stored_file(dump, file)
    response["ETag"] = etag
    response["Last-Modified"] = http_date(last_modified)
    return response


def stored_file(dump, file):
    """``file`` of ``dump``, streamed from the storage as a gzip download."""
    try:
        opened = store.open_file(dump, file.name)
    except FileNotFoundError:  # Pruned since it was found.
        raise Http404(f"The dump {dump.name} is no longer kept.") from None
    response = FileResponse(
        opened, as_attachment=True, filename=file.name, content_type="application/gzip"
    )
    response["Content-Length"] = str(file.bytes)
    return response


@require_safe
def dump_file(request, dump, name):
    """A file of the dump ``dump``, or its ``SHA256SUMS``."""
    found = store.find_dump(dump)
    if found is None:
        raise Http404(f"No dump {dump} is kept.")
    return served(request, found, name)


@require_safe
def latest(request, name):
    """The newest dump's file ``name`` (or its ``SHA256SUMS``), at an address
    that stays the same from one dump to the next."""
    if name != store.SUMS and name not in writers.BY_NAME:
        raise Http404(f"No dump holds a file {name}.")
    newest = store.newest_dump()
    if newest is None:
        raise Http404("No dump has been made yet.")
    return served(request, newest, name)

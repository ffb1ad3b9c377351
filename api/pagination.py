"""Cursor pagination: each page is one indexed range of the list, however
deep the reader has walked, and says where the next one starts in a ``Link``
header (RFC 8288) as well as in its body.

A cursor is read only as the API writes it (base64 of ``o=…&r=1&p=…``, each
part at most once, the position a row's primary key) and a page size only
within its bounds: anything else is refused, naming the parameter, rather
than read as the first page or clamped."""

import binascii
import re
from base64 import b64decode, b64encode
from urllib import parse

from django.conf import settings
from rest_framework.pagination import Cursor, CursorPagination

from api.problems import refused
from catalogue.addresses import absolute_url
from pagecache.queries import canonical_number

DEFAULT_PAGE_SIZE = 100
# What a cursor's parts may hold: an offset within the cutoff, a direction,
# and a position, a primary key (PostgreSQL's bigint at most).
OFFSET_CUTOFF = 1000
POSITION_RE = re.compile(r"[1-9][0-9]{0,18}")


def max_page_size():
    """The largest page a list gives (``API_MAX_PAGE_SIZE``): it bounds what
    one uncached page costs (the figures: bench/results/api-pages.md)."""
    return settings.API_MAX_PAGE_SIZE


def page_size_rule():
    return f"a whole number from 1 to {max_page_size()}"


CURSOR_RULE = "a cursor as a list's next or previous address gives it"


def encode_tokens(cursor):
    """The text a cursor is written as, before base64, as DRF writes it."""
    tokens = {}
    if cursor.offset != 0:
        tokens["o"] = str(cursor.offset)
    if cursor.reverse:
        tokens["r"] = "1"
    if cursor.position is not None:
        tokens["p"] = cursor.position
    return parse.urlencode(tokens, doseq=True)


def read_cursor(encoded):
    """The ``Cursor`` ``encoded`` writes, or ParameterError naming why not."""
    try:
        text = b64decode(encoded.encode("ascii"), validate=True).decode("ascii")
        tokens = parse.parse_qs(text, keep_blank_values=True, strict_parsing=True)
    except (UnicodeError, binascii.Error, ValueError):
        raise refused("cursor", f"Not {CURSOR_RULE}.") from None
    if set(tokens) - {"o", "r", "p"} or any(len(v) != 1 for v in tokens.values()):
        raise refused("cursor", f"Not {CURSOR_RULE}: unknown or repeated parts.")
    offset = tokens.get("o", ["0"])[0]
    reverse = tokens.get("r", ["0"])[0]
    position = tokens.get("p", [None])[0]
    if not (offset.isascii() and offset.isdigit() and int(offset) <= OFFSET_CUTOFF):
        raise refused("cursor", f"Not {CURSOR_RULE}: its offset is out of bounds.")
    if reverse not in {"0", "1"}:
        raise refused("cursor", f"Not {CURSOR_RULE}: its direction is 0 or 1.")
    if position is not None and not POSITION_RE.fullmatch(position):
        raise refused("cursor", f"Not {CURSOR_RULE}: its position is a row's number.")
    cursor = Cursor(offset=int(offset), reverse=reverse == "1", position=position)
    # One spelling a position: a cursor is a cache key as much as a place.
    if b64encode(encode_tokens(cursor).encode("ascii")).decode("ascii") != encoded:
        raise refused("cursor", f"Not {CURSOR_RULE}: not as the API writes it.")
    return cursor


def read_page_size(value):
    """The page size ``value`` asks for, or ParameterError."""
    number = canonical_number(value)
    if number is None or not 1 <= int(number) <= max_page_size():
        raise refused("page_size", f"Give {page_size_rule()}, not {value!r}.")
    return int(number)


class RecordCursorPagination(CursorPagination):
    """Pages in the order rows entered the record (their primary key): a
    cursor is a position in that order, so a row added while a reader walks
    the list is never shown twice nor makes another row skipped."""

    ordering = "pk"
    page_size = DEFAULT_PAGE_SIZE
    page_size_query_param = "page_size"
    offset_cutoff = OFFSET_CUTOFF
    cursor_query_description = (
        "Where the page starts: the cursor of a list's next or previous "
        "address, as it is written there."
    )

    def get_page_size(self, request):
        value = request.query_params.get(self.page_size_query_param)
        return self.page_size if value is None else read_page_size(value)

    def decode_cursor(self, request):
        encoded = request.query_params.get(self.cursor_query_param)
        return None if encoded is None else read_cursor(encoded)

    def paginate_queryset(self, queryset, request, view=None):
        rows = super().paginate_queryset(queryset, request, view)
        # Next and previous addresses under the canonical origin, as every
        # address the API writes: a page is the same whatever Host it was
        # asked at, and is cached so.
        self.base_url = absolute_url(request.get_full_path())
        return rows

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["description"] = (
                    f"Rows a page gives: {page_size_rule()} "
                    f"({DEFAULT_PAGE_SIZE} unless given)."
                )
                parameter["schema"] = {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": max_page_size(),
                    "default": DEFAULT_PAGE_SIZE,
                }
            else:
                parameter["schema"] = {
                    "type": "string",
                    "pattern": "^[A-Za-z0-9+/_-]+={0,2}$",
                    "minLength": 4,
                    "maxLength": 200,
                }
        since = getattr(view, "sync_parameter", None)
        if since is not None:
            parameters.append(since)
        return parameters

    def get_paginated_response_schema(self, schema):
        response = super().get_paginated_response_schema(schema)
        response["properties"]["until"] = {
            "type": "string",
            "format": "date-time",
            "description": "A sync's end (its pages alone): the rows are those "
            "modified before it; the next sync starts from it.",
        }
        return response

    def get_paginated_response(self, data):
        response = super().get_paginated_response(data)
        links = [
            f'<{url}>; rel="{rel}"'
            for rel, url in (
                ("next", self.get_next_link()),
                ("prev", self.get_previous_link()),
            )
            if url
        ]
        if links:
            response["Link"] = ", ".join(links)
        return response

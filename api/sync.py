"""Sync: what changed in the record since a time, page by page, and what
left it.

A list given ``modified_since`` (an RFC 3339 timestamp) holds the rows whose
modification time is at or after it and before the sync's end, ``until``:
the time its first page was asked, carried by every next page's cursor and
given in every page's body (``until``). Pages follow in
(modification time, id) order, each starting strictly after the key the
last one ended at. A row changed while a client walks the pages moves past
``until``, so it is neither shown twice nor makes another row skipped; the
next sync, from ``until``, gives it as it is then.

``/api/removed/`` lists what readers could see and no longer can, or see
withdrawn: documents withdrawn (and not reinstated), topics deleted and
published decision records deleted, as the audit trail recorded them.
"""

import binascii
import re
from base64 import urlsafe_b64decode, urlsafe_b64encode
from datetime import UTC, datetime
from urllib import parse

from auditlog.models import LogEntry
from django.db import connection
from django.db.models import DateTimeField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from rest_framework.pagination import BasePagination, replace_query_param
from rest_framework.response import Response

from api.pagination import DEFAULT_PAGE_SIZE, read_page_size
from api.problems import refused
from catalogue.addresses import absolute_url
from catalogue.identifiers import Identifier
from catalogue.models import DecisionLog, Document

SINCE = "modified_since"
CURSOR = "cursor"
PAGE_SIZE = "page_size"
# RFC 3339's date-time: a full date, a full time, fractions of a second and
# an offset (Z or ±hh:mm), which it requires.
RFC3339_RE = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt]([0-9]{2}:[0-9]{2}:[0-9]{2})"
    r"(?:\.([0-9]{1,9}))?([Zz]|[+-][0-9]{2}:[0-9]{2})"
)
RFC3339_RULE = "an RFC 3339 timestamp with its offset, as 2026-12-07T04:00:00Z"
SYNC_CURSOR_RULE = "a cursor as a sync's next address gives it"
# A modification time no row precedes: a topic the audit trail never saw
# change (made with the record) was modified then.
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def read_time(name, value):
    """The aware datetime ``value`` (RFC 3339) states, or ParameterError
    naming ``name``."""
    match = RFC3339_RE.fullmatch(value)
    if match is None:
        hint = " (a “+” in a query is a space: write it %2B)" if " " in value else ""
        raise refused(name, f"Give {RFC3339_RULE}, not {value!r}{hint}.")
    day, clock, fraction, offset = match.groups()
    fraction = (fraction or "0")[:6].ljust(6, "0")
    offset = "+00:00" if offset in {"Z", "z"} else offset
    # Read as UTC: a database compares instants, and PostgreSQL refuses
    # offsets RFC 3339 allows (beyond ±15:59). An instant before year 1 or
    # after 9999 once in UTC is no time a row can have.
    try:
        stated = datetime.fromisoformat(f"{day}T{clock}.{fraction}{offset}")
        return stated.astimezone(UTC)
    except (ValueError, OverflowError):
        raise refused(name, f"{value!r} is no time: give {RFC3339_RULE}.") from None


def parameter(name, description, *, required):
    """The OpenAPI description of a query parameter taking a time."""
    return {
        "name": name,
        "in": "query",
        "required": required,
        "description": f"{description} Give {RFC3339_RULE}.",
        "schema": {
            "type": "string",
            "format": "date-time",
            "minLength": 20,
            "maxLength": 35,
        },
    }


def write_time(moment):
    """``moment`` in RFC 3339, in UTC, to the microsecond."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def encode_cursor(until, key):
    """The cursor of a sync ending at ``until``, its page after ``key``:
    (time, id), or (time, kind, id) in a list of several kinds."""
    tokens = {"u": write_time(until)}
    if key is not None:
        tokens["t"], tokens["i"] = write_time(key[0]), str(key[-1])
        if len(key) == 3:
            tokens["k"] = key[1]
    text = parse.urlencode(sorted(tokens.items()))
    return urlsafe_b64encode(text.encode("ascii")).decode("ascii")


def read_cursor(encoded):
    """``(until, key)`` the sync cursor ``encoded`` holds, or ParameterError."""
    try:
        text = urlsafe_b64decode(encoded.encode("ascii")).decode("ascii")
        tokens = parse.parse_qs(text, strict_parsing=True)
    except (UnicodeError, binascii.Error, ValueError):
        raise refused(CURSOR, f"Not {SYNC_CURSOR_RULE}.") from None
    if set(tokens) not in ({"u"}, {"u", "t", "i"}, {"u", "t", "k", "i"}) or any(
        len(values) != 1 for values in tokens.values()
    ):
        raise refused(CURSOR, f"Not {SYNC_CURSOR_RULE}: unknown or repeated parts.")
    until = read_time(CURSOR, tokens["u"][0])
    key = None
    if "t" in tokens:
        pk = tokens["i"][0]
        if not re.fullmatch(r"[1-9][0-9]{0,18}", pk):
            raise refused(CURSOR, f"Not {SYNC_CURSOR_RULE}: its row is a number.")
        at = read_time(CURSOR, tokens["t"][0])
        key = (at, int(pk))
        if "k" in tokens:
            if tokens["k"][0] not in KINDS:
                raise refused(CURSOR, f"Not {SYNC_CURSOR_RULE}: no such kind.")
            key = (at, tokens["k"][0], int(pk))
    # One spelling a position: a cursor is a cache key as much as a place.
    if encode_cursor(until, key) != encoded:
        raise refused(CURSOR, f"Not {SYNC_CURSOR_RULE}: not as the API writes it.")
    return until, key


def sync_end():
    """Where a sync starting now ends: now, or, on PostgreSQL, the start of
    the oldest transaction still open on the record's database if earlier.
    A row is stamped as it is saved but shows once its transaction commits:
    one stamped before a sync's end and committed after its pages were read
    would be in neither this sync nor the next. A transaction open now
    stamps its rows at or after its start, so they are all in the next."""
    now = timezone.now()
    if connection.vendor != "postgresql":
        # SQLite runs one writing transaction at a time, each short.
        return now
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT min(xact_start) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid() "
            "AND xact_start IS NOT NULL"
        )
        (oldest,) = cursor.fetchone()
    return now if oldest is None else min(now, oldest)


def after(field, key):
    """Rows strictly after ``key`` (time, id) in (``field``, id) order."""
    at, pk = key
    return Q(**{f"{field}__gt": at}) | Q(**{field: at, "pk__gt": pk})


class SyncPagination(BasePagination):
    """A sync's pages: the rows modified from ``modified_since`` until the
    sync's end, in (modification time, id) order, one key-bounded range of
    an index a page. ``field`` names the view's modification time."""

    def __init__(self, field):
        self.field = field

    since_parameter = SINCE
    key_length = 2

    def read_window(self, request):
        """``(since, size, key)`` the request asks for, the sync's end in
        ``until``: its page size and cursor are read first, then its time."""
        params = request.query_params
        size = params.get(PAGE_SIZE)
        size = DEFAULT_PAGE_SIZE if size is None else read_page_size(size)
        encoded = params.get(CURSOR)
        if encoded is None:
            self.until, key = sync_end(), None
        else:
            self.until, key = read_cursor(encoded)
            if key is not None and len(key) != self.key_length:
                raise refused(CURSOR, f"Not {SYNC_CURSOR_RULE}: another list's.")
        name = self.since_parameter
        if name not in params:
            raise refused(name, f"Required: give {RFC3339_RULE}.")
        return read_time(name, params[name]), size, key

    def paginate_queryset(self, queryset, request, view=None):
        since, size, key = self.read_window(request)
        rows = queryset.filter(
            **{f"{self.field}__gte": since, f"{self.field}__lt": self.until}
        )
        if key is not None:
            rows = rows.filter(after(self.field, key))
        found = list(rows.order_by(self.field, "pk")[: size + 1])
        self.next_key = None
        if len(found) > size:
            found = found[:size]
            last = found[-1]
            self.next_key = (getattr(last, self.field), last.pk)
        self.url = absolute_url(request.get_full_path())
        return found

    def next_link(self):
        if self.next_key is None:
            return None
        return replace_query_param(
            self.url, CURSOR, encode_cursor(self.until, self.next_key)
        )

    def get_paginated_response(self, data):
        next_link = self.next_link()
        response = Response(
            {
                "next": next_link,
                "previous": None,
                "until": write_time(self.until),
                "results": data,
            }
        )
        if next_link:
            response["Link"] = f'<{next_link}>; rel="next"'
        return response


def topic_modified_at():
    """A topic's modification time: its last entry in the audit trail, the
    epoch for one the trail never saw change."""
    entries = LogEntry.objects.filter(
        content_type__app_label="catalogue",
        content_type__model="topic",
        object_id=OuterRef("pk"),
    ).order_by("-timestamp")
    return Coalesce(
        Subquery(entries.values("timestamp")[:1]),
        Value(EPOCH),
        output_field=DateTimeField(),
    )


# What left the record, by kind: the order of kinds among rows of one time.
DOCUMENT, TOPIC, DECISION = "document", "topic", "decision_record"
KINDS = [DOCUMENT, TOPIC, DECISION]


def deletions(model, since, until):
    """The audit trail's deletions of ``model`` from ``since`` until ``until``."""
    return LogEntry.objects.filter(
        content_type__app_label="catalogue",
        content_type__model=model,
        action=LogEntry.Action.DELETE,
        timestamp__gte=since,
        timestamp__lt=until,
    )


def removed_rows(since, until, key, size):
    """Up to ``size`` + 1 rows of what left readers' view from ``since``
    until ``until``, in (time, kind, id) order after ``key``: one query a
    kind, and one for the logs of the decision records among them."""

    def bound(queryset, kind, field):
        if key is None:
            return queryset
        at, key_kind, pk = key
        rank, key_rank = KINDS.index(kind), KINDS.index(key_kind)
        if rank > key_rank:
            return queryset.filter(**{f"{field}__gte": at})
        if rank < key_rank:
            return queryset.filter(**{f"{field}__gt": at})
        return queryset.filter(after(field, (at, pk)))

    withdrawn = Document.objects.filter(
        status=Document.Status.WITHDRAWN,
        withdrawn_at__gte=since,
        withdrawn_at__lt=until,
    ).select_related("registry")
    rows = [
        {
            "kind": DOCUMENT,
            "change": "withdrawn",
            "identifier": str(document.identifier),
            "at": document.withdrawn_at,
            "key": document.pk,
        }
        for document in bound(withdrawn, DOCUMENT, "withdrawn_at").order_by(
            "withdrawn_at", "pk"
        )[: size + 1]
    ]
    topics = bound(deletions("topic", since, until), TOPIC, "timestamp")
    rows += [
        {
            "kind": TOPIC,
            "change": "deleted",
            "identifier": entry.changes_dict.get("slug", [entry.object_repr])[0],
            "at": entry.timestamp,
            "key": entry.pk,
        }
        for entry in topics.order_by("timestamp", "pk")[: size + 1]
    ]
    decisions = bound(
        deletions("decisionrecord", since, until), DECISION, "timestamp"
    ).order_by("timestamp", "pk")
    # Only a published record was ever a reader's; a draft deleted never was.
    published = [
        entry
        for entry in decisions[: size + 1]
        if entry.changes_dict.get("published_at", ["None"])[0] not in {"None", None}
    ]
    logs = DecisionLog.objects.in_bulk(
        {int(entry.changes_dict["log"][0]) for entry in published}
    )
    for entry in published:
        log = logs.get(int(entry.changes_dict["log"][0]))
        number = int(entry.changes_dict["number"][0])
        name = str(Identifier(log.prefix, number)) if log else entry.object_repr
        rows.append(
            {
                "kind": DECISION,
                "change": "deleted",
                "identifier": name,
                "log": log.slug if log else None,
                "at": entry.timestamp,
                "key": entry.pk,
            }
        )
    rows.sort(key=lambda row: (row["at"], KINDS.index(row["kind"]), row["key"]))
    return rows[: size + 1]


class RemovedPagination(SyncPagination):
    """The pages of what left readers' view: from ``since`` until the time
    the first page was asked, in (time, kind, id) order."""

    since_parameter = "since"
    key_length = 3

    def __init__(self):
        super().__init__(field=None)

    def paginate_queryset(self, queryset, request, view=None):
        since, size, key = self.read_window(request)
        found = removed_rows(since, self.until, key, size)
        self.next_key = None
        if len(found) > size:
            found = found[:size]
            last = found[-1]
            self.next_key = (last["at"], last["kind"], last["key"])
        self.url = absolute_url(request.get_full_path())
        return found

"""Cursor pagination: each page is one indexed range of the list, however
deep the reader has walked, and says where the next one starts in a ``Link``
header (RFC 8288) as well as in its body."""

from rest_framework.pagination import CursorPagination

# As many rows as a topic page shows at most.
MAX_PAGE_SIZE = 1000


class RecordCursorPagination(CursorPagination):
    """Pages in the order rows entered the record (their primary key): a
    cursor is a position in that order, so a row added while a reader walks
    the list is never shown twice nor makes another row skipped."""

    ordering = "pk"
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE

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

"""Paginators for long lists (issue 6)."""

from django.core.paginator import Paginator
from django.db import connections
from django.utils.functional import cached_property

# Below this many rows an exact count is cheap, and exact is better.
ESTIMATE_ABOVE = 10_000


class EstimatedCountPaginator(Paginator):
    """Counts an unfiltered list from PostgreSQL's own statistics.

    ``COUNT(*)`` reads the whole table, on every page of the admin's document
    list; the planner's row estimate (``pg_class.reltuples``, kept by
    autovacuum and ANALYZE) costs one lookup by primary key. A filtered or
    searched list, a small table, and SQLite are counted exactly.
    """

    @cached_property
    def count(self):
        queryset = self.object_list
        if not queryset.query.where:
            estimate = self._estimate(queryset)
            if estimate is not None and estimate >= ESTIMATE_ABOVE:
                return estimate
        return super().count

    def _estimate(self, queryset):
        connection = connections[queryset.db]
        if connection.vendor != "postgresql":
            return None
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT reltuples::bigint FROM pg_class WHERE oid = %s::regclass",
                [queryset.model._meta.db_table],
            )
            row = cursor.fetchone()
        # -1 (or nothing) until the table has been analysed once.
        return row[0] if row and row[0] >= 0 else None

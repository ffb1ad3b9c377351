"""Paginators for the admin's long lists."""

from django.core.paginator import Paginator
from django.db import connections
from django.utils.functional import cached_property

# Below this many rows an exact count is cheap, and exact is better.
ESTIMATE_ABOVE = 10_000


class EstimatedCountPaginator(Paginator):
    """Counts an unfiltered list from PostgreSQL's own statistics.

    ``COUNT(*)`` reads the whole table, on every page of the admin's document
    list; the planner's row estimate (``pg_class.reltuples``, kept by
    autovacuum and ANALYZE) costs one lookup by primary key. One query asks
    for the estimate and, when it is small or missing (a table never
    analysed), counts instead, so the list costs the same number of queries
    at any size. A filtered or searched list, and SQLite, are counted exactly.
    """

    @cached_property
    def count(self):
        queryset = self.object_list
        connection = connections[queryset.db]
        if queryset.query.where or connection.vendor != "postgresql":
            return super().count
        table = connection.ops.quote_name(queryset.model._meta.db_table)
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT CASE WHEN reltuples >= %s THEN reltuples::bigint "
                f"ELSE (SELECT COUNT(*) FROM {table}) END "
                "FROM pg_class WHERE oid = %s::regclass",
                [ESTIMATE_ABOVE, queryset.model._meta.db_table],
            )
            return cursor.fetchone()[0]

"""Lookups the ORM lacks.

``AnyOf(F("number"), numbers)`` filters as ``number__in=numbers`` does, but on
PostgreSQL sends the values as one array parameter (``number = ANY(%s)``)
rather than one placeholder a value: a topic page names about a thousand
documents, and quoting a thousand placeholders into the query costs more than
the database's lookup of them. Elsewhere it is the ``in`` lookup.
"""

from django.core.exceptions import EmptyResultSet
from django.db.models.lookups import In


class AnyOf(In):
    """``lhs IN values``, as one array on PostgreSQL."""

    lookup_name = "any_of"

    def as_postgresql(self, compiler, connection):
        if not self.rhs_is_direct_value():
            return super().as_sql(compiler, connection)
        # NULL is never equal to anything, as for ``in``.
        values = [value for value in dict.fromkeys(self.rhs) if value is not None]
        if not values:
            raise EmptyResultSet
        field = self.lhs.output_field
        values = [
            field.get_db_prep_value(value, connection, prepared=True)
            for value in values
        ]
        lhs, lhs_params = self.process_lhs(compiler, connection)
        return f"{lhs} = ANY(%s)", (*lhs_params, values)

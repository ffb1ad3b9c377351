"""Lookups the ORM lacks.

``AnyOf(F("number"), numbers)`` filters an integer field as
``number__in=numbers`` does, but on PostgreSQL sends the numbers as one array
parameter (``number = ANY(%s::integer[])``) rather than one placeholder a
value: a topic page names about a thousand documents, and preparing, quoting
and splitting a thousand placeholders costs more than the database's lookup of
them. Elsewhere, and for other fields, it is the ``in`` lookup.
"""

from django.core.exceptions import EmptyResultSet
from django.db.models import IntegerField
from django.db.models.lookups import In


class AnyOf(In):
    """``lhs IN values``, as one array of integers on PostgreSQL."""

    lookup_name = "any_of"

    def as_postgresql(self, compiler, connection):
        field = self.lhs.output_field
        # A key to another table holds that table's key: an integer.
        field = getattr(field, "target_field", field)
        if not self.rhs_is_direct_value() or not isinstance(field, IntegerField):
            return super().as_sql(compiler, connection)
        # NULL is never equal to anything, as for ``in``; int() refuses what
        # is not a number, as the field would.
        numbers = sorted({int(value) for value in self.rhs if value is not None})
        if not numbers:
            raise EmptyResultSet
        lhs, lhs_params = self.process_lhs(compiler, connection)
        array = "{" + ",".join(map(str, numbers)) + "}"
        return f"{lhs} = ANY(%s::{field.cast_db_type(connection)}[])", (
            *lhs_params,
            array,
        )

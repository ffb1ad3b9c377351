"""Rows on their way into the record, written a set at a time.

On PostgreSQL a bulk write is done in two parts. Staging takes rows a batch
at a time and copies each batch (COPY) into a temporary table
(``stage_<table>_<n>``), which no other session sees and which takes no lock
on the record. The switch-over then moves everything in at once: the
deletions staged, one ``INSERT … SELECT`` a table for new rows, one
``UPDATE … FROM`` a table and set of columns for changed rows, then the
bookkeeping staged beside them (a registry's mark). So a long import holds
the record's locks only for the switch-over, at its end, and is still all or
nothing: staging and switch-over run in the import's transaction, and the
temporary tables go with it (``ON COMMIT DROP``).

Elsewhere (SQLite, which locks the whole database for a write anyway) every
row is written as it is staged, by ``bulk_create`` and ``bulk_update``, and
the switch-over runs only the bookkeeping.

New rows take their primary keys from the table's own sequence as they are
staged (one query a batch), so audit entries, versions and references can
name them before they are written. Rows that nothing staged names and that
take no key ahead (audit entries) are copied straight into their table as
they come (``append``): adding rows holds no lock another session waits on.

``analysed(changed)`` brings the planner's statistics up to date for the
tables a bulk write changed by a sizable share (``bulk_change`` and the CSV
import call it with the rows ``noting_changes`` counted).
"""

import datetime
import itertools
import operator
import re
import time

from django.db import (
    DEFAULT_DB_ALIAS,
    OperationalError,
    connection,
    connections,
    models,
)
from django.db.models import Field

# The fields whose values need no conversion on their way to the database
# (those an instance holds are already of the column's type).
PLAIN_PREPARATION = {
    kind.get_prep_value
    for kind in [
        models.Field,
        models.CharField,
        models.TextField,
        models.IntegerField,
        models.PositiveIntegerField,
        models.PositiveSmallIntegerField,
        models.SmallIntegerField,
        models.BigIntegerField,
        models.BooleanField,
        models.AutoField,
        models.BigAutoField,
    ]
}

# Temporary tables are named apart within a session.
_staged_tables = itertools.count()


def _columns(model):
    """The model's concrete fields, as an INSERT writes them."""
    return [field for field in model._meta.concrete_fields if not field.generated]


def _plain(field):
    """Whether the field's value goes to the database as the instance holds
    it: no conversion of its own, nothing stamped on save; a key to a row
    with a whole-number key; an automatic key, which staging takes from the
    sequence. (The others are converted as ``bulk_create`` converts them.)"""
    if field.primary_key and isinstance(field, models.AutoField | models.BigAutoField):
        return True
    if field.many_to_one:
        return isinstance(field.target_field, models.AutoField | models.BigAutoField)
    kind = type(field)
    return (
        not field.is_relation
        and kind.pre_save is Field.pre_save
        and kind.get_db_prep_save is Field.get_db_prep_save
        and kind.get_db_prep_value
        in {Field.get_db_prep_value, models.IntegerField.get_db_prep_value}
        and kind.get_prep_value in PLAIN_PREPARATION
    )


def _row_values(model, *, add, columns=None):
    """A function giving an instance's values for its columns (or
    ``columns``), as an INSERT (``add``) writes them, or as an UPDATE does."""
    db = connections[DEFAULT_DB_ALIAS]
    getters = []
    for field in _columns(model) if columns is None else columns:
        if _plain(field):
            getters.append(operator.attrgetter(field.attname))
        elif isinstance(field, models.DateTimeField):
            getters.append(_time_value(field, add=add, db=db))
        elif add:
            getters.append(
                lambda instance, field=field: field.get_db_prep_save(
                    field.pre_save(instance, True), db
                )
            )
        else:
            getters.append(
                lambda instance, field=field: field.get_db_prep_save(
                    getattr(instance, field.attname), db
                )
            )
    return lambda instance: [get(instance) for get in getters]


def _time_value(field, *, add, db):
    """A function giving a time field's value as ``get_db_prep_save`` gives it
    on PostgreSQL: an aware time, or none, as it is (the stamped ones stamped
    first); any other value converted."""

    def value(instance):
        if add:
            given = field.pre_save(instance, True)
        else:
            given = getattr(instance, field.attname)
        if given is None or (
            type(given) is datetime.datetime and given.utcoffset() is not None
        ):
            return given
        return field.get_db_prep_save(given, db)

    return value


def _quoted(name):
    return connection.ops.quote_name(name)


class Staging:
    """The rows a bulk write stages, and its switch-over (``switch``).

    ``switch_seconds`` is how long the last switch-over took: the time the
    record's rows and tables were written, and locked, by the bulk write.
    """

    def __init__(self):
        self.postgresql = connection.vendor == "postgresql"
        self.staged_tables = {}  # (model, fields or None) -> temporary table
        self.deletions = []  # callables run first at the switch-over
        self.afterwards = []  # callables run last at the switch-over
        self.switch_seconds = 0.0

    @property
    def empty(self):
        return not (self.staged_tables or self.deletions or self.afterwards)

    def insert(self, model, instances):
        """Stage new rows; each instance gets its primary key now."""
        instances = list(instances)
        if not instances:
            return instances
        if not self.postgresql:
            return model.objects.bulk_create(instances)
        pk = model._meta.pk
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, %s)) "
                "FROM generate_series(1, %s)",
                [model._meta.db_table, pk.column, len(instances)],
            )
            for instance, (value,) in zip(instances, cursor.fetchall(), strict=True):
                setattr(instance, pk.attname, value)
        row = _row_values(model, add=True)
        self._copy(model, None, _columns(model), map(row, instances))
        for instance in instances:
            instance._state.adding = False
            instance._state.db = connection.alias
        return instances

    def append(self, model, instances):
        """Write new rows that no staged row names and that the write reads
        back from nowhere (audit entries): on PostgreSQL, at once, by one
        COPY into the record's table, whose sequence keys them (the
        instances get no key); elsewhere by ``bulk_create``. They take no
        staging table, no keys read first and no ``INSERT … SELECT``: adding
        rows holds no lock another session waits on, and they commit or
        roll back with the write. The COPY is counted by ``noting_changes``
        as the INSERT it stands for would be."""
        instances = list(instances)
        if not instances:
            return
        if not self.postgresql:
            model.objects.bulk_create(instances)
            return
        pk = model._meta.pk
        columns = [field for field in _columns(model) if field is not pk]
        row = _row_values(model, add=True, columns=columns)
        _copied_in(model, columns, map(row, instances))

    def update(self, model, instances, fields):
        """Stage ``fields`` of existing rows to be written."""
        instances = list(instances)
        if not instances:
            return
        fields = tuple(fields)
        if not self.postgresql:
            model.objects.bulk_update(instances, fields, batch_size=1000)
            return
        columns = [model._meta.pk, *(model._meta.get_field(name) for name in fields)]
        rows = (
            [
                field.get_db_prep_save(getattr(instance, field.attname), connection)
                for field in columns
            ]
            for instance in instances
        )
        self._copy(model, fields, columns, rows)

    def delete(self, queryset):
        """Delete the rows of ``queryset`` first at the switch-over (at once
        elsewhere than PostgreSQL)."""
        if self.postgresql:
            self.deletions.append(queryset)
        else:
            queryset.delete()

    def then(self, function):
        """Run ``function()`` last at the switch-over."""
        self.afterwards.append(function)

    def _copy(self, model, fields, columns, rows):
        """Copy ``rows`` into the temporary table staging ``model``'s new rows
        (``fields`` None) or changes of ``fields``, made on first use."""
        key = (model, fields)
        table = self.staged_tables.get(key)
        names = ", ".join(_quoted(field.column) for field in columns)
        with connection.cursor() as cursor:
            if table is None:
                table = f"stage_{model._meta.db_table}_{next(_staged_tables)}"
                # Its columns have the record table's types and none of its
                # constraints, indexes or triggers: staging checks nothing
                # the switch-over does not check again.
                cursor.execute(
                    f"CREATE TEMPORARY TABLE {_quoted(table)} ON COMMIT DROP AS "
                    f"SELECT {names} FROM {_quoted(model._meta.db_table)} "
                    "WITH NO DATA"
                )
                self.staged_tables[key] = table
            # Django's debug cursor logs the COPY as it logs a statement.
            with cursor.copy(f"COPY {_quoted(table)} ({names}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)

    def switch(self):
        """Write everything staged into the record, one statement a table, in
        the caller's transaction; then stage anew."""
        started = time.monotonic()
        for queryset in self.deletions:
            queryset.delete()
        if self.staged_tables:
            self._switch_postgresql()
        for function in self.afterwards:
            function()
        seconds = time.monotonic() - started
        self.__init__()
        self.switch_seconds = seconds

    def _switch_postgresql(self):
        # New rows first: a change staged later may name them.
        staged = sorted(
            self.staged_tables.items(), key=lambda item: item[0][1] is not None
        )
        with connection.cursor() as cursor:
            for (model, fields), table in staged:
                target = _quoted(model._meta.db_table)
                if fields is None:
                    names = ", ".join(
                        _quoted(field.column) for field in _columns(model)
                    )
                    cursor.execute(
                        f"INSERT INTO {target} ({names}) "
                        f"SELECT {names} FROM {_quoted(table)}"
                    )
                else:
                    pk = _quoted(model._meta.pk.column)
                    assignments = ", ".join(
                        f"{_quoted(column)} = staged.{_quoted(column)}"
                        for column in (
                            model._meta.get_field(name).column for name in fields
                        )
                    )
                    cursor.execute(
                        f"UPDATE {target} SET {assignments} "
                        f"FROM {_quoted(table)} AS staged "
                        f"WHERE {target}.{pk} = staged.{pk}"
                    )
                cursor.execute(f"DROP TABLE {_quoted(table)}")


# A bulk write analyses a table itself only once it changed a sizable share
# of it, the share after which autovacuum analyses a table (PostgreSQL's
# defaults: 50 rows and a tenth of the rows its statistics count). A smaller
# change leaves statistics that still describe the table, and autovacuum
# analyses it once the changes of many writes add up to that share; ANALYZE
# samples the whole table whatever the change, so analysing after every
# write cost a write into a large record more than its own rows.
ANALYZE_ROWS = 50
ANALYZE_SHARE = 0.1

# The table a statement writes: Django quotes the names it writes.
WRITTEN_TABLE_RE = re.compile(
    r'^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"([^"]+)"', re.IGNORECASE
)


class ChangedRows(dict):
    """``{table: rows}`` a write inserted, updated or deleted, as
    ``noting_changes`` counts them."""

    def __init__(self):
        super().__init__()
        # SQLite counts the rows of a statement returning them only once
        # they are read: its cursors, read when the write is done.
        self.returning = []

    def settled(self):
        for table, cursor in self.returning:
            self[table] = self.get(table, 0) + max(cursor.rowcount, 0)
        self.returning = []
        return self


def noting_changes(changed):
    """An execute wrapper adding to ``changed`` (``ChangedRows``) the rows
    each statement inserts, updates or deletes (and each ``inserted`` copies
    in)."""

    def wrapper(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if match := WRITTEN_TABLE_RE.match(sql):
            cursor = context["cursor"]
            if connection.vendor == "sqlite" and " RETURNING " in sql:
                changed.returning.append((match[1], cursor.cursor))
            else:
                changed[match[1]] = changed.get(match[1], 0) + max(cursor.rowcount, 0)
        return result

    wrapper.changed = changed
    return wrapper


def inserted(model, fields, rows):
    """Insert ``rows`` (tuples of the values of ``fields``, by name) into
    ``model``'s table: on PostgreSQL by one COPY, which formats the rows
    without quoting each value into the text of a statement, elsewhere by
    ``bulk_create``. Nothing is converted: each value is the column's as it
    is, and the table's own default gives the key. The COPY is counted by
    ``noting_changes`` as the INSERT it stands for would be (Django's
    debug cursor puts it in the query log, once); no rows, no statement."""
    rows = list(rows)
    if not rows:
        return
    fields = [model._meta.get_field(name) for name in fields]
    if connection.vendor != "postgresql":
        attnames = [field.attname for field in fields]
        model.objects.bulk_create(
            model(**dict(zip(attnames, row, strict=True))) for row in rows
        )
        return
    _copied_in(model, fields, rows)


def _copied_in(model, fields, rows):
    """COPY ``rows`` (the values of ``fields``) into ``model``'s table,
    counted by ``noting_changes`` as an INSERT of them."""
    table = model._meta.db_table
    names = ", ".join(_quoted(field.column) for field in fields)
    sql = f"COPY {_quoted(table)} ({names}) FROM STDIN"
    copied = 0
    with connection.cursor() as cursor, cursor.copy(sql) as copy:
        for row in rows:
            copy.write_row(row)
            copied += 1
    for wrapper in connection.execute_wrappers:
        if isinstance(changed := getattr(wrapper, "changed", None), ChangedRows):
            changed[table] = changed.get(table, 0) + copied


def analysed(changed):
    """Bring the planner's statistics up to date for the tables of
    ``changed`` (``ChangedRows``) whose change is a sizable share
    of them (``ANALYZE_ROWS`` and ``ANALYZE_SHARE``), or whose rows the
    statistics have never counted: ANALYZE on PostgreSQL, ANALYZE and
    ``PRAGMA optimize`` on SQLite. A bulk write changes a table's shape more
    than its statistics know until autovacuum catches up; queries planned
    meanwhile can be many times slower. Returns the tables analysed."""
    changed = changed.settled()
    tables = set(changed) & set(connection.introspection.table_names())
    if not tables:
        return []
    counted = _counted_rows(tables)
    tables = sorted(
        table
        for table in tables
        if counted.get(table) is None
        or changed[table] >= ANALYZE_ROWS + ANALYZE_SHARE * counted[table]
    )
    if not tables:
        return tables
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("ANALYZE " + ", ".join(_quoted(t) for t in tables))
        elif connection.vendor == "sqlite":
            for table in tables:
                cursor.execute(f"ANALYZE {_quoted(table)}")
            cursor.execute("PRAGMA optimize")
    return tables


def _counted_rows(tables):
    """``{table: rows}`` as the planner's statistics count them; a table they
    have never counted is left out."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # reltuples is -1 for a table never analysed nor vacuumed.
            cursor.execute(
                "SELECT relname, reltuples FROM pg_class WHERE relname = ANY(%s) "
                "AND relkind IN ('r', 'p') AND relpersistence <> 't' "
                "AND pg_table_is_visible(oid) AND reltuples >= 0",
                [sorted(tables)],
            )
            return dict(cursor.fetchall())
        if connection.vendor == "sqlite":
            # Each row's stat starts with the rows its table held; the table
            # of them exists once anything was analysed.
            try:
                cursor.execute("SELECT tbl, stat FROM sqlite_stat1")
            except OperationalError:
                return {}
            counted = {}
            for table, stat in cursor.fetchall():
                if table in tables:
                    rows = int(stat.split()[0])
                    counted[table] = max(counted.get(table, 0), rows)
            return counted
    return {}

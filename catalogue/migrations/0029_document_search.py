"""On PostgreSQL, search reads a narrow table of its own, ``document_search``:
one row per public document with only what a search reads (the id, what
the order's ties and the filters read, the search vector), so ranking the
matches reads a fraction of the bytes the document rows hold.

Like the search vectors (0004) and SQLite's FTS5 tables (0009), it is kept by
the database itself, so every write path (the actions, bulk imports, restores,
raw SQL) keeps it current: a statement-level trigger per kind of write, each
one set-based statement over the rows that statement changed (its transition
table), so its cost is proportional to the change, never to the record.

A second GIN index covers the vector's A-weighted lexemes alone (identifier
and title, ``ts_filter(search_vector, '{a}')``): the documents whose title
matches a query are found without reading the others (public.search).
"""

from django.db import migrations

PUBLIC = "('active', 'superseded', 'withdrawn')"
COLUMNS = "registry_id, number, status, topic_id, year, search_vector"
CHANGED = ", ".join(
    f"{name} = EXCLUDED.{name}" for name in [c.strip() for c in COLUMNS.split(",")]
)
UPSERT = f"""
    INSERT INTO document_search (document_id, {COLUMNS})
    SELECT id, {COLUMNS} FROM changed
    WHERE status IN {PUBLIC} AND search_vector IS NOT NULL
    ON CONFLICT (document_id) DO UPDATE SET {CHANGED}
    WHERE (document_search.{COLUMNS.replace(", ", ", document_search.")})
        IS DISTINCT FROM (EXCLUDED.{COLUMNS.replace(", ", ", EXCLUDED.")})
"""
FUNCTIONS = {
    "insert": f"{UPSERT};",
    # A document that leaves the public statuses leaves the table; the others
    # are written again only where a read column changed.
    "update": f"""
        WITH gone AS (
            DELETE FROM document_search AS s USING changed
            WHERE s.document_id = changed.id
                AND (changed.status NOT IN {PUBLIC} OR changed.search_vector IS NULL)
        )
        {UPSERT};
    """,
    "delete": """
        DELETE FROM document_search AS s USING changed
        WHERE s.document_id = changed.id;
    """,
}


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    execute = schema_editor.execute
    execute(
        """
        CREATE TABLE document_search (
            document_id bigint PRIMARY KEY,
            registry_id bigint NOT NULL,
            number integer NOT NULL,
            status varchar(20) NOT NULL,
            topic_id bigint NULL,
            year smallint NOT NULL,
            search_vector tsvector NOT NULL
        )
        """
    )
    for kind, body in FUNCTIONS.items():
        transition = "OLD" if kind == "delete" else "NEW"
        execute(
            f"""
            CREATE FUNCTION document_search_{kind}() RETURNS trigger AS $$
            BEGIN
                {body}
                RETURN NULL;
            END
            $$ LANGUAGE plpgsql
            """
        )
        execute(
            f"CREATE TRIGGER document_search_{kind} AFTER {kind.upper()} "
            f"ON catalogue_document REFERENCING {transition} TABLE AS changed "
            f"FOR EACH STATEMENT EXECUTE FUNCTION document_search_{kind}()"
        )
    execute(
        """
        CREATE FUNCTION document_search_truncate() RETURNS trigger AS $$
        BEGIN
            TRUNCATE document_search;
            RETURN NULL;
        END
        $$ LANGUAGE plpgsql
        """
    )
    execute(
        "CREATE TRIGGER document_search_truncate AFTER TRUNCATE "
        "ON catalogue_document FOR EACH STATEMENT "
        "EXECUTE FUNCTION document_search_truncate()"
    )
    execute(
        f"INSERT INTO document_search (document_id, {COLUMNS}) "
        f"SELECT id, {COLUMNS} FROM catalogue_document "
        f"WHERE status IN {PUBLIC} AND search_vector IS NOT NULL"
    )
    execute(
        "CREATE INDEX document_search_vector ON document_search "
        "USING gin (search_vector)"
    )
    execute(
        "CREATE INDEX document_search_title ON document_search "
        "USING gin (ts_filter(search_vector, '{a}'))"
    )


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for kind in [*FUNCTIONS, "truncate"]:
        schema_editor.execute(
            f"DROP TRIGGER IF EXISTS document_search_{kind} ON catalogue_document"
        )
        schema_editor.execute(f"DROP FUNCTION IF EXISTS document_search_{kind}()")
    schema_editor.execute("DROP TABLE IF EXISTS document_search")


class Migration(migrations.Migration):
    dependencies = [
        ("catalogue", "0028_schedules_and_previews"),
    ]

    operations = [
        migrations.RunPython(create, drop),
    ]

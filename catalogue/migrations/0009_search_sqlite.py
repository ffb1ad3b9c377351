from django.db import migrations

# On SQLite the search runs on FTS5 tables with the Porter stemmer, kept by
# triggers, so every write path (the ORM, bulk inserts, restores, raw SQL)
# keeps them current, as PostgreSQL's triggers keep the search_vector columns
# (0004). Each table's rowid is the row's primary key. Columns are in the
# order of their weight in public.search.
IDENTIFIER = {
    "catalogue_document": (
        "(SELECT prefix FROM catalogue_registry WHERE id = {row}.registry_id)"
        " || '-' || printf('%03d', {row}.number)"
    ),
    "catalogue_decisionrecord": "'ADR-' || printf('%03d', {row}.number)",
}
TABLES = {
    "catalogue_document": {
        "fts": "document_fts",
        "columns": {
            "identifier": IDENTIFIER["catalogue_document"],
            "title": "{row}.title",
            "citation": "{row}.authors || ' ' || {row}.source_identifier"
            " || ' ' || {row}.citation_note",
            "summary": "{row}.summary",
        },
        "watched": "registry_id, number, title, authors, source_identifier,"
        " citation_note, summary",
    },
    "catalogue_decisionrecord": {
        "fts": "decision_fts",
        "columns": {
            "identifier": IDENTIFIER["catalogue_decisionrecord"],
            "title": "{row}.title",
            "body": "{row}.body",
        },
        "watched": "number, title, body",
    },
    "catalogue_topic": {
        "fts": "topic_fts",
        "columns": {"name": "{row}.name", "scope": "{row}.scope"},
        "watched": "name, scope",
    },
}
TOKENIZER = "porter unicode61 remove_diacritics 2"


def _insert(fts, columns, row):
    names = ", ".join(columns)
    values = ", ".join(value.format(row=row) for value in columns.values())
    return f"INSERT INTO {fts}(rowid, {names}) VALUES ({row}.id, {values});"


def create_fts(apps, schema_editor, tables=None):
    """Make the FTS5 tables of ``tables`` (these, as they were here, unless a
    later migration gives its own) and their triggers."""
    if schema_editor.connection.vendor != "sqlite":
        return
    for table, spec in (tables or TABLES).items():
        fts, columns = spec["fts"], spec["columns"]
        schema_editor.execute(
            f"CREATE VIRTUAL TABLE {fts} USING fts5("
            f"{', '.join(columns)}, tokenize='{TOKENIZER}')"
        )
        schema_editor.execute(
            f"CREATE TRIGGER {fts}_insert AFTER INSERT ON {table} BEGIN "
            f"{_insert(fts, columns, 'new')} END"
        )
        schema_editor.execute(
            f"CREATE TRIGGER {fts}_update AFTER UPDATE OF {spec['watched']} "
            f"ON {table} BEGIN DELETE FROM {fts} WHERE rowid = old.id; "
            f"{_insert(fts, columns, 'new')} END"
        )
        schema_editor.execute(
            f"CREATE TRIGGER {fts}_delete AFTER DELETE ON {table} BEGIN "
            f"DELETE FROM {fts} WHERE rowid = old.id; END"
        )
        values = ", ".join(value.format(row=table) for value in columns.values())
        schema_editor.execute(
            f"INSERT INTO {fts}(rowid, {', '.join(columns)}) "
            f"SELECT {table}.id, {values} FROM {table}"
        )
    # A registry's new prefix renames its documents.
    schema_editor.execute(
        "CREATE TRIGGER document_fts_registry AFTER UPDATE OF prefix "
        "ON catalogue_registry BEGIN "
        "UPDATE catalogue_document SET number = number "
        "WHERE registry_id = new.id; END"
    )


def drop_fts(apps, schema_editor, tables=None):
    if schema_editor.connection.vendor != "sqlite":
        return
    schema_editor.execute("DROP TRIGGER IF EXISTS document_fts_registry")
    for spec in (tables or TABLES).values():
        fts = spec["fts"]
        for event in ["insert", "update", "delete"]:
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {fts}_{event}")
        schema_editor.execute(f"DROP TABLE IF EXISTS {fts}")


class Migration(migrations.Migration):
    dependencies = [
        ("catalogue", "0008_decision_formats"),
    ]

    operations = [
        migrations.RunPython(create_fts, drop_fts),
    ]

"""Search reads what the record knows of a work beyond its citation line:
every author of the full list, the venue and the DOI, weighted with the
citation, below the title (B on PostgreSQL, the citation column on SQLite).

A later migration that rebuilds the document table on SQLite drops and makes
again the FTS5 tables as they are here (``TABLES``), not 0009's.
"""

import copy
from importlib import import_module

from django.db import migrations

search_sqlite = import_module("catalogue.migrations.0009_search_sqlite")

# Every author's given and family names, or the organisation's name.
PG_AUTHOR_NAMES = """coalesce((
    SELECT string_agg(concat_ws(' ', a->>'given', a->>'family', a->>'literal'), ' ')
    FROM jsonb_array_elements(
        CASE jsonb_typeof(NEW.author_list) WHEN 'array' THEN NEW.author_list
        ELSE '[]'::jsonb END
    ) AS a
    WHERE jsonb_typeof(a) = 'object'), '')"""
PG_VECTOR = f"""
    setweight(to_tsvector('english', coalesce(
        (SELECT prefix FROM catalogue_registry WHERE id = NEW.registry_id), '')
        || '-' || lpad(NEW.number::text, 3, '0')), 'A')
    || setweight(to_tsvector('english', coalesce(NEW.title, '')), 'A')
    || setweight(to_tsvector('english', coalesce(NEW.authors, '') || ' '
        || coalesce(NEW.source_identifier, '') || ' '
        || coalesce(NEW.citation_note, '') || ' '
        || {PG_AUTHOR_NAMES} || ' '
        || coalesce(NEW.venue, '') || ' '
        || coalesce(NEW.doi, '')), 'B')
    || setweight(to_tsvector('english', coalesce(NEW.summary, '')), 'C')
"""
PG_OLD_VECTOR = import_module("catalogue.migrations.0004_references_search").VECTORS[
    "catalogue_document"
]

SQLITE_AUTHOR_NAMES = (
    "coalesce((SELECT group_concat(trim(coalesce(json_extract(value, '$.given'), '')"
    " || ' ' || coalesce(json_extract(value, '$.family'), '')"
    " || ' ' || coalesce(json_extract(value, '$.literal'), '')), ' ')"
    " FROM json_each(CASE WHEN json_valid({row}.author_list)"
    " AND json_type({row}.author_list) = 'array' THEN {row}.author_list"
    " ELSE '[]' END) WHERE type = 'object'), '')"
)
TABLES = copy.deepcopy(search_sqlite.TABLES)
TABLES["catalogue_document"]["columns"]["citation"] = (
    "trim({row}.authors || ' ' || {row}.source_identifier || ' '"
    " || {row}.citation_note || ' ' || "
    f"{SQLITE_AUTHOR_NAMES} || ' ' || {{row}}.venue || ' ' || {{row}}.doi)"
)
TABLES["catalogue_document"]["watched"] += ", author_list, venue, doi"


def _replace_pg_vector(schema_editor, vector):
    schema_editor.execute(
        f"""
        CREATE OR REPLACE FUNCTION catalogue_document_search_vector()
        RETURNS trigger AS $$
        BEGIN
            NEW.search_vector := {vector};
            RETURN NEW;
        END
        $$ LANGUAGE plpgsql
        """
    )
    schema_editor.execute("UPDATE catalogue_document SET search_vector = NULL")


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        _replace_pg_vector(schema_editor, PG_VECTOR)
    search_sqlite.drop_fts(apps, schema_editor)
    search_sqlite.create_fts(apps, schema_editor, tables=TABLES)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        _replace_pg_vector(schema_editor, PG_OLD_VECTOR)
    search_sqlite.drop_fts(apps, schema_editor, tables=TABLES)
    search_sqlite.create_fts(apps, schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("catalogue", "0017_document_notices"),
    ]

    operations = [
        migrations.RunPython(forwards, backwards),
    ]

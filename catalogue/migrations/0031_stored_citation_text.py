from importlib import import_module

from django.db import migrations, models

from catalogue.citations import author_list_cell, render_citation

# SQLite adds these columns by rebuilding the table, which its search
# triggers cannot survive: they are dropped first and made again after, as
# 0018 left them.
search_sqlite = import_module("catalogue.migrations.0009_search_sqlite")
TABLES = import_module("catalogue.migrations.0018_search_bibliography").TABLES
BATCH = 2000
UPDATE = (
    "UPDATE catalogue_document SET citation_text = %s, author_list_text = %s "
    "WHERE id = %s"
)


def fill_texts(apps, schema_editor):
    """Every document's citation and author list, by the functions that print
    them (a historical model has no ``derive()``); one statement a row, sent
    together (psycopg's pipeline), which beats ``bulk_update``'s ``CASE``."""
    Document = apps.get_model("catalogue", "Document")
    rows = Document.objects.values_list(
        "pk", "authors", "year", "source_identifier", "citation_note", "author_list"
    ).order_by("pk")
    with schema_editor.connection.cursor() as cursor:
        batch = []
        for pk, authors, year, identifier, note, author_list in rows.iterator(
            chunk_size=BATCH
        ):
            citation = render_citation(authors, year, identifier, note)
            batch.append((citation, author_list_cell(author_list), pk))
            if len(batch) == BATCH:
                cursor.executemany(UPDATE, batch)
                batch = []
        cursor.executemany(UPDATE, batch)


def drop_search(apps, schema_editor):
    search_sqlite.drop_fts(apps, schema_editor, tables=TABLES)


def create_search(apps, schema_editor):
    search_sqlite.create_fts(apps, schema_editor, tables=TABLES)


class Migration(migrations.Migration):
    dependencies = [
        ("catalogue", "0030_document_rows"),
    ]

    operations = [
        migrations.RunPython(drop_search, create_search),
        migrations.AddField(
            model_name="document",
            name="author_list_text",
            field=models.TextField(blank=True, editable=False),
        ),
        migrations.AddField(
            model_name="document",
            name="citation_text",
            field=models.TextField(blank=True, editable=False),
        ),
        migrations.RunPython(create_search, drop_search),
        migrations.RunPython(fill_texts, migrations.RunPython.noop, elidable=True),
    ]

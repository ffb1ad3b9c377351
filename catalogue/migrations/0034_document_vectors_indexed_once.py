"""The document table's own GIN index of its search vectors is dropped:
searches, feeds and downloads match through ``document_search``'s (migration
0029), which holds the public documents' vectors, so every write of a
document updated two indexes of one vector."""

from django.db import migrations

INDEX = "catalogue_document_search_vector_gin"


def drop_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


def create_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f"CREATE INDEX {INDEX} ON catalogue_document USING gin (search_vector)"
        )


class Migration(migrations.Migration):
    dependencies = [
        ("catalogue", "0033_authorship_current_family"),
    ]

    operations = [migrations.RunPython(drop_index, create_index)]

"""The PostgreSQL database a benchmark fills, made when it is missing."""

import os


def ensure_database():
    """Create the database ``DATABASE_URL`` names unless it exists."""
    import psycopg

    name = os.environ["DATABASE_URL"].rsplit("/", 1)[1]
    with psycopg.connect(
        "host=127.0.0.1 user=postgres dbname=postgres", autocommit=True
    ) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [name]
        ).fetchone()
        if not exists:
            conn.execute(f"CREATE DATABASE {name} ENCODING 'UTF8' TEMPLATE template0")


def fill_sample(documents):
    """Migrate, add sample documents until the record holds ``documents``,
    and leave the planner's statistics and the visibility map as autovacuum
    would; the number of documents held."""
    from django.core.management import call_command
    from django.db import connection
    from django.test import override_settings

    from catalogue.models import Document

    # Nothing is in front yet: the sample's expiry purges nothing.
    with override_settings(PAGE_CACHE_FRONTENDS={}):
        call_command("migrate", verbosity=0)
        have = Document.objects.count()
        if have < documents:
            call_command("generate_sample", documents=documents - have)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return Document.objects.count()


def listing_page(path, documents, document):
    """The page at ``path`` whose table lists ``document``: a list shows its
    ``documents`` in number order, ``ROWS_PER_PAGE`` a page."""
    from django.db.models import Q

    from public.views import ROWS_PER_PAGE

    before = documents.filter(
        Q(registry__prefix__lt=document.registry.prefix)
        | Q(registry__prefix=document.registry.prefix, number__lt=document.number)
    ).count()
    page = before // ROWS_PER_PAGE + 1
    return path if page == 1 else f"{path}?page={page}"

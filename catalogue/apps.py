from django.apps import AppConfig
from django.db.backends.signals import connection_created
from django.urls import register_converter

from catalogue.identifiers import IdentifierConverter
from catalogue.trigrams import add_similarity


class CatalogueConfig(AppConfig):
    """The record: registries, topics, documents, versions, decision records."""

    name = "catalogue"
    verbose_name = "Catalogue"

    def ready(self):
        # Every URLconf may name a permanent identifier: <identifier:identifier>.
        register_converter(IdentifierConverter, "identifier")
        # Titles are compared with SQL's similarity() on either database.
        connection_created.connect(add_similarity)

from django.apps import AppConfig
from django.urls import register_converter

from catalogue.identifiers import IdentifierConverter


class CatalogueConfig(AppConfig):
    """The record: registries, topics, documents, versions, decision records."""

    name = "catalogue"
    verbose_name = "Catalogue"

    def ready(self):
        # Every URLconf may name a permanent identifier: <identifier:identifier>.
        register_converter(IdentifierConverter, "identifier")

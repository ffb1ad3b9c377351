from django.apps import AppConfig


class SimilarityConfig(AppConfig):
    name = "similarity"
    verbose_name = "Related work and candidate topics"

from django.apps import AppConfig


class CorrectionsConfig(AppConfig):
    """Readers' corrections: the form on every public document and decision
    record, and the private page where a reader follows a request. What they
    propose is kept by ``actions.corrections``; the desk decides."""

    name = "corrections"
    verbose_name = "Corrections"

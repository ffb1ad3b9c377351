"""Fields and constraints the record's models share, declared once."""

from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings
from django.contrib.postgres.search import SearchVectorField
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from catalogue.text import validate_record_text


def user_field(related_name="+", **options):
    """Who did something; None once their account is deleted."""
    return models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name=related_name,
        **options,
    )


def topic_field(related_name):
    """The topic a document is filed under; empty lists it as unfiled."""
    return models.ForeignKey(
        "catalogue.Topic",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name=related_name,
        help_text=_("Leave empty to list the document as unfiled."),
    )


def successor_field():
    """The entry that supersedes this one; it cannot be deleted while named."""
    return models.ForeignKey(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="supersedes",
    )


def search_vector_field():
    """Kept by a PostgreSQL trigger (migration 0004); unused on SQLite."""
    return SearchVectorField(null=True, editable=False)


# While set, a new row's stamped times that are already given are kept.
_keeping_given_times = ContextVar("keeping_given_times", default=False)


@contextmanager
def keeping_given_times():
    """Insert new rows with the stamped times their instances already hold
    (an imported entry's, as its source gives them); the others are stamped
    now, as always."""
    token = _keeping_given_times.set(True)
    try:
        yield
    finally:
        _keeping_given_times.reset(token)


class StampedTimeField(models.DateTimeField):
    """A time the row is stamped with as it is saved (``auto_now_add``,
    ``auto_now``), unless it is inserted within ``keeping_given_times`` with a
    time of its own."""

    def pre_save(self, model_instance, add):
        given = getattr(model_instance, self.attname)
        if not (add and _keeping_given_times.get()) or given is None:
            return super().pre_save(model_instance, add)
        return given


def at_least_one(field, name):
    """The database refuses a ``field`` below 1."""
    return models.CheckConstraint(condition=Q(**{f"{field}__gte": 1}), name=name)


def one_of(field, choices, name):
    """The database refuses a ``field`` outside ``choices``."""
    return models.CheckConstraint(
        condition=Q(**{f"{field}__in": choices.values}), name=name
    )


class RecordTextChecked:
    """A model whose text (JSON's too) is checked by ``validate_record_text``
    in validation, field by field, on every database: a NUL (which PostgreSQL
    cannot store and SQLite would keep), a control character or a
    noncharacter (which XML cannot carry) is refused. Every way text comes in
    (forms, CSV rows, topic pages, decision folders, readers' corrections)
    validates the model, so each names the field it was found in."""

    def clean_fields(self, exclude=None):
        errors = {}
        try:
            super().clean_fields(exclude=exclude)
        except ValidationError as error:
            errors = error.update_error_dict(errors)
        for field in self._meta.concrete_fields:
            if field.name in errors or field.name in (exclude or ()):
                continue
            try:
                validate_record_text(field.value_from_object(self))
            except ValidationError as error:
                errors[field.name] = [error]
        if errors:
            raise ValidationError(errors)


# The migrations name the mixin by its first name.
NulRefused = RecordTextChecked

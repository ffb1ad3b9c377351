"""Filters for lists of documents, shared by the public lists and the exports."""

import django_filters
from django import forms
from django.db.models import F
from django.db.models.functions import Lower
from django_filters.constants import EMPTY_VALUES
from django_filters.fields import BaseCSVField
from taggit.models import Tag

from catalogue.models import DecisionRecord, Document, Registry, Topic


class YearFilter(django_filters.NumberFilter):
    """A four-digit year; anything else is a form error, not a query."""

    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 1000)
        kwargs.setdefault("max_value", 9999)
        super().__init__(*args, **kwargs)


class DocumentFilter(django_filters.FilterSet):
    """Registry, topic, status, year range and tags, all kept in the URL.

    ``public`` (the default) offers only the statuses a reader may see; the
    staff exports pass ``public=False`` to offer every status.
    """

    registry = django_filters.ModelChoiceFilter(
        queryset=Registry.objects.all(),
        to_field_name="prefix",
        empty_label="Any registry",
    )
    topic = django_filters.ModelChoiceFilter(
        queryset=Topic.objects.all(),
        to_field_name="slug",
        empty_label="Any topic",
        null_label="Unfiled",
        null_value="unfiled",
    )
    status = django_filters.ChoiceFilter(
        choices=Document.Status.choices, empty_label="Any status"
    )
    year_from = YearFilter(field_name="year", lookup_expr="gte", label="From year")
    year_to = YearFilter(field_name="year", lookup_expr="lte", label="To year")
    tag = django_filters.ModelMultipleChoiceFilter(
        field_name="tags__slug",
        queryset=Document.objects.public().tags().order_by("name"),
        to_field_name="slug",
        conjoined=True,
        label="Tags",
        widget=forms.CheckboxSelectMultiple,
    )

    class Meta:
        model = Document
        fields = ["registry", "topic", "status", "year_from", "year_to", "tag"]

    def __init__(self, data=None, queryset=None, *, public=True, **kwargs):
        super().__init__(data, queryset, **kwargs)
        # A filter keeps the form field it built on first use, and each
        # filterset copies the class's filters: a field built on the class's
        # own filters (the API's schema reads them) would carry every status,
        # registry and tag into each copy, past the choices set below.
        for filter_ in self.filters.values():
            vars(filter_).pop("_field", None)
        if public:
            self.filters["registry"].queryset = Registry.objects.public()
            self.filters["status"].extra["choices"] = [
                (status.value, status.label) for status in Document.PUBLIC_STATUSES
            ]
        else:
            self.filters["tag"].queryset = Tag.objects.all()


class OneColumnField(BaseCSVField):
    """A sort by one column: ``year,title`` is a form error. A table's header
    marks the one column its rows are sorted by."""

    def clean(self, value):
        value = super().clean(value)
        if value is not None and len(value) > 1:
            raise forms.ValidationError(
                "Sort by one column: %(columns)s.",
                code="one_column",
                params={"columns": ", ".join(value)},
            )
        return value


# The record's own order, a table's unless it is sorted: by registry, then
# by number. It breaks every tie of a sorted table, so the order is total.
NUMBER_ORDER = ["registry__prefix", "number"]


class ColumnOrderingFilter(django_filters.OrderingFilter):
    """A table's rows sorted by one column, ascending or descending
    (``-year``), ties in number order; titles whatever their case."""

    base_field_class = OneColumnField
    # What each column sorts by.
    COLUMNS = {
        "number": [F(name) for name in NUMBER_ORDER],
        "title": [Lower("title")],
        "year": [F("year")],
    }

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("fields", [(name, name) for name in self.COLUMNS])
        # The filter form carries a sort as it is, unseen: the table's
        # header is where a reader chooses it.
        kwargs.setdefault("widget", forms.HiddenInput)
        super().__init__(*args, **kwargs)

    def filter(self, qs, value):
        if value in EMPTY_VALUES:
            return qs
        (param,) = value
        column = param.removeprefix("-")
        descending = column != param
        keys = [key.desc() if descending else key.asc() for key in self.COLUMNS[column]]
        if column != "number":
            keys.extend(NUMBER_ORDER)
        return qs.order_by(*keys)


class DocumentTableFilter(DocumentFilter):
    """A document table's filters and its sort (``sort``: ``number``,
    ``title`` or ``year``, reversed by a leading ``-``), all kept in the URL;
    unsorted, a table is in number order."""

    sort = ColumnOrderingFilter(label="Sort")


class DecisionRecordFilter(django_filters.FilterSet):
    """A decision log's records of one status; ``none`` keeps those stating
    none. ``public`` is accepted for symmetry with ``DocumentFilter``: every
    status of a decision record is public once it is published."""

    status = django_filters.ChoiceFilter(
        choices=[
            (value or "none", label) for value, label in DecisionRecord.Status.choices
        ],
        method="filter_status",
        empty_label="Any status",
    )

    class Meta:
        model = DecisionRecord
        fields = ["status"]

    def __init__(self, data=None, queryset=None, *, public=True, **kwargs):
        super().__init__(data, queryset, **kwargs)

    def filter_status(self, queryset, name, value):
        return queryset.filter(status="" if value == "none" else value)

"""CSV import in the admin, through django-import-export (issue 5).

A file in the export's format (``exports.DOCUMENT_COLUMNS``) is read, shown
as a dry run (created, updated, unchanged, every problem by row and column)
and written on confirmation, all in one transaction: a file with any problem
writes nothing. Derived columns (``citation``, ``public_url``) are ignored.
"""

import datetime
import re

from django.core.exceptions import ValidationError
from django.utils import timezone
from import_export import resources
from import_export.admin import ImportMixin
from import_export.fields import Field
from import_export.formats.base_formats import CSV
from import_export.instance_loaders import BaseInstanceLoader
from import_export.widgets import Widget

from catalogue import services
from catalogue.exports import restore
from catalogue.models import (
    Document,
    DocumentVersion,
    Registry,
    Topic,
    format_identifier,
)

IDENTIFIER_RE = re.compile(r"(?P<prefix>[A-Z][A-Z0-9]*)-(?P<number>[0-9]{3,})")
IMPORT_NOTE = "Imported from CSV"


class TextWidget(Widget):
    """A text cell as the export wrote it: the formula guard is taken off."""

    def clean(self, value, row=None, **kwargs):
        return "" if value is None else restore(str(value))


class WholeNumberWidget(Widget):
    def clean(self, value, row=None, **kwargs):
        if value is None or str(value).strip() == "":
            return None
        if not str(value).isdigit():
            raise ValueError(f"{value!r} is not a whole number.")
        return int(value)


class LookupWidget(Widget):
    """A related row named by one of its fields, looked up once per import."""

    def __init__(self, model, field, *, create=False):
        super().__init__()
        self.model, self.field, self.create = model, field, create
        self.cache = None

    def clean(self, value, row=None, **kwargs):
        value = restore(value or "")
        if not value:
            return None
        if self.cache is None:
            self.cache = {
                getattr(obj, self.field): obj for obj in self.model.objects.all()
            }
        if value not in self.cache:
            if not self.create:
                name = self.model._meta.verbose_name
                raise ValueError(f"There is no {name} {value!r}.")
            # An unknown registry is made, as import_index does: a registry is data.
            self.cache[value] = self.model.objects.create(
                **{self.field: value, "name": value}
            )
        return self.cache[value]


class DocumentLoader(BaseInstanceLoader):
    """Every document the file names, loaded in one query."""

    def __init__(self, resource, dataset=None):
        super().__init__(resource, dataset)
        numbers = {
            int(number)
            for number in (
                dataset["number"] if dataset and "number" in dataset.headers else []
            )
            if str(number).isdigit()
        }
        self.documents = {
            (document.registry.prefix, document.number): document
            for document in Document.objects.select_related(
                "registry", "superseded_by__registry"
            )
            .prefetch_related("tags")
            .filter(number__in=numbers)
        }

    def get_instance(self, row):
        number = str(row.get("number", ""))
        if not number.isdigit():
            return None
        return self.documents.get((row.get("registry", ""), int(number)))


def text_field(name):
    return Field(attribute=name, column_name=name, widget=TextWidget())


def parse_timestamp(text, column):
    if not text:
        return None
    try:
        value = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise ValidationError(
            {column: f"{text!r} is not a time such as 2026-01-31T09:30:00.000000Z."}
        ) from None
    return (
        value if timezone.is_aware(value) else timezone.make_aware(value, datetime.UTC)
    )


class DocumentResource(resources.ModelResource):
    identifier = Field(column_name="identifier", widget=TextWidget())
    registry = Field(
        attribute="registry",
        column_name="registry",
        widget=LookupWidget(Registry, "prefix", create=True),
    )
    number = Field(attribute="number", column_name="number", widget=WholeNumberWidget())
    version = Field(
        attribute="version", column_name="version", widget=WholeNumberWidget()
    )
    title = text_field("title")
    authors = text_field("authors")
    year = Field(attribute="year", column_name="year", widget=WholeNumberWidget())
    source_identifier = text_field("source_identifier")
    citation_note = text_field("citation_note")
    summary = text_field("summary")
    status = text_field("status")
    topic = Field(
        attribute="topic", column_name="topic", widget=LookupWidget(Topic, "slug")
    )
    tags = Field(column_name="tags", widget=TextWidget())
    successor = Field(column_name="successor", widget=TextWidget())
    created = Field(column_name="created", widget=TextWidget())
    last_changed = Field(column_name="last_changed", widget=TextWidget())

    class Meta:
        model = Document
        fields = [
            "identifier",
            "registry",
            "number",
            "version",
            "title",
            "authors",
            "year",
            "source_identifier",
            "citation_note",
            "summary",
            "status",
            "topic",
            "tags",
            "successor",
            "created",
            "last_changed",
        ]
        import_id_fields = ["registry", "number"]
        instance_loader_class = DocumentLoader
        # The preview lists each row's values; an HTML diff of every summary
        # costs more than the import itself at 10,000 rows.
        skip_html_diff = True
        skip_unchanged = True
        report_skipped = True
        clean_model_instances = True
        use_transactions = True

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seen = {}  # (prefix, number) -> the row that named it first
        self.successors = []  # (row number, document, identifier)

    def get_diff_headers(self):
        return [field.column_name for field in self.get_import_fields()]

    def import_instance(self, instance, row, **kwargs):
        """Read the row into the document; every problem raised by column."""
        content = instance.content() if instance.pk else None
        public_before = instance.pk and instance.is_public
        errors = {}
        try:
            super().import_instance(instance, row, **kwargs)
        except ValidationError as error:
            errors = error.update_error_dict(errors)
        row_number = kwargs.get("row_number")
        instance.imported_tags = sorted(
            {
                name.strip()
                for name in restore(row.get("tags") or "").split(",")
                if name.strip()
            }
        )
        instance.imported_successor = restore(row.get("successor") or "")
        instance.imported_times = {}
        for column, attribute in [
            ("created", "created_at"),
            ("last_changed", "updated_at"),
        ]:
            try:
                instance.imported_times[attribute] = parse_timestamp(
                    restore(row.get(column) or ""), column
                )
            except ValidationError as error:
                errors = error.update_error_dict(errors)
        if instance.registry_id and instance.number:
            key = (instance.registry.prefix, instance.number)
            identifier = format_identifier(*key)
            stated = restore(row.get("identifier") or "")
            if stated and stated != identifier:
                errors.setdefault("identifier", []).append(
                    ValidationError(
                        f"{stated} does not match registry and number ({identifier})."
                    )
                )
            if key in self.seen:
                errors.setdefault("identifier", []).append(
                    ValidationError(f"{identifier} is already in row {self.seen[key]}.")
                )
            else:
                self.seen[key] = row_number
            if not instance.pk and instance.number <= instance.registry.last_number:
                errors.setdefault("number", []).append(
                    ValidationError(
                        f"{identifier} was issued before; a number is never reused."
                    )
                )
        if (
            public_before
            and content != instance.content()
            and instance.version == instance.versions.first().number
        ):
            errors.setdefault("version", []).append(
                ValidationError("A changed text needs a new version number.")
            )
        if errors:
            raise ValidationError(errors)

    def skip_row(self, instance, original, row, import_validation_errors=None):
        if not super().skip_row(instance, original, row, import_validation_errors):
            return False
        successor = original.superseded_by.identifier if original.superseded_by else ""
        return (
            sorted(tag.name for tag in original.tags.all()) == instance.imported_tags
            and successor == instance.imported_successor
        )

    def after_save_instance(self, instance, row, **kwargs):
        services.record_number(registry=instance.registry, number=instance.number)
        services.record_references(documents=[instance])
        instance.tags.set(instance.imported_tags)
        if (
            instance.is_public
            and not DocumentVersion.objects.filter(
                document=instance, number=instance.version
            ).exists()
        ):
            services.record_version(
                document=instance, user=kwargs.get("user"), note=IMPORT_NOTE
            )
        # A new document keeps the times the file gives it (an exported record
        # comes back as it was); auto_now would otherwise stamp it with now.
        times = {
            name: value for name, value in instance.imported_times.items() if value
        }
        if times and instance.imported_new:
            Document.objects.filter(pk=instance.pk).update(**times)
        self.successors.append(
            (kwargs.get("row_number"), instance, instance.imported_successor)
        )

    def after_init_instance(self, instance, new, row, **kwargs):
        instance.imported_new = new

    def after_import(self, dataset, result, **kwargs):
        """Successors may come later in the file, so they are set last."""
        super().after_import(dataset, result, **kwargs)
        problems = []
        for row_number, document, identifier in self.successors:
            successor = None
            if identifier:
                match = IDENTIFIER_RE.fullmatch(identifier)
                successor = (
                    match
                    and Document.objects.filter(
                        registry__prefix=match["prefix"], number=int(match["number"])
                    ).first()
                )
                if successor is None:
                    problems.append(
                        f"Row {row_number}, column successor: there is no document "
                        f"{identifier}."
                    )
                    continue
            if document.superseded_by_id != (successor.pk if successor else None):
                Document.objects.filter(pk=document.pk).update(superseded_by=successor)
        if problems:
            raise ValidationError(problems)


class TopicResource(resources.ModelResource):
    position = Field(
        attribute="position", column_name="position", widget=WholeNumberWidget()
    )
    name = text_field("name")
    slug = text_field("slug")
    flavour = text_field("flavour")
    scope = text_field("scope")

    class Meta:
        model = Topic
        fields = ["position", "name", "slug", "flavour", "scope"]
        import_id_fields = ["slug"]
        skip_unchanged = True
        report_skipped = True
        clean_model_instances = True
        use_transactions = True


class CSVImportMixin(ImportMixin):
    """The admin's import: CSV only, the export's format, all or nothing."""

    from_encoding = "utf-8-sig"  # Reads files with or without Excel's BOM.

    def get_import_formats(self):
        return [CSV]

    def get_import_data_kwargs(self, **kwargs):
        # A row that turns invalid between preview and confirmation fails the file.
        return {
            **super().get_import_data_kwargs(**kwargs),
            "rollback_on_validation_errors": True,
        }

    def add_data_read_fail_error_to_form(self, form, e):
        if isinstance(e, UnicodeDecodeError):
            line = e.object[: e.start].count(b"\n") + 1
            form.add_error(
                "import_file",
                f"Line {line} is not UTF-8 text (byte {e.object[e.start]:#04x}); "
                "save the file as UTF-8 CSV.",
            )
        else:
            super().add_data_read_fail_error_to_form(form, e)


class DocumentImportMixin(CSVImportMixin):
    resource_classes = [DocumentResource]

    def has_import_permission(self, request):
        # An import writes what readers see, new versions included: a
        # publisher's act (issue 3), not an editor's.
        return request.user.has_perm("catalogue.publish_document")


class TopicImportMixin(CSVImportMixin):
    resource_classes = [TopicResource]

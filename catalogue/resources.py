"""CSV import in the admin, through django-import-export (issue 5).

A file in the export's format (``exports.DOCUMENT_COLUMNS``) is read, shown
as a dry run (created, updated, unchanged, every problem by row and column)
and written on confirmation, all in one transaction: a file with any problem
writes nothing. Derived columns (``citation``, ``public_url``) are ignored.
"""

import datetime
import operator
import re
from functools import reduce

from auditlog.cid import get_cid
from auditlog.diff import model_instance_diff
from auditlog.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db.models import OuterRef, Q, Subquery
from django.db.models.functions import Lower
from django.utils import timezone
from import_export import resources
from import_export.admin import ImportMixin
from import_export.fields import Field
from import_export.formats.base_formats import CSV
from import_export.instance_loaders import BaseInstanceLoader
from import_export.widgets import Widget
from taggit.models import Tag, TaggedItem

from catalogue import services
from catalogue.exports import DOCUMENT_COLUMNS, restore
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
    """Every document the file names, loaded in one query, with its tags and
    the number of its latest version row."""

    def __init__(self, resource, dataset=None):
        super().__init__(resource, dataset)
        headers = dataset.headers if dataset else []
        numbers = {
            int(number)
            for number in (dataset["number"] if "number" in headers else [])
            if str(number).isdigit()
        }
        prefixes = set(dataset["registry"]) if "registry" in headers else set()
        latest = DocumentVersion.objects.filter(document=OuterRef("pk")).order_by(
            "-number"
        )
        self.documents = {
            (document.registry.prefix, document.number): document
            for document in Document.objects.select_related(
                "registry", "topic", "superseded_by__registry"
            )
            .prefetch_related("tags")
            .annotate(latest_version=Subquery(latest.values("number")[:1]))
            .filter(number__in=numbers, registry__prefix__in=prefixes)
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
        # The export's columns, less those printed from others.
        fields = [
            column
            for column in DOCUMENT_COLUMNS
            if column not in {"citation", "public_url"}
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
        # Rows are checked one by one without a query and written a batch at a
        # time (write_batch); the whole file stays one transaction.
        use_bulk = True
        batch_size = 1000

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seen = {}  # (prefix, number) -> the row that named it first
        self.saved = {}  # identifier -> the document a valid row writes
        self.successors = []  # (row number, document, identifier)
        self.user = None

    def get_diff_headers(self):
        return [field.column_name for field in self.get_import_fields()]

    def before_import(self, dataset, **kwargs):
        super().before_import(dataset, **kwargs)
        self.user = kwargs.get("user")

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
        # The database's check constraints, checked here instead of by a query
        # per row (validate_instance).
        for name in ["number", "version"]:
            if getattr(instance, name) == 0:
                errors.setdefault(name, []).append(
                    ValidationError(f"A {name} starts at 1.")
                )
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
            and instance.version == instance.latest_version
        ):
            errors.setdefault("version", []).append(
                ValidationError("A changed text needs a new version number.")
            )
        if errors:
            raise ValidationError(errors)

    def validate_instance(
        self, instance, import_validation_errors=None, validate_unique=True
    ):
        """The model's own validation, without its queries: the registry and the
        topic come from the lookups, the unique number is checked against the
        loader and the file (import_instance), and so are the check constraints.
        The search vector is the database's (migration 0004), never loaded.
        """
        errors = dict(import_validation_errors or {})
        exclude = ["registry", "topic", "superseded_by", "tags", "search_vector"]
        try:
            instance.full_clean(
                exclude=[*errors, *exclude],
                validate_unique=False,
                validate_constraints=False,
            )
        except ValidationError as error:
            errors = error.update_error_dict(errors)
        if errors:
            raise ValidationError(errors)

    def skip_row(self, instance, original, row, import_validation_errors=None):
        instance.imported_original = original
        if not super().skip_row(instance, original, row, import_validation_errors):
            return False
        successor = original.superseded_by.identifier if original.superseded_by else ""
        return (
            sorted(tag.name for tag in original.tags.all()) == instance.imported_tags
            and successor == instance.imported_successor
        )

    def after_save_instance(self, instance, row, **kwargs):
        """Queued for its batch (write_batch); its successor is set last."""
        self.saved[instance.identifier] = instance
        self.successors.append(
            (kwargs.get("row_number"), instance, instance.imported_successor)
        )

    def bulk_create(
        self, using_transactions, dry_run, raise_errors, batch_size=None, result=None
    ):
        if dry_run and not using_transactions:
            self.create_instances.clear()
        self.write_batch(self.create_instances, raise_errors, result, created=True)

    def bulk_update(
        self, using_transactions, dry_run, raise_errors, batch_size=None, result=None
    ):
        if dry_run and not using_transactions:
            self.update_instances.clear()
        self.write_batch(self.update_instances, raise_errors, result, created=False)

    def write_batch(self, documents, raise_errors, result, *, created):
        """Write a batch of documents with everything a single save would bring:
        number bookkeeping, references, tags, version rows for public documents
        and the audit trail, each in one or a few queries for the whole batch.
        """
        if not documents:
            return
        try:
            now = timezone.now()
            if created:
                Document.objects.bulk_create(documents)
                # A new document keeps the times the file gives it (an exported
                # record comes back as it was); auto_now stamped it with now.
                timed = [
                    document
                    for document in documents
                    if any(document.imported_times.values())
                ]
                for document in timed:
                    for name, value in document.imported_times.items():
                        if value:
                            setattr(document, name, value)
                Document.objects.bulk_update(timed, ["created_at", "updated_at"])
            else:
                for document in documents:
                    document.updated_at = now
                Document.objects.bulk_update(documents, UPDATED_FIELDS)
            highest = {}
            for document in documents:
                registry = document.registry
                highest[registry] = max(highest.get(registry, 0), document.number)
            for registry, number in highest.items():
                services.record_number(registry=registry, number=number)
            services.record_references(documents=documents)
            entries = [
                self.log_entry(
                    document,
                    LogEntry.Action.CREATE if created else LogEntry.Action.UPDATE,
                    model_instance_diff(
                        None if created else document.imported_original,
                        document,
                        fields_to_check=AUDITED_FIELDS,
                        use_json_for_changes=True,
                    ),
                )
                for document in documents
            ]
            entries += self.write_tags(documents, created=created)
            entries += self.write_versions(documents, created=created, now=now)
            LogEntry.objects.bulk_create([entry for entry in entries if entry])
        except Exception as error:
            self.handle_import_error(result, error, raise_errors)
        finally:
            documents.clear()

    def write_tags(self, documents, *, created):
        """Set each document's tags to the file's, as ``tags.set()`` would:
        names match existing tags whatever their case (TAGGIT_CASE_INSENSITIVE).
        Returns the audit entries."""
        names = {name for document in documents for name in document.imported_tags}
        tags = {}
        for tag in (
            Tag.objects.annotate(lowered=Lower("name"))
            .filter(lowered__in={name.lower() for name in names})
            .order_by("pk")
        ):
            tags.setdefault(tag.lowered, tag)
        for name in sorted(names):
            if name.lower() not in tags:
                tags[name.lower()] = Tag.objects.create(name=name)
        content_type = ContentType.objects.get_for_model(Document)
        added, removed, entries = [], [], []
        for document in documents:
            wanted = {tags[name.lower()] for name in document.imported_tags}
            current = set() if created else set(document.tags.all())
            added += [
                TaggedItem(content_type=content_type, object_id=document.pk, tag=tag)
                for tag in wanted - current
            ]
            if current - wanted:
                removed.append(
                    Q(object_id=document.pk, tag__in=[t.pk for t in current - wanted])
                )
            for operation, changed in [
                ("delete", current - wanted),
                ("add", wanted - current),
            ]:
                if changed:
                    changes = {
                        "tags": {
                            "type": "m2m",
                            "operation": operation,
                            "objects": sorted(str(tag) for tag in changed),
                        }
                    }
                    entries.append(
                        self.log_entry(document, LogEntry.Action.UPDATE, changes)
                    )
        if removed:
            TaggedItem.objects.filter(
                reduce(operator.or_, removed), content_type=content_type
            ).delete()
        TaggedItem.objects.bulk_create(added)
        return entries

    def write_versions(self, documents, *, created, now):
        """A version row for each public document that has none for its version,
        as services.record_version writes it. Returns the audit entries."""
        public = [document for document in documents if document.is_public]
        existing = set()
        if not created and public:
            existing = set(
                DocumentVersion.objects.filter(document__in=public).values_list(
                    "document", "number"
                )
            )
        versions = DocumentVersion.objects.bulk_create(
            DocumentVersion(
                document=document,
                number=document.version,
                published_at=now,
                published_by=self.user,
                note=IMPORT_NOTE,
                **document.content(),
            )
            for document in public
            if (document.pk, document.version) not in existing
        )
        return [
            self.log_entry(
                version,
                LogEntry.Action.CREATE,
                model_instance_diff(None, version, use_json_for_changes=True),
            )
            for version in versions
        ]

    def log_entry(self, instance, action, changes):
        """The audit entry a save would have logged (auditlog's log_create),
        unsaved, for one bulk insert; None when nothing changed."""
        if not changes:
            return None
        user = self.user if getattr(self.user, "is_authenticated", False) else None
        return LogEntry(
            content_type=ContentType.objects.get_for_model(instance),
            object_pk=str(instance.pk),
            object_id=instance.pk,
            object_repr=str(instance),
            action=action,
            changes=changes,
            actor=user,
            actor_email=getattr(user, "email", None),
            cid=get_cid(),
        )

    def after_import(self, dataset, result, **kwargs):
        """Successors may come later in the file, so they are set last."""
        super().after_import(dataset, result, **kwargs)
        wanted = {
            identifier
            for _, _, identifier in self.successors
            if identifier and identifier not in self.saved
        }
        known = dict(self.saved)
        names = [IDENTIFIER_RE.fullmatch(identifier) for identifier in wanted]
        names = [name for name in names if name]
        if names:
            for document in Document.objects.select_related("registry").filter(
                registry__prefix__in={name["prefix"] for name in names},
                number__in={int(name["number"]) for name in names},
            ):
                known.setdefault(document.identifier, document)
        problems, changed = [], []
        for row_number, document, identifier in self.successors:
            successor = known.get(identifier) if identifier else None
            if identifier and successor is None:
                problems.append(
                    f"Row {row_number}, column successor: there is no document "
                    f"{identifier}."
                )
                continue
            successor_pk = successor.pk if successor else None
            if document.pk and document.superseded_by_id != successor_pk:
                document.superseded_by = successor
                changed.append(document)
        if problems:
            raise ValidationError(problems)
        Document.objects.bulk_update(changed, ["superseded_by"], batch_size=1000)


# What an import may change on a document it finds; the key (registry, number)
# and the creation time stay.
UPDATED_FIELDS = [*Document.CONTENT_FIELDS, "version", "status", "topic", "updated_at"]
# The audit trail's fields, as a save logs them; the search vector is the
# database's (migration 0004) and reading it back would cost a query a row.
AUDITED_FIELDS = [
    field.name
    for field in Document._meta.concrete_fields
    if field.name != "search_vector"
]


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

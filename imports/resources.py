"""The CSV import's rows, read through django-import-export.

A file in the export's format (``exports.DOCUMENT_COLUMNS``) is read, shown
as a dry run (created, updated, unchanged, every problem by row and column)
and written on confirmation, all in one transaction: a file with any problem
writes nothing. Derived columns (``citation``, ``public_url``) are ignored.
"""

import copy
import datetime
import functools
from dataclasses import dataclass, field

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection
from django.db.models import OuterRef, Subquery
from django.utils import timezone
from django.utils.encoding import force_str
from import_export import resources
from import_export.fields import Field
from import_export.instance_loaders import BaseInstanceLoader
from import_export.widgets import ManyToManyWidget, Widget
from taggit.models import Tag

from actions import filing
from actions.batch import DocumentWrite, DocumentWriter, collecting_cycles_later
from actions.staging import ChangedRows, analysed, noting_changes
from catalogue.identifiers import Identifier
from catalogue.models import Document, DocumentVersion, Registry, Topic
from catalogue.numbering import highest_issued, unissued_refusal
from catalogue.tags import check_lengths, parse_tags
from catalogue.text import refusal, unsafe_character
from formats.exports import DOCUMENT_COLUMNS, parse_author_list_cell, restore
from imports import progress

# Version notes are read by readers, on the version pages.
IMPORT_NOTE = "Carried over from a copy of the record."
# The longest tag name the tag table holds.
TAG_LENGTH = Tag._meta.get_field("name").max_length


def _tag_keys(names):
    """The tags ``names`` stand for, as the writer takes names to tags
    (``actions.filing.tags_named``): whatever their case, or by the slug they
    would take; a row naming its document's tags so changes nothing."""
    return {Tag().slugify(name) or name.lower() for name in names}


def cell_text(value):
    """A cell's text as the export wrote it, the formula guard taken off; a
    character no text of the record may hold (a NUL, a control character, a
    noncharacter) refused."""
    text = "" if value is None else str(value)
    if character := unsafe_character(text):
        raise ValueError(refusal(character))
    return restore(text)


class TextWidget(Widget):
    """A text cell as the export wrote it: the formula guard is taken off."""

    def clean(self, value, row=None, **kwargs):
        return cell_text(value)


# The largest whole number every database's integer column takes.
LARGEST_WHOLE_NUMBER = 2**31 - 1


def whole_number(text):
    """The whole number ``text`` writes in ASCII digits, or None."""
    text = str(text or "").strip()
    if not text.isascii() or not text.isdigit():
        return None
    number = int(text)
    return number if number <= LARGEST_WHOLE_NUMBER else None


class AuthorListWidget(Widget):
    """The author list's cell, ``Family, Given; Family, Given``, as CSL names."""

    def clean(self, value, row=None, **kwargs):
        return parse_author_list_cell(cell_text(value))


class WholeNumberWidget(Widget):
    def clean(self, value, row=None, **kwargs):
        if value is None or str(value).strip() == "":
            return None
        number = whole_number(value)
        if number is not None:
            return number
        text = str(value).strip()
        if not (text.isascii() and text.isdigit()):
            raise ValueError(f"{value!r} is not a whole number.")
        raise ValueError(
            f"{value!r} is not a whole number the record can store (the largest "
            f"is {LARGEST_WHOLE_NUMBER})."
        )


class LookupWidget(Widget):
    """A related row named by one of its fields, looked up once per import;
    one the record lacks is made by ``make`` (a function of the name), when
    the resource gives one."""

    def __init__(self, model, field):
        super().__init__()
        self.model, self.field = model, field
        self.make = None
        self.cache = None

    def clean(self, value, row=None, **kwargs):
        value = cell_text(value)
        if not value:
            return None
        if self.cache is None:
            self.cache = {
                getattr(obj, self.field): obj for obj in self.model.objects.all()
            }
        if value not in self.cache:
            if self.make is None:
                name = self.model._meta.verbose_name
                raise ValueError(f"There is no {name} {value!r}.")
            self.cache[value] = self.make(value)
        return self.cache[value]


class DocumentLoader(BaseInstanceLoader):
    """Every document the file names, loaded in one query, with its tags and
    the number of its latest version row."""

    def __init__(self, resource, dataset=None):
        super().__init__(resource, dataset)
        headers = dataset.headers if dataset else []
        numbers = {
            whole_number(number)
            for number in (dataset["number"] if "number" in headers else [])
        } - {None}
        # A cell no column can store (a NUL, a control character) names no
        # document; its row is refused by its widget.
        prefixes = {
            str(prefix)
            for prefix in (dataset["registry"] if "registry" in headers else [])
            if not unsafe_character(str(prefix or ""))
        }
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
        number = whole_number(row.get("number", ""))
        if number is None:
            return None
        return self.documents.get((row.get("registry", ""), number))


@dataclass
class RowRead:
    """What a row says of its document besides the model's fields, and the
    document as the record had it before the row was read into it."""

    original: Document | None = None
    tags: list = field(default_factory=list)
    successor: str = ""
    times: dict = field(default_factory=dict)


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


class ProgressMixin:
    """Reports how many rows are read (``progress.report``), every
    ``progress_every`` rows and at the last."""

    progress_every = 250

    def before_import(self, dataset, **kwargs):
        super().before_import(dataset, **kwargs)
        self.rows_total, self.rows_done = len(dataset), 0

    def after_import_row(self, row, row_result, **kwargs):
        super().after_import_row(row, row_result, **kwargs)
        self.rows_done += 1
        if (
            self.rows_done % self.progress_every == 0
            or self.rows_done == self.rows_total
        ):
            progress.report(self.rows_done, self.rows_total)


class DocumentResource(ProgressMixin, resources.ModelResource):
    identifier = Field(column_name="identifier", widget=TextWidget())
    registry = Field(
        attribute="registry",
        column_name="registry",
        widget=LookupWidget(Registry, "prefix"),
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
    # The bibliographic columns; a file without them leaves them as they are.
    author_list = Field(
        attribute="author_list", column_name="author_list", widget=AuthorListWidget()
    )
    venue = text_field("venue")
    publication_type = text_field("publication_type")
    publication_date = text_field("publication_date")
    doi = text_field("doi")

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
        # The preview names the columns a row changes (skip_row); the row
        # diffs import-export would build, a deep copy and two renderings of
        # every field a row, would be read by nothing.
        skip_diff = True
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
        self.seen = {}  # identifier -> the row that named it first
        self.saved = {}  # identifier -> the document a valid row writes
        self.successors = []  # (row number, document, identifier)
        self.row_changes = ()  # the columns the row being read changes
        self.read = {}  # id(document) -> the RowRead of the row being read
        self.highest = {}  # registry pk -> the highest number it has issued
        self.file_highest = {}  # prefix -> the highest number the file states
        self.numbered = {}  # registry pk -> the last number given a new row
        self.row_numbered = False  # the row being read was numbered so
        self.user = None
        self.writer = None
        self.changed = ChangedRows()  # the rows the import writes, by table
        self.defaults_checked = False  # a new row's unset fields were checked
        self.import_fields = None  # get_import_fields(), found once
        self.read_fields = None  # the fields a row's cells are read into

    def get_import_fields(self):
        """The fields a row is read into, found once an import rather than
        once a row (and once a column compared)."""
        if self.import_fields is None:
            self.import_fields = super().get_import_fields()
        return self.import_fields

    @functools.cached_property
    def unset_fields(self):
        """The names of the document's fields no column sets."""
        attributes = {field.attribute for field in self.get_import_fields()}
        return {
            field.name
            for field in Document._meta.concrete_fields
            if field.name not in attributes
        }

    def get_diff_headers(self):
        return [field.column_name for field in self.get_import_fields()]

    def import_data(self, dataset, *args, **kwargs):
        """The whole file read and written as every bulk write is, without the
        cycle collector (``collecting_cycles_later``), counting the rows it
        changes (``noting_changes``) for ``analysed``."""
        with (
            collecting_cycles_later(),
            connection.execute_wrapper(noting_changes(self.changed)),
        ):
            return super().import_data(dataset, *args, **kwargs)

    def before_import(self, dataset, **kwargs):
        super().before_import(dataset, **kwargs)
        self.user = kwargs.get("user")
        # The batches are staged as the rows are read; after_import writes
        # them, with the successors, in one switch-over.
        self.writer = DocumentWriter(note=IMPORT_NOTE, user=self.user, staged=True)
        self.file_highest = stated_numbers(dataset)
        self.fields["registry"].widget.make = self._new_registry

    def _new_registry(self, prefix):
        """A registry the file names and the record lacks, made as the
        registry add page makes one, with its permission: a registry is
        data, and whoever may add one may add it by naming it in a row."""
        try:
            return filing.save(obj=Registry(prefix=prefix, name=prefix), user=self.user)
        except PermissionDenied:
            raise ValueError(
                f"There is no registry {prefix!r}, and {self.user or 'nobody'} "
                "may not add registries: name one the record has, or ask "
                "someone who may add registries to add it first."
            ) from None

    def import_instance(self, instance, row, **kwargs):
        """Read the row into the document; every problem raised by column."""
        content = instance.content() if instance.pk else None
        public_before = instance.pk and instance.is_public
        errors = self._read_columns(instance, row, **kwargs)
        errors = self._read_unmodelled(instance, row, errors)
        if not instance.pk:
            # A new document starts as the add form starts one.
            instance.version = 1 if instance.version is None else instance.version
            instance.status = instance.status or Document.Status.DRAFT
        if instance.registry_id is None and "registry" not in errors:
            errors["registry"] = [
                ValidationError("Name the registry, by its prefix (LIT).")
            ]
        if not errors:
            self._number_new_row(instance, row)
        # The database's check constraints, checked here instead of by a query
        # per row (validate_instance).
        for name in ["number", "version"]:
            if getattr(instance, name) == 0:
                errors.setdefault(name, []).append(
                    ValidationError(f"A {name} starts at 1.")
                )
        if instance.registry_id and instance.number:
            self._check_identifier(instance, row, kwargs.get("row_number"), errors)
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

    def _read_columns(self, instance, row, **kwargs):
        """What import-export's ``import_instance`` does, each column's value
        cleaned by its field and set on the document, a column's ValueError
        its problem; with the columns to read found once an import, not once
        a row through ``import_field`` and ``Field.save``. Returns the
        problems, by field."""
        if self.read_fields is None:
            self.read_fields = [
                column
                for column in self.get_import_fields()
                if column.attribute
                and not column.readonly
                and "__" not in column.attribute
                and not isinstance(column.widget, ManyToManyWidget)
            ]
        errors = {}
        for column in self.read_fields:
            if column.column_name not in row:
                continue
            try:
                cleaned = column.clean(row, **kwargs)
            except ValueError as error:
                errors[column.attribute] = [
                    ValidationError(force_str(error), code="invalid")
                ]
                continue
            if cleaned is not None or column.saves_null_values:
                setattr(instance, column.attribute, cleaned)
        return errors

    def _number_new_row(self, instance, row):
        """A new row with neither identifier nor number is a new document,
        numbered by its registry as the add form numbers one: the next number
        after the highest the registry has issued and the file states. The
        dry run shows the number it would get; the import, one transaction
        with the registry locked, gives the numbers free when it runs."""
        stated = restore(row.get("identifier") or "")
        if instance.pk or instance.number is not None or stated:
            return
        registry = instance.registry
        instance.number = 1 + max(
            self._highest(registry),
            self.file_highest.get(registry.prefix, 0),
            self.numbered.get(registry.pk, 0),
        )
        self.numbered[registry.pk] = instance.number
        self.row_numbered = True

    def _read_unmodelled(self, instance, row, errors):
        """Read the cells no model field takes (tags, successor, times) into
        the row's ``RowRead``; returns ``errors`` with theirs added."""
        read = self.read[id(instance)]
        cells = {}
        for column in ["tags", "successor", "created", "last_changed"]:
            try:
                cells[column] = cell_text(row.get(column))
            except ValueError as error:
                errors.setdefault(column, []).append(ValidationError(str(error)))
                cells[column] = ""
        read.tags = sorted(parse_tags(cells["tags"]))
        try:
            check_lengths(read.tags, limit=TAG_LENGTH)
        except ValidationError as error:
            errors.setdefault("tags", []).append(error)
        read.successor = cells["successor"]
        for column, attribute in [
            ("created", "created_at"),
            ("last_changed", "updated_at"),
        ]:
            try:
                read.times[attribute] = parse_timestamp(cells[column], column)
            except ValidationError as error:
                errors = error.update_error_dict(errors)
        return errors

    def _check_identifier(self, instance, row, row_number, errors):
        """The stated identifier matches, is the file's only row for it, and
        is not a number the registry issued before."""
        identifier = Identifier(instance.registry.prefix, instance.number)
        stated = restore(row.get("identifier") or "")
        if stated and stated != identifier:
            errors.setdefault("identifier", []).append(
                ValidationError(
                    f"{stated} does not match registry and number ({identifier})."
                )
            )
        if identifier in self.seen:
            errors.setdefault("identifier", []).append(
                ValidationError(
                    f"{identifier} is already in row {self.seen[identifier]}."
                )
            )
        else:
            self.seen[identifier] = row_number
        if not instance.pk:
            refusal = unissued_refusal(
                registry=instance.registry,
                number=instance.number,
                highest=self._highest(instance.registry),
            )
            if refusal is not None:
                errors.setdefault("number", []).append(refusal)

    def _highest(self, registry):
        """The highest number ``registry`` issued before this import, read
        (and its row locked) once."""
        if registry.pk not in self.highest:
            self.highest[registry.pk] = highest_issued(registry=registry)
        return self.highest[registry.pk]

    def validate_instance(
        self, instance, import_validation_errors=None, validate_unique=True
    ):
        """The model's own validation, without its queries: the registry and the
        topic come from the lookups, the unique number is checked against the
        loader and the file (import_instance), and so are the check constraints.
        The search vector is the database's (migration 0004), never loaded.
        """
        errors = dict(import_validation_errors or {})
        exclude = {"registry", "topic", "superseded_by", "tags", "search_vector"}
        if instance.pk is None:
            # A new document's fields no column sets hold the model's
            # defaults, the same in every new row: checked in the first alone.
            if self.defaults_checked:
                exclude |= self.unset_fields
            self.defaults_checked = True
        try:
            instance.full_clean(
                exclude={*errors, *exclude},
                validate_unique=False,
                validate_constraints=False,
            )
        except ValidationError as error:
            errors = error.update_error_dict(errors)
        if errors:
            raise ValidationError(errors)

    def after_init_instance(self, instance, new, row, **kwargs):
        """The document as the record has it, before the row is read into it:
        a shallow copy, its related rows and tags shared (the row changes
        neither; it names them)."""
        super().after_init_instance(instance, new, row, **kwargs)
        self.read[id(instance)] = RowRead(None if new else copy.copy(instance))

    def skip_row(self, instance, original, row, import_validation_errors=None):
        """A row is skipped when it changes none of its document's columns. The
        columns it changes are compared here, all of them (import-export's own
        comparison stops at the first), for the preview to name."""
        read = self.read[id(instance)]
        self.row_changes = ()
        if import_validation_errors or read.original is None:
            return False
        self.row_changes = self.changed_columns(instance, read)
        if not self.row_changes:
            del self.read[id(instance)]
        return not self.row_changes

    def changed_columns(self, instance, read):
        """The columns in which the row's document differs from the record's
        (``read.original``)."""
        original = read.original
        columns = [
            field.column_name
            for field in self.get_import_fields()
            if field.attribute
            and field.get_value(instance) != field.get_value(original)
        ]
        if _tag_keys(tag.name for tag in original.tags.all()) != _tag_keys(read.tags):
            columns.append("tags")
        successor = original.superseded_by.identifier if original.superseded_by else ""
        if successor != read.successor:
            columns.append("successor")
        return tuple(columns)

    def after_import_row(self, row, row_result, **kwargs):
        super().after_import_row(row, row_result, **kwargs)
        # import_row has just called skip_row for this row.
        row_result.changed_columns = self.row_changes
        row_result.numbered, self.row_numbered = self.row_numbered, False

    def after_save_instance(self, instance, row, **kwargs):
        """Queued for its batch (write_batch); its successor is set last."""
        self.saved[instance.identifier] = instance
        self.successors.append(
            (kwargs.get("row_number"), instance, self.read[id(instance)].successor)
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
        """Write a batch of documents through the import's ``DocumentWriter``."""
        if not documents:
            return
        writes = []
        for document in documents:
            read = self.read.pop(id(document))
            writes.append(
                DocumentWrite(
                    document,
                    before=read.original,
                    tags=read.tags,
                    times=read.times if created else {},
                )
            )
        try:
            if created:
                self.writer.create(writes)
            else:
                self.writer.update(writes)
        except Exception as error:
            self.handle_import_error(result, error, raise_errors)
        finally:
            documents.clear()

    def after_import(self, dataset, result, **kwargs):
        """Successors may come later in the file, so they are set last."""
        # Not ModelResource.after_import: it sets the table's key sequence back
        # to the highest key in the table, as loaddata does after rows that
        # bring their own keys. A file's rows bring none; they take theirs
        # from the sequence as they are staged, before they are in the table,
        # so setting it back would hand the same keys out again.
        resources.Resource.after_import(self, dataset, result, **kwargs)
        known = self._successors_named()
        problems, changed = [], []
        for row_number, document, identifier in self.successors:
            successor = known.get(identifier) if identifier else None
            problem = _successor_problem(document, successor, identifier)
            if problem:
                problems.append(f"Row {row_number}, column successor: {problem}")
            elif document.pk and document.superseded_by_id != _pk(successor):
                changed.append((document, successor))
        if problems:
            raise ValidationError(problems)
        self.writer.set_successors(changed)
        self.writer.switch()
        if not self._is_dry_run(kwargs):
            # As every bulk write does (``bulk_change``), so that the pages
            # read right after a large import are planned knowing its rows.
            analysed(self.changed)

    def _successors_named(self):
        """``{identifier: document}`` for every successor the file names: the
        file's own documents, and the record's, read in one query."""
        known = dict(self.saved)
        named = [
            _identifier_or_none(identifier)
            for _, _, identifier in self.successors
            if identifier and identifier not in known
        ]
        named = [identifier for identifier in named if identifier]
        if named:
            for document in Document.objects.select_related("registry").filter(
                registry__prefix__in={identifier.prefix for identifier in named},
                number__in={identifier.number for identifier in named},
            ):
                known.setdefault(document.identifier, document)
        return known


def _successor_problem(document, successor, identifier):
    """Why ``successor`` (named ``identifier``) cannot supersede ``document``,
    or None: a document is superseded by another that exists, and a public
    one only by a public one, whose identifier and title its page shows."""
    if not identifier:
        return None
    if successor is None:
        return f"there is no document {identifier}."
    if successor.identifier == document.identifier:
        return f"{document.identifier} cannot supersede itself."
    if document.is_public and not successor.is_public:
        return (
            f"{successor.identifier} is not public (its status: "
            f"{successor.get_status_display().lower()}"
            f"), so it cannot supersede the public {document.identifier}."
        )
    return None


def _pk(document):
    return None if document is None else document.pk


def _identifier_or_none(text):
    """The identifier ``text`` spells in its permanent form, or None."""
    try:
        identifier = Identifier.parse(text)
    except ValueError:
        return None
    return identifier if identifier == text else None


def stated_numbers(dataset):
    """The highest number the file states for each registry prefix."""
    headers = dataset.headers or []
    if "registry" not in headers or "number" not in headers:
        return {}
    highest = {}
    for prefix, number in zip(dataset["registry"], dataset["number"], strict=True):
        number = whole_number(number)
        if number is not None:
            prefix = restore(str(prefix or ""))
            highest[prefix] = max(highest.get(prefix, 0), number)
    return highest


class TopicResource(ProgressMixin, resources.ModelResource):
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

    def before_import(self, dataset, **kwargs):
        super().before_import(dataset, **kwargs)
        self.user = kwargs.get("user")

    def do_instance_save(self, instance, is_create):
        """A topic is saved as the topic admin saves one, with its permission
        (``add_topic``, ``change_topic``); a refusal is the row's problem."""
        try:
            filing.save(obj=instance, user=self.user)
        except PermissionDenied as error:
            raise ValidationError(str(error), code="permission_denied") from None

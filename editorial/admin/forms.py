"""The admin's forms: a document as an editor edits it, the bulk actions'
inputs, a decision record with the records it supersedes, a person as an
editor corrects, merges and splits them."""

from typing import NamedTuple

from django import forms
from django.contrib.admin.helpers import ActionForm
from django.contrib.admin.widgets import AutocompleteSelect
from django.core import signing
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.html import format_html
from taggit.forms import TagWidget
from taggit.models import Tag
from taggit.utils import edit_string_for_tags

from actions.documents import EDITABLE_FIELDS, editable_state, editor_state
from actions.people import edit_person
from catalogue.citations import (
    author_line,
    author_lines,
    derived_authors,
    parse_author_line,
    parse_author_lines,
    source_key,
    spelled_as_recorded,
)
from catalogue.duplicates import same_source, similar_titles
from catalogue.models import (
    DecisionLog,
    DecisionRecord,
    DecisionRelation,
    Document,
    Person,
    Topic,
)
from catalogue.orcid import normalise_orcid
from catalogue.tags import check_lengths
from catalogue.text import RecordTextForm
from editorial.merge import three_way_merge
from public.diffs import render_word_diff

BASE_SALT = "catalogue.document.base"
# Posted by the box that lists titles alike: "this is another work".
ALLOW_SIMILAR = "_allow_similar_title"


def change_note(kept):
    """The form's change note: what changed and why, and where it is ``kept``."""
    return forms.CharField(
        required=False,
        max_length=500,
        label="Change note",
        help_text=f"What changed and why; {kept}.",
    )


class TagName(NamedTuple):
    """A tag as taggit's form field and widget read one: by its ``name``."""

    name: str


def tag_string(names):
    return edit_string_for_tags([TagName(name) for name in names])


class NamedAutocomplete(AutocompleteSelect):
    """Django's autocomplete, naming an empty choice (``placeholder``) and,
    through editorial/labels.js, itself, for assistive technology."""

    def __init__(self, field, admin_site, *, placeholder, **kwargs):
        super().__init__(field, admin_site, **kwargs)
        self.placeholder = placeholder

    @property
    def media(self):
        return super().media + forms.Media(js=["editorial/labels.js"])

    def build_attrs(self, base_attrs, extra_attrs=None):
        attrs = super().build_attrs(base_attrs, extra_attrs=extra_attrs)
        attrs["data-placeholder"] = self.placeholder
        return attrs


class NamedAutocompleteMixin:
    """Autocomplete fields named by ``autocomplete_placeholders``."""

    autocomplete_placeholders = {}

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        placeholder = self.autocomplete_placeholders.get(db_field.name)
        if placeholder and db_field.name in self.get_autocomplete_fields(request):
            kwargs["widget"] = NamedAutocomplete(
                db_field, self.admin_site, placeholder=placeholder
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class TagsWidget(TagWidget):
    """Tags, comma-separated, as a combobox: editorial/tag-combobox.js offers
    the record's tags (``admin:taggit_tag_names``) for the entry being typed,
    in a listbox chosen from by keyboard or pointer, its count told to
    screen readers. Without the script it is the plain text field."""

    template_name = "editorial/widgets/tags.html"

    class Media:
        css = {"all": ["editorial/tag-combobox.css"]}
        js = ["editorial/tag-combobox.js"]

    def __init__(self, attrs=None):
        super().__init__({"autocomplete": "off", **(attrs or {})})

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        field_id = context["widget"]["attrs"].get("id") or f"id_{name}"
        context["widget"]["attrs"].update(
            {
                "id": field_id,
                "role": "combobox",
                "aria-autocomplete": "list",
                "aria-expanded": "false",
                "aria-controls": f"{field_id}_offers",
                "data-offers": reverse("admin:taggit_tag_names"),
            }
        )
        return context


class AuthorListField(forms.Field):
    """The full author list, one author a line: ``Chen, Tianqi`` for a person,
    ``{Wan Team, Alibaba}`` for an organisation, taken whole."""

    widget = forms.Textarea(attrs={"rows": 5, "class": "vLargeTextField"})

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault(
            "help_text",
            "Every author, in order, one a line: a person as ‘Family, Given’ "
            "(Chen, Tianqi), an organisation in braces ({Wan Team, Alibaba}). "
            "Leave empty while only the citation’s names are known.",
        )
        super().__init__(**kwargs)

    def prepare_value(self, value):
        if isinstance(value, list):
            return author_lines(value)
        return value or ""

    def to_python(self, value):
        if isinstance(value, list):
            return value
        return parse_author_lines(value or "")

    def has_changed(self, initial, data):
        try:
            return self.to_python(data) != (initial or [])
        except ValidationError:
            return True


class DocumentForm(RecordTextForm, forms.ModelForm):
    """A document as an editor edits it; a save that would overwrite another
    editor's is refused, with a field-by-field merge offered instead.

    ``base`` carries, signed, the values the editor started from. When the
    record no longer holds them (someone saved in between), the save is
    refused and the form comes back merged: fields only one side changed are
    merged; fields both changed keep this editor's text, with the other
    editor's beside it to take instead (``merge``).
    """

    base = forms.CharField(widget=forms.HiddenInput, required=False)
    note = change_note("kept with the version when published")
    author_list = AuthorListField(label="Author list")

    class Meta:
        model = Document
        fields = [
            "registry",
            "number",
            "topic",
            "tags",
            *Document.CONTENT_FIELDS,
            *Document.BIBLIOGRAPHIC_FIELDS,
            "superseded_by",
        ]
        widgets = {"tags": TagsWidget}
        help_texts = {
            "tags": "Tags separated by commas, spaces kept: “sequence "
            "parallelism, memory” is two tags. A tag holding a comma goes in "
            "double quotes. Existing tags are offered as you type.",
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.merge = None
        self.similar_titles = []
        # The citation's authors may be left to the author list.
        self.fields["authors"].required = False
        self.fields["authors"].help_text = (
            "As the citation prints them: ‘Chen et al.’, ‘Jadbabaie, Lin and "
            "Morse’. Left empty, they are derived from the author list."
        )
        if self.instance.pk:
            state = editable_state(self.instance)
            self.initial.update(self._as_initial(state))
            self.initial["base"] = signing.dumps(state, salt=BASE_SALT)

    @staticmethod
    def _as_initial(state):
        initial = dict(state)
        # As tags, not a string: taggit compares the initial tags by name to
        # tell whether the field changed, and its widget prints them.
        initial["tags"] = [TagName(name) for name in state["tags"]]
        return initial

    def _as_data(self, name, value):
        if name == "tags":
            return tag_string(value)
        if name == "author_list":
            return author_lines(value)
        if value is None:
            return ""
        return str(value)

    def _state(self, cleaned):
        topic = cleaned.get("topic")
        return editor_state(
            {
                name: cleaned.get(name)
                for name in [*Document.CONTENT_FIELDS, *Document.BIBLIOGRAPHIC_FIELDS]
            },
            topic_id=topic.pk if topic else None,
            tags=cleaned.get("tags") or [],
        )

    def clean_source_identifier(self):
        return spelled_as_recorded(self.cleaned_data["source_identifier"])

    def clean_tags(self):
        tags = self.cleaned_data["tags"]
        check_lengths(tags, limit=Tag._meta.get_field("name").max_length)
        return tags

    def clean(self):
        cleaned = super().clean()
        self._derive_authors(cleaned)
        self._check_duplicates(cleaned)
        if not self.instance.pk or any(name in self.errors for name in EDITABLE_FIELDS):
            return cleaned
        return self._check_concurrent_save(cleaned)

    def _derive_authors(self, cleaned):
        """Authors left empty are derived from the author list: ‘Chen et al.’."""
        if cleaned.get("authors") or "authors" in self.errors:
            return
        if cleaned.get("author_list"):
            cleaned["authors"] = derived_authors(cleaned["author_list"])
        elif "author_list" not in self.errors:
            self.add_error(
                "authors",
                ValidationError(
                    "Give the authors as the citation prints them, or an author "
                    "list to derive them from.",
                    code="authors_missing",
                ),
            )

    def _check_duplicates(self, cleaned):
        """A second document citing one source is refused; a title close to
        another's is questioned until the editor says it is another work."""
        pk = self.instance.pk
        source = cleaned.get("source_identifier") or ""
        if source != self.initial.get("source_identifier", ""):
            same = same_source(source_key(source), exclude=pk).first()
            if same is not None:
                self.add_error(
                    "source_identifier",
                    ValidationError(
                        format_html(
                            '<a href="{}">{}</a> already cites this source.',
                            reverse("admin:catalogue_document_change", args=[same.pk]),
                            same,
                        ),
                        code="duplicate_source",
                    ),
                )
        title = cleaned.get("title") or ""
        if title != self.initial.get("title") and not self.data.get(ALLOW_SIMILAR):
            self.similar_titles = similar_titles(title, exclude=pk)
            if self.similar_titles:
                self.add_error(
                    "title",
                    ValidationError(
                        "Another document has a title this close: is it the same "
                        "work? See the list above the form.",
                        code="similar_title",
                    ),
                )

    def _check_concurrent_save(self, cleaned):
        try:
            base = signing.loads(cleaned.get("base") or "", salt=BASE_SALT)
        except signing.BadSignature:
            raise ValidationError(
                "This form lost track of the version it was opened on; reload the "
                "page (copy your text first).",
                code="base_missing",
            ) from None
        mine = self._state(cleaned)
        for name in EDITABLE_FIELDS:
            if self.data.get(f"_theirs_{name}"):
                mine[name] = base[name]
                cleaned[name] = self._cleaned_value(name, base[name])
        # The admin's change view is one transaction: the row stays locked
        # until this save is written, so no third save slips in between.
        locked = Document.objects.select_for_update().get(pk=self.instance.pk)
        current = editable_state(locked)
        if current == base:
            return cleaned
        self.merge = three_way_merge(base=base, theirs=current, mine=mine)
        data = self.data.copy()
        for name, value in self.merge.merged.items():
            data[self.add_prefix(name)] = self._as_data(name, value)
            data.pop(f"_theirs_{name}", None)
        data[self.add_prefix("base")] = signing.dumps(current, salt=BASE_SALT)
        self.data = data
        raise ValidationError(
            "Another editor saved this document after you opened it, so your save "
            "was refused and nothing was written. Their changes and yours are "
            "merged below: check the fields marked as conflicts, then save again.",
            code="edit_conflict",
        )

    def _cleaned_value(self, name, value):
        if name == "topic":
            return Topic.objects.filter(pk=value).first() if value else None
        return value

    def merge_rows(self):
        """For the merge screen: each changed field, theirs and mine."""
        if self.merge is None:
            return []
        topics = dict(
            Topic.objects.filter(
                pk__in=[self.merge.theirs["topic"], self.merge.mine["topic"]]
            ).values_list("pk", "name")
        )

        def shown(name, value):
            if name == "topic":
                return topics.get(value, "Unfiled")
            if name == "tags":
                return tag_string(value)
            if name == "author_list":
                return author_lines(value)
            return value

        rows = []
        for name in EDITABLE_FIELDS:
            if name in self.merge.conflicts or name in self.merge.taken_from_theirs:
                theirs = shown(name, self.merge.theirs[name])
                mine = shown(name, self.merge.mine[name])
                rows.append(
                    {
                        "name": name,
                        "label": self.fields[name].label
                        if name in self.fields
                        else name,
                        "theirs": theirs,
                        "mine": mine,
                        # Yours as it differs from theirs, word by word.
                        "diff": render_word_diff(str(theirs), str(mine)),
                        "conflict": name in self.merge.conflicts,
                    }
                )
        return rows


class DocumentActionForm(ActionForm):
    """The bulk actions' extra inputs: a topic to refile to, a tag to add."""

    topic = forms.ModelChoiceField(
        queryset=Topic.objects.all(),
        required=False,
        empty_label="(topic for “Refile”)",
        label="Topic",
    )
    tag = forms.CharField(
        required=False, max_length=100, label="Tag", help_text="for “Add a tag”"
    )


class DecisionRecordForm(RecordTextForm, forms.ModelForm):
    """A decision record, and the records it supersedes (kept as relations,
    shown on theirs as "superseded by")."""

    supersedes = forms.ModelMultipleChoiceField(
        queryset=DecisionRecord.objects.all(),
        required=False,
        help_text="Records this one supersedes: they say “superseded by” it.",
    )
    note = change_note("kept with the revision of a published record")

    class Meta:
        model = DecisionRecord
        fields = [
            "number",
            "title",
            "status",
            "status_text",
            "status_history",
            "decided_on",
            "body",
        ]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # A record supersedes records of its own log.
        self.log = (
            self.instance.log if self.instance.log_id else DecisionLog.objects.own()
        )
        self.fields["supersedes"].queryset = DecisionRecord.objects.filter(
            log=self.log.pk if self.log else None
        )
        if self.instance.pk:
            self.fields["supersedes"].queryset = self.fields[
                "supersedes"
            ].queryset.exclude(pk=self.instance.pk)
            self.initial["supersedes"] = list(
                DecisionRecord.objects.filter(
                    inverse_relations__source=self.instance,
                    inverse_relations__kind=DecisionRelation.Kind.SUPERSEDES,
                )
            )
            # A published record with an edit held shows the edit.
            revision = self.instance.pending_revision()
            if revision is not None:
                self.initial.update(revision.content())
                self.initial["supersedes"] = list(
                    DecisionRecord.objects.filter(pk__in=revision.supersedes)
                )
                self.initial["note"] = revision.note

    def clean_number(self):
        number = self.cleaned_data["number"]
        taken = DecisionRecord.objects.filter(
            log=self.log.pk if self.log else None, number=number, twin=1
        ).exclude(pk=self.instance.pk)
        if taken.exists():
            raise forms.ValidationError(
                f"{taken.first().label} is numbered {number} already in "
                f"{self.log.name}.",
                code="number_taken",
            )
        return number

    def clean(self):
        cleaned = super().clean()
        # The words as written described the status an editor has now changed.
        if "status" in self.changed_data and "status_text" not in self.changed_data:
            cleaned["status_text"] = ""
        return cleaned


class WithdrawalForm(RecordTextForm, forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=2000,
        help_text="Readers see it on the document's page and in the feed, with "
        "today's date.",
    )


class TagMergeForm(RecordTextForm, forms.Form):
    """Which name the merged tags keep: one of theirs, or a new one."""

    NEW = "new"

    keep = forms.ChoiceField(widget=forms.RadioSelect, label="Keep the name")
    new_name = forms.CharField(
        required=False,
        max_length=100,
        label="New name",
        help_text="Every document that held one of these tags holds this one.",
    )

    def __init__(self, *args, tags, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["keep"].choices = [
            *((str(tag.pk), tag.name) for tag in tags),
            (self.NEW, "A new name:"),
        ]
        self.names = {str(tag.pk): tag.name for tag in tags}

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("keep") == self.NEW and not cleaned.get("new_name", "").strip():
            self.add_error("new_name", "Type the new name, or keep one of the tags'.")
        return cleaned

    def kept_name(self):
        keep = self.cleaned_data["keep"]
        if keep == self.NEW:
            return self.cleaned_data["new_name"].strip()
        return self.names[keep]


class PersonNameField(forms.CharField):
    """A person's name on one line, as in an author list: ``Rajbhandari,
    Samyam`` for a person, ``{Wan Team, Alibaba}`` for an organisation."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 500)
        kwargs.setdefault(
            "help_text",
            "The name the person's page shows: ‘Family, Given’ (Rajbhandari, "
            "Samyam) for a person, in braces for an organisation ({Wan Team, "
            "Alibaba}). Each document keeps the name as it writes it.",
        )
        super().__init__(**kwargs)

    def prepare_value(self, value):
        return author_line(value) if isinstance(value, dict) else value

    def to_python(self, value):
        if isinstance(value, dict):
            return value
        value = super().to_python(value)
        try:
            return parse_author_line(value)
        except ValueError as error:
            raise ValidationError(f"{error}.", code="name_line") from None

    def has_changed(self, initial, data):
        # A name keeps what the line does not show (an ORCID iD written into
        # it) unless the line itself changed.
        shown = {key: value for key, value in (initial or {}).items() if key in NAME}
        try:
            return self.to_python(data) != shown
        except ValidationError:
            return True


# The parts of a CSL name its one line shows.
NAME = {"family", "given", "literal"}


class PersonForm(RecordTextForm, forms.ModelForm):
    """A person as an editor corrects them, saved by ``edit_person``.

    The action is the form's model check: where a ModelForm would check the
    instance and later save it, this form has the action check and save in
    one step (in the admin's transaction), so what the action refuses (an
    ORCID iD whose check character is wrong, an address another person had,
    ``verified`` without an iD) shows on the field it names, and nothing is
    written. The admin gives the form its ``user``.
    """

    name_line = PersonNameField(label="Name")
    # A pasted https://orcid.org/ address is read by the action.
    orcid = forms.CharField(
        required=False,
        max_length=100,
        label="ORCID iD",
        help_text="0000-0002-1825-0097, or its https://orcid.org/ address. An "
        "editor who has checked it on orcid.org may mark the person verified.",
    )
    homepage = forms.URLField(
        required=False, max_length=500, assume_scheme="https", label="Homepage"
    )
    user = None

    class Meta:
        model = Person
        fields = ["slug", "orcid", "affiliation", "homepage", "state"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.initial["name_line"] = self.instance.name
        self.person = self.instance

    def clean_orcid(self):
        orcid = normalise_orcid(self.cleaned_data["orcid"])
        holder = (
            Person.objects.filter(orcid=orcid).exclude(pk=self.instance.pk).first()
            if orcid
            else None
        )
        if holder is not None:
            raise ValidationError(
                format_html(
                    '<a href="{}">{}</a> holds this ORCID iD: if they are one '
                    "person, merge them.",
                    reverse("admin:catalogue_person_change", args=[holder.pk]),
                    holder,
                ),
                code="orcid_taken",
            )
        return orcid

    def _post_clean(self):
        if self.errors or not self.changed_data:
            return
        changes = {
            "name" if name == "name_line" else name: self.cleaned_data[name]
            for name in self.changed_data
        }
        try:
            self.person = edit_person(
                person=self.instance, user=self.user, changes=changes
            )
        except ValidationError as error:
            self._refused(error)

    def _refused(self, error):
        """Put the action's refusal on the fields it names."""
        if not hasattr(error, "error_dict"):
            field = "orcid" if error.code in ORCID_CODES else None
            self.add_error(field, error)
            return
        for name, errors in error.error_dict.items():
            field = "name_line" if name == "name" else name
            self.add_error(field if field in self.fields else None, errors)


# What ``catalogue.orcid`` says of a value that is not an ORCID iD.
ORCID_CODES = {"orcid_form", "orcid_checksum"}


class PersonMergeForm(RecordTextForm, forms.Form):
    """Which of the people being merged the others merge into."""

    keep = forms.ChoiceField(widget=forms.RadioSelect, label="Keep")

    def __init__(self, *args, people, **kwargs):
        super().__init__(*args, **kwargs)
        self.people = {str(person.pk): person for person in people}
        self.fields["keep"].choices = [
            (pk, f"{person} ({person.slug})") for pk, person in self.people.items()
        ]

    def kept(self):
        return self.people[self.cleaned_data["keep"]]


class PersonSplitForm(RecordTextForm, forms.Form):
    """Which new person each row of a person's positions goes to (person 1,
    2, …, of ``groups``), and each new person's affiliation, if known.

    ``rows``: each has a ``key`` (naming its field) and the ``pks`` of the
    positions it stands for (a document's position in its text now and in
    its versions go together)."""

    def __init__(self, *args, rows, groups, **kwargs):
        super().__init__(*args, **kwargs)
        self.rows, self.groups = rows, groups
        choices = [(str(n), f"Person {n}") for n in range(1, groups + 1)]
        for row in rows:
            self.fields[f"position_{row.key}"] = forms.TypedChoiceField(
                choices=choices,
                coerce=int,
                initial="1",
                label=f"New person for {row.label}",
            )
        for n in range(1, groups + 1):
            self.fields[f"affiliation_{n}"] = forms.CharField(
                required=False,
                max_length=300,
                label=f"Affiliation of person {n}",
                help_text="Optional; it also tells the new address apart.",
            )

    def position_fields(self):
        return [(row, self[f"position_{row.key}"]) for row in self.rows]

    def affiliation_fields(self):
        return [self[f"affiliation_{n}"] for n in range(1, self.groups + 1)]

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        if self.groups < 2:
            raise ValidationError(
                "A split makes two people or more: choose at least two.",
                code="split_groups",
            )
        held = {n: [] for n in range(1, self.groups + 1)}
        for row in self.rows:
            held[cleaned[f"position_{row.key}"]].extend(row.pks)
        empty = [str(n) for n, pks in held.items() if not pks]
        if empty:
            raise ValidationError(
                f"Person {' and '.join(empty)} would have no position: give "
                f"{'them' if len(empty) > 1 else 'it'} one, or split into "
                "fewer people.",
                code="split_empty",
            )
        self.split_groups = [
            (pks, cleaned[f"affiliation_{n}"].strip()) for n, pks in held.items()
        ]
        return cleaned

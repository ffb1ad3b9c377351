"""The admin's forms: a document as an editor edits it, the bulk actions'
inputs, a decision record with the records it supersedes."""

from types import SimpleNamespace

from django import forms
from django.contrib.admin.helpers import ActionForm
from django.core import signing
from django.core.exceptions import ValidationError
from taggit.utils import edit_string_for_tags

from catalogue.models import DecisionRecord, DecisionRelation, Document, Topic
from editorial.merge import three_way_merge
from editorial.workflow import EDITABLE_FIELDS, editable_state, editor_state

BASE_SALT = "catalogue.document.base"


def tag_string(names):
    return edit_string_for_tags([SimpleNamespace(name=name) for name in names])


class DocumentForm(forms.ModelForm):
    """A document as an editor edits it; a save that would overwrite another
    editor's is refused, with a field-by-field merge offered instead.

    ``base`` carries, signed, the values the editor started from. When the
    record no longer holds them (someone saved in between), the save is
    refused and the form comes back merged: fields only one side changed are
    merged; fields both changed keep this editor's text, with the other
    editor's beside it to take instead (``merge``).
    """

    base = forms.CharField(widget=forms.HiddenInput, required=False)
    note = forms.CharField(
        required=False,
        max_length=500,
        label="Change note",
        help_text="What changed and why; kept with the version when published.",
    )

    class Meta:
        model = Document
        fields = [
            "registry",
            "number",
            "topic",
            "tags",
            *Document.CONTENT_FIELDS,
            "superseded_by",
        ]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.merge = None
        if self.instance.pk:
            state = editable_state(self.instance)
            self.initial.update(self._as_initial(state))
            self.initial["base"] = signing.dumps(state, salt=BASE_SALT)

    @staticmethod
    def _as_initial(state):
        initial = dict(state)
        initial["tags"] = tag_string(state["tags"])
        return initial

    def _as_data(self, name, value):
        if name == "tags":
            return tag_string(value)
        if value is None:
            return ""
        return str(value)

    def _state(self, cleaned):
        topic = cleaned.get("topic")
        return editor_state(
            {name: cleaned.get(name) for name in Document.CONTENT_FIELDS},
            topic_id=topic.pk if topic else None,
            tags=cleaned.get("tags") or [],
        )

    def clean(self):
        cleaned = super().clean()
        if not self.instance.pk or any(name in self.errors for name in EDITABLE_FIELDS):
            return cleaned
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
            return value

        return [
            {
                "name": name,
                "label": self.fields[name].label if name in self.fields else name,
                "theirs": shown(name, self.merge.theirs[name]),
                "mine": shown(name, self.merge.mine[name]),
                "conflict": name in self.merge.conflicts,
            }
            for name in EDITABLE_FIELDS
            if name in self.merge.conflicts or name in self.merge.taken_from_theirs
        ]


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


class DecisionRecordForm(forms.ModelForm):
    """A decision record, and the records it supersedes (kept as relations,
    shown on theirs as "superseded by")."""

    supersedes = forms.ModelMultipleChoiceField(
        queryset=DecisionRecord.objects.all(),
        required=False,
        help_text="Records this one supersedes: they say “superseded by” it.",
    )

    class Meta:
        model = DecisionRecord
        fields = ["number", "title", "status", "status_text", "decided_on", "body"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["supersedes"].queryset = DecisionRecord.objects.exclude(
                pk=self.instance.pk
            )
            self.initial["supersedes"] = list(
                DecisionRecord.objects.filter(
                    inverse_relations__source=self.instance,
                    inverse_relations__kind=DecisionRelation.Kind.SUPERSEDES,
                )
            )

    def clean(self):
        cleaned = super().clean()
        # The words as written described the status an editor has now changed.
        if "status" in self.changed_data and "status_text" not in self.changed_data:
            cleaned["status_text"] = ""
        return cleaned

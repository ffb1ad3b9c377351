"""The correction form: what readers see of a document or a decision record,
for them to change, and what they say of it.

Only the fields a reader changed are proposed (``proposal``): a field left as
the page gave it is not, whatever a browser does to its line endings. The
author list is one author a line, as readers write names: ``Chen, Tianqi``
for a person, an organisation's name alone (``CoreWeave``), in braces when it
holds a comma (``{Wan Team, Alibaba}``). A name alone that the list already
held as a person's family name (``Chen``, from ``Chen et al.``) stays one.
"""

import datetime

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from catalogue.citations import parse_author_line
from catalogue.models.correction import DOCUMENT_FIELDS, NOTE_MAX_CHARACTERS
from catalogue.models.decision import TITLE_MAX_LENGTH
from catalogue.text import RecordTextForm

# The honeypot's name: what a form-filling robot fills, and a reader never
# sees (hidden by the stylesheet, out of the tab order and of the
# accessibility tree).
HONEYPOT = "website"


def reader_author_line(author):
    """One author as the form shows it: ``Chen, Tianqi``, ``Chen``,
    ``CoreWeave``, ``{Wan Team, Alibaba}``."""
    if "literal" in author:
        name = author["literal"]
        return f"{{{name}}}" if "," in name else name
    if author.get("given"):
        return f"{author['family']}, {author['given']}"
    return author["family"]


def reader_author_lines(authors):
    return "\n".join(reader_author_line(author) for author in authors)


def parse_reader_author_lines(text, known=()):
    """The author list from a reader's lines, as CSL names; blank lines are
    skipped. A line with neither comma nor braces is an organisation, unless
    ``known`` (the list the form showed) holds it as a person's family name.

    Raise ValidationError naming the line of each problem.
    """
    families = {
        author["family"]
        for author in known
        if "literal" not in author and not author.get("given")
    }
    authors, errors = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        if not any(char in line for char in ",{}"):
            authors.append({"family": line} if line in families else {"literal": line})
            continue
        try:
            authors.append(parse_author_line(line))
        except ValueError:
            errors.append(
                ValidationError(
                    f"Line {number} (‘{line}’): a person reads ‘Family, Given’ "
                    "(one comma), an organisation its name alone, in braces "
                    "when it holds a comma: {Wan Team, Alibaba}.",
                    code="author_line",
                )
            )
    if errors:
        raise ValidationError(errors)
    return authors


class LinesField(forms.CharField):
    """Text of lines, compared as lines: each stripped, blank ones and the
    browser's line endings (CRLF) aside."""

    widget = forms.Textarea

    def to_python(self, value):
        text = super().to_python(value)
        return "\n".join(line.strip() for line in text.splitlines() if line.strip())


class CorrectionForm(RecordTextForm, forms.Form):
    """What every correction asks besides its fields: the note, the reason,
    the address for the outcome, and the honeypot."""

    note = forms.CharField(
        label=_("What is wrong in the summary"),
        required=False,
        max_length=NOTE_MAX_CHARACTERS,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=_("Optional: the editors' summary is theirs to rewrite."),
    )
    reason = forms.CharField(
        label=_("How you know"),
        required=False,
        max_length=NOTE_MAX_CHARACTERS,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("The paper's first page, its arXiv listing, the venue's site…"),
    )
    email = forms.EmailField(
        label=_("Your e-mail address"),
        required=False,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
        help_text=_("Optional: to hear what became of it. Never shown."),
    )
    website = forms.CharField(
        label=_("Leave this empty"),
        required=False,
        widget=forms.TextInput(attrs={"tabindex": "-1", "autocomplete": "off"}),
    )

    # The fields of the target the form shows, in order.
    target_fields = []

    def __init__(self, *args, target, **kwargs):
        self.target = target
        super().__init__(*args, initial=self.shown_values(), **kwargs)
        self.order_fields([*self.target_fields, "note", "reason", "email", HONEYPOT])

    def shown_values(self):
        """The target's public values as the form shows them."""
        return {name: getattr(self.target, name) for name in self.target_fields}

    @property
    def shown_fields(self):
        """The target's fields, bound, in the form's order."""
        return [self[name] for name in self.target_fields]

    def is_robot(self):
        """Whether the honeypot was filled: no reader sees it."""
        return bool(self.data.get(HONEYPOT, "").strip())

    def clean(self):
        cleaned = super().clean()
        changed = [name for name in self.target_fields if name in self.changed_data]
        if not self.errors and not changed and not cleaned.get("note", "").strip():
            raise ValidationError(
                _(
                    "Nothing is changed and there is no note: change what is "
                    "wrong, or say it in the note."
                ),
                code="empty",
            )
        return cleaned

    def proposal(self):
        """The action's keywords: the changed fields' values, the texts."""
        changes = {
            name: self.as_value(name, self.cleaned_data[name])
            for name in self.target_fields
            if name in self.changed_data
        }
        return {
            "changes": changes,
            "note": self.cleaned_data["note"],
            "reason": self.cleaned_data["reason"],
            "email": self.cleaned_data["email"],
        }

    def as_value(self, name, value):
        """A cleaned value in the JSON shape a proposal keeps."""
        if isinstance(value, datetime.date):
            return value.isoformat()
        return value

    def add_action_errors(self, error):
        """The action's ValidationError, each message on the field it names
        (on the form as a whole for a field the form does not show)."""
        if not hasattr(error, "error_dict"):
            self.add_error(None, error)
            return
        for name, errors in error.error_dict.items():
            self.add_error(name if name in self.fields else None, errors)

    def describe(self):
        """Link each input to its hint and its errors (aria-describedby), and
        mark the inputs in error, for screen readers."""
        for name, field in self.fields.items():
            bound = self[name]
            ids = []
            if field.help_text:
                ids.append(f"{bound.auto_id}_helptext")
            if bound.errors:
                ids.append(f"{bound.auto_id}_errors")
                field.widget.attrs["aria-invalid"] = "true"
            if ids:
                field.widget.attrs["aria-describedby"] = " ".join(ids)


class DocumentCorrectionForm(CorrectionForm):
    title = forms.CharField(label=_("Title"), max_length=500)
    authors = forms.CharField(
        label=_("Authors, as the citation prints them"),
        max_length=500,
        help_text=_("‘Chen et al.’, ‘Jadbabaie, Lin and Morse’, ‘CoreWeave’."),
    )
    author_list = LinesField(
        label=_("Every author, one a line"),
        required=False,
        max_length=NOTE_MAX_CHARACTERS,
        widget=forms.Textarea(attrs={"rows": 6, "autocapitalize": "words"}),
        help_text=_(
            "A person as ‘Family, Given’ (Chen, Tianqi); an organisation by "
            "its name alone (CoreWeave), in braces if it holds a comma "
            "({Wan Team, Alibaba}). Add a missing co-author on a line of "
            "their own, in their place."
        ),
    )
    year = forms.IntegerField(
        label=_("Year"),
        min_value=1000,
        max_value=9999,
        # A text input with a numeric keyboard: what a reader typed is shown
        # back as typed, a year is never stepped by a scroll.
        widget=forms.TextInput(attrs={"inputmode": "numeric"}),
    )
    venue = forms.CharField(
        label=_("Venue"),
        required=False,
        max_length=500,
        help_text=_("The journal or conference: ‘OSDI’, ‘IEEE Trans. Autom. Control’."),
    )
    publication_date = forms.CharField(
        label=_("Publication date"),
        required=False,
        max_length=10,
        help_text=_("As precise as known: 2016, 2016-04 or 2016-04-21."),
    )
    source_identifier = forms.CharField(
        label=_("Identifier"),
        required=False,
        max_length=200,
        help_text=_("ARXIV-1604.06174 or DOI:10.1109/TAC.2003.812781."),
    )
    doi = forms.CharField(
        label=_("DOI"),
        required=False,
        max_length=200,
        help_text=_("The published work's DOI: 10.1109/TAC.2003.812781."),
    )

    target_fields = DOCUMENT_FIELDS

    def shown_values(self):
        values = super().shown_values()
        # The authors as far as known: the full list, else the citation's
        # names, for the reader to complete.
        values["author_list"] = reader_author_lines(self.shown_authors())
        return values

    def shown_authors(self):
        return self.target.known_authors[0]

    def clean_author_list(self):
        return parse_reader_author_lines(
            self.cleaned_data["author_list"], self.shown_authors()
        )


class DecisionCorrectionForm(CorrectionForm):
    title = forms.CharField(label=_("Title"), max_length=TITLE_MAX_LENGTH)
    decided_on = forms.DateField(
        label=_("Date of the decision"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        help_text=_("As 2026-12-04; empty when the record states none."),
    )

    target_fields = ["title", "decided_on"]

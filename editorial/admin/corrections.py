"""The desk's queue of proposed corrections: readers' and the source checks'.

The list shows the waiting proposals first, each with where it came from,
what it corrects and how long it has waited. A proposal's page compares each
field it changes with what readers see now, word by word, and checks the
cited work at arXiv or Crossref; a publisher accepts it as proposed, edits
then accepts it, or declines it with a reason for the reader and one for the
desk. Every decision is ``actions.corrections.accept`` or ``decline``, which
check the publisher's right: editors read the queue and decide nothing.

An accepted edit waits in its document's pending revision, to be reviewed
and published the usual way (``admin:catalogue_document_review``).
"""

import datetime
from dataclasses import dataclass

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Case, F, IntegerField, Value, When
from django.http import HttpResponseRedirect
from django.template.defaultfilters import pluralize
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.timesince import timesince

import actions.corrections
import actions.documents
from catalogue.citations import author_lines
from catalogue.models import Correction, DecisionRecord, Document
from catalogue.models.correction import NOTE_MAX_CHARACTERS
from catalogue.names import are_variants, display_name, fold
from catalogue.text import RecordTextForm
from editorial.admin.bulk import counted, told, were
from editorial.admin.forms import AuthorListField, change_note
from public.diffs import render_word_diff
from sources.metadata import LookupFailed, look_up, recorded_identifier

Status = Correction.Status
Proposes = Correction.Proposes
DECIDE = "catalogue.decide_correction"
# Waiting proposals first, the oldest of them first; then the decided ones,
# the latest decision first.
WAITING_SINCE = Case(When(status=Status.PENDING, then=F("created_at")), default=None)
WAITING_FIRST = Case(
    When(status=Status.PENDING, then=Value(0)),
    default=Value(1),
    output_field=IntegerField(),
)


def field_label(target, name):
    """A field as its form names it: "Title", "Author list", "DOI"."""
    label = str(type(target)._meta.get_field(name).verbose_name)
    return label[:1].upper() + label[1:]


def field_text(name, value):
    """A field's value as the diff and the form read it: an author list one
    author a line, a date in ISO form, nothing as empty."""
    if name == "author_list":
        return author_lines(value or [])
    if value is None:
        return ""
    if isinstance(value, datetime.date):
        return value.isoformat()
    return str(value)


@dataclass(frozen=True)
class FieldChange:
    """One field a proposal changes: what readers see now and what it
    proposes, compared word by word (``html``), and what readers saw when it
    was proposed (``then``), when that is not what they see now."""

    label: str
    now: str
    proposed: str
    html: str
    then: str | None

    @property
    def reads_as_proposed(self):
        return self.now == self.proposed


def field_changes(correction):
    """The fields ``correction`` changes, each compared with the target's
    public value now, not only with the value kept when it was proposed."""
    target = correction.target
    names = correction.proposed_fields()
    now = actions.corrections.public_values(target, names)
    rows = []
    for name in names:
        now_text = field_text(name, now[name])
        proposed = field_text(name, correction.changes[name])
        then = field_text(name, correction.current.get(name))
        rows.append(
            FieldChange(
                label=field_label(target, name),
                now=now_text,
                proposed=proposed,
                html=render_word_diff(now_text, proposed),
                then=then if then != now_text else None,
            )
        )
    return rows


def proposed_values(correction):
    """The target's public values with the proposal's changes applied: the
    record as it would read once accepted."""
    target = correction.target
    values = actions.corrections.public_values(
        target, actions.corrections.fields_of(target)
    )
    return {**values, **correction.changes}


@dataclass(frozen=True)
class SourceCheck:
    """What the cited work's source says of the proposal: ``findings``, one
    sentence each, or the reason it could not be asked (``failure``)."""

    source: str = ""
    identifier: str = ""
    findings: tuple = ()
    failure: str = ""

    @property
    def sentence(self):
        return "; ".join(self.findings) + "." if self.findings else ""


def _identifier_of(values):
    """The arXiv id or DOI the record (as proposed) cites, or ""."""
    for text in (values.get("source_identifier"), values.get("doi")):
        if not text:
            continue
        try:
            return recorded_identifier(str(text))
        except LookupFailed:
            continue
    return ""


def source_check(correction):
    """Look the proposed (or else the cited) work up at arXiv or Crossref, as
    the add form does (cached), and compare its title, authors and year with
    the record as the proposal would have it."""
    if not correction.document_id:
        return SourceCheck(failure="A decision record cites no work to look up.")
    values = proposed_values(correction)
    identifier = _identifier_of(values)
    if not identifier:
        return SourceCheck(
            failure="The record cites no arXiv id or DOI, proposed or current, to "
            "look up."
        )
    source = "arXiv" if identifier.startswith("ARXIV-") else "Crossref"
    try:
        work = look_up(identifier)
    except LookupFailed as error:
        return SourceCheck(source, identifier, failure=error.message)
    changes = correction.changes

    def whose(*names):
        return "the proposal" if any(n in changes for n in names) else "the record"

    findings = []
    title = values.get("title") or ""
    if fold(title) == fold(work.title):
        findings.append(f"{source} agrees on the title")
    else:
        findings.append(
            f"{source} gives the title “{work.title}”, {whose('title')} “{title}”"
        )
    findings += _author_findings(source, work.author_list, values, whose)
    year = values.get("year")
    if year == work.year:
        findings.append(f"{source} agrees on the year, {work.year}")
    elif year:
        findings.append(f"{source} gives the year {work.year}, {whose('year')} {year}")
    return SourceCheck(source, identifier, tuple(findings))


def _author_findings(source, theirs, values, whose):
    ours = values.get("author_list") or []
    subject = whose("author_list", "authors")
    if not theirs:
        return [f"{source} lists no authors"]
    if not ours:
        return [
            f"{source} lists {counted(len(theirs), 'author')}; {subject} gives no "
            f"author list, only “{values.get('authors') or ''}”"
        ]
    findings = [
        f"{source} lists {counted(len(theirs), 'author')}, {subject} {len(ours)}"
    ]
    missing = [n for n in theirs if not any(are_variants(n, o) for o in ours)]
    extra = [n for n in ours if not any(are_variants(n, t) for t in theirs)]
    if missing:
        names = ", ".join(display_name(name) for name in missing)
        findings.append(f"{source} names {names}, whom {subject} does not")
    if extra:
        names = ", ".join(display_name(name) for name in extra)
        findings.append(f"{subject} names {names}, whom {source} does not")
    if not missing and not extra:
        findings.append(f"{source} and {subject} name the same authors")
    return findings


class DeclineForm(RecordTextForm, forms.Form):
    """A decline's reasons: a public one, a private one, or both."""

    public_reason = forms.CharField(
        label="Public reason",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=NOTE_MAX_CHARACTERS,
        help_text="The reader reads it on their private link, and by mail if they "
        "gave an address. Left empty, they are told only that it was declined.",
    )
    private_reason = forms.CharField(
        label="Private reason",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=NOTE_MAX_CHARACTERS,
        help_text="For the editors alone.",
    )

    def clean(self):
        cleaned = super().clean()
        if not self.errors and not any(
            cleaned.get(name, "").strip()
            for name in ["public_reason", "private_reason"]
        ):
            self.add_error(
                "public_reason",
                ValidationError(actions.corrections.NO_REASON, code="no_reason"),
            )
        return cleaned


def accept_form_class(correction):
    """The form of "Edit, then accept": the fields the proposal changes
    first, then every other field a publisher may set in accepting it."""
    if correction.document_id:
        model, names = Document, actions.corrections.ACCEPTED_DOCUMENT_FIELDS
    else:
        model, names = DecisionRecord, actions.corrections.DECISION_FIELDS
    changed = correction.proposed_fields()
    ordered = [*changed, *(name for name in names if name not in changed)]
    fields = {}
    for name in ordered:
        if name == "author_list":
            fields[name] = AuthorListField(label="Author list")
        else:
            fields[name] = model._meta.get_field(name).formfield()
    fields["note"] = change_note("kept with the pending revision")
    form = type("AcceptCorrectionForm", (forms.Form,), fields)
    form.proposed = changed
    return form


def accept_initial(correction):
    """The form's first values: what the target will read (its pending
    revision's, if any), the proposal's changes over them."""
    target = correction.target
    if correction.document_id:
        state = actions.documents.editable_state(target)
        names = actions.corrections.ACCEPTED_DOCUMENT_FIELDS
        initial = {name: state[name] for name in names}
    else:
        initial = actions.corrections.public_values(target)
    return {**initial, **correction.changes}


def as_changes(form, correction):
    """The values to accept: the proposal's fields and whatever the publisher
    changed, in the JSON shape a proposal keeps."""
    names = [
        name
        for name in form.fields
        if name != "note" and (name in correction.changes or name in form.changed_data)
    ]
    values = {}
    for name in names:
        value = form.cleaned_data[name]
        values[name] = value.isoformat() if isinstance(value, datetime.date) else value
    return values


def review_url(correction):
    """Where the pending revision an accepted proposal went into is reviewed
    and published."""
    if correction.document_id:
        return reverse("admin:catalogue_document_review", args=[correction.document_id])
    return reverse(
        "admin:catalogue_decisionrecord_change", args=[correction.decision_id]
    )


def target_admin_url(correction):
    if correction.document_id:
        return reverse("admin:catalogue_document_change", args=[correction.document_id])
    return reverse(
        "admin:catalogue_decisionrecord_change", args=[correction.decision_id]
    )


def accepted_message(correction):
    """What accepting did, by what the proposal proposes."""
    label = correction.target_label
    if correction.proposes == Proposes.ERRATUM:
        return f"Accepted the erratum of {label}: its page notes it now."
    if correction.proposes == Proposes.WITHDRAWAL:
        return f"Accepted the retraction of {label}: it is withdrawn."
    return format_html(
        "Accepted the correction of {} ({}): it waits in the pending revision. "
        '<a href="{}">Review and publish it</a>.',
        label,
        correction.what(),
        review_url(correction),
    )


def declined_message(correction):
    told = "your public reason" if correction.public_reason else None
    if correction.email:
        told_reader = (
            f"the reader is mailed {told}"
            if told
            else "the reader is mailed that it was declined, with no reason"
        )
    else:
        told_reader = (
            f"their private link shows {told}"
            if told
            else "their private link shows it declined, with no reason"
        )
    return f"Declined the correction of {correction.target_label}: {told_reader}."


@admin.register(Correction)
class CorrectionAdmin(admin.ModelAdmin):
    """The queue: a list to read, filter and decide in bulk, and each
    proposal's page. Nothing here saves a proposal but its two verbs."""

    list_display = ["corrects", "origin_label", "target_links", "age", "status"]
    list_display_links = ["corrects"]
    list_filter = ["status", "origin"]
    list_select_related = ["document__registry", "decision__log"]
    list_per_page = 50
    actions = ["accept_selected", "decline_selected"]

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path(
                "<path:object_id>/edit/",
                view(self.edit_view),
                name="catalogue_correction_edit",
            ),
            *super().get_urls(),
        ]

    def get_ordering(self, request):
        return [
            WAITING_FIRST.asc(),
            WAITING_SINCE.asc(nulls_last=True),
            F("decided_at").desc(nulls_last=True),
            "-pk",
        ]

    def has_add_permission(self, request):
        # Readers' form and the source checks propose; the desk decides.
        return False

    def has_change_permission(self, request, obj=None):
        # A proposal changes only by being decided, through its own buttons.
        return False

    def has_delete_permission(self, request, obj=None):
        # A declined proposal stays, with its reasons: the check that found it
        # reads it before proposing the same again.
        return False

    def has_decide_permission(self, request, obj=None):
        return request.user.has_perm(DECIDE)

    # The list's columns.

    @admin.display(description="Corrects", ordering="proposes")
    def corrects(self, correction):
        what = correction.what()
        # "arXiv v3 noted" keeps arXiv's own spelling.
        return what if what.startswith("arXiv") else what[:1].upper() + what[1:]

    @admin.display(description="From", ordering="origin")
    def origin_label(self, correction):
        return correction.get_origin_display()

    @admin.display(description="Of")
    def target_links(self, correction):
        target = correction.target
        return format_html(
            '<span class="correction-target"><a href="{}">{}</a> {} '
            '<a href="{}" class="public-page">public page</a></span>',
            target_admin_url(correction),
            correction.target_label,
            target.title,
            target.get_absolute_url(),
        )

    @admin.display(description="Waiting", ordering="created_at")
    def age(self, correction):
        return timesince(correction.created_at)

    # A proposal's page.

    def _viewable(self, request, object_id):
        correction = (
            Correction.objects.select_related(
                "document__registry",
                "decision__log",
                "decided_by",
                "revision",
                "decision_revision",
            )
            .filter(pk=object_id if str(object_id).isdigit() else None)
            .first()
        )
        if correction is None or not self.has_view_permission(request, correction):
            raise PermissionDenied
        return correction

    def _page(self, request, correction, template, title, **context):
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "original": correction,
            "title": title,
            **context,
        }
        return TemplateResponse(request, template, context)

    def _back_to(self, correction):
        return HttpResponseRedirect(
            reverse("admin:catalogue_correction_change", args=[correction.pk])
        )

    def change_view(self, request, object_id, form_url="", extra_context=None):
        """The proposal beside what readers see now, field by field; its note,
        reason and (for publishers) address; the source check; and, while it
        waits, Accept, Edit then accept and Decline for publishers. POST
        takes ``_accept`` or ``_decline``.

        Template: ``admin/catalogue/correction/proposal.html``.
        """
        correction = self._viewable(request, object_id)
        decline_form = DeclineForm(request.POST if "_decline" in request.POST else None)
        if request.method == "POST":
            if not self.has_decide_permission(request):
                raise PermissionDenied
            if "_accept" in request.POST:
                return self._accept(request, correction)
            if "_decline" in request.POST and decline_form.is_valid():
                return self._decline(request, correction, decline_form)
        return self._proposal_page(request, correction, decline_form)

    def _proposal_page(self, request, correction, decline_form):
        target = correction.target
        deciding = self.has_decide_permission(request)
        waiting = correction.status == Status.PENDING
        return self._page(
            request,
            correction,
            "admin/catalogue/correction/proposal.html",
            f"Correction of {correction.target_label}",
            target=target,
            target_admin_url=target_admin_url(correction),
            fields=field_changes(correction),
            changed_since=(
                correction.document_id is not None
                and correction.based_on_version != target.version
            ),
            pending_revision=target.pending_revision() if waiting else None,
            check=source_check(correction),
            shows_email=deciding,
            may_decide=deciding and waiting,
            may_edit=correction.proposes == Proposes.EDIT,
            decline_form=decline_form,
            review_url=review_url(correction)
            if correction.status == Status.ACCEPTED
            else None,
        )

    def _accept(self, request, correction):
        try:
            accepted = actions.corrections.accept(
                correction=correction, user=request.user
            )
        except ValidationError as error:
            self.message_user(request, " ".join(error.messages), messages.ERROR)
        else:
            self.message_user(request, accepted_message(accepted), messages.SUCCESS)
        return self._back_to(correction)

    def _decline(self, request, correction, form):
        try:
            declined = actions.corrections.decline(
                correction=correction, user=request.user, **form.cleaned_data
            )
        except ValidationError as error:
            self.message_user(request, " ".join(error.messages), messages.ERROR)
        else:
            self.message_user(request, declined_message(declined), messages.SUCCESS)
        return self._back_to(correction)

    def edit_view(self, request, object_id):
        """ "Edit, then accept": the proposed values in the fields it changes,
        and the target's other fields, for the publisher to set before
        accepting (a note-only proposal's summary, say).

        Template: ``admin/catalogue/correction/edit.html``.
        """
        correction = self._viewable(request, object_id)
        if not self.has_decide_permission(request):
            raise PermissionDenied
        if correction.status != Status.PENDING or correction.proposes != Proposes.EDIT:
            self.message_user(
                request,
                f"The correction of {correction.target_label} is "
                f"{correction.get_status_display().lower()}: there is nothing to "
                "edit.",
                messages.WARNING,
            )
            return self._back_to(correction)
        form_class = accept_form_class(correction)
        form = form_class(
            request.POST if request.method == "POST" else None,
            initial=accept_initial(correction),
        )
        if form.is_valid():
            changes = as_changes(form, correction)
            try:
                accepted = actions.corrections.accept(
                    correction=correction,
                    user=request.user,
                    changes=changes,
                    note=form.cleaned_data["note"],
                )
            except ValidationError as error:
                _add_errors(form, error)
            else:
                self.message_user(request, accepted_message(accepted), messages.SUCCESS)
                return self._back_to(correction)
        fields = list(form)
        proposed = len(form_class.proposed)
        return self._page(
            request,
            correction,
            "admin/catalogue/correction/edit.html",
            f"Edit, then accept the correction of {correction.target_label}",
            form=form,
            proposed_fields=fields[:proposed],
            other_fields=[f for f in fields[proposed:] if f.name != "note"],
            note_field=form["note"],
        )

    # Bulk, from the list.

    def _bulk(self, request, queryset, verb, said):
        """Take ``verb(correction)`` on every waiting proposal selected, or on
        none: one refusal leaves them all as they were. Each proposal taken
        has its own message (``said``); those already decided are counted."""
        chosen = list(
            queryset.select_related("document__registry", "decision__log").order_by(
                "created_at", "pk"
            )
        )
        waiting = [c for c in chosen if c.status == Status.PENDING]
        done, problems = [], []
        with transaction.atomic():
            for correction in waiting:
                try:
                    done.append(verb(correction))
                except ValidationError as error:
                    problems.append(
                        f"{correction.target_label}: {' '.join(error.messages)}"
                    )
            if problems:
                transaction.set_rollback(True)
        if problems:
            self.message_user(
                request, "Nothing was changed. " + " ".join(problems), messages.ERROR
            )
            return
        for correction in done:
            self.message_user(request, said(correction), messages.SUCCESS)
        decided = len(chosen) - len(waiting)
        if decided or not done:
            self.message_user(
                request, told([(decided, lambda n: were(n, "decided already"))])
            )

    @admin.action(description="Accept selected corrections", permissions=["decide"])
    def accept_selected(self, request, queryset):
        def accept(correction):
            return actions.corrections.accept(correction=correction, user=request.user)

        self._bulk(request, queryset, accept, accepted_message)

    @admin.action(description="Decline selected corrections…", permissions=["decide"])
    def decline_selected(self, request, queryset):
        """Declining asks first, for one public reason (and a private one)
        given to every proposal selected.

        Template: ``admin/catalogue/correction/decline_selected.html``.
        """
        form = DeclineForm(request.POST if "post" in request.POST else None)
        if not form.is_valid():
            chosen = queryset.select_related("document__registry", "decision__log")
            count = len(chosen)
            return TemplateResponse(
                request,
                "admin/catalogue/correction/decline_selected.html",
                {
                    **self.admin_site.each_context(request),
                    "opts": self.model._meta,
                    "title": "Decline these corrections?",
                    "corrections": chosen,
                    "form": form,
                    "submit_label": f"Decline {count} correction{pluralize(count)}",
                    "cancel_url": reverse("admin:catalogue_correction_changelist"),
                    "action_checkbox_name": ACTION_CHECKBOX_NAME,
                },
            )

        def decline(correction):
            return actions.corrections.decline(
                correction=correction, user=request.user, **form.cleaned_data
            )

        self._bulk(request, queryset, decline, declined_message)
        return None


def _add_errors(form, error):
    """The action's refusal on the form: on the field it names, if the form
    has it, else above the form."""
    if hasattr(error, "error_dict"):
        for name, errors in error.error_dict.items():
            form.add_error(name if name in form.fields else None, errors)
    else:
        form.add_error(None, error)

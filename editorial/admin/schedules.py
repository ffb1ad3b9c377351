"""Scheduling a document's change from its admin: the page that asks when,
the cancel button (on the document and on the desk), and what the change
form and the desk list.

Each kind of change is offered only where a publisher could take its step
now (``Step.is_offered``); ``actions.schedules`` checks it all again.
"""

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponseNotAllowed, HttpResponseRedirect
from django.urls import path, reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme

from actions import schedules
from catalogue.models import Schedule
from catalogue.text import RecordTextForm
from editorial.schedules import document_schedules

INPUT_FORMAT = "%Y-%m-%dT%H:%M"


class ScheduleForm(RecordTextForm, forms.Form):
    """When, and which change; a publication's note, a withdrawal's reason."""

    kind = forms.ChoiceField(label="Change", widget=forms.RadioSelect)
    at = forms.DateTimeField(
        label="At",
        input_formats=[INPUT_FORMAT, "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"],
        widget=forms.DateTimeInput(
            # To the second: a schedule may be a few seconds ahead.
            attrs={"type": "datetime-local", "step": "1"},
            format=INPUT_FORMAT,
        ),
    )
    note = forms.CharField(
        label="Change note",
        required=False,
        max_length=500,
        help_text="For a publication: what changed and why, kept with the version.",
    )
    reason = forms.CharField(
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="For a withdrawal: readers see it on the document's page and "
        "in the feed, with the date it is withdrawn.",
    )

    def __init__(self, *args, kinds, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["kind"].choices = [(kind, kind.label) for kind in kinds]
        if len(kinds) == 1:
            self.fields["kind"].initial = kinds[0]
        zone = timezone.get_current_timezone_name()
        self.fields["at"].help_text = (
            f"In the site's time zone, {zone}. It is now "
            f"{timezone.localtime():%Y-%m-%d %H:%M} {zone}."
        )

    def clean(self):
        cleaned = super().clean()
        if (
            cleaned.get("kind") == Schedule.Kind.WITHDRAW
            and not cleaned.get("reason", "").strip()
        ):
            self.add_error("reason", "A withdrawal needs a reason readers will see.")
        return cleaned


def offered_kinds(document, revision, user):
    """The changes ``user`` may schedule for ``document`` now."""
    if not user.has_perm(schedules.SCHEDULE.permission):
        return []
    return [
        kind
        for kind, step in schedules.STEPS.items()
        if step.is_offered(document, revision, user)
    ]


class SchedulePagesMixin:
    """Adds ``<pk>/schedule/`` (when, and which change) and
    ``<pk>/schedule/cancel/`` (a POST naming the schedule) to the document
    admin, and the document's schedules to its change form."""

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path(
                "<path:object_id>/schedule/",
                view(self.schedule_view),
                name="catalogue_document_schedule",
            ),
            path(
                "<path:object_id>/schedule/cancel/",
                view(self.cancel_schedule_view),
                name="catalogue_document_cancel_schedule",
            ),
            *super().get_urls(),
        ]

    def schedule_view(self, request, object_id):
        """The change to schedule and its time, with the site's time zone.

        Template: ``admin/catalogue/document/schedule.html``.
        """
        document = self.get_object(request, object_id)
        if document is None or not request.user.has_perm(schedules.SCHEDULE.permission):
            raise PermissionDenied
        revision = document.pending_revision() if document.is_public else None
        kinds = offered_kinds(document, revision, request.user)
        form = ScheduleForm(request.POST or None, kinds=kinds)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            try:
                planned = schedules.schedule(
                    document=document,
                    kind=data["kind"],
                    at=data["at"],
                    user=request.user,
                    note=data["note"],
                    reason=data["reason"],
                )
            except ValidationError as error:
                form.add_error(None, error)
            else:
                self.message_user(
                    request,
                    f"Scheduled: {planned.get_kind_display().lower()} "
                    f"{document.identifier} at {schedules.when(planned.at)}. "
                    f"Until then readers see {document.label} as it is.",
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(
                    reverse("admin:catalogue_document_change", args=[document.pk])
                )
        return self._page(
            request,
            document,
            "admin/catalogue/document/schedule.html",
            f"Schedule a change to {document.identifier}",
            form=form,
            kinds=kinds,
            pending_revision=revision,
            schedules=document_schedules(document),
            cancel_url=reverse("admin:catalogue_document_change", args=[document.pk]),
        )

    def cancel_schedule_view(self, request, object_id):
        """Cancel the schedule the POST names; back to ``next`` (the desk) or
        the document."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        document = self.get_object(request, object_id)
        if document is None:
            raise PermissionDenied
        planned = document.schedules.filter(pk=request.POST.get("schedule")).first()
        if planned is None:
            self.message_user(
                request, "There is no such schedule of this document.", messages.ERROR
            )
        else:
            try:
                schedules.cancel(schedule=planned, user=request.user)
            except ValidationError as error:
                self.message_user(request, " ".join(error.messages), messages.ERROR)
            else:
                self.message_user(
                    request,
                    f"Cancelled: {planned.get_kind_display().lower()} "
                    f"{document.identifier} at {schedules.when(planned.at)}.",
                    messages.SUCCESS,
                )
        back = request.POST.get("next", "")
        if not url_has_allowed_host_and_scheme(
            back, allowed_hosts={request.get_host()}
        ):
            back = reverse("admin:catalogue_document_change", args=[document.pk])
        return HttpResponseRedirect(back)

    def render_change_form(self, request, context, add=False, change=False, **kw):
        document = context.get("original")
        if document is not None:
            context["schedules"] = document_schedules(document)
            context["may_schedule"] = bool(
                offered_kinds(document, context.get("pending_revision"), request.user)
            )
            context["may_cancel"] = request.user.has_perm(schedules.CANCEL.permission)
        return super().render_change_form(request, context, add, change, **kw)

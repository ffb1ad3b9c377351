"""The document list's bulk actions: each says what every selected document
will get before it acts (on its confirmation page, before any reason is
asked), then acts on the rest, leaving alone the documents the verb's own
check refuses and naming them."""

from collections import Counter
from functools import partial
from typing import NamedTuple

from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.exceptions import ValidationError
from django.db import transaction
from django.template.response import TemplateResponse
from django.urls import reverse

import actions.documents
from actions.filing import recorded_tag_names
from catalogue.models import Document, Topic
from catalogue.tags import parse_tags
from catalogue.text import refusal, unsafe_character
from editorial.admin.forms import WithdrawalForm

# A row the verb's own check refuses: it is left alone, and named.
SKIPPED = "skipped"


def counted(number, singular, plural=None):
    """``1 document``, ``2 documents``."""
    noun = singular if number == 1 else (plural or f"{singular}s")
    return f"{number} {noun}"


def told(parts):
    """The outcomes a bulk action reports, in order: each part is a count and
    the sentence for it; the counts that are nought are left out."""
    said = [sentence(number) for number, sentence in parts if number]
    return "; ".join(said) + "." if said else "Nothing was selected."


def were(number, state):
    """``1 was already published``, ``3 were already published``."""
    return f"{number} {'was' if number == 1 else 'were'} {state}"


def _is_held(document):
    """Whether an edit to ``document`` waits as its pending revision."""
    return document.is_public


def left_alone(error, *, done, named=True):
    """Why a row is left alone, from its step's refusal: "LIT-789 is a draft
    and will be left alone" (``done``: "was left alone"; not ``named``: "is
    a draft and will be left alone")."""
    fate = "was left alone" if done else "will be left alone"
    params = error.params or {}
    if "standing" in params:
        said = f"is {params['standing']} and {fate}"
        return f"{params['identifier']} {said}" if named else said
    return f"{' '.join(error.messages).rstrip('.')}, so it {fate}"


def planned(documents, step, outcome):
    """``[(document, outcome, refusal)]``: what each of ``documents`` will
    get. A row ``outcome`` does not call ``"already"`` is checked by
    ``step`` itself, the check its verb takes, and is ``SKIPPED`` when
    refused."""
    plan = []
    for document in documents:
        result, error = outcome(document), None
        if result != "already":
            revision = (
                document.pending_revision()
                if step.reads_revision and document.is_public
                else None
            )
            try:
                step.check(document, revision)
            except ValidationError as refused:
                result, error = SKIPPED, refused
        plan.append((document, result, error))
    return plan


class Intent(NamedTuple):
    """What a bulk action says it will do: ``verb``, the button's verb
    ("Withdraw"); ``will``, what the rows it acts on will be ("withdrawn");
    ``already``, what the rows it leaves as they are already are."""

    verb: str
    will: str
    already: str

    def summary(self, plan):
        """The page's first sentence, said before anything is asked: "2 of 3
        will be withdrawn; LIT-789 is a draft and will be left alone"."""
        total = len(plan)
        acting = sum(1 for _, result, _ in plan if result not in {"already", SKIPPED})
        parts = [f"{acting} of {total} will be {self.will}"]
        parts += [left_alone(error, done=False) for _, result, error in plan if error]
        already = sum(1 for _, result, _ in plan if result == "already")
        if already:
            parts.append(f"{already} {'is' if already == 1 else 'are'} {self.already}")
        return "; ".join(parts) + "."

    def fate(self, result, error):
        """What one row will get, for the page's list."""
        if error is not None:
            return left_alone(error, done=False, named=False)
        if result == "already":
            return f"is {self.already}"
        return f"will be {self.will}"


class DocumentActionsMixin:
    """Submit, publish, withdraw, refile and tag the selected documents."""

    def _bulk(self, request, queryset, verb, *, outcome, report, step):
        """Take ``verb(document=…, user=…)`` on every row ``step`` allows.

        Each row's ``outcome`` is read before anything is changed (the rows
        may no longer match the list's filter once they are); a row whose
        outcome is ``"already"`` is left as it is, and so is a row that
        ``step``'s own check refuses, named in the message. ``report`` turns
        the counts by outcome into the message. A verb that refuses a row
        all the same (it changed since) changes nothing at all.
        """
        documents = list(queryset.select_related("registry").order_by("number"))
        counts = Counter()
        problems, skipped = [], []
        with transaction.atomic():
            for document, result, error in planned(documents, step, outcome):
                if error is not None:
                    skipped.append(left_alone(error, done=True))
                    continue
                counts[result] += 1
                if result == "already":
                    continue
                try:
                    verb(document=document, user=request.user)
                except ValidationError as error:
                    problems.append(
                        f"{document.identifier}: {' '.join(error.messages)}"
                    )
            if problems:
                transaction.set_rollback(True)
        if problems:
            self.message_user(
                request,
                "Nothing was changed. " + " ".join(problems),
                messages.ERROR,
            )
        elif skipped:
            said = report(counts) if counts else ""
            said = said.rstrip(".") + "; " if said else ""
            said += "; ".join(skipped)
            self.message_user(
                request, said[0].upper() + said[1:] + ".", messages.WARNING
            )
        else:
            self.message_user(request, report(counts))

    def _asking_first(self, request, queryset, *, step, outcome, intent, form=None):
        """The confirmation page, saying what each selected document will
        get before anything (a reason, the button) is asked; None when no
        page is needed: the action asks nothing (no ``form``) and its check
        leaves no row alone."""
        documents = list(queryset.select_related("registry").order_by("number"))
        plan = planned(documents, step, outcome)
        if form is None and not any(error for _, _, error in plan):
            return None
        acting = sum(1 for _, result, _ in plan if result not in {"already", SKIPPED})
        return TemplateResponse(
            request,
            "admin/catalogue/document/bulk_confirm.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "title": f"{intent.verb} these documents?",
                "crumb": intent.verb,
                "summary": intent.summary(plan),
                "rows": [
                    (document, intent.fate(result, error))
                    for document, result, error in plan
                ],
                "action": request.POST.get("action", ""),
                "form": form,
                "acting": acting,
                "submit_label": f"{intent.verb} {counted(acting, 'document')}",
                "cancel_url": reverse("admin:catalogue_document_changelist"),
                "action_checkbox_name": ACTION_CHECKBOX_NAME,
            },
        )

    def _refused(self, request, message):
        self.message_user(request, f"{message}; nothing was changed.", messages.ERROR)

    @admin.action(description="Submit for review", permissions=["change"])
    def submit_for_review_action(self, request, queryset):
        def outcome(document):
            in_review = document.status == Document.Status.IN_REVIEW
            return "already" if in_review else "submitted"

        def report(counts):
            return told(
                [
                    (
                        counts["submitted"],
                        lambda n: f"Submitted {counted(n, 'draft')} for review",
                    ),
                    (counts["already"], lambda n: were(n, "already in review")),
                ]
            )

        step = actions.documents.SUBMIT
        intent = Intent("Submit", "submitted for review", "already in review")
        if "post" not in request.POST:
            asked = self._asking_first(
                request, queryset, step=step, outcome=outcome, intent=intent
            )
            if asked is not None:
                return asked
        self._bulk(
            request,
            queryset,
            actions.documents.submit_for_review,
            outcome=outcome,
            report=report,
            step=step,
        )
        return None

    @admin.action(description="Publish", permissions=["publish"])
    def publish_action(self, request, queryset):
        def outcome(document):
            if not document.is_public:
                return "first"
            return "revision" if document.pending_revision() else "already"

        def report(counts):
            return told(
                [
                    (
                        counts["first"],
                        lambda n: f"Published {counted(n, 'new document')}",
                    ),
                    (
                        counts["revision"],
                        lambda n: (
                            f"published {counted(n, 'pending revision')}"
                            if counts["first"]
                            else f"Published {counted(n, 'pending revision')}"
                        ),
                    ),
                    (counts["already"], lambda n: were(n, "already published")),
                ]
            )

        step = actions.documents.PUBLISH
        intent = Intent("Publish", "published", "already published")
        if "post" not in request.POST:
            asked = self._asking_first(
                request, queryset, step=step, outcome=outcome, intent=intent
            )
            if asked is not None:
                return asked
        self._bulk(
            request,
            queryset,
            actions.documents.publish,
            outcome=outcome,
            report=report,
            step=step,
        )
        return None

    @admin.action(description="Withdraw…", permissions=["publish"])
    def withdraw_action(self, request, queryset):
        """Withdrawing asks first, for the reason readers will see, having
        said which documents it will withdraw and which it leaves alone."""

        def outcome(document):
            withdrawn = document.status == Document.Status.WITHDRAWN
            return "already" if withdrawn else "withdrawn"

        def report(counts):
            return told(
                [
                    (
                        counts["withdrawn"],
                        lambda n: f"Withdrew {counted(n, 'document')}",
                    ),
                    (counts["already"], lambda n: were(n, "already withdrawn")),
                ]
            )

        step = actions.documents.WITHDRAW
        form = WithdrawalForm(request.POST if "post" in request.POST else None)
        if not form.is_valid():
            return self._asking_first(
                request,
                queryset,
                step=step,
                outcome=outcome,
                intent=Intent("Withdraw", "withdrawn", "already withdrawn"),
                form=form,
            )
        withdrawing = partial(
            actions.documents.withdraw, reason=form.cleaned_data["reason"]
        )
        self._bulk(
            request, queryset, withdrawing, outcome=outcome, report=report, step=step
        )
        return None

    @admin.action(description="Refile to the chosen topic", permissions=["change"])
    def refile_action(self, request, queryset):
        topic = Topic.objects.filter(pk=request.POST.get("topic") or None).first()
        if topic is None:
            self._refused(request, "Choose a topic to refile to")
            return None
        refile = partial(actions.documents.edit_document, changes={"topic": topic})

        def outcome(document):
            if actions.documents.editable_state(document)["topic"] == topic.pk:
                return "already"
            return "held" if _is_held(document) else "refiled"

        def report(counts):
            return told(
                [
                    (
                        counts["refiled"],
                        lambda n: (
                            f"Refiled {counted(n, 'unpublished document')} "
                            f"to {topic.name}"
                        ),
                    ),
                    (
                        counts["held"],
                        lambda n: (
                            f"{counted(n, 'public document')} "
                            f"{'holds' if n == 1 else 'hold'} {topic.name} as a "
                            "pending revision, for a publisher to publish"
                        ),
                    ),
                    (
                        counts["already"],
                        lambda n: were(n, f"already filed under {topic.name}"),
                    ),
                ]
            )

        step = actions.documents.EDIT
        intent = Intent("Refile", f"refiled to {topic.name}", "already filed there")
        if "post" not in request.POST:
            asked = self._asking_first(
                request, queryset, step=step, outcome=outcome, intent=intent
            )
            if asked is not None:
                asked.context_data["extra"] = {"topic": topic.pk}
                return asked
        self._bulk(request, queryset, refile, outcome=outcome, report=report, step=step)
        return None

    @admin.action(description="Add the tag", permissions=["change"])
    def add_tag_action(self, request, queryset):
        # The field is read as the change form's Tags field reads its text.
        typed = parse_tags(request.POST.get("tag") or "")
        if not typed:
            self._refused(request, "Type a tag to add")
            return None
        if len(typed) > 1:
            self._refused(
                request, "Type one tag (a tag holding a comma goes in double quotes)"
            )
            return None
        if character := unsafe_character(typed[0]):
            self._refused(request, f"The tag {refusal(character)}")
            return None
        # A tag whose slug it would take is that tag, named as the record has it.
        (tag,) = recorded_tag_names(typed)
        tagging = partial(actions.documents.add_tags, names=[tag])

        def outcome(document):
            tags = actions.documents.editable_state(document)["tags"]
            if tag.lower() in {name.lower() for name in tags}:
                return "already"
            return "held" if _is_held(document) else "tagged"

        def report(counts):
            return told(
                [
                    (
                        counts["tagged"],
                        lambda n: (
                            f"Added “{tag}” to {counted(n, 'unpublished document')}"
                        ),
                    ),
                    (
                        counts["held"],
                        lambda n: (
                            f"{counted(n, 'public document')} "
                            f"{'holds' if n == 1 else 'hold'} “{tag}” as a pending "
                            "revision, for a publisher to publish"
                        ),
                    ),
                    (counts["already"], lambda n: f"{n} already had it"),
                ]
            )

        step = actions.documents.EDIT
        intent = Intent("Tag", f"given “{tag}”", "already holding it")
        if "post" not in request.POST:
            asked = self._asking_first(
                request, queryset, step=step, outcome=outcome, intent=intent
            )
            if asked is not None:
                asked.context_data["extra"] = {"tag": request.POST.get("tag")}
                return asked
        self._bulk(
            request, queryset, tagging, outcome=outcome, report=report, step=step
        )
        return None

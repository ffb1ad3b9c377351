"""Every change keeps every promise, whichever entry point makes it.

One table: each entry point that writes the record (each admin form, button
and bulk action; each import, its job and its command; enrichment; restore),
what it changes, and the promises it owes:

- ``audit``: an audit entry names who made the change (the user) or, for a
  command, what made it;
- ``version``: the document's version has its version row;
- ``number``: a new document's number is marked issued in its registry;
- ``page``: a public page that showed the record, cached before the change
  (read twice), is fresh on the next request after it;
- ``purge``: a fake shared cache in front is sent the purge.

An admin URL that takes a POST, a bulk action, a command or a job function
added without a row fails ``test_the_table_names_every_entry_point``, as the
role table does for admin URLs.
"""

import csv
import datetime
import io
from dataclasses import dataclass, field

import pytest
from auditlog.models import LogEntry
from bs4 import BeautifulSoup
from django.apps import apps
from django.contrib import admin
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command, get_commands
from django.test import Client, RequestFactory, override_settings
from django.urls import URLPattern, reverse
from django.utils import timezone
from taggit.models import Tag

import actions.corrections
import actions.decisions
import actions.documents
import actions.previews
import actions.related
import actions.schedules
from catalogue.models import (
    Authorship,
    CandidateTopic,
    Correction,
    DecisionRecord,
    Document,
    DocumentVersion,
    Person,
    PersonProposal,
    Preface,
    PreviewLink,
    Registry,
    Schedule,
    Topic,
    Venue,
)
from editorial.admin.csv_import import IMPORT_JOB
from editorial.admin.folder_import import FOLDER_JOB
from editorial.admin.page_import import PAGE_JOB
from editorial.backups import BACKUP_JOB
from formats import exports
from imports.snapshots import RECORD_MODELS
from pagecache import frontends
from similarity import compute
from similarity.queueing import CANDIDATES_JOB, RELATED_JOB
from sources.jobs import CHECK_JOB
from tests.conftest import SEED
from tests.factories import (
    DecisionRecordFactory,
    DocumentFactory,
    TopicFactory,
)
from tests.fake_server import FakeServer
from tests.html import form_data
from tests.imports.zips import zipped

pytestmark = pytest.mark.django_db


@dataclass
class World:
    """The record every row starts from: LIT-002 public on its topic with a
    tag, LIT-003 public, LIT-005 a draft, ADR-003 published; pages cached."""

    client: Client
    user: object
    document: Document
    other: Document
    draft: Document
    topic: Topic
    decision: DecisionRecord
    tmp_path: object
    snapshot: object = None


@dataclass
class Change:
    """What a row's change did: the page to read again, the text it must then
    show and not show, and the document whose version and number are owed."""

    path: str
    shows: str = ""
    hides: str = ""
    document: Document | None = None
    via: str = ""


@dataclass
class Row:
    change: object
    # What the row's change needs that the world has not, made before.
    setup: object = None
    audit: bool = True
    version: bool = False
    number: bool = False
    page: bool = True
    purge: bool = True
    entry_points: list = field(default_factory=list)


def change_url(document):
    return reverse("admin:catalogue_document_change", args=[document.pk])


def post_form(w, url, **changes):
    data = form_data(w.client.get(url))
    data.update(changes)
    response = w.client.post(url, data)
    errors = BeautifulSoup(response.content, "html.parser").select(".errorlist")
    assert response.status_code == 302, [error.get_text() for error in errors]
    return response


def bulk(w, action, documents, **extra):
    response = w.client.post(
        reverse("admin:catalogue_document_changelist"),
        {
            "action": action,
            "_selected_action": [document.pk for document in documents],
            **extra,
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]


def csv_of(document, **cells):
    """The staff export of ``document``, as a spreadsheet user edits it: the
    columns ``cells`` names set to their values."""
    text = b"".join(
        exports.documents_response(
            Document.objects.filter(pk=document.pk), base_url="http://testserver"
        ).streaming_content
    ).decode()
    columns, row = csv.reader(io.StringIO(text))
    for column, value in cells.items():
        row[columns.index(column)] = value
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerows([columns, row])
    return buffer.getvalue().encode()


def import_csv(w, content, model="document"):
    upload = SimpleUploadedFile("record.csv", content, content_type="text/csv")
    response = w.client.post(
        reverse(f"admin:catalogue_{model}_import"),
        {"format": "0", "import_file": upload, "resource": "0"},
        follow=True,
    )
    form = response.context["confirm_form"]
    confirmed = w.client.post(
        reverse(f"admin:catalogue_{model}_process_import"), form.initial
    )
    assert confirmed.status_code == 302


# The changes, one function per entry point.


def add_document(w):
    post_form(
        w,
        reverse("admin:catalogue_document_add"),
        title="Zero-bubble pipeline schedules",
        summary="Its summary.",
        authors="Chen et al.",
        year="2020",
    )
    new = Document.objects.get(title="Zero-bubble pipeline schedules")
    return Change(w.topic.get_absolute_url(), hides=new.title, document=new)


def hold_revision(w):
    post_form(w, change_url(w.document), title="Held title")
    return Change(w.document.get_absolute_url(), shows="Old title", hides="Held")


def save_and_publish(w):
    post_form(w, change_url(w.document), title="New title", _publish="pressed")
    return Change(w.topic.get_absolute_url(), shows="New title", document=w.document)


def submit_button(w):
    post_form(w, change_url(w.draft), _submit_for_review="pressed")
    return Change(w.topic.get_absolute_url(), hides=w.draft.title)


def discard_button(w):
    actions.documents.edit_document(
        document=w.document, user=w.user, changes={"title": "Held title"}
    )
    post_form(w, change_url(w.document), _discard_revision="pressed")
    return Change(w.document.get_absolute_url(), shows="Old title", hides="Held")


def withdraw_page(w):
    url = reverse("admin:catalogue_document_withdraw", args=[w.document.pk])
    response = w.client.post(url, {"reason": "Retracted by its authors."})
    assert response.status_code == 302
    return Change(w.document.get_absolute_url(), shows="Retracted by its authors.")


def reinstate_button(w):
    actions.documents.withdraw(document=w.document, user=w.user, reason="Gone.")
    post_form(w, change_url(w.document), _reinstate="pressed")
    return Change(w.document.get_absolute_url(), hides="Gone.")


def review_publish(w):
    actions.documents.edit_document(
        document=w.document, user=w.user, changes={"title": "Reviewed title"}
    )
    url = reverse("admin:catalogue_document_review", args=[w.document.pk])
    assert w.client.post(url, {"_publish": "pressed"}).status_code == 302
    return Change(
        w.topic.get_absolute_url(), shows="Reviewed title", document=w.document
    )


def send_back(w):
    actions.documents.submit_for_review(document=w.draft, user=w.user)
    url = reverse("admin:catalogue_document_conversation", args=[w.draft.pk])
    sent = w.client.post(url, {"_send_back": "x", "body": "Words for the desk."})
    assert sent.status_code == 302
    return Change(w.topic.get_absolute_url(), hides="Words for the desk.")


def decision_comment(w):
    w.decision.title = "A held decision title"
    actions.decisions.save_decision(decision=w.decision, user=w.user, supersedes=[])
    url = reverse("admin:catalogue_decisionrecord_conversation", args=[w.decision.pk])
    said = w.client.post(url, {"_comment": "x", "body": "Words for the desk."})
    assert said.status_code == 302
    return Change(w.decision.get_absolute_url(), hides="Words for the desk.")


def second_version(w):
    actions.documents.edit_document(
        document=w.document, user=w.user, changes={"title": "Second title"}
    )
    actions.documents.publish(document=w.document, user=w.user)


def version_revert(w):
    url = reverse("admin:catalogue_document_version", args=[w.document.pk, 1])
    assert w.client.post(url).status_code == 302
    return Change(w.document.get_absolute_url(), shows="Second title")


def supersede_in_form(w):
    post_form(w, change_url(w.document), superseded_by=str(w.other.pk))
    return Change(w.document.get_absolute_url(), shows="Superseded")


def bulk_publish(w):
    actions.documents.submit_for_review(document=w.draft, user=w.user)
    bulk(w, "publish_action", [w.draft])
    return Change(w.topic.get_absolute_url(), shows=w.draft.title, document=w.draft)


def bulk_submit(w):
    bulk(w, "submit_for_review_action", [w.draft])
    return Change(w.topic.get_absolute_url(), hides=w.draft.title)


def bulk_withdraw(w):
    bulk(w, "withdraw_action", [w.document], post="yes", reason="Bulk retraction.")
    return Change(w.document.get_absolute_url(), shows="Bulk retraction.")


def elsewhere(w):
    TopicFactory(name="Evaluation", slug="evaluation")


def bulk_refile(w):
    topic = Topic.objects.get(slug="evaluation")
    bulk(w, "refile_action", [w.document], topic=str(topic.pk))
    actions.documents.publish(document=w.document, user=w.user)
    return Change(w.topic.get_absolute_url(), hides="Old title")


def bulk_tag(w):
    bulk(w, "add_tag_action", [w.document], tag="pipelining")
    actions.documents.publish(document=w.document, user=w.user)
    return Change(w.document.get_absolute_url(), shows="pipelining")


def csv_import_job(w):
    import_csv(w, csv_of(w.document, summary="A new summary.", version="2"))
    return Change(w.topic.get_absolute_url(), shows="A new summary.")


def csv_successor(w):
    content = csv_of(w.document, successor=w.other.identifier, status="superseded")
    import_csv(w, content)
    return Change(w.document.get_absolute_url(), shows="Superseded by")


def topics_csv_job(w):
    rows = (
        f"position,name,slug,flavour,scope\r\n1,Optimisation,{w.topic.slug},kind,x\r\n"
    )
    import_csv(w, rows.encode(), model="topic")
    return Change(w.topic.get_absolute_url(), shows="Optimisation")


def topic_page_job(w):
    response = w.client.post(
        reverse("admin:catalogue_topic_import_page"),
        {"page": SimpleUploadedFile("seed.txt", SEED.read_bytes())},
        follow=True,
    )
    assert response.status_code == 200
    return Change(w.topic.get_absolute_url(), shows="Sublinear Memory Cost")


DECISION = """# 5. Keep a changelog

Date: 2024-01-02

## Status

Accepted

## Context

It names LIT-002.

## Decision

We keep one.
"""


def decision_folder_job(w):
    response = w.client.post(
        reverse("admin:catalogue_decisionrecord_import_folder"),
        {
            "archive": SimpleUploadedFile(
                "adr.zip", zipped({"doc/adr/0005-keep-a-changelog.md": DECISION})
            ),
            # A team's folder, as a decision log of its own.
            "log": "Release team",
        },
        follow=True,
    )
    assert response.status_code == 200
    return Change(w.document.get_absolute_url(), shows="Keep a changelog")


def filing_change(model, obj_of, field_name, value, path_of):
    def change(w):
        obj = obj_of(w)
        url = reverse(f"admin:{model}_change", args=[obj.pk])
        post_form(w, url, **{field_name: value})
        return Change(path_of(w), shows=value)

    return change


def another_tag(w):
    w.other.tags.add("pipelining")


def tag_merge(w):
    other = Tag.objects.get(name="pipelining")
    memory = Tag.objects.get(name="memory")
    changelist = reverse("admin:taggit_tag_changelist")
    response = w.client.post(
        changelist,
        {
            "action": "merge_tags_action",
            "_selected_action": [memory.pk, other.pk],
            "keep": str(memory.pk),
            "confirm": "Confirm",
        },
    )
    assert response.status_code == 302
    assert sorted(w.document.tags.names()) == ["memory"]
    return Change(w.other.get_absolute_url(), shows="memory", hides="pipelining")


def tag_delete(w):
    tag = Tag.objects.get(name="memory")
    url = reverse("admin:taggit_tag_delete", args=[tag.pk])
    assert w.client.post(url, {"post": "yes"}).status_code == 302
    return Change(w.document.get_absolute_url(), hides="memory")


def decision_form(w, **changes):
    url = reverse("admin:catalogue_decisionrecord_change", args=[w.decision.pk])
    post_form(w, url, **changes)


def decision_publish(w):
    decision_form(w, title="A decided title", _publish="pressed")
    return Change(reverse("catalogue:decision-list"), shows="A decided title")


def decision_discard(w):
    decision_form(w, title="A held title")
    decision_form(w, _discard_revision="pressed")
    return Change(reverse("catalogue:decision-list"), hides="A held title")


def decision_draft(w):
    DecisionRecordFactory(draft=True, number=8, title="A drafted decision")


def decision_bulk_publish(w):
    draft = DecisionRecord.objects.get(number=8)
    response = w.client.post(
        reverse("admin:catalogue_decisionrecord_changelist"),
        {"action": "publish_action", "_selected_action": [draft.pk]},
    )
    assert response.status_code == 302
    return Change(reverse("catalogue:decision-list"), shows="A drafted decision")


def decision_add(w):
    url = reverse("admin:catalogue_decisionrecord_add")
    post_form(w, url, number="9", title="A new decision", status="proposed")
    return Change(reverse("catalogue:decision-list"), hides="A new decision")


def decision_delete(w):
    url = reverse("admin:catalogue_decisionrecord_delete", args=[w.decision.pk])
    assert w.client.post(url, {"post": "yes"}).status_code == 302
    return Change(reverse("catalogue:decision-list"), hides="Use one database")


def emptied(w):
    """The record exported to a snapshot, then its content deleted."""
    w.snapshot = w.tmp_path / "record.json"
    call_command("export_record", str(w.snapshot), stdout=io.StringIO())
    for label in reversed(RECORD_MODELS):
        if label.split(".")[0] in {"catalogue", "taggit"}:
            apps.get_model(label).objects.all().delete()


def command_import_record(w):
    call_command("import_record", str(w.snapshot), stdout=io.StringIO())
    return Change(w.topic.get_absolute_url(), shows="Old title")


def command_import_index(w):
    call_command("import_index", str(SEED), stdout=io.StringIO())
    return Change(w.topic.get_absolute_url(), shows="Sublinear Memory Cost")


def command_import_decisions(w):
    folder = w.tmp_path / "adr"
    folder.mkdir()
    (folder / "0005-keep-a-changelog.md").write_text(DECISION, encoding="utf-8")
    call_command(
        "import_decisions", str(folder), "--log", "Release team", stdout=io.StringIO()
    )
    return Change(w.document.get_absolute_url(), shows="Keep a changelog")


def arxiv_cited(w):
    document = Document.objects.get(pk=w.document.pk)
    document.source_identifier = "ARXIV-1604.06174"
    document.save()


def command_enrich(w):
    call_command("enrich_metadata", stdout=io.StringIO())
    assert w.document.pending_revision() is not None
    return Change(w.document.get_absolute_url(), shows="Old title")


def arxiv_cited_at_v1(w):
    document = Document.objects.get(pk=w.document.pk)
    document.source_identifier = "ARXIV-1604.06174v1"
    document.save()


def command_check_sources(w):
    # One id a request: the fake arXiv answers one id at a time.
    with override_settings(SOURCES_ARXIV_BATCH=1, SOURCES_ARXIV_INTERVAL=0):
        call_command("check_sources", "--only", "arxiv", stdout=io.StringIO())
    assert Correction.objects.filter(document=w.document).exists()
    return Change(w.document.get_absolute_url())


def command_generate_sample(w):
    call_command("generate_sample", documents=3, stdout=io.StringIO())
    new = Document.objects.filter(registry__prefix="SLIT").public().first()
    return Change(reverse("catalogue:index"), shows="Sample topic 01", document=new)


def unlinked(w):
    """A record from before people were kept: no author is linked."""
    Authorship.objects.all().delete()
    Person.objects.all().delete()


def command_link_people(w):
    call_command("link_people", stdout=io.StringIO())
    assert Authorship.objects.filter(document=w.document).exists()
    return Change(w.document.get_absolute_url(), shows="Old title")


def candidate_group(w):
    """The two public documents as an open candidate topic."""
    members = [(w.document.pk, 0.5, 0.1), (w.other.pk, 0.5, 0.1)]
    group = compute.Group(members, ["pipeline", "bubbles"], w.topic.pk, 0.3)
    actions.related.store_candidates(groups=[group], via="recompute_candidates")


def make_candidate_topic(w):
    candidate = CandidateTopic.objects.open().get()
    response = w.client.post(
        reverse("admin:catalogue_topic_candidate"),
        {
            "candidate": str(candidate.pk),
            "name": "Pipeline bubbles",
            "scope": "",
            "_make": "pressed",
        },
    )
    assert response.status_code == 302
    return Change(w.document.get_absolute_url(), shows="Pipeline bubbles")


def person_of(document):
    return Person.objects.get(authorships__document=document, authorships__version=None)


def person_change(w):
    person = person_of(w.document)
    url = reverse("admin:catalogue_person_change", args=[person.pk])
    post_form(w, url, affiliation="Microsoft", slug=f"{person.slug}-msr")
    return Change(w.document.get_absolute_url())


def person_merge(w):
    kept, merged = person_of(w.document), person_of(w.other)
    response = w.client.post(
        reverse("admin:catalogue_person_changelist"),
        {
            "action": "merge_people_action",
            "_selected_action": [kept.pk, merged.pk],
            "keep": str(kept.pk),
            "confirm": "Confirm",
        },
    )
    assert response.status_code == 302
    assert not Person.objects.filter(pk=merged.pk).exists()
    return Change(w.other.get_absolute_url())


def same_author_again(w):
    """The draft, by LIT-002's author on its topic, published: one person
    named by two documents."""
    Document.objects.filter(pk=w.draft.pk).update(authors=w.document.authors)
    actions.documents.publish(document=w.draft, user=w.user)


def person_split(w):
    person = person_of(w.document)
    url = reverse("admin:catalogue_person_split", args=[person.pk])
    data = form_data(w.client.get(url), "form.split")
    second = sorted(name for name in data if name.startswith("position_"))[-1]
    data[second] = "2"
    assert w.client.post(url, data).status_code == 302
    assert not Person.objects.filter(pk=person.pk).exists()
    return Change(w.document.get_absolute_url())


def same_name_elsewhere(w):
    """LIT-006, by LIT-002's author on another topic: a proposal."""
    DocumentFactory(number=6, authors=w.document.authors, published=True)


def proposal_accept(w):
    proposal = PersonProposal.objects.get()
    url = reverse("admin:catalogue_personproposal_decide", args=[proposal.pk])
    assert w.client.post(url, {"_accept": "pressed"}).status_code == 302
    assert PersonProposal.objects.get().status == "accepted"
    return Change(w.document.get_absolute_url())


def reader_correction(w):
    """A reader's proposed correction of LIT-002's title, waiting."""
    actions.corrections.propose(
        target=w.document, changes={"title": "Corrected title"}, email="r@example.org"
    )


def correction_url(page="change"):
    correction = Correction.objects.get()
    return reverse(f"admin:catalogue_correction_{page}", args=[correction.pk])


def correction_accept(w):
    response = w.client.post(correction_url(), {"_accept": "pressed"})
    assert response.status_code == 302
    assert Correction.objects.get().status == "accepted"
    return Change(w.document.get_absolute_url(), shows="Old title", hides="Corrected")


def correction_edit_accept(w):
    post_form(w, correction_url("edit"), title="Corrected title, edited")
    assert Correction.objects.get().status == "accepted"
    return Change(w.document.get_absolute_url(), shows="Old title", hides="Corrected")


def correction_decline(w):
    response = w.client.post(
        correction_url(), {"_decline": "pressed", "public_reason": "As printed."}
    )
    assert response.status_code == 302
    assert Correction.objects.get().status == "declined"
    return Change(w.document.get_absolute_url(), shows="Old title")


def correction_bulk(action, status, **extra):
    def change(w):
        response = w.client.post(
            reverse("admin:catalogue_correction_changelist"),
            {
                "action": action,
                "_selected_action": [Correction.objects.get().pk],
                **extra,
            },
        )
        assert response.status_code == 302
        assert Correction.objects.get().status == status
        return Change(w.document.get_absolute_url(), shows="Old title")

    return change


def schedule_page(w):
    """LIT-002's pending revision scheduled for tomorrow: nothing changes yet."""
    actions.documents.edit_document(
        document=w.document, user=w.user, changes={"title": "Scheduled title"}
    )
    url = reverse("admin:catalogue_document_schedule", args=[w.document.pk])
    tomorrow = timezone.localtime() + datetime.timedelta(days=1)
    at = f"{tomorrow:%Y-%m-%dT%H:%M}"
    assert w.client.post(url, {"kind": "publish", "at": at}).status_code == 302
    assert Schedule.objects.get().state == "waiting"
    return Change(w.document.get_absolute_url(), shows="Old title", hides="Scheduled")


def scheduled_withdrawal(w):
    """LIT-002's withdrawal, scheduled for tomorrow."""
    actions.schedules.schedule(
        document=w.document,
        kind="withdraw",
        at=timezone.now() + datetime.timedelta(days=1),
        user=w.user,
        reason="Retracted by its authors.",
    )


def schedule_cancel(w):
    url = reverse("admin:catalogue_document_cancel_schedule", args=[w.document.pk])
    planned = Schedule.objects.get()
    assert w.client.post(url, {"schedule": planned.pk}).status_code == 302
    assert Schedule.objects.get().state == "cancelled"
    return Change(w.document.get_absolute_url(), hides="Retracted")


def command_run_schedules(w):
    """The scheduled withdrawal, due: run as its publisher, by the schedule."""
    Schedule.objects.update(at=timezone.now() - datetime.timedelta(minutes=1))
    call_command("run_schedules", stdout=io.StringIO())
    assert Schedule.objects.get().state == "done"
    return Change(w.document.get_absolute_url(), shows="Retracted by its authors.")


def preview_link_make(w):
    url = reverse("admin:catalogue_document_make_preview_link", args=[w.draft.pk])
    assert w.client.post(url).status_code == 302
    assert PreviewLink.objects.get().document == w.draft
    return Change(w.topic.get_absolute_url(), hides=w.draft.title)


def preview_link_made(w):
    actions.previews.make_link(document=w.draft, user=w.user)


def preview_link_revoke(w):
    url = reverse("admin:catalogue_document_revoke_preview_link", args=[w.draft.pk])
    link = PreviewLink.objects.get()
    assert w.client.post(url, {"link": link.pk}).status_code == 302
    assert PreviewLink.objects.get().revoked_at is not None
    return Change(w.topic.get_absolute_url(), hides=w.draft.title)


ROWS = {
    "admin: add a document": Row(add_document, number=True, page=False, purge=False),
    "admin: save a public document": Row(hold_revision, page=True, purge=False),
    "admin: save and publish": Row(save_and_publish, version=True),
    "admin: submit for review": Row(submit_button, page=False, purge=False),
    "admin: discard the pending revision": Row(discard_button, purge=False),
    "admin: withdraw": Row(withdraw_page),
    "admin: reinstate": Row(reinstate_button),
    "admin: review and publish": Row(review_publish, version=True),
    "admin: revert to a version": Row(
        version_revert, setup=second_version, purge=False
    ),
    "admin: supersede": Row(supersede_in_form),
    # The review is the desk's alone: audited, no public page changes.
    "admin: send a draft back": Row(send_back, purge=False),
    "admin: comment on a decision record": Row(decision_comment, purge=False),
    "admin bulk: publish": Row(bulk_publish, version=True),
    "admin bulk: submit for review": Row(bulk_submit, page=False, purge=False),
    "admin bulk: withdraw": Row(bulk_withdraw),
    "admin bulk: refile": Row(bulk_refile, setup=elsewhere),
    "admin bulk: add the tag": Row(bulk_tag),
    "admin job: CSV import": Row(csv_import_job),
    "admin job: CSV import sets a successor": Row(csv_successor),
    "admin job: topics CSV import": Row(topics_csv_job),
    "admin job: topic page import": Row(topic_page_job),
    "admin job: decision folder import": Row(decision_folder_job),
    "admin: change a registry": Row(
        filing_change(
            "catalogue_registry",
            lambda w: w.document.registry,
            "name",
            "The reading list",
            lambda w: reverse("catalogue:registry-list"),
        )
    ),
    "admin: change a topic": Row(
        filing_change(
            "catalogue_topic",
            lambda w: w.topic,
            "scope",
            "every kind of parallelism",
            lambda w: reverse("catalogue:index"),
        )
    ),
    "admin: change the preface": Row(
        filing_change(
            "catalogue_preface",
            lambda w: Preface.objects.get(),
            "heading",
            "The record, renamed",
            lambda w: reverse("catalogue:index"),
        )
    ),
    "admin: change a tag": Row(
        filing_change(
            "taggit_tag",
            lambda w: Tag.objects.get(name="memory"),
            "name",
            "memory use",
            lambda w: w.document.get_absolute_url(),
        )
    ),
    # The venue table is read by imports, and shows on no page.
    "admin: change a venue": Row(
        filing_change(
            "catalogue_venue",
            lambda w: Venue.objects.get(name="OSDI"),
            "full_name",
            "Operating Systems Design and Implementation",
            lambda w: reverse("catalogue:index"),
        ),
        page=False,
    ),
    "admin: merge tags": Row(tag_merge, setup=another_tag),
    "admin: delete a tag": Row(tag_delete),
    "admin: publish a decision record": Row(decision_publish),
    "admin: discard a decision's revision": Row(decision_discard, purge=False),
    "admin bulk: publish decision records": Row(
        decision_bulk_publish, setup=decision_draft
    ),
    "admin: add a decision record": Row(decision_add, page=False, purge=False),
    "admin: delete a decision record": Row(decision_delete),
    "admin: make a candidate topic a topic": Row(
        make_candidate_topic, setup=candidate_group
    ),
    # A person shows on the reading room's people pages, tested with them;
    # here, the pages of the documents that name them are expired.
    "admin: correct a person": Row(person_change, page=False),
    "admin: merge people": Row(person_merge, page=False),
    "admin: split a person": Row(person_split, setup=same_author_again, page=False),
    "admin: accept a proposal": Row(
        proposal_accept, setup=same_name_elsewhere, page=False
    ),
    # An accepted correction waits in the pending revision; a declined one
    # changes nothing readers see.
    "admin: accept a correction": Row(
        correction_accept, setup=reader_correction, purge=False
    ),
    "admin: edit then accept a correction": Row(
        correction_edit_accept, setup=reader_correction, purge=False
    ),
    "admin: decline a correction": Row(
        correction_decline, setup=reader_correction, purge=False
    ),
    "admin bulk: accept corrections": Row(
        correction_bulk("accept_selected", "accepted"),
        setup=reader_correction,
        purge=False,
    ),
    "admin bulk: decline corrections": Row(
        correction_bulk(
            "decline_selected", "declined", post="yes", public_reason="As printed."
        ),
        setup=reader_correction,
        purge=False,
    ),
    # Scheduling and preview links change nothing readers see; the run of a
    # schedule is the action itself, its pages purged.
    "admin: schedule a publication": Row(schedule_page, purge=False),
    "admin: cancel a schedule": Row(
        schedule_cancel, setup=scheduled_withdrawal, purge=False
    ),
    "admin: make a preview link": Row(preview_link_make, purge=False),
    "admin: revoke a preview link": Row(
        preview_link_revoke, setup=preview_link_made, purge=False
    ),
    "command: run_schedules": Row(command_run_schedules, setup=scheduled_withdrawal),
    "command: import_index": Row(command_import_index),
    # A restore brings back the audit trail as it was and adds nothing.
    "command: import_record": Row(command_import_record, setup=emptied, audit=False),
    "command: import_decisions": Row(command_import_decisions),
    "command: enrich_metadata": Row(
        command_enrich, setup=arxiv_cited, page=True, purge=False
    ),
    # A proposal, audited; nothing readers see changes until it is accepted.
    "command: check_sources": Row(
        command_check_sources, setup=arxiv_cited_at_v1, page=False, purge=False
    ),
    "command: generate_sample": Row(command_generate_sample, version=True),
    "command: link_people": Row(command_link_people, setup=unlinked),
}


@pytest.fixture
def fake():
    server = FakeServer()
    yield server
    server.close()


@pytest.fixture
def world(admin_user, tmp_path, fake):
    topic = TopicFactory(name="Distributed optimization", slug="distributed")
    Preface.objects.create(heading="The record", text="Filed under LIT-002.")
    # Numbers the seed page does not use, so that importing it adds to them.
    document = DocumentFactory(
        number=2, topic=topic, draft=True, title="Old title", summary="An old summary."
    )
    document.tags.add("memory")
    actions.documents.publish(document=document, user=admin_user)
    other = DocumentFactory(number=3, topic=topic, draft=True, title="Other work")
    actions.documents.publish(document=other, user=admin_user)
    draft = DocumentFactory(number=5, topic=topic, draft=True, title="A draft")
    decision = DecisionRecordFactory(number=3, title="Use one database")
    client = Client()
    client.force_login(admin_user)
    document.refresh_from_db()
    return World(client, admin_user, document, other, draft, topic, decision, tmp_path)


@pytest.mark.parametrize("name", list(ROWS))
def test_every_entry_point_keeps_every_promise(
    name, world, fake, committed, metadata_sources, settings
):
    row = ROWS[name]
    settings.PAGE_CACHE_FRONTENDS = {
        "front": {"BACKEND": "pagecache.frontends.Varnish", "LOCATION": fake.url}
    }
    settings.PAGE_CACHE_PURGE_RETRY_PAUSES = [0, 0]
    reader = Client()
    paths = {
        world.document.get_absolute_url(),
        world.topic.get_absolute_url(),
        world.other.get_absolute_url(),
        reverse("catalogue:index"),
        reverse("catalogue:registry-list"),
        reverse("catalogue:decision-list"),
    }
    if row.setup:
        row.setup(world)
    for path in paths:
        reader.get(path)
        reader.get(path)  # Cached now.
    since = LogEntry.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    fake.received.clear()

    with committed():
        change = row.change(world)
    frontends.wait()

    if row.audit:
        entries = LogEntry.objects.filter(pk__gt=since)
        assert entries.exists(), "no audit entry"
        unattributed = [
            str(entry)
            for entry in entries
            if entry.actor_id != world.user.pk
            and not (entry.additional_data or {}).get("via")
        ]
        assert unattributed == []
    if row.version:
        document = Document.objects.get(pk=change.document.pk)
        assert DocumentVersion.objects.filter(
            document=document, number=document.version
        ).exists()
    if row.number:
        document = change.document
        registry = Registry.objects.get(pk=document.registry_id)
        assert registry.last_number >= document.number
    if row.page:
        page = reader.get(change.path).content.decode()
        if change.shows:
            assert change.shows in page
        if change.hides:
            assert change.hides not in page
    if row.purge:
        assert [request.method for request in fake.received] != [], "no purge"


# Every entry point that writes, and the row that shows it keeps the promises
# (the same action, through the same path); ``READS`` for those that change
# nothing of the record.
READS = "changes nothing of the record"
MODELS = ["document", "decisionrecord", "registry", "topic", "preface", "venue"]
ENTRY_POINTS = {
    # Admin pages that take a POST.
    "catalogue_document_add": "admin: add a document",
    "catalogue_document_change": "admin: save and publish",
    "catalogue_document_withdraw": "admin: withdraw",
    "catalogue_document_schedule": "admin: schedule a publication",
    "catalogue_document_cancel_schedule": "admin: cancel a schedule",
    "catalogue_document_make_preview_link": "admin: make a preview link",
    "catalogue_document_revoke_preview_link": "admin: revoke a preview link",
    "catalogue_document_review": "admin: review and publish",
    "catalogue_document_version": "admin: revert to a version",
    "catalogue_document_conversation": "admin: send a draft back",
    "catalogue_decisionrecord_conversation": "admin: comment on a decision record",
    "catalogue_document_import": "admin job: CSV import",
    "catalogue_document_process_import": "admin job: CSV import",
    "catalogue_topic_import": "admin job: topics CSV import",
    "catalogue_topic_process_import": "admin job: topics CSV import",
    "catalogue_topic_import_page": "admin job: topic page import",
    "catalogue_decisionrecord_import_folder": "admin job: decision folder import",
    "catalogue_topic_candidate": "admin: make a candidate topic a topic",
    "catalogue_decisionrecord_add": "admin: add a decision record",
    "catalogue_decisionrecord_change": "admin: publish a decision record",
    "catalogue_decisionrecord_delete": "admin: delete a decision record",
    "catalogue_registry_add": "admin: change a registry",
    "catalogue_registry_change": "admin: change a registry",
    "catalogue_registry_delete": "admin: delete a tag",
    "catalogue_topic_add": "admin: change a topic",
    "catalogue_topic_change": "admin: change a topic",
    "catalogue_topic_delete": "admin: delete a tag",
    "catalogue_preface_add": "admin: change the preface",
    "catalogue_preface_change": "admin: change the preface",
    "catalogue_preface_delete": "admin: delete a tag",
    "catalogue_venue_add": "admin: change a venue",
    "catalogue_venue_change": "admin: change a venue",
    "catalogue_venue_delete": "admin: delete a tag",
    "catalogue_person_change": "admin: correct a person",
    "catalogue_person_split": "admin: split a person",
    "catalogue_personproposal_decide": "admin: accept a proposal",
    "catalogue_correction_change": "admin: accept a correction",
    "catalogue_correction_edit": "admin: edit then accept a correction",
    "taggit_tag_add": "admin: change a tag",
    "taggit_tag_change": "admin: change a tag",
    "taggit_tag_delete": "admin: delete a tag",
    # Pages that only read, or refuse every POST (no one may delete a
    # document; broken references are the record's reading of itself).
    **dict.fromkeys(
        [
            *(
                f"catalogue_{model}_{page}"
                for model in MODELS
                for page in ["changelist", "history", "auditlog"]
            ),
            "catalogue_document_delete",
            "catalogue_document_duplicates",
            # Recomputes the candidates: the record's reading of itself.
            "catalogue_topic_candidates",
            "catalogue_document_preview",
            "catalogue_document_import_job",
            "catalogue_topic_import_job",
            "catalogue_topic_import_page_job",
            "catalogue_decisionrecord_import_folder_job",
            "taggit_tag_changelist",
            "taggit_tag_history",
            # The tags offered as an editor types into a document's Tags field.
            "taggit_tag_names",
            # No one adds or deletes a person or a proposal in the admin, and
            # a proposal is decided on its own page.
            *(
                f"catalogue_person_{page}"
                for page in ["changelist", "history", "auditlog", "add", "delete"]
            ),
            *(
                f"catalogue_personproposal_{page}"
                for page in ["changelist", "add", "change", "history", "delete"]
            ),
            "catalogue_personproposal_check",
            # A correction is decided on its own page, never added or deleted.
            *(
                f"catalogue_correction_{page}"
                for page in ["changelist", "add", "history", "delete"]
            ),
            *(
                f"catalogue_brokenreference_{page}"
                for page in ["changelist", "add", "history", "delete", "change"]
            ),
        ],
        READS,
    ),
    # Bulk actions.
    "action:document:submit_for_review_action": "admin bulk: submit for review",
    "action:document:publish_action": "admin bulk: publish",
    "action:document:withdraw_action": "admin bulk: withdraw",
    "action:document:refile_action": "admin bulk: refile",
    "action:document:add_tag_action": "admin bulk: add the tag",
    "action:decisionrecord:publish_action": "admin bulk: publish decision records",
    "action:decisionrecord:delete_selected": "admin: delete a decision record",
    "action:registry:delete_selected": "admin: delete a tag",
    "action:topic:delete_selected": "admin: delete a tag",
    "action:preface:delete_selected": "admin: delete a tag",
    "action:venue:delete_selected": "admin: delete a tag",
    "action:tag:delete_selected": "admin: delete a tag",
    "action:tag:merge_tags_action": "admin: merge tags",
    "action:person:merge_people_action": "admin: merge people",
    "action:correction:accept_selected": "admin bulk: accept corrections",
    "action:correction:decline_selected": "admin bulk: decline corrections",
    **dict.fromkeys(
        [
            "action:document:export_documents_csv",
            "action:document:export_documents_csv_bom",
            "action:document:export_bibtex",
            "action:document:export_ris",
            "action:document:export_csl_json",
            "action:topic:export_topics_csv",
            "action:decisionrecord:export_decision_records_csv",
        ],
        READS,
    ),
    # Jobs.
    f"job:{IMPORT_JOB}": "admin job: CSV import",
    f"job:{PAGE_JOB}": "admin job: topic page import",
    f"job:{FOLDER_JOB}": "admin job: decision folder import",
    f"job:{BACKUP_JOB}": READS,
    # The record's reading of itself, stored; pages whose related work
    # changed are expired (``test_related``), nothing of the record written.
    f"job:{RELATED_JOB}": READS,
    f"job:{CANDIDATES_JOB}": READS,
    # Commands.
    "command:import_index": "command: import_index",
    "command:import_decisions": "command: import_decisions",
    "command:import_record": "command: import_record",
    "command:enrich_metadata": "command: enrich_metadata",
    "command:generate_sample": "command: generate_sample",
    "command:check_sources": "command: check_sources",
    f"job:{CHECK_JOB}": "command: check_sources",
    "command:link_people": "command: link_people",
    "command:run_schedules": "command: run_schedules",
    # Expires pages and writes nothing of the record; accounts are not the record.
    **dict.fromkeys(
        [
            "command:expire_pages",
            "command:drain_outbox",
            "command:export_decisions",
            "command:export_index",
            "command:export_record",
            "command:add_editor",
            "command:recompute_related",
            "command:recompute_candidates",
            # Derived from the public text, as related work is.
            "command:rebuild_vocabulary",
            "command:rebuild_rows",
            "command:map_quality",
            # Starts the workers; the jobs they run are the entry points.
            "command:run_workers",
        ],
        READS,
    ),
    # API tokens are accounts' keys, not the record: making one (the add
    # page), revoking one (the bulk action) changes nothing of the record.
    **dict.fromkeys(
        [
            *(
                f"api_apitoken_{page}"
                for page in ["changelist", "add", "change", "history", "delete"]
            ),
            "action:apitoken:revoke_action",
        ],
        READS,
    ),
}

PROJECT_APPS = {"actions", "catalogue", "editorial", "formats", "imports", "jobs"}
PROJECT_APPS |= {"pagecache", "public", "similarity", "sources", "api"}


def entry_points(user):
    """Every admin page and bulk action of the record's models, every job
    function and every command of the project's apps."""
    found = set()
    request = RequestFactory().post("/")
    request.user = user
    for model, model_admin in admin.site._registry.items():
        if model._meta.app_label not in {"catalogue", "taggit", "api"}:
            continue
        found |= {
            pattern.name
            for pattern in model_admin.urls
            if isinstance(pattern, URLPattern) and pattern.name
        }
        found |= {
            f"action:{model._meta.model_name}:{name}"
            for name in model_admin.get_actions(request)
        }
    found |= {
        f"job:{function}"
        for function in [
            *(IMPORT_JOB, PAGE_JOB, FOLDER_JOB, BACKUP_JOB),
            *(RELATED_JOB, CANDIDATES_JOB),
            CHECK_JOB,
        ]
    }
    found |= {
        f"command:{name}" for name, app in get_commands().items() if app in PROJECT_APPS
    }
    return found


def test_the_table_names_every_entry_point(admin_user):
    assert sorted(entry_points(admin_user) - set(ENTRY_POINTS)) == []
    assert sorted(set(ENTRY_POINTS) - entry_points(admin_user)) == []
    assert {row for row in ENTRY_POINTS.values() if row != READS} <= set(ROWS)

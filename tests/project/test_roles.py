"""Who may do what, from one table: every admin URL, the staff exports, the
admin's imports and every bulk action, for each role.

A URL or an action added to the admin without a row here fails
``test_the_table_names_every_admin_url``, so a new page's rights are decided
when it is written, not found by the next attacker.
"""

import datetime
import re

import pytest
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib import admin
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import URLPattern, reverse
from django.utils import timezone
from taggit.models import Tag

import actions.corrections
import actions.documents
import actions.previews
import actions.review
import actions.schedules
from api.models import ApiToken
from catalogue.models import Document, Preface, ReviewComment, ReviewThread, Topic
from catalogue.references import write_references
from editorial.admin.csv_import import IMPORT_JOB
from editorial.admin.folder_import import FOLDER_JOB
from editorial.admin.page_import import PAGE_JOB
from editorial.backups import BACKUP_JOB
from imports.backups import backup_storage
from jobs.models import Job
from similarity.queueing import CANDIDATES_JOB
from tests.databases import WEB_LAYER
from tests.factories import (
    DecisionRecordFactory,
    DocumentFactory,
    UserFactory,
    make_known_venues,
)

pytestmark = [pytest.mark.django_db, WEB_LAYER]

ROLES = ["staff", "editor", "publisher", "superuser"]

# What a GET answers each signed-in role (staff: staff with no permission).
# Anonymous visitors are sent to log in, everywhere. 405 is a page that only
# takes a POST (the imports, whose POSTs are checked below); 302 a page of an
# object its admin does not show this role (another's job), sent to the index.
PAGES = """
admin:index                                   200 200 200 200
admin:password_change                         200 200 200 200
admin:password_change_done                    200 200 200 200
admin:jsi18n                                  200 200 200 200
admin:catalogue_document_changelist           403 200 200 200
admin:catalogue_document_add                  403 200 200 200
admin:catalogue_document_change               403 200 200 200
admin:catalogue_document_history              403 200 200 200
admin:catalogue_document_auditlog             403 200 200 200
admin:catalogue_document_delete               403 403 403 403
admin:catalogue_document_duplicates           403 200 200 200
admin:catalogue_document_review               403 200 200 200
admin:catalogue_document_preview              403 200 200 200
admin:catalogue_document_version              403 200 200 200
admin:catalogue_document_withdraw             403 403 200 200
admin:catalogue_document_schedule             403 403 200 200
admin:catalogue_document_cancel_schedule      405 405 405 405
admin:catalogue_document_make_preview_link    405 405 405 405
admin:catalogue_document_revoke_preview_link  405 405 405 405
admin:catalogue_document_conversation         405 405 405 405
admin:catalogue_document_import               403 403 200 200
admin:catalogue_document_process_import       405 405 405 405
admin:catalogue_document_import_job           403 403 200 200
admin:catalogue_decisionrecord_changelist     403 200 200 200
admin:catalogue_decisionrecord_add            403 403 200 200
admin:catalogue_decisionrecord_change         403 200 200 200
admin:catalogue_decisionrecord_history        403 200 200 200
admin:catalogue_decisionrecord_auditlog       403 200 200 200
admin:catalogue_decisionrecord_delete         403 403 403 200
admin:catalogue_decisionrecord_conversation   405 405 405 405
admin:catalogue_decisionrecord_import_folder  403 403 200 200
admin:catalogue_decisionrecord_import_folder_job 403 403 200 200
admin:catalogue_registry_changelist           403 200 200 200
admin:catalogue_registry_add                  403 403 403 200
admin:catalogue_registry_change               403 200 200 200
admin:catalogue_registry_history              403 200 200 200
admin:catalogue_registry_auditlog             403 200 200 200
admin:catalogue_registry_delete               403 403 403 200
admin:catalogue_topic_changelist              403 200 200 200
admin:catalogue_topic_add                     403 403 403 200
admin:catalogue_topic_change                  403 200 200 200
admin:catalogue_topic_history                 403 200 200 200
admin:catalogue_topic_auditlog                403 200 200 200
admin:catalogue_topic_delete                  403 403 403 200
admin:catalogue_topic_import                  403 403 403 200
admin:catalogue_topic_process_import          405 405 405 405
admin:catalogue_topic_import_job              403 403 403 200
admin:catalogue_topic_import_page             403 403 403 200
admin:catalogue_topic_import_page_job         403 403 403 200
admin:catalogue_topic_candidates              403 200 200 200
admin:catalogue_topic_candidate               403 302 302 302
admin:catalogue_preface_changelist            403 200 200 200
admin:catalogue_preface_add                   403 403 403 403
admin:catalogue_preface_change                403 200 200 200
admin:catalogue_preface_history               403 200 200 200
admin:catalogue_preface_auditlog              403 200 200 200
admin:catalogue_preface_delete                403 403 403 200
admin:catalogue_venue_changelist              403 403 403 200
admin:catalogue_venue_add                     403 403 403 200
admin:catalogue_venue_change                  403 403 403 200
admin:catalogue_venue_history                 403 403 403 200
admin:catalogue_venue_auditlog                403 403 403 200
admin:catalogue_venue_delete                  403 403 403 200
admin:catalogue_person_changelist             403 200 200 200
admin:catalogue_person_add                    403 403 403 403
admin:catalogue_person_change                 403 200 200 200
admin:catalogue_person_history                403 200 200 200
admin:catalogue_person_auditlog               403 200 200 200
admin:catalogue_person_delete                 403 403 403 403
admin:catalogue_person_split                  403 403 200 200
admin:catalogue_personproposal_changelist     403 200 200 200
admin:catalogue_personproposal_add            403 403 403 403
admin:catalogue_personproposal_change         403 200 200 200
admin:catalogue_personproposal_history        403 200 200 200
admin:catalogue_personproposal_delete         403 403 403 403
admin:catalogue_personproposal_check          403 200 200 200
admin:catalogue_personproposal_decide         405 405 405 405
admin:catalogue_correction_changelist         403 200 200 200
admin:catalogue_correction_add                403 403 403 403
admin:catalogue_correction_change             403 200 200 200
admin:catalogue_correction_history            403 200 200 200
admin:catalogue_correction_delete             403 403 403 403
admin:catalogue_correction_edit               403 403 200 200
admin:catalogue_brokenreference_changelist    403 200 200 200
admin:catalogue_brokenreference_add           403 403 403 403
admin:catalogue_brokenreference_change        403 200 200 200
admin:catalogue_brokenreference_history       403 200 200 200
admin:catalogue_brokenreference_delete        403 403 403 403
admin:taggit_tag_changelist                   403 200 200 200
admin:taggit_tag_add                          403 200 200 200
admin:taggit_tag_change                       403 200 200 200
admin:taggit_tag_history                      403 200 200 200
admin:taggit_tag_delete                       403 403 403 200
admin:taggit_tag_names                        403 200 200 200
admin:auth_group_changelist                   403 403 403 200
admin:auth_group_add                          403 403 403 200
admin:auth_group_change                       403 403 403 200
admin:auth_group_history                      403 403 403 200
admin:auth_group_delete                       403 403 403 200
admin:auth_user_changelist                    403 403 403 200
admin:auth_user_add                           403 403 403 200
admin:auth_user_change                        403 403 403 200
admin:auth_user_history                       403 403 403 200
admin:auth_user_delete                        403 403 403 200
admin:auth_user_password_change               403 403 403 200
admin:auditlog_logentry_changelist            403 200 200 200
admin:auditlog_logentry_add                   403 403 403 403
admin:auditlog_logentry_change                403 200 200 200
admin:auditlog_logentry_history               403 200 200 200
admin:auditlog_logentry_delete                403 403 403 403
admin:axes_accessattempt_changelist           403 403 403 200
admin:axes_accessattempt_add                  403 403 403 403
admin:axes_accessattempt_change               403 403 403 200
admin:axes_accessattempt_history              403 403 403 200
admin:axes_accessattempt_delete               403 403 403 200
admin:axes_accesslog_changelist               403 403 403 200
admin:axes_accesslog_add                      403 403 403 403
admin:axes_accesslog_change                   403 403 403 200
admin:axes_accesslog_history                  403 403 403 200
admin:axes_accesslog_delete                   403 403 403 200
admin:axes_accessfailurelog_changelist        403 403 403 200
admin:axes_accessfailurelog_add               403 403 403 403
admin:axes_accessfailurelog_change            403 403 403 200
admin:axes_accessfailurelog_history           403 403 403 200
admin:axes_accessfailurelog_delete            403 403 403 200
admin:jobs_job_changelist                     403 403 200 200
admin:jobs_job_add                            403 403 403 403
admin:jobs_job_change                         403 403 200 200
admin:jobs_job_history                        302 302 200 200
admin:jobs_job_delete                         403 403 403 403
admin:backups                                 403 403 403 200
admin:statistics                              403 200 200 200
admin:review_mail                             403 200 200 200
admin:backup_job                              403 403 403 200
admin:backup_download                         403 403 403 200
admin:api_apitoken_changelist                 200 200 200 200
admin:api_apitoken_add                        200 200 200 200
admin:api_apitoken_change                     302 302 302 200
admin:api_apitoken_history                    302 302 302 200
admin:api_apitoken_delete                     403 403 403 403
catalogue:export-documents                    403 200 200 200
catalogue:export-topics                       403 200 200 200
catalogue:export-decision-records             403 200 200 200
"""

# The bulk actions each role is offered, by model.
EDITOR_DOCUMENT_ACTIONS = (
    "add_tag_action export_bibtex export_csl_json export_documents_csv "
    "export_documents_csv_bom export_ris refile_action submit_for_review_action"
)
ACTIONS = {
    "catalogue.Document": {
        "staff": "",
        "editor": EDITOR_DOCUMENT_ACTIONS,
        "publisher": f"{EDITOR_DOCUMENT_ACTIONS} publish_action withdraw_action",
        "superuser": f"{EDITOR_DOCUMENT_ACTIONS} publish_action withdraw_action",
    },
    "catalogue.DecisionRecord": {
        "editor": "export_decision_records_csv",
        "publisher": "export_decision_records_csv publish_action",
        "superuser": "delete_selected export_decision_records_csv publish_action",
    },
    "catalogue.Topic": {
        "editor": "export_topics_csv",
        "publisher": "export_topics_csv",
        "superuser": "delete_selected export_topics_csv",
    },
    "taggit.Tag": {
        "publisher": "merge_tags_action",
        "superuser": "delete_selected merge_tags_action",
    },
    "axes.AccessAttempt": {"superuser": "cleanup_expired_attempts delete_selected"},
    # People go by being merged, never deleted; proposals are decided.
    "catalogue.Person": {
        "publisher": "merge_people_action",
        "superuser": "merge_people_action",
    },
    "catalogue.PersonProposal": {},
    # Corrections are decided by publishers, never deleted.
    "catalogue.Correction": {
        "publisher": "accept_selected decline_selected",
        "superuser": "accept_selected decline_selected",
    },
    "catalogue.BrokenReference": {},
    "auditlog.LogEntry": {},
    "jobs.Job": {},
    # Everyone revokes their own API tokens; no one deletes one.
    "api.ApiToken": dict.fromkeys(ROLES, "revoke_action"),
}
# Every other model: only the superuser may delete in bulk.
DELETE_ONLY = {"superuser": "delete_selected"}


def table():
    rows = (line.split() for line in PAGES.strip().splitlines())
    return {
        name: dict(zip(ROLES, map(int, codes), strict=True)) for name, *codes in rows
    }


# The site's own pages the table leaves out: the login page is everyone's,
# logging out takes a POST, the app index and the autocomplete need their
# parameters, and "view on site" leads to the public site.
UNLISTED_SITE_PAGES = {
    "admin:login",
    "admin:logout",
    "admin:app_list",
    "admin:autocomplete",
    "admin:view_on_site",
}


def site_routes():
    """``{URL name: route}`` for the admin site's own pages (not its models')."""
    return {
        f"admin:{pattern.name}": str(pattern.pattern)
        for pattern in admin.site.get_urls()
        if isinstance(pattern, URLPattern) and pattern.name
    }


def model_routes():
    """``{URL name: (model, route)}`` for every page of every model's admin."""
    return {
        f"admin:{pattern.name}": (model, str(pattern.pattern))
        for model, model_admin in admin.site._registry.items()
        for pattern in model_admin.get_urls()
        if isinstance(pattern, URLPattern) and pattern.name
    }


@pytest.fixture
def people():
    return {
        "staff": UserFactory(username="staff-only"),
        "editor": UserFactory(editor=True, username="ed"),
        "publisher": UserFactory(publisher=True, username="pub"),
        "superuser": UserFactory(username="root", is_superuser=True),
    }


BACKUP = "anthology-2026-01-31-093000.json"


@pytest.fixture
def record(people, backup_dir):
    """One of everything the admin shows; LIT-004 published, tagged, filed
    and with a pending revision, so its review and version pages have work."""
    publisher = people["publisher"]
    # The known venues, should a transactional test's flush have taken them.
    make_known_venues()
    document = DocumentFactory(number=4, draft=True, title="Sublinear memory")
    document.tags.add("memory")
    actions.documents.publish(document=document, user=publisher)
    actions.documents.edit_document(
        document=document, user=publisher, changes={"title": "Sublinear memory cost"}
    )
    DecisionRecordFactory(number=3)
    write_references(
        documents=[DocumentFactory(number=5, summary="After LIT-999.", published=True)]
    )
    Preface.objects.create(text="Start at LIT-999.")
    # Two documents naming "Rajbhandari", on two topics: two people, and the
    # desk's proposal that they are one.
    DocumentFactory(number=6, authors="Rajbhandari", published=True)
    DocumentFactory(number=7, authors="Rajbhandari", published=True)
    # A reader's proposed correction, waiting on the desk.
    actions.corrections.propose(
        target=DocumentFactory(number=8, title="Sublinear", published=True),
        changes={"title": "Sublinear memory"},
    )
    AccessAttempt.objects.create(
        username="x", ip_address="192.0.2.1", failures_since_start=1
    )
    AccessLog.objects.create(username="x", ip_address="192.0.2.1")
    AccessFailureLog.objects.create(username="x", ip_address="192.0.2.1")
    # A publisher's dry run and a superuser's page import, both failed.
    Job.objects.create(
        title="Dry run of record.csv",
        function=IMPORT_JOB,
        state=Job.State.FAILED,
        summary="Line 1 is not UTF-8 text.",
        arguments={"file_name": "x", "original_name": "record.csv", "dry_run": True},
        created_by=publisher,
    )
    Job.objects.create(
        title="Import of the topic page page.txt",
        function=PAGE_JOB,
        state=Job.State.FAILED,
        summary="Line 1: no table.",
        created_by=people["superuser"],
    )
    # A publisher's folder import, and a superuser's backup, finished and kept.
    Job.objects.create(
        title="Import of the decision folder adr.zip (adr/)",
        function=FOLDER_JOB,
        state=Job.State.FAILED,
        summary="adr.zip holds no decision files.",
        created_by=publisher,
    )
    Job.objects.create(
        title="Backup of the whole record",
        function=BACKUP_JOB,
        state=Job.State.FINISHED,
        summary=f"Wrote the backup {BACKUP}.",
        created_by=people["superuser"],
    )
    backup_storage().save(BACKUP, ContentFile(b"{}"))
    # The superuser's API token: the others' admin does not show it.
    token = ApiToken(user=people["superuser"], name="nightly export")
    token.issue_secret()
    token.save()
    return document


# Which object a model's pages show, where the first would not do.
FIRST = {Job: {"function": IMPORT_JOB}}


# The job each job page shows, by the page's URL name.
JOB_PAGES = {
    "import_page": PAGE_JOB,
    "import_folder": FOLDER_JOB,
    "backup_job": BACKUP_JOB,
}


def url_for(name, document):
    """The URL of the page ``name``, showing ``document`` or the first object
    of its model."""
    if name.startswith("catalogue:"):
        return reverse(name)
    if name in site_routes():
        model, route = None, site_routes()[name]
    else:
        model, route = model_routes()[name]
    kwargs = {}
    if "object_id" in route or "<id>" in route:
        obj = (
            document
            if model is Document
            else model._default_manager.filter(**FIRST.get(model, {})).first()
        )
        kwargs["object_id" if "object_id" in route else "id"] = obj.pk
    if "<int:number>" in route:
        kwargs["number"] = 1
    if "<uuid:job_id>" in route:
        function = next(
            (job for page, job in JOB_PAGES.items() if page in name), IMPORT_JOB
        )
        kwargs["job_id"] = Job.objects.get(function=function).pk
    if "<str:name>" in route:
        kwargs["name"] = BACKUP
    return reverse(name, kwargs=kwargs)


def test_the_table_names_every_admin_url():
    pages = {name for name in table() if name.startswith("admin:")}

    assert pages == {*site_routes(), *model_routes()} - UNLISTED_SITE_PAGES


@pytest.mark.parametrize("role", ROLES)
def test_each_role_gets_what_the_table_says(client, people, record, role):
    client.force_login(people[role])
    answers = {name: client.get(url_for(name, record)).status_code for name in table()}

    assert answers == {name: codes[role] for name, codes in table().items()}


def test_anonymous_visitors_are_sent_to_log_in_everywhere(client, record):
    for name in table():
        response = client.get(url_for(name, record))

        assert response.status_code == 302, name
        assert response["Location"].startswith(reverse("admin:login")), name


@pytest.mark.parametrize("role", ROLES)
def test_each_role_is_offered_the_actions_the_table_says(rf, people, role):
    request = rf.get("/admin/")
    request.user = people[role]
    offered = {
        model._meta.label: sorted(model_admin.get_actions(request))
        for model, model_admin in admin.site._registry.items()
    }

    assert offered == {
        label: sorted(ACTIONS.get(label, DELETE_ONLY).get(role, "").split())
        for label in offered
    }


IMPORTS = {
    "document": ("publisher", "superuser"),
    "topic": ("superuser",),
}
TOPIC_CSV = (
    "position,name,slug,flavour,scope\n1,Overwritten,overwritten,kind,By whom?\n"
)


@pytest.mark.redis  # The imports are jobs, queued in Redis.
@pytest.mark.parametrize("model", IMPORTS)
@pytest.mark.parametrize("role", ROLES)
def test_imports_and_their_confirmations_are_for_the_roles_the_table_says(
    client, people, model, role
):
    """A superuser's dry run is replayed as the forged confirmation of every
    role; only the permitted ones start a job, and only the superuser's own
    dry run is confirmed."""
    client.force_login(people["superuser"])
    upload = SimpleUploadedFile("topics.csv", TOPIC_CSV.encode(), "text/csv")
    preview = client.post(
        reverse("admin:catalogue_topic_import"),
        {"format": "0", "import_file": upload, "resource": "0"},
        follow=True,  # To the dry run's job page; tests run jobs at once.
    )
    confirmation = preview.context["confirm_form"].initial
    client.force_login(people[role])
    allowed = role in IMPORTS[model]

    upload = SimpleUploadedFile("record.csv", TOPIC_CSV.encode(), "text/csv")
    previewed = client.post(
        reverse(f"admin:catalogue_{model}_import"),
        {"format": "0", "import_file": upload, "resource": "0"},
    )
    confirmed = client.post(
        reverse(f"admin:catalogue_{model}_process_import"), confirmation
    )

    assert previewed.status_code == (302 if allowed else 403)
    assert confirmed.status_code != 403 if allowed else confirmed.status_code == 403
    written = Topic.objects.filter(slug="overwritten").exists()
    assert written == (allowed and model == "topic")


# Who may recompute the candidate topics, a job reading the whole record.
RECOMPUTES_CANDIDATES = ("publisher", "superuser")


@pytest.mark.parametrize("role", ROLES)
def test_recomputing_the_candidates_is_for_the_roles_the_table_says(
    client, people, role, settings
):
    settings.JOBS_IN_PROCESS = True
    client.force_login(people[role])

    response = client.post(reverse("admin:catalogue_topic_candidates"))

    allowed = role in RECOMPUTES_CANDIDATES
    assert response.status_code == (302 if allowed else 403)
    started = Job.objects.filter(function=CANDIDATES_JOB).exists()
    assert started == allowed


@pytest.mark.parametrize("role", ROLES)
def test_merging_tags_is_for_the_roles_the_table_says(client, people, role):
    documents = DocumentFactory.create_batch(2, published=True)
    documents[0].tags.add("memory")
    documents[1].tags.add("memory-cost")
    client.force_login(people[role])

    response = client.post(
        reverse("admin:taggit_tag_changelist"),
        {
            "action": "merge_tags_action",
            "_selected_action": list(Tag.objects.values_list("pk", flat=True)),
            "keep": "new",
            "new_name": "merged",
            "confirm": "Confirm",
        },
    )

    allowed = "merge_tags_action" in ACTIONS["taggit.Tag"].get(role, "")
    may_list = table()["admin:taggit_tag_changelist"][role] == 200
    # A role offered no action posts a list with nothing to act on.
    assert response.status_code == (302 if allowed else 200 if may_list else 403)
    tags = [sorted(document.tags.names()) for document in documents]
    assert tags == (
        [["merged"], ["merged"]] if allowed else [["memory"], ["memory-cost"]]
    )


# The endpoints machines read: open to everyone, anonymous visitors included,
# and answering a signed-in role exactly what they answer a reader (a draft
# or pending revision shows to no one there).
OPEN_ENDPOINTS = {
    "oai:endpoint": [
        {"verb": "Identify"},
        {"verb": "ListSets"},
        {"verb": "ListRecords", "metadataPrefix": "oai_dc"},
        {"verb": "ListRecords", "metadataPrefix": "mods"},
    ],
}
RESPONSE_DATE = re.compile(rb"<responseDate>[^<]*</responseDate>")


@pytest.mark.parametrize("role", ROLES)
def test_open_endpoints_answer_each_role_as_they_answer_a_reader(
    client, people, record, role
):
    def answers():
        return [
            (response.status_code, RESPONSE_DATE.sub(b"", response.content))
            for name, queries in OPEN_ENDPOINTS.items()
            for response in (client.get(reverse(name), query) for query in queries)
        ]

    anonymous = answers()
    client.force_login(people[role])

    assert answers() == anonymous
    assert {status for status, _ in anonymous} == {200}
    assert all(b"Sublinear memory cost" not in body for _, body in anonymous)


# Who may schedule a change, cancel one, make a preview link and revoke one.
SCHEDULES_AND_LINKS = ("publisher", "superuser")


@pytest.mark.parametrize("role", ROLES)
def test_schedules_and_preview_links_are_for_the_roles_the_table_says(
    client, people, record, role
):
    """Each role posts the four forms as a publisher would; only the
    permitted ones change anything."""
    publisher = people["publisher"]
    waiting = actions.schedules.schedule(
        document=record,
        kind="withdraw",
        at=timezone.now() + datetime.timedelta(days=1),
        user=publisher,
        reason="Retracted.",
    )
    link = actions.previews.make_link(document=record, user=publisher)
    client.force_login(people[role])
    tomorrow = timezone.localtime() + datetime.timedelta(days=2)

    answers = [
        client.post(
            reverse(f"admin:catalogue_document_{name}", args=[record.pk]), data
        ).status_code
        for name, data in [
            ("schedule", {"kind": "publish", "at": f"{tomorrow:%Y-%m-%dT%H:%M}"}),
            ("cancel_schedule", {"schedule": waiting.pk}),
            ("make_preview_link", {}),
            ("revoke_preview_link", {"link": link.pk}),
        ]
    ]

    allowed = role in SCHEDULES_AND_LINKS
    assert answers == ([302] * 4 if allowed else [403] * 4)
    waiting.refresh_from_db()
    link.refresh_from_db()
    assert record.schedules.filter(kind="publish").exists() == allowed
    assert (waiting.state == "cancelled") == allowed
    assert record.preview_links.count() == (2 if allowed else 1)
    assert (link.revoked_at is not None) == allowed


# Who may take each step of a review, by the button of its form: editors
# comment on documents and resubmit them; publishers also send back, assign
# and claim. Editors only read decision records, so only publishers review
# them.
PUBLISHERS = ("publisher", "superuser")
EDITORS = ("editor", *PUBLISHERS)
REVIEW_STEPS = {
    "document": {
        "_comment": EDITORS,
        "_resubmit": EDITORS,
        "_send_back": PUBLISHERS,
        "_assign": PUBLISHERS,
        "_claim": PUBLISHERS,
    },
    "decision": dict.fromkeys(
        ["_comment", "_resubmit", "_send_back", "_assign", "_claim"], PUBLISHERS
    ),
}


def review_subject(kind):
    """A document in review, or a draft decision record."""
    if kind == "document":
        return DocumentFactory(number=12, status=Document.Status.IN_REVIEW)
    return DecisionRecordFactory(number=61, draft=True)


def review_took(subject, button, user, reviewer):
    """Whether the step of ``button`` was taken on ``subject``'s review."""
    owner = "document" if isinstance(subject, Document) else "decision"
    thread = ReviewThread.objects.live().filter(**{owner: subject}).first()
    if button == "_comment":
        return ReviewComment.objects.filter(kind=ReviewComment.Kind.COMMENT).exists()
    if button == "_resubmit":
        return thread.state == ReviewThread.State.OPEN
    if button == "_send_back":
        return thread is not None and thread.changes_requested
    if button == "_assign":
        return thread is not None and thread.assignee == reviewer
    return thread is not None and thread.assignee == user


@pytest.mark.parametrize("kind", REVIEW_STEPS)
@pytest.mark.parametrize("button", REVIEW_STEPS["document"])
@pytest.mark.parametrize("role", ROLES)
def test_review_steps_are_for_the_roles_the_table_says(
    client, people, role, button, kind
):
    subject = review_subject(kind)
    reviewer = UserFactory(publisher=True, username="ada")
    if button == "_resubmit":
        actions.review.send_back(
            subject=subject, user=people["superuser"], body="Again."
        )
    client.force_login(people[role])
    model = subject._meta.model_name

    response = client.post(
        reverse(f"admin:catalogue_{model}_conversation", args=[subject.pk]),
        {button: "x", "body": "A note.", "assignee": reviewer.pk},
    )

    allowed = role in REVIEW_STEPS[kind][button]
    assert response.status_code == (302 if allowed else 403)
    assert review_took(subject, button, people[role], reviewer) == allowed


@pytest.mark.parametrize("role", ROLES)
def test_each_role_is_offered_the_review_forms_the_table_says(
    client, people, record, role
):
    """LIT-004's pending revision, on its review page: each role sees the
    buttons of the steps it may take (no resubmission: nothing was sent back)."""
    client.force_login(people[role])

    response = client.get(reverse("admin:catalogue_document_review", args=[record.pk]))

    if role == "staff":
        assert response.status_code == 403
        return
    offered = set(re.findall(r'name="(_[a-z_]+)"', response.content.decode()))
    assert offered & set(REVIEW_STEPS["document"]) == {
        button
        for button, roles in REVIEW_STEPS["document"].items()
        if role in roles and button != "_resubmit"
    }

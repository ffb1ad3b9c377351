"""Decision records' workflow: publication, and supersession kept both ways."""

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

import actions.decisions
from catalogue.models import DecisionRecord, DecisionRelation
from tests.factories import DecisionRecordFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_marking_a_successor_keeps_one_relation_and_marks_the_older_superseded():
    publisher = UserFactory(publisher=True)
    old = DecisionRecordFactory(number=26, status_text="Approved")
    new = DecisionRecordFactory(number=61)

    actions.decisions.set_supersedes(decision=new, superseded=[old], user=publisher)

    old.refresh_from_db()
    assert (old.status, old.status_text) == ("superseded", "")
    assert [(r.source, r.kind, r.target) for r in DecisionRelation.objects.all()] == [
        (new, "supersedes", old)
    ]


def test_a_record_no_longer_superseded_goes_back_to_accepted():
    publisher = UserFactory(publisher=True)
    new = DecisionRecordFactory(number=61)
    old = DecisionRecordFactory(number=26, status="superseded", superseded_by=new)

    actions.decisions.set_supersedes(decision=new, superseded=[], user=publisher)

    old.refresh_from_db()
    assert old.status == "accepted"
    assert not DecisionRelation.objects.exists()


def test_only_a_publisher_edits_or_publishes_decision_records():
    editor = UserFactory(editor=True)
    record = DecisionRecordFactory()

    with pytest.raises(PermissionDenied):
        actions.decisions.publish_decision(decision=record, user=editor)
    with pytest.raises(PermissionDenied):
        actions.decisions.set_supersedes(decision=record, superseded=[], user=editor)


def test_a_draft_decision_record_is_not_public():
    draft = DecisionRecordFactory(draft=True)
    published = actions.decisions.publish_decision(
        decision=DecisionRecordFactory(draft=True), user=UserFactory(publisher=True)
    )

    assert list(DecisionRecord.objects.public()) == [published]
    assert list(DecisionRecord.objects.drafts()) == [draft]


def test_a_publisher_relates_records_and_changes_a_status_in_the_admin(client):
    publisher = UserFactory(publisher=True)
    client.force_login(publisher)
    older = DecisionRecordFactory(number=3, title="Older")
    amended = DecisionRecordFactory(number=4, title="Amended")
    # A draft: a published record's edits wait as a revision (tested apart).
    decision = DecisionRecordFactory(
        number=5, title="Newer", status="accepted", status_text="Approved", draft=True
    )

    response = client.post(
        reverse("admin:catalogue_decisionrecord_change", args=[decision.pk]),
        {
            "number": "5",
            "title": "Newer",
            "status": "deprecated",
            "status_text": "Approved",
            "decided_on": "",
            "body": "",
            "supersedes": [str(older.pk)],
            "relations-TOTAL_FORMS": "1",
            "relations-INITIAL_FORMS": "0",
            "relations-0-kind": "amends",
            "relations-0-target": str(amended.pk),
        },
    )

    assert response.status_code == 302, response.context["errors"]
    decision.refresh_from_db()
    older.refresh_from_db()
    # The words as written went with the status they described.
    assert (decision.status, decision.status_text) == ("deprecated", "")
    # Readers learn of the successor when it is published, not before.
    assert older.status == "accepted"
    assert sorted(
        (r.source.number, r.kind, r.target.number)
        for r in DecisionRelation.objects.all()
    ) == [(5, "amends", 4), (5, "supersedes", 3)]
    page = client.get(
        reverse("admin:catalogue_decisionrecord_change", args=[decision.pk])
    )
    # Supersession is the form's own field, not a row of the inline too.
    assert page.context["inline_admin_formsets"][0].formset.initial_form_count() == 1

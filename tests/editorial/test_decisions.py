"""Decision records' workflow: publication, and supersession kept both ways."""

import pytest
from django.core.exceptions import PermissionDenied

from catalogue.models import DecisionRecord, DecisionRelation
from editorial import decisions
from tests.factories import DecisionRecordFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_marking_a_successor_keeps_one_relation_and_marks_the_older_superseded():
    publisher = UserFactory(publisher=True)
    old = DecisionRecordFactory(number=26, status_text="Approved")
    new = DecisionRecordFactory(number=61)

    decisions.set_supersedes(decision=new, superseded=[old], user=publisher)

    old.refresh_from_db()
    assert (old.status, old.status_text) == ("superseded", "")
    assert [(r.source, r.kind, r.target) for r in DecisionRelation.objects.all()] == [
        (new, "supersedes", old)
    ]


def test_a_record_no_longer_superseded_goes_back_to_accepted():
    publisher = UserFactory(publisher=True)
    new = DecisionRecordFactory(number=61)
    old = DecisionRecordFactory(number=26, status="superseded", superseded_by=new)

    decisions.set_supersedes(decision=new, superseded=[], user=publisher)

    old.refresh_from_db()
    assert old.status == "accepted"
    assert not DecisionRelation.objects.exists()


def test_only_a_publisher_edits_or_publishes_decision_records():
    editor = UserFactory(editor=True)
    record = DecisionRecordFactory()

    with pytest.raises(PermissionDenied):
        decisions.publish_decision(decision=record, user=editor)
    with pytest.raises(PermissionDenied):
        decisions.set_supersedes(decision=record, superseded=[], user=editor)


def test_a_draft_decision_record_is_not_public():
    draft = DecisionRecordFactory(draft=True)
    published = decisions.publish_decision(
        decision=DecisionRecordFactory(draft=True), user=UserFactory(publisher=True)
    )

    assert list(DecisionRecord.objects.public()) == [published]
    assert list(DecisionRecord.objects.drafts()) == [draft]

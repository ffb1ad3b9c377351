"""Decision records' workflow: publication, and supersession kept both ways."""

import pytest
from django.core.exceptions import PermissionDenied

from catalogue.models import DecisionRecord
from editorial import decisions
from tests.factories import DecisionRecordFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_marking_a_successor_shows_superseded_by_on_the_older_record():
    publisher = UserFactory(publisher=True)
    old = DecisionRecordFactory(number=26)
    new = DecisionRecordFactory(number=61)

    decisions.set_supersedes(decision=new, superseded=[old], user=publisher)

    old.refresh_from_db()
    assert (old.superseded_by, old.status) == (new, "superseded")
    assert list(new.supersedes.all()) == [old]


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

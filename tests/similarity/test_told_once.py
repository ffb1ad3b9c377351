"""What derives from the record is told of a transaction's changes once it
commits: once however many documents it changed, never while it is open, and
never for a transaction rolled back."""

import pytest
from django.db import transaction

from tests.factories import DocumentFactory

told = []


def remember(pks):
    told.append(pks)


@pytest.fixture
def listening(settings):
    settings.RECORD_CHANGED = f"{__name__}.remember"
    told.clear()
    yield told
    told.clear()


@pytest.mark.django_db
def test_three_publications_in_one_transaction_are_told_once(
    listening, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        documents = DocumentFactory.create_batch(3, published=True)
        assert listening == []

    assert listening == [sorted(document.pk for document in documents)]


@pytest.mark.django_db
def test_a_rolled_back_transaction_tells_no_one(
    listening, django_capture_on_commit_callbacks
):
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        DocumentFactory(published=True)
        raise RuntimeError("undone")

    assert callbacks == []
    assert listening == []

    with django_capture_on_commit_callbacks(execute=True):
        kept = DocumentFactory(published=True)

    assert len(listening) == 1
    assert kept.pk in listening[0]

"""generate_sample: clearly marked sample data, never mixed into the record."""

import io

import pytest
from django.core.management import call_command

from catalogue.models import Document, Topic

pytestmark = pytest.mark.django_db


def test_sample_documents_are_marked_and_kept_apart(imported_seed):
    real = set(Document.objects.values_list("pk", flat=True))

    call_command("generate_sample", documents=50, stdout=io.StringIO())
    call_command("generate_sample", documents=20, stdout=io.StringIO())

    sample = Document.objects.exclude(pk__in=real)
    assert sample.count() == 70
    assert set(sample.values_list("registry__prefix", flat=True)) == {"SLIT", "SPRA"}
    assert all(
        title.startswith("[Sample] ")
        for title in sample.values_list("title", flat=True)
    )
    assert Topic.objects.filter(slug__startswith="sample-topic-").count() == 28
    assert sample.filter(registry__prefix="SPRA").count() == 7
    for document in sample.filter(status__in=Document.PUBLIC_STATUSES)[:20]:
        document.full_clean()
        assert document.versions.count() == document.version

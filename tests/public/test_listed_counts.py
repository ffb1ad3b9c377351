"""A list's count line ("67 of 737 LIT documents") reads the counts stored
with the rows (``catalogue.ListedCount``), kept by the actions that store
them. After every kind of change that moves a document into, out of or
between lists, the pages read again say what the record holds: each test
caches the pages first, changes the record through its entry point, then
reads them again."""

import io

import pytest
from django.core.management import call_command

import actions.documents
import actions.filing
from catalogue.models import Document, ListedCount, Registry, Topic
from tests.factories import (
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
    factory_publisher,
)
from tests.html import soup_of

pytestmark = pytest.mark.django_db


def count_line(client, path):
    """The page's count line, as a reader reads it."""
    return soup_of(client.get(path)).select_one("p.counts").get_text()


def expected_line(topic):
    """The count line of ``topic``'s page (None: the unfiled page), counted
    from the record's public documents."""
    public = Document.objects.public()
    parts = []
    for registry in Registry.objects.order_by("prefix"):
        total = public.filter(registry=registry).count()
        if total:
            listed = public.filter(registry=registry, topic=topic).count()
            parts.append(f"{listed} of {total} {registry.prefix} documents")
    return (", ".join(parts) or "No documents yet") + "."


def pages_of(*topics):
    return {
        (topic.get_absolute_url() if topic else "/unfiled/"): topic for topic in topics
    }


def assert_count_lines(client, pages):
    for path, topic in pages.items():
        assert count_line(client, path).startswith(expected_line(topic)), path


@pytest.fixture
def shelves(publisher):
    """Two topics and two registries: LIT-001 and LIT-002 in the first,
    PRA-001 in the second, LIT-003 unfiled, LIT-004 a draft in the first."""
    first = TopicFactory(name="Distributed optimization", slug="distributed")
    second = TopicFactory(name="Evaluation", slug="evaluation")
    practice = RegistryFactory(prefix="PRA", name="Practice")
    DocumentFactory(number=1, topic=first, published=True)
    DocumentFactory(number=2, topic=first, published=True)
    DocumentFactory(number=1, registry=practice, topic=second, published=True)
    DocumentFactory(number=3, topic=None, published=True)
    draft = DocumentFactory(number=4, topic=first)
    return {"first": first, "second": second, "draft": draft}


@pytest.fixture
def cached(client, shelves):
    """The three lists' pages, read twice (cached) before the change."""
    pages = pages_of(shelves["first"], shelves["second"], None)
    for path in pages:
        client.get(path)
        client.get(path)
    assert_count_lines(client, pages)
    return pages


def test_the_count_line_reads_the_stored_counts(client, shelves):
    assert count_line(client, "/topics/distributed/") == (
        "2 of 3 LIT documents, 0 of 1 PRA documents. Back to the full index."
    )


def test_a_first_publication_counts_in_its_topic_and_its_registry(
    client, shelves, cached, publisher, committed
):
    with committed():
        actions.documents.publish(document=shelves["draft"], user=publisher)
    assert_count_lines(client, cached)
    assert count_line(client, "/unfiled/").startswith("1 of 4 LIT documents")


def test_a_withdrawal_and_a_reinstatement_leave_the_counts_as_they_are(
    client, shelves, cached, publisher, committed
):
    document = Document.objects.get(registry__prefix="LIT", number=1)
    with committed():
        actions.documents.withdraw(document=document, user=publisher, reason="Gone.")
    assert_count_lines(client, cached)
    with committed():
        actions.documents.reinstate(document=document, user=publisher)
    assert_count_lines(client, cached)


def test_a_move_between_topics_counts_in_the_new_topic_alone(
    client, shelves, cached, publisher, committed
):
    document = Document.objects.get(registry__prefix="LIT", number=1)
    with committed():
        actions.documents.edit_document(
            document=document,
            user=publisher,
            changes={"topic": shelves["second"].pk},
        )
        actions.documents.publish(document=document, user=publisher)
    assert_count_lines(client, cached)
    assert count_line(client, "/topics/evaluation/").startswith(
        "1 of 3 LIT documents, 1 of 1 PRA documents"
    )


def test_an_imports_bulk_writes_count_what_they_publish_and_move(
    client, shelves, cached, tmp_path, committed
):
    page = tmp_path / "evaluation.txt"
    page.write_text(
        "Topics — The kinds of claim.\n"
        "Evaluation — benchmarks and their pitfalls.\n"
        "3 of 5 LIT documents. Back to the full index.\n"
        "| # | Title | Summary | Status |\n|---|---|---|---|\n"
        "| LIT-002 v2 | Moved here | Chen et al. (2016). Moved. | Active |\n"
        "| LIT-005 | New one | Chen et al. (2017). New. | Active |\n"
        "| LIT-006 | Another | Chen et al. (2018). New too. | Active |\n",
        encoding="utf-8",
    )
    with committed():
        call_command("import_index", str(page), stdout=io.StringIO())
    assert Document.objects.get(registry__prefix="LIT", number=2).topic.slug == (
        "evaluation"
    )
    assert_count_lines(client, cached)
    assert count_line(client, "/topics/evaluation/").startswith("3 of 5 LIT documents")


def test_a_topics_deletion_counts_its_documents_as_unfiled(
    client, shelves, cached, committed
):
    with committed():
        actions.filing.delete(objs=[shelves["first"]], user=factory_publisher())
    del cached["/topics/distributed/"]
    assert_count_lines(client, cached)
    assert count_line(client, "/unfiled/").startswith("3 of 3 LIT documents")


def test_a_restore_counts_again(client, shelves, cached, tmp_path):
    from tests.imports.test_backup import empty_the_record

    path = tmp_path / "record.json"
    call_command("export_record", str(path), stdout=io.StringIO())
    before = {path: count_line(client, path) for path in cached}
    empty_the_record()
    assert not ListedCount.objects.exists()

    call_command("import_record", str(path), stdout=io.StringIO())

    # Read as rendered now: the record was emptied behind the page cache.
    client.cookies["sessionid"] = "none"
    assert {path: count_line(client, path) for path in cached} == before
    topics = {topic.slug: topic for topic in Topic.objects.all()}
    assert_count_lines(
        client,
        {path: topic and topics[topic.slug] for path, topic in cached.items()},
    )

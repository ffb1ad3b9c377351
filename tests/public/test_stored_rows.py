"""Each public document's row is stored as HTML and kept as a fresh build
would make it: by the actions that change it, and by those that change what
its names lead to. A page reads the rows as stored, and shows the same bytes
as one built row by row.

The rule: a row shows its document's published values and what the names in
its summary cell lead to now. A change to a document builds again its row,
the rows naming it and the rows naming a document it succeeds; a change to a
decision record builds again the rows naming its number.
"""

import io
from collections import Counter

import pytest
from django.core.management import call_command

import actions.decisions
import actions.documents
from catalogue.models import Document, DocumentRow, ListedCount, RowName
from public.rows import built_rows
from tests.factories import (
    DecisionRecordFactory,
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
    factory_publisher,
)
from tests.html import text_of

pytestmark = pytest.mark.django_db


def stored():
    """``{pk: (html, names, title, (registry, topic))}`` as stored, for every
    document."""
    names = {}
    for pk, prefix, number in RowName.objects.values_list(
        "document", "prefix", "number"
    ):
        names.setdefault(pk, []).append((prefix, number))
    return {
        pk: (html, sorted(names.get(pk, [])), title, (registry, topic))
        for pk, html, title, registry, topic in DocumentRow.objects.values_list(
            "pk", "html", "title", "registry", "topic"
        )
    }


def listed_counts():
    """``{(registry, topic): n}`` as stored, leaving out listings of none."""
    return {
        (registry, topic): n
        for registry, topic, n in ListedCount.objects.values_list(
            "registry", "topic", "documents"
        )
        if n
    }


def assert_rows_as_built():
    """Every public document's row is stored as a build made now makes it,
    and no other document has one; the counts of rows by registry and topic
    are the public documents' there."""
    public = list(Document.objects.public().values_list("pk", flat=True))
    _, fresh = built_rows(public)
    assert stored() == fresh
    assert set(fresh) == set(public)
    assert listed_counts() == dict(
        Counter(Document.objects.public().values_list("registry", "topic"))
    )


def live_text(client, path):
    """The page as an editor reads it: rendered, never from the page cache."""
    client.cookies["sessionid"] = "none"
    try:
        return text_of(client, path)
    finally:
        del client.cookies["sessionid"]


def list_pages():
    """Every page that lists documents in a table, for the record at hand."""
    document = Document.objects.public().select_related("topic").first()
    tag = Document.objects.public().tags().first()
    paths = ["/unfiled/", f"/registries/{document.registry.prefix}/"]
    paths += [
        topic.get_absolute_url()
        for topic in TopicFactory._meta.model.objects.filter(documents__isnull=False)
        .distinct()
        .order_by("slug")
    ]
    if tag is not None:
        paths.append(f"/tags/{tag.slug}/")
    paths += [f"{paths[-1]}?sort=-year", f"{paths[-1]}?sort=title"]
    return paths


def test_the_seeds_pages_read_from_stored_rows_as_built_row_by_row(
    client, imported_seed
):
    assert_rows_as_built()
    paths = list_pages()
    as_stored = {path: live_text(client, path) for path in paths}
    # A record whose rows are not stored (or were built for another form)
    # builds them as it reads them, into the same bytes.
    pks = list(DocumentRow.objects.order_by("pk").values_list("pk", flat=True))
    DocumentRow.objects.filter(pk__in=pks[::2]).update(form="another form")
    DocumentRow.objects.filter(pk__in=pks[1::2]).delete()
    assert {path: live_text(client, path) for path in paths} == as_stored


def test_the_generated_samples_pages_read_from_stored_rows_as_built_row_by_row(
    client,
):
    call_command("generate_sample", documents=120, stdout=io.StringIO())
    assert_rows_as_built()
    paths = list_pages()
    as_stored = {path: live_text(client, path) for path in paths}
    DocumentRow.objects.all().delete()
    assert {path: live_text(client, path) for path in paths} == as_stored


def test_rebuild_rows_stores_every_public_row_and_none_other(imported_seed):
    DocumentFactory(number=900, summary="A draft naming LIT-004.")
    DocumentRow.objects.all().delete()
    out = io.StringIO()
    call_command("rebuild_rows", stdout=out)
    assert_rows_as_built()
    assert out.getvalue() == f"{Document.objects.public().count():,} rows stored.\n"


@pytest.fixture
def shelf(publisher):
    """LIT-004 and LIT-007 (whose summary names LIT-004, LIT-009 and the
    decision record ADR-026) in a topic; LIT-009 a draft."""
    topic = TopicFactory(name="Distributed optimization", slug="distributed")
    cited = DocumentFactory(
        number=4, topic=topic, title="Sublinear memory", published=True
    )
    draft = DocumentFactory(number=9, topic=topic, title="Not yet public")
    citing = DocumentFactory(
        number=7,
        topic=topic,
        title="Checkpointing at scale",
        summary="Builds on LIT-004 v1, LIT-009 and ADR-026.",
        published=True,
    )
    return {"topic": topic, "cited": cited, "citing": citing, "draft": draft}


def row_of(document):
    return DocumentRow.objects.get(pk=document.pk).html


def test_a_draft_and_a_pending_revision_are_in_no_row(client, shelf, publisher):
    assert not DocumentRow.objects.filter(pk=shelf["draft"].pk).exists()
    actions.documents.edit_document(
        document=shelf["cited"], user=publisher, changes={"title": "Unpublished"}
    )
    assert "Unpublished" not in row_of(shelf["cited"])
    assert "Unpublished" not in live_text(client, "/topics/distributed/")
    assert "Not yet public" not in live_text(client, "/topics/distributed/")
    assert_rows_as_built()


def test_a_published_revision_builds_its_row_and_the_rows_naming_it(
    client, shelf, publisher, committed
):
    path = "/topics/distributed/"
    text_of(client, path)
    assert "a newer version" not in row_of(shelf["citing"])

    with committed():
        actions.documents.edit_document(
            document=shelf["cited"], user=publisher, changes={"title": "Revised"}
        )
        actions.documents.publish(document=shelf["cited"], user=publisher)

    assert_rows_as_built()
    assert "Revised" in row_of(shelf["cited"])
    # LIT-007 names LIT-004 v1, which has a newer version now.
    assert "a newer version" in row_of(shelf["citing"])
    for page in (text_of(client, path), live_text(client, path)):
        assert "LIT-004 v2" in page
        assert "a newer version" in page


def test_withdrawing_and_reinstating_build_the_rows_naming_it(
    client, shelf, publisher, committed
):
    path = "/topics/distributed/"
    text_of(client, path)
    with committed():
        actions.documents.withdraw(
            document=shelf["cited"], user=publisher, reason="Retracted."
        )
    assert_rows_as_built()
    assert '<tr class="status-withdrawn">' in row_of(shelf["cited"])
    assert "reference-retired" in row_of(shelf["citing"])
    assert "reference-retired" in text_of(client, path)

    with committed():
        actions.documents.reinstate(document=shelf["cited"], user=publisher)
    assert_rows_as_built()
    assert "reference-retired" not in row_of(shelf["citing"])
    assert "reference-retired" not in text_of(client, path)


def test_a_named_documents_first_publication_links_the_rows_naming_it(
    client, shelf, publisher, committed
):
    assert 'href="/LIT-009/"' not in row_of(shelf["citing"])
    with committed():
        actions.documents.publish(document=shelf["draft"], user=publisher)
    assert_rows_as_built()
    assert 'href="/LIT-009/"' in row_of(shelf["citing"])
    assert 'href="/LIT-009/"' in live_text(client, "/topics/distributed/")


def test_a_successor_shows_in_the_rows_naming_what_it_supersedes(
    client, shelf, publisher, committed
):
    successor = DocumentFactory(number=12, topic=shelf["topic"], published=True)
    with committed():
        actions.documents.supersede(
            document=shelf["cited"], successor=successor, user=publisher
        )
    assert_rows_as_built()
    assert 'superseded by <a href="/LIT-012/">LIT-012</a>' in row_of(shelf["citing"])


def test_a_decision_records_publication_and_deletion_build_the_rows_naming_it(
    client, shelf, publisher, committed
):
    assert 'href="/decisions/ADR-026/"' not in row_of(shelf["citing"])
    decision = DecisionRecordFactory(number=26, draft=True)
    with committed():
        actions.decisions.publish_decision(decision=decision, user=publisher)
    assert_rows_as_built()
    assert 'href="/decisions/ADR-026/"' in row_of(shelf["citing"])

    decision.refresh_from_db()
    with committed():
        actions.decisions.delete_decisions(
            decisions=[decision], user=factory_publisher()
        )
    assert_rows_as_built()
    assert 'href="/decisions/ADR-026/"' not in row_of(shelf["citing"])


def test_an_imported_topic_page_stores_its_rows_and_builds_those_naming_them(
    client, shelf, tmp_path
):
    """A row naming a document that an import then publishes links to it."""
    RegistryFactory(prefix="PRA", name="Practice")
    naming = DocumentFactory(
        number=20, topic=shelf["topic"], summary="See PRA-001.", published=True
    )
    assert "/PRA-001/" not in row_of(naming)
    page = tmp_path / "practice.txt"
    page.write_text(
        "Topics — The kinds of claim.\n"
        "Distributed optimization — parallelism and sharding.\n"
        "1 of 1 PRA documents. Back to the full index.\n"
        "| # | Title | Summary | Status |\n|---|---|---|---|\n"
        "| PRA-001 | Pipelines | Huang et al. (2019), ARXIV-1811.06965. "
        "Splits the model. | Active |\n",
        encoding="utf-8",
    )
    call_command("import_index", str(page), stdout=io.StringIO())
    assert Document.objects.public().filter(registry__prefix="PRA").exists()
    assert_rows_as_built()
    assert 'href="/PRA-001/"' in row_of(naming)


def test_a_list_that_mixes_topics_adds_each_rows_topic_to_its_stored_html(
    client, shelf
):
    registry = live_text(client, "/registries/LIT/")
    cell = (
        '      <td class="topic"><a href="/topics/distributed/">'
        "Distributed optimization</a></td>\n"
    )
    assert registry.count(cell) == 2
    assert cell not in row_of(shelf["citing"])

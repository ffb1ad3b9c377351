"""A topic page's rows are kept as fragments with the page cache and reused
after a change; a change through its action shows at once all the same.

Each test reads the topic page twice (the page and its rows kept), changes
the record through its action, then reads the page again: as the reader who
comes next (the page cache) and as an editor with a session (rendered live
from the kept rows).
"""

import pytest

import actions.documents
from pagecache import fragments
from tests.factories import DocumentFactory, TopicFactory
from tests.html import text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def topic_rows(publisher):
    """A topic holding LIT-004 and LIT-007, whose summary names LIT-004."""
    topic = TopicFactory(name="Distributed optimization", slug="distributed")
    cited = DocumentFactory(
        number=4, topic=topic, title="Sublinear memory", published=True
    )
    citing = DocumentFactory(
        number=7,
        topic=topic,
        title="Checkpointing at scale",
        summary="Builds on LIT-004 — twice as far.",
        published=True,
    )
    cited.refresh_from_db()
    citing.refresh_from_db()
    return {"topic": topic, "cited": cited, "citing": citing}


def read_twice(client, path):
    text_of(client, path)
    return text_of(client, path)


def live_text(client, path):
    """The page as an editor reads it: rendered, never from the page cache."""
    client.cookies["sessionid"] = "none"
    try:
        return text_of(client, path)
    finally:
        del client.cookies["sessionid"]


def test_rows_are_kept_as_fragments_and_reused(client, topic_rows):
    path = topic_rows["topic"].get_absolute_url()
    first = read_twice(client, path)
    # Its two rows and its filter fields.
    assert len(fragments.local_fragments.fragments) == 3
    fragments.local_fragments.clear()  # The shared cache still has them.
    assert live_text(client, path) == first
    assert len(fragments.local_fragments.fragments) == 3


def test_a_published_revision_shows_on_the_topic_page_at_once(
    client, topic_rows, publisher, committed
):
    path = topic_rows["topic"].get_absolute_url()
    assert "Sublinear memory" in read_twice(client, path)

    with committed():
        actions.documents.edit_document(
            document=topic_rows["cited"],
            user=publisher,
            changes={"title": "Sublinear memory, revised"},
        )
        actions.documents.publish(document=topic_rows["cited"], user=publisher)

    assert "Sublinear memory, revised" in text_of(client, path)
    assert "Sublinear memory, revised" in live_text(client, path)
    # The version label moves on with the published version.
    assert "LIT-004 v2" in text_of(client, path)


def test_a_pending_revision_shows_on_no_row(client, topic_rows, publisher, committed):
    path = topic_rows["topic"].get_absolute_url()
    read_twice(client, path)

    with committed():
        actions.documents.edit_document(
            document=topic_rows["cited"],
            user=publisher,
            changes={"title": "Unpublished title"},
        )

    assert "Unpublished title" not in text_of(client, path)
    assert "Unpublished title" not in live_text(client, path)


def test_withdrawing_a_document_shows_on_its_row_and_on_the_rows_naming_it(
    client, topic_rows, publisher, committed
):
    path = topic_rows["topic"].get_absolute_url()
    before = read_twice(client, path)
    assert "status-withdrawn" not in before
    assert "reference-retired" not in before

    with committed():
        actions.documents.withdraw(
            document=topic_rows["cited"], user=publisher, reason="Retracted."
        )

    for after in (text_of(client, path), live_text(client, path)):
        # Its own row is flagged, and LIT-007's link to it says it is retired.
        assert '<tr class="status-withdrawn">' in after
        assert "reference-retired" in after
        assert "Builds on" in after


def test_a_referenced_documents_new_version_shows_in_the_rows_naming_it(
    client, topic_rows, publisher, committed
):
    citing = topic_rows["citing"]
    with committed():
        actions.documents.edit_document(
            document=citing,
            user=publisher,
            changes={"summary": "Builds on LIT-004 v1 — twice as far."},
        )
        actions.documents.publish(document=citing, user=publisher)
    path = topic_rows["topic"].get_absolute_url()
    assert "a newer version" not in read_twice(client, path)

    with committed():
        actions.documents.edit_document(
            document=topic_rows["cited"],
            user=publisher,
            changes={"summary": "Recomputes activations in the backward pass."},
        )
        actions.documents.publish(document=topic_rows["cited"], user=publisher)

    assert "a newer version" in text_of(client, path)
    assert "a newer version" in live_text(client, path)

"""Public version pages and the comparison with the version before."""

import pytest
from bs4 import BeautifulSoup
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

import actions.documents
from catalogue.models import Document
from public.diffs import render_word_diff, word_diff
from tests.factories import DocumentFactory, TopicFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_versions():
    publisher = UserFactory(publisher=True)
    document = DocumentFactory(number=4, draft=True, title="First “take”")
    actions.documents.publish(document=document, user=publisher)
    actions.documents.edit_document(
        document=document,
        user=publisher,
        changes={"title": "Second “take” — revised"},
        note="Revised.",
    )
    actions.documents.publish(document=document, user=publisher)
    actions.documents.edit_document(
        document=document, user=publisher, changes={"title": "Pending secret"}
    )
    return document


def test_the_document_page_lists_its_versions(client, two_versions):
    page = client.get(two_versions.get_absolute_url()).content.decode()

    assert (
        reverse(
            "catalogue:document-version", kwargs={"identifier": "LIT-004", "number": 2}
        )
        in page
    )
    assert "/LIT-004/v1/" in page and "Revised." in page
    assert "Pending secret" not in page


def test_a_version_page_compares_with_the_one_before(client, two_versions):
    page = client.get("/LIT-004/v2/").content.decode()

    assert '<del class="diff">First</del><ins class="diff">Second</ins>' in page
    assert ' <ins class="diff">— revised</ins>' in page
    assert "Pending secret" not in page
    assert "No earlier version" in client.get("/LIT-004/v1/").content.decode()


@pytest.mark.parametrize("path", ["/LIT-004/v3/", "/LIT-004/v0/", "/LIT-005/v1/"])
def test_unpublished_versions_have_no_page(client, two_versions, path):
    DocumentFactory(number=5, draft=True)

    assert client.get(path).status_code == 404


def test_a_drafts_version_page_is_not_found_even_if_it_was_once_public(client):
    publisher = UserFactory(publisher=True)
    document = DocumentFactory(number=9, draft=True)
    actions.documents.publish(document=document, user=publisher)
    Document.objects.filter(pk=document.pk).update(status=Document.Status.DRAFT)

    assert client.get("/LIT-009/v1/").status_code == 404


def test_word_diff_gives_back_both_texts_exactly():
    old, new = "Chen et al. (2016) — “x”  y", "Chen and Li (2016) — “x”  z w"
    changes = word_diff(old, new)

    assert "".join(c.text for c in changes if c.kind != "insert") == old
    assert "".join(c.text for c in changes if c.kind != "delete") == new


texts = st.lists(
    st.sampled_from(["a", "b.", "c;", "“d”", " ", "  ", "\n", "e!"]), max_size=60
).map("".join)


@given(old=texts, new=texts)
def test_any_two_texts_come_back_from_their_diff(old, new):
    changes = word_diff(old, new)

    assert "".join(c.text for c in changes if c.kind != "insert") == old
    assert "".join(c.text for c in changes if c.kind != "delete") == new


def long_summary(words=12_000, sentence=12):
    return " ".join(
        f"word{n}{'.' if n % sentence == sentence - 1 else ''}" for n in range(words)
    )


def test_a_long_summary_edited_in_two_places_shows_just_those_words(weighed):
    old = long_summary()
    new = old.replace("word40 ", "changed40 ").replace("word11000 ", "changed11000 ")

    changes = word_diff(old, new)

    assert [(c.kind, c.text) for c in changes if c.kind != "equal"] == [
        ("delete", "word40"),
        ("insert", "changed40"),
        ("delete", "word11000"),
        ("insert", "changed11000"),
    ]
    # A comparison weighs at most 250,000 token pairs.
    assert max(weighed) <= 250_000


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # Every sentence moved: no common ends, thousands of sentences.
        (
            long_summary(sentence=1),
            " ".join(reversed(long_summary(sentence=1).split())),
        ),
        # A summary naming 40,000 records, renumbered: one sentence.
        (
            ", ".join(f"LIT-{n:05d}" for n in range(40_000)),
            ", ".join(f"LIT-{n:05d}" for n in range(1, 40_001)),
        ),
    ],
)
def test_comparing_long_texts_weighs_a_bounded_number_of_pairs(weighed, old, new):
    changes = word_diff(old, new)

    assert "".join(c.text for c in changes if c.kind != "insert") == old
    assert "".join(c.text for c in changes if c.kind != "delete") == new
    assert max(weighed, default=0) <= 250_000


def test_publishing_raises_the_topic_count_by_one(
    client, django_capture_on_commit_callbacks
):
    topic = TopicFactory()
    DocumentFactory(topic=topic, published=True)
    draft = DocumentFactory(topic=topic, draft=True)
    before = client.get(topic.get_absolute_url()).context["counts"][0].listed

    # The cached page is expired when the publication commits.
    with django_capture_on_commit_callbacks(execute=True):
        actions.documents.publish(document=draft, user=UserFactory(publisher=True))

    after = client.get(topic.get_absolute_url()).context["counts"][0].listed
    assert (before, after) == (1, 2)


def test_unchanged_fields_are_collapsed_and_changed_ones_open(client, two_versions):
    soup = BeautifulSoup(client.get("/LIT-004/v2/").content, "html.parser")

    changed = [h.get_text() for h in soup.select(".version-comparison h3")]
    collapsed = [s.get_text() for s in soup.select(".version-comparison summary")]
    assert changed == ["Title"]
    assert collapsed == ["Citation (unchanged)", "Summary (unchanged)"]


def test_a_diff_names_its_changes_without_colour():
    html = str(render_word_diff("the rule holds", "the rule: holds"))

    assert html == (
        'the <del class="diff">rule</del><ins class="diff">rule:</ins> holds'
    )

""" "Did you mean …?" reads the public record's stored vocabulary: every action
that changes the public text keeps it equal to the words of the public
documents (drafts and pending revisions give none), so a search that finds
nothing costs the same queries at any size of the record, reads no documents
table, and is bounded in its terms."""

import io
from collections import Counter

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

import actions.documents
from catalogue.models import Document, Word
from catalogue.models.vocabulary import VOCABULARY_FIELDS, document_words
from public import search
from tests.factories import DocumentFactory, factory_publisher
from tests.html import soup_of

pytestmark = pytest.mark.django_db

SEARCH = reverse("catalogue:search")


def counted():
    """The stored vocabulary: {word: documents holding it}."""
    return dict(Word.objects.values_list("word", "frequency"))


def public_words():
    """The vocabulary as the public documents hold it now, counted afresh."""
    counts = Counter()
    rows = Document.objects.public().values_list(*VOCABULARY_FIELDS, "author_list")
    for row in rows:
        counts.update(document_words(row))
    return dict(counts)


def offered(client, query):
    suggestion = soup_of(client.get(SEARCH, {"q": query})).select_one(".suggestion a")
    return suggestion and suggestion.get_text()


@pytest.fixture
def pipedream():
    return DocumentFactory(
        number=784,
        title="PipeDream: generalized pipeline parallelism",
        authors="Narayanan et al.",
        author_list=[{"family": "Phanishayee", "given": "Amar"}],
        venue="SOSP",
        summary="Splits a model into stages.",
        published=True,
    )


def test_the_seed_import_counts_every_public_word(imported_seed):
    assert len(counted()) > 500
    assert counted() == public_words()


def test_every_change_of_the_public_text_keeps_the_vocabulary_in_step(pipedream):
    publisher = factory_publisher()
    steps = []

    draft = DocumentFactory(number=785, title="Zebrafish gradient sketches")
    steps.append(("a draft", counted() == public_words(), "zebrafish" in counted()))
    actions.documents.publish(document=draft, user=publisher)
    steps.append(("published", counted() == public_words(), "zebrafish" in counted()))
    actions.documents.edit_document(
        document=draft, user=publisher, changes={"title": "Quokka gradient sketches"}
    )
    steps.append(("pending", counted() == public_words(), "quokka" in counted()))
    actions.documents.publish(document=draft, user=publisher)
    steps.append(("revised", counted() == public_words(), "quokka" in counted()))
    actions.documents.withdraw(document=draft, user=publisher, reason="Retracted.")
    steps.append(("withdrawn", counted() == public_words(), "quokka" in counted()))
    actions.documents.reinstate(document=draft, user=publisher)
    steps.append(("reinstated", counted() == public_words(), "quokka" in counted()))
    actions.documents.supersede(document=draft, successor=pipedream, user=publisher)
    steps.append(("superseded", counted() == public_words(), "quokka" in counted()))

    # A withdrawn document is still listed and searched, so its words stay.
    assert steps == [
        ("a draft", True, False),
        ("published", True, True),
        ("pending", True, False),
        ("revised", True, True),
        ("withdrawn", True, True),
        ("reinstated", True, True),
        ("superseded", True, True),
    ]
    assert "zebrafish" not in counted()
    assert counted()["gradient"] == 1
    assert counted()["sketches"] == 1


def test_a_word_only_in_a_draft_or_a_pending_revision_is_never_offered(
    client, pipedream
):
    DocumentFactory(number=786, title="Zyxwvut secret draft")
    actions.documents.edit_document(
        document=pipedream,
        user=factory_publisher(),
        changes={"summary": "Qwertyuiop stages, pending."},
    )

    assert offered(client, "zyxwvu") is None
    assert offered(client, "qwertyuio") is None
    assert offered(client, "pipline") == "pipeline"
    assert "zyxwvut" not in counted() and "qwertyuiop" not in counted()


def test_a_restore_counts_the_words_again(imported_seed, tmp_path):
    from tests.imports.test_backup import empty_the_record

    path = tmp_path / "record.json"
    before = counted()
    call_command("export_record", str(path), stdout=io.StringIO())
    empty_the_record()
    Word.objects.create(word="leftover", frequency=3)

    call_command("import_record", str(path), stdout=io.StringIO())

    assert counted() == before == public_words()


def test_rebuild_vocabulary_counts_the_public_record_again(pipedream):
    Word.objects.create(word="bogus", frequency=7)
    Word.objects.filter(word="pipeline").delete()
    out = io.StringIO()

    call_command("rebuild_vocabulary", stdout=out)

    assert counted() == public_words()
    assert (
        out.getvalue() == f"The public record holds {len(counted())} distinct words.\n"
    )


def test_a_no_hit_search_reads_no_documents_table_for_its_suggestion(pipedream):
    for number in range(10, 40):
        DocumentFactory(number=number, title=f"Work {number}", published=True)

    with CaptureQueriesContext(connection) as queries:
        offer = search.suggestion("pipline zzzqqq phanishaye")

    assert offer == "pipeline zzzqqq phanishayee"
    assert len(queries) == 1
    assert "catalogue_document" not in queries[0]["sql"]


NONSENSE = [f"q{n:02d}z" for n in range(search.MAX_TERMS)]


@pytest.mark.parametrize("words", [1, search.MAX_TERMS])
def test_a_nonsense_search_costs_the_same_queries_at_any_number_of_words(
    client, pipedream, django_assert_num_queries, words
):
    for number in range(10, 40):
        DocumentFactory(number=number, title=f"Work {number}", published=True)
    client.get(SEARCH, {"q": "warmup"})

    # Documents, their count, decision records, topics, registries (for the
    # identifier notice, none here), the suggestion, the filter's choices, and
    # the people whose names match.
    with django_assert_num_queries(8):
        response = client.get(SEARCH, {"q": " ".join(NONSENSE[:words])})

    assert response.status_code == 200
    assert soup_of(response).select_one(".suggestion") is None


def test_a_search_past_the_term_cap_is_refused_naming_it(client, pipedream):
    response = client.get(SEARCH, {"q": " ".join([*NONSENSE, "pipeline"])})

    assert response.status_code == 400
    assert (
        f"A search is at most {search.MAX_TERMS} words and quoted phrases."
        in response.content.decode()
    )


def test_a_query_of_more_words_than_the_cap_in_one_term_is_offered_nothing(
    pipedream, django_assert_num_queries
):
    # One term (hyphens join it) of more words than the cap.
    query = "-".join([*NONSENSE, "pipline"])

    with django_assert_num_queries(0):
        assert search.suggestion(query) == ""


def test_a_word_longer_than_any_kept_is_not_looked_up(
    pipedream, django_assert_num_queries
):
    with django_assert_num_queries(0):
        assert search.suggestion("q" * 65) == ""

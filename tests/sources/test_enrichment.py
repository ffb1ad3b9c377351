"""enrich_metadata: what arXiv and Crossref know, proposed for review."""

import io

import pytest
from django.core.management import call_command

import actions.documents
from catalogue.models import Document, Revision
from tests.factories import DocumentFactory, TopicFactory

pytestmark = pytest.mark.django_db

CHEN = [
    {"family": "Chen", "given": "Tianqi"},
    {"family": "Xu", "given": "Bing"},
    {"family": "Zhang", "given": "Chiyuan"},
    {"family": "Guestrin", "given": "Carlos"},
]


def enrich_metadata(*args):
    out = io.StringIO()
    call_command("enrich_metadata", *args, stdout=out)
    return out.getvalue().splitlines()


@pytest.fixture
def record(metadata_sources, publisher):
    topic = TopicFactory(name="Distributed optimization")
    public = DocumentFactory(sublinear_memory=True, topic=topic, published=True)
    public.tags.add("memory")
    draft = DocumentFactory(
        number=9,
        draft=True,
        authors="Jadbabaie, Lin and Morse",
        year=2003,
        source_identifier="DOI:10.1109/TAC.2003.812781",
    )
    unknown = DocumentFactory(
        number=12, source_identifier="DOI:10.5555/missing", published=True
    )
    venue_only = DocumentFactory(
        number=15, source_identifier="", citation_note="OSDI ‘20", published=True
    )
    return {"public": public, "draft": draft, "unknown": unknown, "venue": venue_only}


def test_a_public_document_gets_the_metadata_as_a_pending_revision(record):
    public = record["public"]
    before = public.edited_content()

    lines = enrich_metadata()

    public.refresh_from_db()
    assert public.edited_content() == before  # readers see nothing new
    revision = public.pending_revision()
    assert revision.author_list == CHEN
    assert (revision.publication_type, revision.publication_date) == (
        "preprint",
        "2016-04-21",
    )
    # The citation as printed, the summary, the filing and the tags stay.
    assert revision.content() == public.content()
    assert (revision.topic_id, revision.tag_names) == (public.topic_id, ["memory"])
    assert (
        revision.note == "Metadata from ARXIV-1604.06174, proposed by enrich_metadata."
    )
    assert lines[0] == (
        "LIT-004: author list, publication type, publication date proposed as a "
        "pending revision"
    )


def test_a_publisher_publishes_the_proposal_as_a_new_version(record, publisher):
    enrich_metadata()
    public = record["public"]

    actions.documents.publish(document=public, user=publisher)

    public.refresh_from_db()
    assert public.author_list == CHEN
    assert (public.version, public.versions.first().author_list) == (5, CHEN)


def test_an_unpublished_document_is_filled_in_place(record):
    enrich_metadata("--registry", "lit")

    draft = Document.objects.get(pk=record["draft"].pk)
    assert draft.authors == "Jadbabaie, Lin and Morse"
    assert [author["family"] for author in draft.author_list] == [
        "Jadbabaie",
        "Lin",
        "Morse",
    ]
    assert (draft.venue, draft.publication_type, draft.doi) == (
        "IEEE Transactions on Automatic Control",
        "journal_article",
        "10.1109/tac.2003.812781",
    )
    assert not Revision.objects.filter(document=draft).exists()


def test_the_authors_it_fills_in_are_linked_to_people(record, publisher):
    enrich_metadata()
    public = record["public"]
    # Before publication the citation's "Chen" alone is linked.
    (chen,) = [a.person for a in public.authorships.filter(version=None)]
    assert chen.display_name == "Chen"
    draft = Document.objects.get(pk=record["draft"].pk)
    # A draft is filled in place, and linked with it, though no reader sees it.
    linked = draft.authorships.filter(version=None).order_by("position")
    assert [a.name["family"] for a in linked] == ["Jadbabaie", "Lin", "Morse"]

    actions.documents.publish(document=public, user=publisher)

    linked = public.authorships.filter(version=None).order_by("position")
    # "Chen", known by this document alone, is now spelled out; the others
    # are new people.
    assert linked[0].person == chen
    assert [a.person.display_name for a in linked] == [
        "Tianqi Chen",
        "Bing Xu",
        "Chiyuan Zhang",
        "Carlos Guestrin",
    ]
    # The new version's positions are its people's too.
    version = public.versions.get(number=public.versions.first().number)
    assert [a.person for a in version.authorships.order_by("position")] == [
        a.person for a in linked
    ]


def test_what_cannot_be_matched_is_reported_and_the_rest_goes_on(record):
    lines = enrich_metadata()

    assert (
        "LIT-012: could not be matched: Crossref knows no DOI 10.5555/missing." in lines
    )
    assert lines[-1] == (
        "1 proposed, 1 filled in, 0 already up to date, 0 kept for a pending "
        "revision, 1 not matched."
    )


def test_a_dry_run_writes_nothing(record):
    lines = enrich_metadata("--dry-run")

    assert not Revision.objects.exists()
    assert Document.objects.get(pk=record["draft"].pk).author_list == []
    assert lines[0].endswith("would be proposed as a pending revision")


def test_an_editors_pending_revision_is_left_as_it_is(record, editor):
    public = record["public"]
    actions.documents.edit_document(
        document=public, user=editor, changes={"summary": "Rewritten."}
    )

    lines = enrich_metadata()

    revision = public.pending_revision()
    assert (revision.summary, revision.author_list) == ("Rewritten.", [])
    assert (
        "LIT-004: has a pending revision, left as its editor left it; not "
        "proposed: author list, publication type, publication date"
    ) in lines


def test_a_second_run_proposes_nothing_new(record, publisher):
    enrich_metadata()
    actions.documents.publish(document=record["public"], user=publisher)

    lines = enrich_metadata()

    assert lines[-1].startswith("0 proposed, 0 filled in, 2 already up to date")


def test_a_service_that_does_not_answer_is_asked_once(offline_sources):
    DocumentFactory(number=4, source_identifier="ARXIV-1604.06174", published=True)
    DocumentFactory(number=5, source_identifier="ARXIV-2105.05720", published=True)

    lines = enrich_metadata()

    said = "arXiv could not be reached (ConnectError)"
    assert lines[0].startswith(f"LIT-004: could not be matched: {said}")
    assert lines[1].startswith(f"LIT-005: could not be matched: not asked: {said}")


def test_hostile_answers_are_reported_and_the_run_goes_on(metadata_sources, settings):
    settings.METADATA_MAX_BYTES = 1024 * 1024
    DocumentFactory(number=4, source_identifier="DOI:10.5555/nested", published=True)
    DocumentFactory(number=5, source_identifier="DOI:10.5555/huge", published=True)
    DocumentFactory(number=6, source_identifier="DOI:10.5555/drip", published=True)
    DocumentFactory(
        number=7, source_identifier="DOI:10.1109/TAC.2003.812781", published=True
    )

    lines = enrich_metadata()

    assert lines[0].startswith(
        "LIT-004: could not be matched: Crossref's answer for DOI 10.5555/nested "
        "could not be read (malformed JSON: RecursionError"
    )
    assert lines[1] == (
        "LIT-005: could not be matched: Crossref's answer is larger than 1,048,576 "
        "bytes; it was not read. Fill in the form by hand."
    )
    # A service past its deadline is not asked again in the same run.
    assert lines[2].startswith("LIT-006: could not be matched: Crossref did not answer")
    assert lines[3].startswith("LIT-007: could not be matched: not asked: Crossref")

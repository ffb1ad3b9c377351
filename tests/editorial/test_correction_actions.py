"""The corrections' actions: a proposal never edits the record; accepting it
makes a pending revision published the usual way, which publishes it;
declining keeps the reasons; every step is audited with its origin."""

import pytest
from auditlog.models import LogEntry
from django.core import mail
from django.core.exceptions import PermissionDenied, ValidationError

import actions.corrections
import actions.decisions
import actions.documents
from catalogue.models import Correction, DecisionRecord, Document, DocumentNotice
from tests.factories import CorrectionFactory, DecisionRecordFactory, DocumentFactory

pytestmark = pytest.mark.django_db

ADDED = {"family": "Guestrin", "given": "Carlos"}


@pytest.fixture
def document():
    return DocumentFactory(
        number=219,
        title="Memory-efficient training",
        authors="Chen et al.",
        year=2016,
        author_list=[
            {"family": "Chen", "given": "Tianqi"},
            {"family": "Xu", "given": "Bing"},
        ],
        published=True,
    )


def propose_coauthor(document, **extra):
    return actions.corrections.propose(
        target=document,
        changes={
            "author_list": [*document.author_list, ADDED],
            "title": document.title,
        },
        reason="The arXiv page lists a third author.",
        email="reader@example.org",
        **extra,
    )


def test_a_proposal_keeps_only_what_it_changes_and_edits_nothing(document):
    correction = propose_coauthor(document)

    assert correction.changes == {"author_list": [*document.author_list, ADDED]}
    assert correction.current == {"author_list": document.author_list}
    assert correction.based_on_version == document.version
    document.refresh_from_db()
    assert len(document.author_list) == 2
    assert document.pending_revision() is None
    entry = LogEntry.objects.get_for_object(correction).get()
    assert entry.actor is None
    assert entry.additional_data == {"via": "correction form"}


def test_a_proposal_is_checked_as_an_edit_would_be(document):
    with pytest.raises(ValidationError) as refused:
        actions.corrections.propose(target=document, changes={"year": 99})
    assert "year" in refused.value.message_dict
    with pytest.raises(ValidationError, match="changes no field"):
        actions.corrections.propose(target=document, changes={"year": document.year})
    with pytest.raises(ValidationError, match="Not a field"):
        actions.corrections.propose(target=document, changes={"summary": "x"})
    assert not Correction.objects.exists()


def test_a_draft_is_not_corrected_by_readers():
    draft = DocumentFactory()
    with pytest.raises(ValidationError, match="not public"):
        actions.corrections.propose(target=draft, note="Wrong year.")


def test_a_finding_is_proposed_once_while_the_source_stands(document):
    first = actions.corrections.propose(
        target=document,
        changes={"source_identifier": "ARXIV-2101.00001v3"},
        origin=Correction.Origin.ARXIV,
        finding="arxiv:2101.00001:v3",
    )
    actions.corrections.decline(
        correction=first, user=_superuser(), public_reason="We cite v2 on purpose."
    )
    again = actions.corrections.propose(
        target=document,
        changes={"source_identifier": "ARXIV-2101.00001v3"},
        origin=Correction.Origin.ARXIV,
        finding="arxiv:2101.00001:v3",
    )
    assert again is None
    assert Correction.objects.count() == 1


def _superuser():
    from tests.factories import factory_publisher

    return factory_publisher()


def test_accepting_holds_a_revision_whose_publication_publishes_it(
    document, publisher, committed
):
    correction = propose_coauthor(document)
    with committed():
        actions.corrections.accept(correction=correction, user=publisher)
    correction.refresh_from_db()
    assert correction.status == Correction.Status.ACCEPTED
    revision = document.pending_revision()
    assert correction.revision == revision
    assert revision.author_list[-1] == ADDED
    assert revision.note.startswith(f"Correction {correction.pk} (from a reader)")
    assert mail.outbox == []  # Nothing is published yet.

    with committed():
        actions.documents.publish(document=document, user=publisher)
    correction.refresh_from_db()
    assert correction.status == Correction.Status.PUBLISHED
    notice = DocumentNotice.objects.get(document=document)
    assert notice.kind == DocumentNotice.Kind.CORRECTED
    assert notice.reason == "authors corrected (a reader’s correction)"
    assert notice.sentence().startswith("Correction of ")
    [sent] = mail.outbox
    assert sent.to == ["reader@example.org"]
    assert "published" in sent.subject
    assert "LIT-219" in sent.subject
    assert correction.token() in sent.body
    assert "Authors now reads:\nChen, Tianqi\nXu, Bing\nGuestrin, Carlos" in sent.body


def test_a_correction_joins_the_revision_already_waiting(document, publisher):
    actions.documents.edit_document(
        document=document, user=publisher, changes={"summary": "An editor's edit."}
    )
    correction = propose_coauthor(document)
    actions.corrections.accept(correction=correction, user=publisher)
    revision = document.pending_revision()
    assert revision.summary == "An editor's edit."
    assert revision.author_list[-1] == ADDED


def test_the_publisher_edits_then_accepts(document, publisher):
    correction = actions.corrections.propose(
        target=document, note="The summary calls it a survey; it is not."
    )
    with pytest.raises(ValidationError, match="changes no field"):
        actions.corrections.accept(correction=correction, user=publisher)
    actions.corrections.accept(
        correction=correction,
        user=publisher,
        changes={"summary": "A method, not a survey."},
    )
    assert document.pending_revision().summary == "A method, not a survey."


def test_discarding_the_revision_puts_the_correction_back_on_the_desk(
    document, publisher
):
    correction = propose_coauthor(document)
    actions.corrections.accept(correction=correction, user=publisher)
    actions.documents.discard_revision(document=document, user=publisher)
    correction.refresh_from_db()
    assert correction.status == Correction.Status.PENDING
    assert correction.revision is None


def test_declining_tells_the_reader_the_public_reason_alone(
    document, publisher, committed
):
    correction = propose_coauthor(document)
    with committed():
        actions.corrections.decline(
            correction=correction,
            user=publisher,
            public_reason="The third author is of a later version.",
            private_reason="Checked with the authors.",
        )
    [sent] = mail.outbox
    assert "declined" in sent.subject
    assert "The third author is of a later version." in sent.body
    assert "Checked with the authors" not in sent.body
    with pytest.raises(ValidationError, match="not waiting"):
        actions.corrections.accept(correction=correction, user=publisher)


def test_only_a_publisher_decides(document, editor):
    correction = propose_coauthor(document)
    with pytest.raises(PermissionDenied):
        actions.corrections.accept(correction=correction, user=editor)
    with pytest.raises(PermissionDenied):
        actions.corrections.decline(correction=correction, user=editor)


def test_an_erratum_is_noticed_at_once_and_moves_the_datestamp(document, publisher):
    before = Document.objects.get(pk=document.pk).updated_at
    correction = actions.corrections.propose(
        target=document,
        origin=Correction.Origin.CROSSREF,
        proposes=Correction.Proposes.ERRATUM,
        note="Crossref: a correction was published on 2026-05-02.",
        finding="crossref:10.5555/x:correction:10.5555/x-erratum",
    )
    actions.corrections.accept(correction=correction, user=publisher)
    correction.refresh_from_db()
    assert correction.status == Correction.Status.PUBLISHED
    notice = DocumentNotice.objects.get(document=document)
    assert notice.reason == "erratum (found by the Crossref check)"
    assert Document.objects.get(pk=document.pk).updated_at > before


def test_a_retraction_withdraws_the_document(document, publisher):
    correction = actions.corrections.propose(
        target=document,
        origin=Correction.Origin.CROSSREF,
        proposes=Correction.Proposes.WITHDRAWAL,
        note="Crossref: retracted 2026-05-02.",
        finding="crossref:10.5555/x:retraction:10.5555/x-notice",
    )
    actions.corrections.accept(correction=correction, user=publisher)
    document.refresh_from_db()
    assert document.status == Document.Status.WITHDRAWN
    assert document.withdrawal_reason == "Crossref: retracted 2026-05-02."


def test_a_decision_record_is_corrected_through_its_revision(publisher):
    decision = DecisionRecordFactory(number=26, title="One axis for both")
    correction = actions.corrections.propose(
        target=decision, changes={"title": "One axis for both registries"}
    )
    assert correction.decision == decision
    actions.corrections.accept(correction=correction, user=publisher)
    correction.refresh_from_db()
    assert correction.status == Correction.Status.ACCEPTED
    actions.decisions.publish_decision(decision=decision, user=publisher)
    correction.refresh_from_db()
    assert correction.status == Correction.Status.PUBLISHED
    assert (
        DecisionRecord.objects.get(pk=decision.pk).title
        == "One axis for both registries"
    )


def test_a_token_names_its_own_correction_alone(document):
    one = CorrectionFactory(document=document)
    other = CorrectionFactory(document=document, changes={"year": 2015})
    assert Correction.pk_from_token(one.token()) == one.pk
    assert Correction.pk_from_token(other.token()) == other.pk
    assert Correction.pk_from_token(one.token()[:-2] + "xx") is None
    assert Correction.pk_from_token("1") is None


def test_what_the_publisher_accepted_is_kept_beside_what_was_proposed(
    document, publisher, committed
):
    correction = actions.corrections.propose(
        target=document, changes={"year": 2017}, email="reader@example.org"
    )
    actions.corrections.accept(
        correction=correction,
        user=publisher,
        changes={"year": 2015, "venue": "NeurIPS"},
    )
    correction.refresh_from_db()
    assert correction.changes == {"year": 2017}
    assert correction.accepted_changes == {"year": 2015, "venue": "NeurIPS"}
    assert correction.what() == "year and venue"
    revision = document.pending_revision()
    assert (revision.year, revision.venue) == (2015, "NeurIPS")
    with committed():
        actions.documents.publish(document=document, user=publisher)
    [sent] = mail.outbox
    assert "Year now reads:\n2015" in sent.body


def test_a_newer_arxiv_version_is_noted_not_corrected(document, publisher):
    correction = actions.corrections.propose(
        target=document,
        changes={"source_identifier": f"{document.source_identifier}v3"},
        origin=Correction.Origin.ARXIV,
        finding="arxiv:x:v3",
    )
    actions.corrections.accept(correction=correction, user=publisher)
    actions.documents.publish(document=document, user=publisher)
    notice = DocumentNotice.objects.get(document=document)
    assert notice.reason == "arXiv v3 noted (found by the arXiv check)"


def test_a_note_accepted_with_a_summary_reads_back_everywhere(
    client, document, publisher, admin_client
):
    correction = actions.corrections.propose(
        target=document, note="The summary says 48 GB; the paper says 7 GB."
    )
    actions.corrections.accept(
        correction=correction, user=publisher, changes={"summary": "7 GB, not 48."}
    )
    correction.refresh_from_db()
    assert correction.readable_changes() == [("Summary", "", "7 GB, not 48.")]
    follow = client.get(f"/corrections/{correction.token()}/")
    assert follow.status_code == 200
    desk = admin_client.get(f"/admin/catalogue/correction/{correction.pk}/change/")
    assert desk.status_code == 200


def via_of(obj):
    return [entry.additional_data for entry in LogEntry.objects.get_for_object(obj)]


def test_each_decision_is_audited_naming_the_proposals_origin(document, publisher):
    arxiv = actions.corrections.propose(
        target=document,
        changes={"source_identifier": "ARXIV-1604.06174v3"},
        origin=Correction.Origin.ARXIV,
        finding="arxiv:1604.06174:v3",
        via="check_sources",
    )
    reader = actions.corrections.propose(target=document, changes={"year": 2015})

    actions.corrections.accept(correction=arxiv, user=publisher)
    actions.corrections.decline(
        correction=reader, user=publisher, public_reason="As printed."
    )

    accepted = f"correction {arxiv.pk} (from the arXiv check)"
    declined = f"correction {reader.pk} (from a reader)"
    assert via_of(arxiv) == [{"via": accepted}, {"via": "check_sources"}]
    assert via_of(reader) == [{"via": declined}, {"via": "correction form"}]
    [entry] = LogEntry.objects.get_for_object(document.pending_revision())
    assert (entry.actor, entry.additional_data) == (publisher, {"via": accepted})

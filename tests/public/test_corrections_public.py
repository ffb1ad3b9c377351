"""What changed, in public: a published correction is listed on its page
beside the versions, is an entry of the document's, its topic's and the
record's feeds, moves the OAI datestamp and shows in the API; an accepted
correction waiting for publication shows nowhere; an erratum is not a
withdrawal."""

from datetime import UTC, datetime

import pytest
from bs4 import BeautifulSoup
from django.urls import reverse

import actions.corrections
import actions.decisions
import actions.documents
from catalogue.models import Correction, Document
from tests.factories import DecisionRecordFactory, DocumentFactory, TopicFactory
from tests.html import soup_of, text_of
from tests.oai.oai import NS, ask, headers, identifiers

pytestmark = pytest.mark.django_db

ADDED = {"family": "Guestrin", "given": "Carlos"}
LONG_AGO = datetime(2020, 1, 1, tzinfo=UTC)


@pytest.fixture
def document():
    return DocumentFactory(
        number=219,
        title="Memory-efficient training",
        topic=TopicFactory(name="Memory", slug="memory"),
        author_list=[{"family": "Chen", "given": "Tianqi"}],
        authors="Chen et al.",
        # Not 2017, the year a correction below changes it to.
        year=2016,
        published=True,
    )


def corrected(document, publisher, committed, *, publish=True):
    correction = actions.corrections.propose(
        target=document,
        changes={"author_list": [*document.author_list, ADDED]},
        reason="The paper lists two authors.",
    )
    with committed():
        actions.corrections.accept(correction=correction, user=publisher)
        if publish:
            actions.documents.publish(document=document, user=publisher)
    return correction


def corrections_listed(client, path):
    section = soup_of(client.get(path)).select_one("section.corrections")
    return (
        []
        if section is None
        else [li.get_text(" ", strip=True) for li in section("li")]
    )


def test_the_page_lists_a_correction_once_published_and_not_before(
    client, document, publisher, committed
):
    path = document.get_absolute_url()
    assert corrections_listed(client, path) == []  # Cached, and then changed.

    corrected(document, publisher, committed, publish=False)
    assert corrections_listed(client, path) == []
    assert "Guestrin" not in text_of(client, path)

    with committed():
        actions.documents.publish(document=document, user=publisher)
    [listed] = corrections_listed(client, path)
    today = datetime.now(UTC).date().isoformat()
    assert listed == f"{today} : authors corrected (a reader’s correction)"
    assert "Guestrin" in text_of(client, path)
    # Beside the versions: the correction raised v2.
    versions = soup_of(client.get(path)).select("section.versions li")
    assert len(versions) == 2


def test_a_correction_is_an_entry_of_the_documents_topics_and_records_feeds(
    client, document, publisher, committed
):
    feeds = [
        reverse("catalogue:document-feed", args=[document.identifier]),
        reverse("catalogue:topic-feed", args=["memory"]),
        reverse("catalogue:feed"),
    ]
    for path in feeds:
        assert "corrected" not in client.get(path).content.decode()
    corrected(document, publisher, committed)
    notice = document.notices.get()
    for path in feeds:
        feed = client.get(path).content.decode()
        assert "LIT-219 v2 corrected: Memory-efficient training" in feed, path
        assert f"/LIT-219/#notice-{notice.pk}" in feed
    page = soup_of(client.get(document.get_absolute_url()))
    assert page.select_one(f"#notice-{notice.pk}") is not None
    assert page.select_one('link[rel=alternate][href="/LIT-219/feed/"]') is not None


def test_the_document_feed_is_the_documents_alone(client, document):
    other = DocumentFactory(title="Someone else's paper", published=True)
    feed = client.get(f"/{document.identifier}/feed/").content.decode()
    assert "Memory-efficient training" in feed
    assert other.title not in feed
    assert client.get(f"/{DocumentFactory().identifier}/feed/").status_code == 404


def test_an_erratum_is_listed_and_is_not_a_withdrawal(
    client, document, publisher, committed
):
    correction = actions.corrections.propose(
        target=document,
        origin=Correction.Origin.CROSSREF,
        proposes=Correction.Proposes.ERRATUM,
        note="Crossref: a correction was published on 2026-05-02.",
        finding="crossref:10.5555/x:correction:10.5555/y",
    )
    with committed():
        actions.corrections.accept(correction=correction, user=publisher)
    page = soup_of(client.get(document.get_absolute_url()))
    [listed] = corrections_listed(client, document.get_absolute_url())
    assert listed.endswith("erratum (found by the Crossref check)")
    assert page.select_one(".notice.withdrawn") is None
    assert Document.objects.get(pk=document.pk).status == Document.Status.ACTIVE


def test_a_correction_moves_the_oai_datestamp(client, document, publisher, committed):
    Document.objects.filter(pk=document.pk).update(updated_at=LONG_AGO)
    since = {"metadataPrefix": "oai_dc", "from": "2020-01-01T00:00:01Z"}

    def changed():
        return identifiers(ask(client, verb="ListIdentifiers", **since))

    assert changed() == []
    correction = actions.corrections.propose(target=document, changes={"year": 2017})
    assert changed() == []  # A proposal changes nothing readers see.
    with committed():
        actions.corrections.accept(correction=correction, user=publisher)
    assert changed() == []  # Nor does the revision it became, until published.
    with committed():
        actions.documents.publish(document=document, user=publisher)
    assert changed() == ["oai:anthology.invalid:LIT-219"]


def test_the_api_shows_a_documents_notices(client, document, publisher, committed):
    corrected(document, publisher, committed)
    answer = client.get(f"/api/documents/{document.identifier}/").json()
    [notice] = answer["notices"]
    assert notice["kind"] == "corrected"
    assert notice["text"].endswith(": authors corrected (a reader’s correction).")
    assert notice["page_url"].endswith(f"/LIT-219/#notice-{document.notices.get().pk}")


def test_a_decision_records_page_lists_its_corrections(client, publisher, committed):
    decision = DecisionRecordFactory(number=26, title="One axis")
    path = decision.get_absolute_url()
    assert corrections_listed(client, path) == []
    correction = actions.corrections.propose(
        target=decision, changes={"title": "One axis for both registries"}
    )
    with committed():
        actions.corrections.accept(correction=correction, user=publisher)
    assert corrections_listed(client, path) == []
    with committed():
        actions.decisions.publish_decision(decision=decision, user=publisher)
    [listed] = corrections_listed(client, path)
    assert listed.endswith("title corrected (a reader’s correction)")


def everything_readers_read(client, document):
    """What each public address shows of LIT-219, each asked twice (the
    second from whatever cache holds it): its page's corrections, its feeds,
    its OAI record's datestamp and creators, its API notices."""
    path = document.get_absolute_url()
    feeds = [
        reverse("catalogue:document-feed", args=[document.identifier]),
        reverse("catalogue:topic-feed", args=["memory"]),
        reverse("catalogue:feed"),
    ]
    api = f"/api/documents/{document.identifier}/"
    record = {
        "verb": "GetRecord",
        "identifier": "oai:anthology.invalid:LIT-219",
        "metadataPrefix": "oai_dc",
    }
    seen = []
    for _ in range(2):
        oai = ask(client, **record)
        seen.append(
            {
                "page": corrections_listed(client, path),
                "feeds": [
                    "corrected: Memory-efficient training"
                    in client.get(feed).content.decode()
                    for feed in feeds
                ],
                "datestamp": headers(oai)[0][1],
                "creators": oai.xpath("//dc:creator/text()", namespaces=NS),
                "api": [notice["text"] for notice in client.get(api).json()["notices"]],
            }
        )
    assert seen[0] == seen[1]
    return seen[1]


def test_a_correction_decided_on_the_desk_shows_at_every_address_at_once(
    client, admin_client, document, publisher, committed
):
    Document.objects.filter(pk=document.pk).update(updated_at=LONG_AGO)
    correction = actions.corrections.propose(
        target=document,
        changes={"author_list": [*document.author_list, ADDED]},
        reason="The paper lists two authors.",
    )
    before = everything_readers_read(client, document)
    assert before["page"] == [] and before["api"] == []
    assert before["feeds"] == [False, False, False]
    assert before["creators"] == ["Chen, Tianqi"]

    desk = reverse("admin:catalogue_correction_change", args=[correction.pk])
    with committed():
        admin_client.post(desk, {"_accept": "Accept as proposed"})
    assert everything_readers_read(client, document) == before

    review = reverse("admin:catalogue_document_review", args=[document.pk])
    with committed():
        admin_client.post(review, {"_publish": "Publish"})
    after = everything_readers_read(client, document)
    today = datetime.now(UTC).date().isoformat()
    sentence = "authors corrected (a reader’s correction)"
    assert after["page"] == [f"{today} : {sentence}"]
    assert after["feeds"] == [True, True, True]
    assert after["datestamp"] > before["datestamp"]
    assert after["creators"] == ["Chen, Tianqi", "Guestrin, Carlos"]
    [text] = after["api"]
    assert text.endswith(f": {sentence}.")


def test_an_erratum_accepted_on_the_desk_shows_at_every_address_at_once(
    client, admin_client, document, committed
):
    Document.objects.filter(pk=document.pk).update(updated_at=LONG_AGO)
    correction = actions.corrections.propose(
        target=document,
        origin=Correction.Origin.CROSSREF,
        proposes=Correction.Proposes.ERRATUM,
        note="Crossref: corrected 2026-05-02.",
        finding="crossref:10.5555/x:correction:10.5555/y",
    )
    before = everything_readers_read(client, document)

    desk = reverse("admin:catalogue_correction_change", args=[correction.pk])
    with committed():
        admin_client.post(desk, {"_accept": "Accept as proposed"})

    after = everything_readers_read(client, document)
    sentence = "erratum (found by the Crossref check)"
    assert [listed.split(" : ")[1] for listed in after["page"]] == [sentence]
    assert after["feeds"] == [True, True, True]
    assert after["datestamp"] > before["datestamp"]
    assert after["creators"] == before["creators"]
    [text] = after["api"]
    assert text.endswith(f": {sentence}.")


@pytest.mark.parametrize(
    "payload", ["<script>alert(1)</script>", '<img src=x onerror="alert(2)">']
)
def test_html_a_correction_brought_is_text_wherever_it_is_published(
    client, admin_client, document, committed, payload
):
    correction = actions.corrections.propose(
        target=document,
        changes={
            "title": f"Memory-efficient training {payload}",
            "authors": f"Chen {payload}",
            "author_list": [*document.author_list, {"family": payload, "given": "X"}],
            "venue": payload,
        },
        note=payload,
        reason=payload,
    )
    retraction = actions.corrections.propose(
        target=DocumentFactory(number=220, published=True),
        origin=Correction.Origin.CROSSREF,
        proposes=Correction.Proposes.WITHDRAWAL,
        note=f"Crossref: retracted 2026-05-02 ({payload}).",
        finding="crossref:10.5555/x:retraction:10.5555/y",
    )
    with committed():
        for proposal in correction, retraction:
            admin_client.post(
                reverse("admin:catalogue_correction_change", args=[proposal.pk]),
                {"_accept": "Accept as proposed"},
            )
        admin_client.post(
            reverse("admin:catalogue_document_review", args=[document.pk]),
            {"_publish": "Publish"},
        )

    for path in ["/LIT-219/", "/LIT-220/", "/LIT-219/v2/"]:
        response = client.get(path)
        assert response.status_code == 200, path
        main = soup_of(response).select_one("main")
        assert main.select("script, img") == [], path
        assert payload in main.get_text(), path
        assert payload not in response.content.decode(), path
    for path in ["/feed/", "/LIT-219/feed/"]:
        response = client.get(path)
        assert response.status_code == 200, path
        assert payload.encode() not in response.content, path
    api = client.get("/api/documents/LIT-219/")
    assert api["Content-Type"] == "application/json"
    assert api.json()["title"] == f"Memory-efficient training {payload}"


def test_a_decision_records_correction_shows_in_the_api_once_published(
    client, publisher, committed
):
    decision = DecisionRecordFactory(number=26, title="One axis")
    api = f"/api/decision-logs/{decision.log.slug}/records/ADR-026/"
    assert client.get(api).json()["corrections"] == []
    correction = actions.corrections.propose(
        target=decision, changes={"title": "One axis for both registries"}
    )
    with committed():
        actions.corrections.accept(correction=correction, user=publisher)
    assert client.get(api).json()["corrections"] == []

    with committed():
        actions.decisions.publish_decision(decision=decision, user=publisher)

    answer = client.get(api).json()
    correction.refresh_from_db()
    assert answer["title"] == "One axis for both registries"
    assert answer["corrections"] == [
        {
            "at": correction.published_at.isoformat().replace("+00:00", "Z"),
            "text": "title corrected (a reader’s correction)",
            "page_url": (
                f"http://testserver{decision.get_absolute_url()}"
                f"#correction-{correction.pk}"
            ),
        }
    ]


def test_a_decision_records_correction_is_an_entry_of_its_logs_feed(
    client, publisher, committed
):
    decision = DecisionRecordFactory(number=26, title="One axis")
    feed = reverse("catalogue:decision-feed")
    for _ in range(2):
        assert "corrected" not in client.get(feed).content.decode()
    correction = actions.corrections.propose(
        target=decision, changes={"title": "One axis for both registries"}
    )
    with committed():
        actions.corrections.accept(correction=correction, user=publisher)
        actions.decisions.publish_decision(decision=decision, user=publisher)

    answer = client.get(feed)
    assert answer.status_code == 200
    entries = BeautifulSoup(answer.content, "xml").select("entry")
    page = f"http://testserver{decision.get_absolute_url()}"
    assert [entry.id.get_text() for entry in entries] == [
        f"{page}#correction-{correction.pk}",
        page,
    ]
    assert entries[0].title.get_text() == (
        "ADR-026 corrected: One axis for both registries"
    )
    assert (
        entries[0]
        .summary.get_text()
        .endswith(": title corrected (a reader’s correction).")
    )

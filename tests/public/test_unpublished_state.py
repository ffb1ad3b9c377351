"""Nothing public derives from unpublished state.

A crawl of the whole public site (every page a link, a sitemap or a feed
leads to, the citation downloads included) is taken; then drafts, documents
in review, pending revisions (one scheduled for publication), preview links
of a draft and of a pending revision, a draft decision record superseding a
public one, a registry holding only drafts and a decision log holding only drafts
are added through the services, each
naming public records (a draft naming a public document's author, with a
co-author and a venue of its own, and a pending revision renaming an author
too). The crawl is taken again: every page must still be
served from the cache with the same validators (nothing was expired), and,
rendered afresh, be byte for byte what it was, with no page more or less.
"""

import datetime
import re
from urllib.parse import urljoin, urlsplit

import pytest
from django.core.cache import cache
from django.urls import URLPattern, resolve, reverse
from django.utils import timezone

import actions.decisions
import actions.documents
import actions.previews
import actions.review
import actions.schedules
import api.urls
from catalogue.models import Preface, Registry
from catalogue.references import write_references
from tests.factories import DecisionRecordFactory, DocumentFactory, TopicFactory

pytestmark = pytest.mark.django_db

LINK = re.compile(
    rb'(?:href|src)="(/[^"]*)"|<loc>http://testserver(/[^<]*)</loc>'
    # The API's answers link by absolute address, in JSON and in Link headers.
    rb'|"http://testserver(/api/[^"]*)"|<http://testserver(/api/[^>]*)>'
)
# The API's reference page shows no record: it is read from the API's
# description, /api/schema/, which is crawled.
LEFT_OUT = ("/admin/", "/export/", "/static/", "/api/docs/")
# So does a correction form; what it holds is tested in tests/corrections.
LEFT_OUT_FORMS = "/correct/"


# Where readers start: the index, the sitemap and a search or two.
STARTS = [
    "/",
    "/statistics/",
    "/sitemap.xml",
    "/search/?q=memory",
    "/search/?q=DRAFT-001",
    "/search/?q=ADR-099",
    "/search/?q=LIT-012",
    # People and venues: a draft's author is never listed, found or counted.
    "/people/",
    "/venues/",
    "/search/?q=Secret+Coauthor",
    "/search/?q=Liu",
    # What harvesters read (OAI-PMH): every verb, each format, a set of drafts.
    "/oai/?verb=Identify",
    "/oai/?verb=ListMetadataFormats",
    "/oai/?verb=ListSets",
    "/oai/?verb=ListIdentifiers&metadataPrefix=oai_dc",
    "/oai/?verb=ListRecords&metadataPrefix=oai_dc",
    "/oai/?verb=ListRecords&metadataPrefix=mods",
    "/oai/?verb=ListRecords&metadataPrefix=mods&set=registry:DRAFT",
    "/oai/?verb=GetRecord&metadataPrefix=mods&identifier=oai:anthology.invalid:LIT-004",
    "/oai/?verb=GetRecord&metadataPrefix=mods&identifier=oai:anthology.invalid:LIT-012",
    # The API: its root names every list, each row its detail.
    "/api/",
]
# The one part of an answer that is the time it was made, not the record.
RESPONSE_DATE = re.compile(rb"<responseDate>[^<]*</responseDate>")


def api_url_names():
    return {
        pattern.name
        for pattern in api.urls.urlpatterns
        if isinstance(pattern, URLPattern) and pattern.name
    }


def crawl(client):
    """``{path: response}`` for every page reachable from ``STARTS``."""
    seen, queue = {}, list(STARTS)
    while queue:
        path = queue.pop()
        if path in seen or path.startswith(LEFT_OUT) or path.endswith(LEFT_OUT_FORMS):
            continue
        response = client.get(path)
        seen[path] = response
        if response.status_code != 200 or not hasattr(response, "content"):
            continue
        found = response.content + response.get("Link", "").encode()
        for match in LINK.finditer(found):
            link = next(group for group in match.groups() if group)
            link = link.decode().replace("&amp;", "&")
            queue.append(urlsplit(urljoin(path, link))._replace(fragment="").geturl())
    return seen


def validators(pages):
    """Each page's status and ETag, made from the generations it was stored
    under (Last-Modified is made from them too, and is left out within the
    second they were minted)."""
    return {path: (r.status_code, r.get("ETag")) for path, r in pages.items()}


def bodies(pages):
    return {
        path: (
            r.status_code,
            RESPONSE_DATE.sub(b"", r.content) if hasattr(r, "content") else b"",
        )
        for path, r in pages.items()
    }


@pytest.fixture
def public_record(publisher, committed):
    """Two topics, three public documents naming each other and their
    authors (one at OSDI), a tag, two public decision records (one naming a
    document) and a preface."""
    first = TopicFactory(name="Memory", slug="memory")
    TopicFactory(name="Evaluation", slug="evaluation")
    with committed():
        documents = [
            DocumentFactory(
                number=number,
                topic=first,
                draft=True,
                author_list=authors,
                authors=" and ".join(author["family"] for author in authors),
                **venue,
            )
            for number, authors, venue in [
                (4, [YANG_LIU, DOUILLARD], {}),
                (7, [DOUILLARD], {"citation_note": "OSDI ‘21"}),
                (9, [YANG_LIU], {}),
            ]
        ]
        documents[1].summary = "Builds on LIT-004; see ADR-003."
        documents[1].save()
        for document in documents:
            document.tags.add("checkpointing")
            actions.documents.publish(document=document, user=publisher)
        DecisionRecordFactory(number=3, title="Keep the record public")
        DecisionRecordFactory(number=5, body="We cite LIT-007.")
        write_references(decisions=list(actions.decisions.DecisionRecord.objects.all()))
        Preface.objects.create(text="Start with LIT-004 and ADR-003.")
    return documents


YANG_LIU = {"family": "Liu", "given": "Yang"}
DOUILLARD = {"family": "Douillard", "given": "Arthur"}


def add_unpublished_state(publisher, editor, documents):
    """Everything readers must not see, each naming public records."""
    draft_registry = Registry.objects.create(prefix="DRAFT", name="Only drafts")
    draft = DocumentFactory(
        registry=draft_registry,
        number=1,
        draft=True,
        title="A draft in a registry of drafts",
        summary="Supersedes LIT-004 and ADR-003 one day.",
        topic=documents[0].topic,
    )
    draft.tags.add("secret-tag")
    write_references(documents=[draft])
    in_review = DocumentFactory(
        registry=documents[0].registry, number=12, draft=True, topic=documents[0].topic
    )
    in_review.summary = "Replaces LIT-009."
    in_review.save()
    in_review.tags.add("checkpointing", "unseen")
    actions.documents.submit_for_review(document=in_review, user=editor)
    # A draft naming a public document's author, with a co-author and a venue
    # of its own, saved as editors save one (its positions linked to people).
    actions.documents.save_document(
        document=DocumentFactory.build(
            registry=documents[0].registry,
            number=30,
            topic=documents[0].topic,
            author_list=[YANG_LIU, {"family": "Coauthor", "given": "Secret"}],
            authors="Liu and Coauthor",
            citation_note="OSDI ‘25",
            source_identifier="",
        ),
        user=editor,
    )
    actions.documents.edit_document(
        document=documents[0],
        user=editor,
        changes={
            "title": "A pending title",
            "summary": "Now naming LIT-009.",
            "author_list": [{"family": "Pending", "given": "Person"}, DOUILLARD],
            "authors": "Pending and Douillard",
        },
    )
    successor = actions.decisions.DecisionRecord(
        number=99, title="A draft successor", body="Replaces ADR-003; cites LIT-004."
    )
    actions.decisions.save_decision(
        decision=successor,
        user=publisher,
        supersedes=list(actions.decisions.DecisionRecord.objects.filter(number=3)),
    )
    # A team's log holding only a draft: no page, feed, image or API answer.
    drafts_only = actions.decisions.open_log(
        name="Drafts only", prefix="DRAFTLOG", user=publisher, via="a test"
    )
    actions.decisions.save_decision(
        decision=actions.decisions.DecisionRecord(
            log=drafts_only, number=1, title="A draft of a log of drafts"
        ),
        user=publisher,
        supersedes=[],
    )
    published = actions.decisions.DecisionRecord.objects.get(number=5)
    published.body = "A pending body citing LIT-009."
    actions.decisions.save_decision(decision=published, user=publisher, supersedes=[])
    # Preview links of the draft and of the pending revision, and the
    # revision's publication scheduled for tomorrow: none shows anywhere.
    for previewed in (draft, documents[0]):
        actions.previews.make_link(document=previewed, user=publisher)
    actions.schedules.schedule(
        document=documents[0],
        kind="publish",
        at=timezone.now() + datetime.timedelta(days=1),
        user=publisher,
    )
    # The review conversation: comments on a draft in review, a pending
    # revision and a decision record's, one sent back, one assigned.
    for subject, field, user in [
        (in_review, "summary", editor),
        (documents[0], "title", editor),
        (published, "body", publisher),
        (successor, "", publisher),
    ]:
        actions.review.comment(
            subject=subject, user=user, body=f"{REVIEW_MARKER} on LIT-004.", field=field
        )
    actions.review.send_back(
        subject=in_review, user=publisher, body=f"{REVIEW_MARKER}: again."
    )
    actions.review.assign(subject=documents[0], user=publisher, assignee=publisher)


# In every comment of a review: found on no public page, feed or answer.
REVIEW_MARKER = "Reviewer-note-7f3a"


def test_unpublished_state_changes_no_public_page(
    client, public_record, publisher, editor, committed
):
    before = crawl(client)
    assert len(before) > 40  # The crawl reached the whole site.
    # The people and venue pages and feeds too.
    assert {
        "/people/",
        "/people/yang-liu/",
        "/people/yang-liu/feed/",
        "/people/arthur-douillard/",
        "/venues/",
        "/venues/osdi/",
    } <= set(before)
    # And every URL of the API: its docs page, its problem types (which show
    # nothing of the record) and a second file of one number aside, which
    # this record has none of.
    reached = {resolve(urlsplit(path).path).url_name for path in before}
    unseen = {"docs", "problem-type", "decision-record-twin"}
    assert api_url_names() - unseen <= reached

    with committed():
        add_unpublished_state(publisher, editor, public_record)
    cached = crawl(client)
    cache.clear()
    rendered = crawl(client)

    assert validators(cached) == validators(before)
    assert bodies(rendered) == bodies(before)
    # No public page, feed, API or OAI answer leads to a preview link.
    assert [path for path in rendered if path.startswith("/preview/")] == []
    marker = REVIEW_MARKER.encode()
    assert [
        path for path, (_, body) in bodies(rendered).items() if marker in body
    ] == []


@pytest.mark.parametrize(
    "path",
    [
        "/registries/DRAFT/",
        "/DRAFT-001/",
        "/LIT-012/",
        "/tags/secret-tag/",
        "/tags/unseen/",
        "/people/secret-coauthor/",
        "/people/secret-coauthor/feed/",
        "/people/pending-person/",
        "/decisions/ADR-099/",
        "/api/registries/DRAFT/",
        "/api/documents/DRAFT-001/",
        "/api/documents/LIT-012/",
        "/api/tags/secret-tag/",
        "/api/tags/unseen/",
        "/api/decision-logs/anthology/records/ADR-099/",
        "/decisions/drafts-only/",
        "/decisions/drafts-only/?status=accepted",
        "/decisions/drafts-only/feed/",
        "/decisions/drafts-only/DRAFTLOG-001/",
        "/api/decision-logs/drafts-only/",
        "/api/decision-logs/drafts-only/records/",
        "/api/decision-logs/drafts-only/records/DRAFTLOG-001/",
    ],
)
def test_unpublished_records_have_no_page(
    client, public_record, publisher, editor, committed, path
):
    with committed():
        add_unpublished_state(publisher, editor, public_record)

    assert client.get(path).status_code == 404


def test_the_draft_successor_marks_its_record_superseded_once_published(
    client, public_record, publisher, editor, committed
):
    with committed():
        add_unpublished_state(publisher, editor, public_record)
    older = reverse("catalogue:decision-detail", args=["ADR-003"])
    assert b"Superseded" not in client.get(older).content

    with committed():
        actions.decisions.publish_decision(
            decision=actions.decisions.DecisionRecord.objects.get(number=99),
            user=publisher,
        )

    page = client.get(older).content.decode()
    assert "Superseded by" in page and "ADR-099" in page
    assert "(superseded by" in client.get("/").content.decode()  # The preface.

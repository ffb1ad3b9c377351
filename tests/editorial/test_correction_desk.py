"""The desk's queue of proposed corrections: the list (waiting first, its
origin, target, fields and age, in a number of queries that does not grow
with the queue), a proposal's page (the diff against what readers see now,
the reader's words, the address for publishers alone, the source check), and
the decisions taken from it and from the list, by publishers only."""

import pytest
from django.contrib.messages import get_messages
from django.core import mail
from django.core.exceptions import ValidationError
from django.urls import reverse

import actions.corrections
import actions.documents
from catalogue.models import Correction, Document
from tests.factories import DecisionRecordFactory, DocumentFactory
from tests.html import form_data, soup_of

pytestmark = pytest.mark.django_db

QUEUE = reverse("admin:catalogue_correction_changelist")
DESK = reverse("admin:index")
CHEN = {"family": "Chen", "given": "Tianqi"}
XU = {"family": "Xu", "given": "Bing"}
ZHANG = {"family": "Zhang", "given": "Chiyuan"}
GUESTRIN = {"family": "Guestrin", "given": "Carlos"}
TITLE = "Training Deep Nets with Sublinear Memory Cost"
FAMILIES = ["Chen", "Xu", "Zhang", "Guestrin", "Li", "Zhao", "Varma", "Salpekar"]
FAMILIES += ["Noordhuis", "Paszke"]


def page_of(correction):
    return reverse("admin:catalogue_correction_change", args=[correction.pk])


def edit_page_of(correction):
    return reverse("admin:catalogue_correction_edit", args=[correction.pk])


def said(response):
    return [str(message) for message in get_messages(response.wsgi_request)]


def texts(soup, selector):
    return [" ".join(e.get_text(" ").split()) for e in soup.select(selector)]


def text(soup, selector):
    return " ".join(soup.select_one(selector).get_text(" ").split())


@pytest.fixture
def document():
    """LIT-004, citing arXiv 1604.06174 with three of its four authors."""
    return DocumentFactory(
        number=4,
        title=TITLE,
        authors="Chen et al.",
        year=2016,
        source_identifier="ARXIV-1604.06174",
        author_list=[CHEN, XU, ZHANG],
        published=True,
    )


def propose(document, changes=None, **extra):
    extra.setdefault("reason", "The arXiv page lists a fourth author.")
    return actions.corrections.propose(target=document, changes=changes, **extra)


@pytest.fixture
def coauthor(document):
    """A reader's proposal adding Carlos Guestrin, with an address."""
    return propose(
        document,
        {"author_list": [CHEN, XU, ZHANG, GUESTRIN]},
        note="Guestrin is missing.",
        email="reader@example.org",
    )


# The queue.


def test_the_queue_lists_waiting_proposals_first_with_origin_target_fields_and_age(
    admin_client, admin_user, document
):
    other = DocumentFactory(number=7, title="Unrelated work", year=2000, published=True)
    declined = propose(other, {"year": 2001})
    actions.corrections.decline(
        correction=declined, user=admin_user, public_reason="It is 2000."
    )
    first = propose(document, {"title": f"{TITLE}s", "year": 2017})
    found = actions.corrections.propose(
        target=document,
        changes={"source_identifier": "ARXIV-1604.06174v3"},
        origin=Correction.Origin.ARXIV,
        finding="arxiv:1604.06174:v3",
    )

    soup = soup_of(admin_client.get(QUEUE))

    rows = soup.select("#result_list tbody tr")
    assert [texts(row, "td, th")[1:] for row in rows] == [
        [
            "Title and year",
            "a reader",
            f"LIT-004 {TITLE} public page",
            "0 minutes",
            "Waiting",
        ],
        [
            "arXiv v3 noted",
            "the arXiv check",
            f"LIT-004 {TITLE} public page",
            "0 minutes",
            "Waiting",
        ],
        [
            "Year",
            "a reader",
            "LIT-007 Unrelated work public page",
            "0 minutes",
            "Declined",
        ],
    ]
    assert rows[0].select_one("th a")["href"] == page_of(first)
    assert [a["href"] for a in rows[1].select("td a")] == [
        reverse("admin:catalogue_document_change", args=[document.pk]),
        document.get_absolute_url(),
    ]
    assert found.pk != first.pk


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("status__exact=pending", ["Title", "arXiv v3 noted"]),
        ("status__exact=declined", ["Year"]),
        ("origin__exact=arxiv", ["arXiv v3 noted"]),
        ("origin__exact=reader&status__exact=pending", ["Title"]),
    ],
)
def test_the_queue_filters_by_status_and_origin(
    admin_client, admin_user, document, query, expected
):
    declined = propose(document, {"year": 2001})
    actions.corrections.decline(
        correction=declined, user=admin_user, public_reason="It is 2016."
    )
    propose(document, {"title": f"{TITLE}s"})
    actions.corrections.propose(
        target=document,
        changes={"source_identifier": "ARXIV-1604.06174v3"},
        origin=Correction.Origin.ARXIV,
        finding="arxiv:1604.06174:v3",
    )

    soup = soup_of(admin_client.get(f"{QUEUE}?{query}"))

    assert texts(soup, "#result_list tbody th") == expected


def many_proposals(n):
    """``n`` proposals spread over ten documents, each kept by the action
    readers' form calls. That is slow (each proposal is some twenty queries:
    the row locked, the values checked as a held edit would be, the
    constraints checked, the audit entry) and still the way: a proposal made
    any other way would not be one the desk meets."""
    # Authors of their own, so that no two documents make the desk a
    # proposal that two people are one.
    documents = [
        DocumentFactory(authors=f"{family} et al.", published=True)
        for family in FAMILIES
    ]
    for index in range(n):
        propose(documents[index % 10], {"title": f"Corrected title {index}"})


# Three pages of the queue (50 a page) against part of one.
@pytest.mark.parametrize("n", [10, 120])
def test_the_queue_and_the_desk_cost_the_same_queries_at_any_size(
    admin_client, django_assert_num_queries, n
):
    many_proposals(n)
    admin_client.get(QUEUE)  # Warm the session and content-type caches.

    with django_assert_num_queries(6):
        queue = admin_client.get(QUEUE)
    # One more than the queues: the schedules; four more the review queue's:
    # its two counts and its two lists.
    with django_assert_num_queries(19):
        desk = admin_client.get(DESK)

    assert len(soup_of(queue).select("#result_list tbody tr")) == min(n, 50)
    assert f"{n} Corrections waiting" in texts(soup_of(desk), ".desk .queues li a")


def test_the_desk_links_the_waiting_corrections(admin_client, coauthor):
    soup = soup_of(admin_client.get(DESK))
    [link] = [
        a for a in soup.select(".desk .queues li a") if "Corrections" in a.get_text()
    ]
    assert " ".join(link.get_text().split()) == "1 Corrections waiting"
    assert link["href"] == f"{QUEUE}?status__exact=pending"


# A proposal's page.


def test_the_page_compares_each_field_with_what_readers_see_now(
    admin_client, document, coauthor
):
    soup = soup_of(admin_client.get(page_of(coauthor)))

    assert text(soup, ".correction-facts").startswith(
        f"Authors of LIT-004 ({TITLE}; its public page ): an edit of the fields, "
        "proposed by a reader on "
    )
    assert text(soup, ".correction-facts").endswith("(0 minutes ago). Waiting.")
    assert texts(soup, ".comparison dt") == ["Author list"]
    assert [str(ins) for ins in soup.select(".comparison dd ins")] == [
        '<ins class="diff">Guestrin, Carlos</ins>'
    ]
    assert text(soup, ".correction-version") == (
        "Proposed against v1, which readers still see."
    )
    assert text(soup, ".correction-note") == "Guestrin is missing."
    assert text(soup, ".correction-reason") == "The arXiv page lists a fourth author."


def test_the_page_says_when_the_document_changed_since_it_was_proposed(
    admin_client, admin_user, document
):
    correction = propose(document, {"title": "Training Deep Nets, Sublinear Cost"})
    actions.documents.edit_document(
        document=document,
        user=admin_user,
        changes={"title": "Training Deep Nets with Sublinear Memory"},
    )
    actions.documents.publish(document=document, user=admin_user)

    soup = soup_of(admin_client.get(page_of(correction)))

    assert text(soup, ".correction-version") == (
        "Proposed when readers saw v1; readers see v2 now: the document changed "
        "since, and each field below is compared with v2."
    )
    # Compared with v2's title, not with v1's kept in the proposal.
    diff = soup.select_one(".comparison dd")
    for inserted in diff.select("ins"):
        inserted.decompose()
    assert diff.get_text() == "Training Deep Nets with Sublinear Memory"
    assert text(soup, ".correction-then") == (
        f"When it was proposed, readers saw: {TITLE}"
    )


def test_the_address_is_shown_to_publishers_alone(
    client, admin_client, editor, publisher, coauthor
):
    client.force_login(publisher)
    shown = soup_of(client.get(page_of(coauthor)))
    client.force_login(editor)
    hidden = client.get(page_of(coauthor))

    assert text(shown, ".correction-email") == (
        "reader@example.org (personal data: for the outcome alone)"
    )
    assert text(soup_of(hidden), ".correction-email") == "Given; publishers see it."
    assert "reader@example.org" not in hidden.content.decode()


def test_editors_see_the_proposal_and_get_no_buttons(client, editor, coauthor):
    client.force_login(editor)

    soup = soup_of(client.get(page_of(coauthor)))
    queue = soup_of(client.get(QUEUE))

    assert soup.select("input[type=submit]") == []
    assert soup.select(".correction-decline") == []
    assert queue.select("select[name=action]") == []
    refused = client.post(page_of(coauthor), {"_accept": "Accept"})
    assert refused.status_code == 403
    assert client.get(edit_page_of(coauthor)).status_code == 403
    coauthor.refresh_from_db()
    assert coauthor.status == Correction.Status.PENDING


# The source check.


def test_the_check_compares_the_proposal_with_arxiv(
    admin_client, metadata_sources, coauthor
):
    soup = soup_of(admin_client.get(page_of(coauthor)))

    assert text(soup, ".source-check") == (
        "ARXIV-1604.06174: arXiv agrees on the title; arXiv lists 4 authors, the "
        "proposal 4; arXiv and the proposal name the same authors; arXiv agrees on "
        "the year, 2016."
    )


def test_the_check_names_what_arxiv_and_the_proposal_disagree_on(
    admin_client, metadata_sources, document
):
    correction = propose(
        document,
        {
            "title": "Training Deep Networks Cheaply",
            "author_list": [CHEN, XU, {"family": "Li", "given": "Mu"}],
            "year": 2017,
        },
    )

    soup = soup_of(admin_client.get(page_of(correction)))

    assert text(soup, ".source-check") == (
        "ARXIV-1604.06174: arXiv gives the title “Training Deep Nets with Sublinear "
        "Memory Cost”, the proposal “Training Deep Networks Cheaply”; arXiv lists 4 "
        "authors, the proposal 3; arXiv names Chiyuan Zhang, Carlos Guestrin, whom "
        "the proposal does not; the proposal names Mu Li, whom arXiv does not; arXiv "
        "gives the year 2016, the proposal 2017."
    )


def test_the_check_looks_up_the_proposed_identifier_once(
    admin_client, metadata_sources, document
):
    correction = propose(document, {"source_identifier": "ARXIV-2105.05720"})
    metadata_sources.requests.clear()

    first = soup_of(admin_client.get(page_of(correction)))
    again = soup_of(admin_client.get(page_of(correction)))

    assert text(first, ".source-check").startswith(
        "ARXIV-2105.05720: arXiv gives the title “Breaking the Computation"
    )
    assert text(again, ".source-check") == text(first, ".source-check")
    assert [path for path, _ in metadata_sources.requests] == ["/arxiv/api/query"]


@pytest.mark.parametrize(
    ("identifier", "said_here"),
    [
        ("ARXIV-9999.99999", "ARXIV-9999.99999: arXiv knows no paper 9999.99999."),
        (
            "",
            "The record cites no arXiv id or DOI, proposed or current, to look up.",
        ),
    ],
)
def test_a_check_that_cannot_answer_says_why(
    admin_client, metadata_sources, document, identifier, said_here
):
    correction = propose(document, {"source_identifier": identifier})

    soup = soup_of(admin_client.get(page_of(correction)))

    assert text(soup, ".source-check") == said_here


def test_an_unreachable_source_is_a_message_not_an_error(
    admin_client, offline_sources, coauthor
):
    soup = soup_of(admin_client.get(page_of(coauthor)))

    assert text(soup, ".source-check").startswith("ARXIV-1604.06174: ")
    assert "arXiv" in text(soup, ".source-check-failure")


# Deciding, from the proposal's page.


def test_accepting_holds_the_edit_and_links_the_review(
    client, publisher, document, coauthor
):
    client.force_login(publisher)

    response = client.post(page_of(coauthor), {"_accept": "Accept as proposed"})

    review = reverse("admin:catalogue_document_review", args=[document.pk])
    assert response.status_code == 302
    assert said(response) == [
        "Accepted the correction of LIT-004 (authors): it waits in the pending "
        f'revision. <a href="{review}">Review and publish it</a>.'
    ]
    coauthor.refresh_from_db()
    assert coauthor.status == Correction.Status.ACCEPTED
    assert document.pending_revision().author_list == [CHEN, XU, ZHANG, GUESTRIN]
    soup = soup_of(client.get(page_of(coauthor)))
    assert soup.select_one(".correction-next a")["href"] == review
    assert soup.select("input[name=_accept]") == []
    # The review page publishes it the usual way.
    client.post(review, {"_publish": "Publish"})
    coauthor.refresh_from_db()
    assert coauthor.status == Correction.Status.PUBLISHED
    assert Document.objects.get(pk=document.pk).author_list[-1] == GUESTRIN


def test_edit_then_accept_is_prefilled_with_the_proposal(
    client, publisher, document, coauthor
):
    client.force_login(publisher)

    soup = soup_of(client.get(edit_page_of(coauthor)))

    proposed = soup.select("fieldset")[0]
    assert [label.get_text() for label in proposed.select("label")] == ["Author list"]
    assert proposed.select_one("textarea").get_text().strip() == (
        "Chen, Tianqi\nXu, Bing\nZhang, Chiyuan\nGuestrin, Carlos"
    )
    assert soup.select_one("#id_title")["value"] == TITLE


def test_edit_then_accept_sets_the_summary_of_a_note_only_proposal(
    client, publisher, document
):
    correction = propose(document, note="The summary says 48G; the paper says 48GB.")
    client.force_login(publisher)
    refused = client.post(page_of(correction), {"_accept": "Accept as proposed"})
    assert said(refused) == [
        "The correction changes no field: edit what it asks for, then accept it, "
        "or decline it."
    ]

    data = form_data(client.get(edit_page_of(correction)), "form.correction-edit")
    data.update(summary="A 1,000-layer ResNet drops from 48GB to 7GB.", note="48GB")
    response = client.post(edit_page_of(correction), data)

    assert response.status_code == 302, response.content.decode()
    correction.refresh_from_db()
    assert correction.status == Correction.Status.ACCEPTED
    assert correction.changes == {}
    assert correction.accepted_changes == {
        "summary": "A 1,000-layer ResNet drops from 48GB to 7GB."
    }
    revision = document.pending_revision()
    assert revision.summary == "A 1,000-layer ResNet drops from 48GB to 7GB."
    assert revision.title == TITLE
    assert revision.note == f"Correction {correction.pk} (from a reader): 48GB"


def test_edit_then_accept_takes_the_publishers_values_over_the_proposal(
    client, publisher, document
):
    correction = propose(document, {"year": 2015})
    client.force_login(publisher)
    data = form_data(client.get(edit_page_of(correction)), "form.correction-edit")
    assert data["year"] == "2015"
    data["year"] = "99"

    refused = client.post(edit_page_of(correction), data)
    soup = soup_of(refused)
    assert soup.select_one(".errorlist")
    data["year"] = "2016"
    data["venue"] = "arXiv preprint"
    client.post(edit_page_of(correction), data)

    correction.refresh_from_db()
    assert correction.changes == {"year": 2015}
    assert correction.accepted_changes == {"year": 2016, "venue": "arXiv preprint"}
    assert document.pending_revision().venue == "arXiv preprint"


def test_declining_keeps_both_reasons(client, publisher, coauthor):
    client.force_login(publisher)

    missing = client.post(page_of(coauthor), {"_decline": "Decline"})
    assert soup_of(missing).select_one(".correction-decline .errorlist")
    response = client.post(
        page_of(coauthor),
        {
            "_decline": "Decline",
            "public_reason": "Guestrin is not an author of this version.",
            "private_reason": "Checked v1 and v2.",
        },
    )

    assert said(response) == [
        "Declined the correction of LIT-004: the reader is mailed your public reason."
    ]
    coauthor.refresh_from_db()
    assert coauthor.status == Correction.Status.DECLINED
    assert coauthor.public_reason == "Guestrin is not an author of this version."
    assert coauthor.private_reason == "Checked v1 and v2."
    assert coauthor.decided_by == publisher
    soup = soup_of(client.get(page_of(coauthor)))
    assert text(soup, ".correction-private-reason") == "Checked v1 and v2."
    assert soup.select("input[name=_decline]") == []


def test_a_private_reason_alone_declines_and_tells_the_reader_no_reason(
    client, publisher, coauthor, committed
):
    client.force_login(publisher)

    with committed():
        response = client.post(
            page_of(coauthor),
            {"_decline": "Decline", "private_reason": "The third time this week."},
        )

    assert said(response) == [
        "Declined the correction of LIT-004: the reader is mailed that it was "
        "declined, with no reason."
    ]
    coauthor.refresh_from_db()
    assert (coauthor.status, coauthor.public_reason, coauthor.private_reason) == (
        Correction.Status.DECLINED,
        "",
        "The third time this week.",
    )
    [sent] = mail.outbox
    assert "The editors declined it." in sent.body
    assert "reason" not in sent.body
    assert "third time" not in sent.body
    follow = soup_of(client.get(f"/corrections/{coauthor.token()}/"))
    assert text(follow, ".public-reason") == "None given."


def test_declining_with_no_reason_at_all_is_refused_and_changes_nothing(
    client, publisher, coauthor
):
    client.force_login(publisher)

    response = client.post(
        page_of(coauthor), {"_decline": "Decline", "public_reason": "  "}
    )

    assert texts(soup_of(response), ".correction-decline .errorlist li") == [
        "Give a public reason (the reader’s), a private one (the desk’s), or both."
    ]
    coauthor.refresh_from_db()
    assert coauthor.status == Correction.Status.PENDING
    with pytest.raises(ValidationError) as refused:
        actions.corrections.decline(correction=coauthor, user=publisher)
    assert refused.value.code == "no_reason"


def test_a_decision_records_correction_is_compared_and_accepted_into_its_revision(
    client, publisher
):
    decision = DecisionRecordFactory(number=26, title="One axis for both registries")
    correction = actions.corrections.propose(
        target=decision,
        changes={"title": "One axis for both registers"},
        reason="The record calls them registers.",
    )
    client.force_login(publisher)

    soup = soup_of(client.get(page_of(correction)))
    assert texts(soup, ".comparison dd del") == ["registries"]
    assert texts(soup, ".comparison dd ins") == ["registers"]
    assert text(soup, ".source-check") == "A decision record cites no work to look up."
    assert soup.select(".correction-version") == []
    response = client.post(page_of(correction), {"_accept": "Accept as proposed"})

    change = reverse("admin:catalogue_decisionrecord_change", args=[decision.pk])
    assert said(response) == [
        "Accepted the correction of ADR-026 (title): it waits in the pending "
        f'revision. <a href="{change}">Review and publish it</a>.'
    ]
    assert decision.pending_revision().title == "One axis for both registers"


def test_an_erratum_is_noted_at_once_and_a_retraction_withdraws(
    client, publisher, document
):
    erratum = propose(
        document,
        proposes=Correction.Proposes.ERRATUM,
        note="The authors posted an erratum to Table 2.",
    )
    other = DocumentFactory(number=7, published=True)
    retraction = actions.corrections.propose(
        target=other,
        proposes=Correction.Proposes.WITHDRAWAL,
        origin=Correction.Origin.CROSSREF,
        note="Crossref: retracted 2026-05-02.",
        finding="crossref:retracted:2026-05-02",
    )
    client.force_login(publisher)

    buttons = [
        soup_of(client.get(page_of(c))).select_one("input[name=_accept]")["value"]
        for c in (erratum, retraction)
    ]
    noted = client.post(page_of(erratum), {"_accept": "pressed"}, follow=True)
    withdrawn = client.post(page_of(retraction), {"_accept": "pressed"}, follow=True)

    assert buttons == ["Accept: note the erratum", "Accept: withdraw LIT-007"]
    assert soup_of(client.get(page_of(erratum))).select(".correction-edit") == []
    assert texts(soup_of(noted), ".messagelist li") == [
        "Accepted the erratum of LIT-004: its page notes it now."
    ]
    assert texts(soup_of(withdrawn), ".messagelist li") == [
        "Accepted the retraction of LIT-007: it is withdrawn."
    ]
    other.refresh_from_db()
    assert other.status == Document.Status.WITHDRAWN
    assert other.withdrawal_reason == "Crossref: retracted 2026-05-02."
    assert set(Correction.objects.values_list("status", flat=True)) == {
        Correction.Status.PUBLISHED
    }


def test_accepting_joins_the_pending_revision_the_page_names(
    client, publisher, document, coauthor
):
    actions.documents.edit_document(
        document=document, user=publisher, changes={"summary": "An editor's edit."}
    )
    client.force_login(publisher)

    soup = soup_of(client.get(page_of(coauthor)))
    client.post(page_of(coauthor), {"_accept": "Accept as proposed"})

    review = reverse("admin:catalogue_document_review", args=[document.pk])
    assert text(soup, ".correction-version") == (
        "Proposed against v1, which readers still see. LIT-004 has a pending "
        "revision: accepting adds to it ( review it )."
    )
    assert soup.select_one(".correction-version a")["href"] == review
    revision = document.pending_revision()
    assert (revision.summary, revision.author_list[-1]) == (
        "An editor's edit.",
        GUESTRIN,
    )


# Deciding several at once, from the list.


def act(client, action, corrections, **extra):
    return client.post(
        QUEUE,
        {"action": action, "_selected_action": [c.pk for c in corrections], **extra},
    )


def test_accept_selected_reports_each_and_counts_those_decided_already(
    client, publisher, document, coauthor
):
    other = DocumentFactory(number=7, year=2000, published=True)
    year = propose(other, {"year": 2001})
    done = propose(other, {"title": "Another"})
    actions.corrections.decline(correction=done, user=publisher, public_reason="No.")
    client.force_login(publisher)

    response = act(client, "accept_selected", [coauthor, year, done])

    review = reverse("admin:catalogue_document_review", args=[document.pk])
    other_review = reverse("admin:catalogue_document_review", args=[other.pk])
    assert said(response) == [
        "Accepted the correction of LIT-004 (authors): it waits in the pending "
        f'revision. <a href="{review}">Review and publish it</a>.',
        "Accepted the correction of LIT-007 (year): it waits in the pending "
        f'revision. <a href="{other_review}">Review and publish it</a>.',
        "1 was decided already.",
    ]
    assert set(Correction.objects.values_list("status", flat=True)) == {
        Correction.Status.ACCEPTED,
        Correction.Status.DECLINED,
    }


def test_a_refusal_in_a_selection_leaves_every_proposal_waiting(
    client, publisher, document, coauthor
):
    note_only = propose(document, note="The summary is wrong.")
    client.force_login(publisher)

    response = act(client, "accept_selected", [coauthor, note_only])

    assert said(response) == [
        "Nothing was changed. LIT-004: The correction changes no field: edit what it "
        "asks for, then accept it, or decline it."
    ]
    assert set(Correction.objects.values_list("status", flat=True)) == {
        Correction.Status.PENDING
    }
    assert document.pending_revision() is None


def test_decline_selected_asks_first_for_one_reason(client, publisher, coauthor):
    other = propose(
        DocumentFactory(number=7, year=2000, published=True), {"year": 2001}
    )
    client.force_login(publisher)

    asked = soup_of(act(client, "decline_selected", [coauthor, other]))
    assert asked.select_one("h1").get_text() == "Decline these corrections?"
    assert sorted(texts(asked, ".declining li")) == [
        "Correction of LIT-004 (Waiting): authors",
        "Correction of LIT-007 (Waiting): year",
    ]
    assert asked.select_one("input[type=submit]")["value"] == "Decline 2 corrections"
    data = form_data_of(asked)
    data.update(public_reason="Both are as the papers print them.")
    response = client.post(QUEUE, data)

    assert said(response) == [
        "Declined the correction of LIT-004: the reader is mailed your public reason.",
        "Declined the correction of LIT-007: their private link shows your public "
        "reason.",
    ]
    assert (
        list(Correction.objects.values_list("public_reason", flat=True))
        == ["Both are as the papers print them."] * 2
    )


def form_data_of(soup):
    form = soup.select_one("form.correction-decline")
    data = {}
    for field in form.select("input[name], textarea[name]"):
        if field.get("type") == "submit":
            continue
        value = field.get_text() if field.name == "textarea" else field.get("value", "")
        data.setdefault(field["name"], []).append(value)
    return data


def test_editors_are_offered_no_bulk_decision(client, editor, coauthor):
    client.force_login(editor)

    response = act(client, "accept_selected", [coauthor])

    coauthor.refresh_from_db()
    assert coauthor.status == Correction.Status.PENDING
    assert response.status_code in {200, 302}


# Whatever a proposal holds is text on the desk.

PAYLOADS = ["<script>alert(1)</script>", '<img src=x onerror="alert(2)">']


@pytest.mark.parametrize("payload", PAYLOADS)
def test_html_in_every_field_of_a_proposal_is_inert(
    client, publisher, metadata_sources, document, payload
):
    correction = propose(
        document,
        {
            "title": f"{TITLE} {payload}",
            "authors": f"Chen {payload}",
            "author_list": [CHEN, XU, ZHANG, {"family": payload, "given": payload}],
            "venue": payload,
        },
        note=f"Note {payload}",
        reason=f"Reason {payload}",
        email="reader@example.org",
    )
    client.force_login(publisher)

    pages = [
        client.get(QUEUE),
        client.get(page_of(correction)),
        client.get(edit_page_of(correction)),
        act(client, "decline_selected", [correction]),
    ]

    for response in pages:
        soup = soup_of(response)
        assert soup.select("#content script, #content img") == []
        assert not soup.select("[onerror]")
        assert payload not in response.content.decode()
    proposal = soup_of(pages[1])
    assert text(proposal, ".correction-note") == f"Note {payload}"
    assert text(proposal, ".correction-reason") == f"Reason {payload}"
    assert payload in text(proposal, ".comparison")

"""People to check, on the desk and on their own page: the record's
proposals that two people are one, accepted (a merge) or rejected by a
publisher, and the proposals' own list."""

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from actions.people import link_documents
from catalogue.models import (
    Document,
    Person,
    PersonAddress,
    PersonProposal,
    ProposalStatus,
)
from tests.factories import DocumentFactory, RegistryFactory, TopicFactory
from tests.html import soup_of

pytestmark = pytest.mark.django_db

DESK = reverse("admin:index")
CHECK = reverse("admin:catalogue_personproposal_check")
PROPOSALS = reverse("admin:catalogue_personproposal_changelist")


def said(response):
    return [str(message) for message in get_messages(response.wsgi_request)]


def texts(soup, selector):
    return [" ".join(e.get_text(" ").split()) for e in soup.select(selector)]


def decide(client, proposal, button, next_page=DESK):
    return client.post(
        reverse("admin:catalogue_personproposal_decide", args=[proposal.pk]),
        {button: "1", "next": next_page},
    )


@pytest.fixture
def proposal():
    """Samyam Rajbhandari of LIT-101 and S. Rajbhandari of LIT-102, on one
    topic: the record proposes that they are one."""
    topic = TopicFactory(name="Distributed optimization")
    DocumentFactory(
        number=101,
        topic=topic,
        authors="Rajbhandari and Rasley",
        author_list=[
            {"family": "Rajbhandari", "given": "Samyam"},
            {"family": "Rasley", "given": "Jeff"},
        ],
        published=True,
    )
    DocumentFactory(
        number=102,
        topic=topic,
        authors="Rajbhandari and He",
        author_list=[
            {"family": "Rajbhandari", "given": "S."},
            {"family": "He", "given": "Yuxiong"},
        ],
        published=True,
    )
    return PersonProposal.objects.get()


def test_the_desk_lists_people_to_check_with_both_people_and_documents(
    admin_client, proposal
):
    soup = soup_of(admin_client.get(DESK))

    assert "1 People to check" in texts(soup, ".desk .queues li a")
    item = soup.select_one(".proposals .proposal")
    assert texts(item, ".reason") == [
        "S. Rajbhandari in LIT-102 may be Samyam Rajbhandari of LIT-101: shared "
        "topic Distributed optimization"
    ]
    links = {a.get_text(): a["href"] for a in item.select("dl a")}
    samyam = Person.objects.get(slug="samyam-rajbhandari")
    initial = Person.objects.get(slug="s-rajbhandari")
    documents = {d.number: d.pk for d in Document.objects.all()}
    assert links == {
        "LIT-102": reverse("admin:catalogue_document_change", args=[documents[102]]),
        "S. Rajbhandari": reverse("admin:catalogue_person_change", args=[initial.pk]),
        "Samyam Rajbhandari": reverse(
            "admin:catalogue_person_change", args=[samyam.pk]
        ),
        "LIT-101": reverse("admin:catalogue_document_change", args=[documents[101]]),
    }
    assert [b["value"] for b in item.select("form input[type=submit]")] == [
        "Accept",
        "Reject",
    ]


def test_accepting_merges_the_two_people(client, publisher, proposal):
    client.force_login(publisher)

    response = decide(client, proposal, "_accept")

    assert response.status_code == 302
    assert response["Location"] == DESK
    proposal.refresh_from_db()
    assert (proposal.status, proposal.decided_by) == (
        ProposalStatus.ACCEPTED,
        publisher,
    )
    samyam = Person.objects.get(slug="samyam-rajbhandari")
    assert not Person.objects.filter(slug="s-rajbhandari").exists()
    assert sorted(
        samyam.authorships.filter(version__isnull=True).values_list(
            "document__number", flat=True
        )
    ) == [101, 102]
    assert list(PersonAddress.objects.get(slug="s-rajbhandari").persons.all()) == [
        samyam
    ]
    assert said(client.get(DESK)) == [
        "Accepted: S. Rajbhandari is Samyam Rajbhandari. The old address "
        "s-rajbhandari now redirects to samyam-rajbhandari."
    ]


def test_rejecting_keeps_two_people_and_leaves_the_queue(client, publisher, proposal):
    client.force_login(publisher)

    decide(client, proposal, "_reject", next_page=CHECK)

    proposal.refresh_from_db()
    assert proposal.status == ProposalStatus.REJECTED
    assert Person.objects.filter(slug__contains="rajbhandari").count() == 2
    page = client.get(CHECK)
    assert said(page) == [
        "Rejected: S. Rajbhandari and Samyam Rajbhandari stay two people."
    ]
    assert soup_of(page).select(".proposal") == []


def test_a_decided_proposal_is_not_decided_again(client, publisher, proposal):
    client.force_login(publisher)
    decide(client, proposal, "_reject")

    decide(client, proposal, "_accept")

    assert said(client.get(DESK))[-1] == "The proposal is already rejected."
    assert PersonProposal.objects.get().status == ProposalStatus.REJECTED


def test_an_editor_sees_the_people_to_check_but_may_not_decide(
    client, editor, proposal
):
    client.force_login(editor)

    soup = soup_of(client.get(CHECK))
    refused = decide(client, proposal, "_accept")

    assert len(soup.select(".proposal")) == 1
    assert soup.select(".proposal form") == []
    assert refused.status_code == 403
    assert PersonProposal.objects.get().status == ProposalStatus.OPEN


def test_a_decision_is_a_post_and_goes_back_only_to_this_site(
    client, publisher, proposal
):
    client.force_login(publisher)
    url = reverse("admin:catalogue_personproposal_decide", args=[proposal.pk])

    assert client.get(url).status_code == 405
    response = decide(client, proposal, "_reject", next_page="https://example.com/")
    assert response["Location"] == CHECK


def test_the_proposals_list_is_read_only_and_filters_by_status(
    admin_client, proposal, publisher
):
    admin_client.post(
        reverse("admin:catalogue_personproposal_decide", args=[proposal.pk]),
        {"_reject": "1"},
    )

    rejected = admin_client.get(PROPOSALS, {"status__exact": "rejected"})
    still_open = admin_client.get(PROPOSALS, {"status__exact": "open"})

    assert list(rejected.context["cl"].result_list) == [proposal]
    assert list(still_open.context["cl"].result_list) == []
    change = reverse("admin:catalogue_personproposal_change", args=[proposal.pk])
    soup = soup_of(admin_client.get(change))
    assert soup.select("input[type=submit][name=_save]") == []


def many_proposals(n):
    """``n`` pairs of documents on one topic, one by a full name and one by
    its initial (Mehta0, Asha and Mehta0, A.), linked as an import links
    them: ``n`` proposals."""
    registry, topic = RegistryFactory(), TopicFactory()
    documents = Document.objects.bulk_create(
        DocumentFactory.build(
            registry=registry,
            topic=topic,
            number=2 * i + initial + 1,
            authors=f"Mehta{i}",
            author_list=[{"family": f"Mehta{i}", "given": "A." if initial else "Asha"}],
            status=Document.Status.ACTIVE,
        )
        for i in range(n)
        for initial in (0, 1)
    )
    link_documents(documents)
    assert PersonProposal.objects.count() == n


@pytest.mark.parametrize("n", [5, 50])
def test_the_desk_and_the_people_to_check_cost_the_same_queries_for_any_number(
    admin_client, django_assert_num_queries, n
):
    many_proposals(n)
    admin_client.get(CHECK)  # Warm the session and content-type caches.

    # One more than the queues: the schedules; four more the review queue's:
    # its two counts and its two lists.
    with django_assert_num_queries(21):
        desk = admin_client.get(DESK)
    with django_assert_num_queries(6):
        check = admin_client.get(CHECK)

    # The desk lists the oldest eight, and counts them all.
    assert len(soup_of(desk).select(".proposal")) == min(n, 8)
    assert f"{n} People to check" in texts(soup_of(desk), ".desk .queues li a")
    assert len(soup_of(check).select(".proposal")) == n

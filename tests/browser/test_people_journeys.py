"""Keeping people, in Chromium: a publisher merges two people from the list,
splits one from their page, and accepts the desk's proposal that two are
one. Each page is checked for Content-Security-Policy violations and with
axe-core."""

import pytest

from catalogue.models import Person, PersonAddress, PersonProposal, ProposalStatus
from tests.browser.test_editorial_journeys import Desk
from tests.factories import DocumentFactory, TopicFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

SAMYAM = {"family": "Rajbhandari", "given": "Samyam"}
INITIAL = {"family": "Rajbhandari", "given": "S."}


@pytest.fixture
def publisher(editorial_groups):
    return UserFactory(publisher=True, username="grace")


def published(number, topic, authors, author_list=None):
    """A public document, published through its action, which links its
    author positions to people."""
    return DocumentFactory(
        number=number,
        topic=topic,
        authors=authors,
        author_list=author_list or [],
        published=True,
    )


def positions(person):
    return sorted(
        person.authorships.filter(version__isnull=True).values_list(
            "document__number", flat=True
        )
    )


def test_a_publisher_merges_two_people_and_the_old_address_goes_to_the_kept_one(
    browser, live_server, publisher
):
    published(
        101,
        TopicFactory(name="Distributed optimization"),
        "Rajbhandari and Rasley",
        [SAMYAM, {"family": "Rasley", "given": "Jeff"}],
    )
    published(
        102,
        TopicFactory(name="Evaluation"),
        "Rajbhandari and He",
        [INITIAL, {"family": "He", "given": "Yuxiong"}],
    )
    samyam = Person.objects.get(slug="samyam-rajbhandari")
    desk = Desk(browser, live_server, publisher)

    page = desk.go("/admin/catalogue/person/?q=Rajbhandari")
    desk.accessible()
    for name in ["S. Rajbhandari", "Samyam Rajbhandari"]:
        page.get_by_role("row", name=name).get_by_role("checkbox").check()
    page.select_option("select[name=action]", "merge_people_action")
    desk.press("button[name=index]")
    assert page.locator("h1").inner_text() == "Merge these people?"
    desk.accessible()
    page.get_by_label("Samyam Rajbhandari").check()
    desk.press("input[name=confirm]")

    assert desk.said() == [
        "Merged S. Rajbhandari into Samyam Rajbhandari (samyam-rajbhandari): the "
        "old address s-rajbhandari now redirects to samyam-rajbhandari."
    ]
    assert list(Person.objects.filter(slug__contains="rajbhandari")) == [samyam]
    assert positions(samyam) == [101, 102]
    address = PersonAddress.objects.get(slug="s-rajbhandari")
    assert list(address.persons.all()) == [samyam]
    # A reader at the old address is sent on, permanently, to the kept one.
    response = page.goto(f"{live_server.url}/people/s-rajbhandari/")
    assert response.url == f"{live_server.url}/people/samyam-rajbhandari/"
    assert response.request.redirected_from.response().status == 301
    assert page.locator("h1").inner_text() == "Samyam Rajbhandari"
    assert desk.violations() == []


def test_a_publisher_splits_a_person_into_two(browser, live_server, publisher):
    # Both citations name only "Rajbhandari et al.", on one topic: one person.
    topic = TopicFactory(name="Distributed optimization")
    published(27, topic, "Rajbhandari et al.")
    published(102, topic, "Rajbhandari and He")
    person = Person.objects.get(slug="rajbhandari")
    assert positions(person) == [27, 102]
    desk = Desk(browser, live_server, publisher)

    page = desk.go(f"/admin/catalogue/person/{person.pk}/change/")
    desk.accessible()
    page.get_by_role("link", name="Split this person…").click()
    page.wait_for_load_state()
    desk.accessible()
    page.get_by_label("New person for LIT-102, author 1").select_option("2")
    page.get_by_label("Affiliation of person 2").fill("Microsoft")
    desk.press("input[name=split]")

    assert desk.said() == [
        "Split Rajbhandari into 2 people: Rajbhandari (rajbhandari-2), Rajbhandari "
        "(rajbhandari-microsoft). The old address rajbhandari lists them."
    ]
    first = Person.objects.get(slug="rajbhandari-2")
    second = Person.objects.get(slug="rajbhandari-microsoft")
    assert (positions(first), positions(second)) == ([27], [102])
    assert second.affiliation == "Microsoft"
    assert set(PersonAddress.objects.get(slug="rajbhandari").persons.all()) == {
        first,
        second,
    }
    assert desk.violations() == []


def test_a_publisher_accepts_the_desks_proposal_and_the_two_are_one(
    browser, live_server, publisher
):
    topic = TopicFactory(name="Distributed optimization")
    published(
        101,
        topic,
        "Rajbhandari and Rasley",
        [SAMYAM, {"family": "Rasley", "given": "Jeff"}],
    )
    published(
        102,
        topic,
        "Rajbhandari and He",
        [INITIAL, {"family": "He", "given": "Yuxiong"}],
    )
    proposal = PersonProposal.objects.get()
    desk = Desk(browser, live_server, publisher)

    page = desk.go("/admin/")
    desk.accessible()
    item = page.locator(".proposal").filter(has_text="S. Rajbhandari in LIT-102")
    accept = "Accept: S. Rajbhandari is Samyam Rajbhandari"
    item.get_by_role("button", name=accept).click()
    page.wait_for_load_state()

    assert desk.said() == [
        "Accepted: S. Rajbhandari is Samyam Rajbhandari. The old address "
        "s-rajbhandari now redirects to samyam-rajbhandari."
    ]
    assert page.locator(".proposal").count() == 0
    proposal.refresh_from_db()
    assert proposal.status == ProposalStatus.ACCEPTED
    samyam = Person.objects.get(slug="samyam-rajbhandari")
    assert list(Person.objects.filter(slug__contains="rajbhandari")) == [samyam]
    assert positions(samyam) == [101, 102]
    assert desk.violations() == []

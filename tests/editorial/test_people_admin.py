"""The people's admin: the list, a person's corrections through
``edit_person``, merging people from the list and splitting one from their
page, each through its action."""

from types import SimpleNamespace

import pytest
from auditlog.models import LogEntry
from django.contrib.messages import get_messages
from django.urls import reverse

from actions.people import edit_person, link_documents
from catalogue.models import Document, Person, PersonAddress, PersonState
from tests.databases import BOTH, WEB_LAYER
from tests.factories import DocumentFactory, RegistryFactory, TopicFactory, UserFactory
from tests.html import form_data, soup_of

pytestmark = [pytest.mark.django_db, WEB_LAYER]

PEOPLE = reverse("admin:catalogue_person_changelist")
SAMYAM = {"family": "Rajbhandari", "given": "Samyam"}
INITIAL = {"family": "Rajbhandari", "given": "S."}
# ORCID's own example iD, and the same with a wrong check character.
ORCID = "0000-0002-1825-0097"
WRONG_CHECK = "0000-0002-1825-0098"


def said(response):
    return [str(message) for message in get_messages(response.wsgi_request)]


def texts(soup, selector):
    return [" ".join(e.get_text(" ").split()) for e in soup.select(selector)]


def change_url(person):
    return reverse("admin:catalogue_person_change", args=[person.pk])


def split_url(person):
    return reverse("admin:catalogue_person_split", args=[person.pk])


@pytest.fixture
def rajbhandari():
    """LIT-101 by Samyam Rajbhandari and Jeff Rasley and LIT-102 by S.
    Rajbhandari and Yuxiong He, on one topic: two people, as linked."""
    topic = TopicFactory(name="Distributed optimization")
    first = DocumentFactory(
        number=101,
        topic=topic,
        year=2020,
        authors="Rajbhandari et al.",
        author_list=[SAMYAM, {"family": "Rasley", "given": "Jeff"}],
        published=True,
    )
    second = DocumentFactory(
        number=102,
        topic=topic,
        year=2021,
        authors="Rajbhandari and He",
        author_list=[INITIAL, {"family": "He", "given": "Yuxiong"}],
        published=True,
    )
    return SimpleNamespace(
        samyam=Person.objects.get(slug="samyam-rajbhandari"),
        initial=Person.objects.get(slug="s-rajbhandari"),
        first=first,
        second=second,
    )


@pytest.fixture
def cited():
    """LIT-027 and LIT-028, whose citations name only "Rajbhandari et al.",
    on one topic, with a co-author each: one person, ``rajbhandari``."""
    topic = TopicFactory(name="Distributed optimization")
    first = DocumentFactory(
        number=27,
        topic=topic,
        year=2020,
        authors="Rajbhandari and Rasley",
        published=True,
    )
    second = DocumentFactory(
        number=28, topic=topic, year=2022, authors="Rajbhandari and Ruwase"
    )
    # LIT-028 is a draft: its author positions are linked all the same.
    link_documents([second])
    return SimpleNamespace(
        person=Person.objects.get(slug="rajbhandari"), first=first, second=second
    )


# The list.


def test_the_list_shows_each_person_with_the_documents_naming_them(
    admin_client, rajbhandari
):
    soup = soup_of(admin_client.get(PEOPLE, {"q": "Rajbhandari"}))

    assert texts(soup, "#result_list tbody tr") == [
        "S. Rajbhandari s-rajbhandari Inferred - - 1",
        "Samyam Rajbhandari samyam-rajbhandari Inferred - - 1",
    ]


def test_search_finds_a_person_by_name_orcid_or_address(
    admin_client, admin_user, rajbhandari
):
    edit_person(person=rajbhandari.samyam, user=admin_user, changes={"orcid": ORCID})

    def found(term):
        listed = admin_client.get(PEOPLE, {"q": term}).context["cl"].result_list
        return [person.slug for person in listed]

    assert {term: found(term) for term in ["Samyam", ORCID, "s-rajbhandari"]} == {
        "Samyam": ["samyam-rajbhandari"],
        ORCID: ["samyam-rajbhandari"],
        "s-rajbhandari": ["s-rajbhandari"],
    }


def test_the_list_filters_by_state(admin_client, rajbhandari):
    client = admin_client
    post_change(client, rajbhandari.samyam, orcid=ORCID, state="verified")

    response = client.get(PEOPLE, {"state__exact": "verified"})

    assert list(response.context["cl"].result_list) == [rajbhandari.samyam]


def many_people(n):
    """``n`` public documents of one author each, linked as an import links
    them: ``n`` people."""
    registry, topic = RegistryFactory(), TopicFactory()
    documents = Document.objects.bulk_create(
        DocumentFactory.build(
            registry=registry,
            topic=topic,
            number=i + 1,
            authors=f"Okafor{i}",
            status=Document.Status.ACTIVE,
        )
        for i in range(n)
    )
    link_documents(documents)
    return documents


@BOTH
@pytest.mark.parametrize("n", [5, 50])
def test_the_list_and_a_change_page_cost_the_same_queries_for_any_number(
    admin_client, django_assert_num_queries, n
):
    many_people(n)
    person = Person.objects.first()
    admin_client.get(PEOPLE)  # Warm the session and content-type caches.

    with django_assert_num_queries(6):
        response = admin_client.get(PEOPLE)
    with django_assert_num_queries(6):
        admin_client.get(change_url(person))

    assert response.context["cl"].result_count == n


def test_people_are_neither_added_nor_deleted_in_the_admin(admin_client, cited):
    soup = soup_of(admin_client.get(PEOPLE))

    assert soup.select(".object-tools a.addlink") == []
    assert admin_client.get(reverse("admin:catalogue_person_add")).status_code == 403
    delete = reverse("admin:catalogue_person_delete", args=[cited.person.pk])
    assert admin_client.get(delete).status_code == 403
    actions = [o["value"] for o in soup.select("select[name=action] option")]
    assert actions == ["", "merge_people_action"]


# A person's corrections.


def post_change(client, person, **changes):
    url = change_url(person)
    data = form_data(client.get(url))
    data.update(changes)
    return client.post(url, data, follow=True)


def test_a_correction_is_saved_by_its_action_and_audited(
    client, publisher, rajbhandari
):
    client.force_login(publisher)
    person = rajbhandari.initial

    response = post_change(
        client,
        person,
        name_line="Rajbhandari, Samyam",
        orcid=f"https://orcid.org/{ORCID}",
        affiliation="Microsoft",
        state="verified",
    )

    assert [li.get_text() for li in soup_of(response).select(".messagelist li")] == [
        "The person “Samyam Rajbhandari” was changed successfully."
    ]
    person.refresh_from_db()
    assert (person.name, person.orcid, person.affiliation, person.state) == (
        SAMYAM,
        ORCID,
        "Microsoft",
        PersonState.VERIFIED,
    )
    entry = LogEntry.objects.get_for_object(person).latest("timestamp")
    assert entry.action == LogEntry.Action.UPDATE
    assert entry.actor == publisher
    assert entry.changes_dict["orcid"] == ["", ORCID]
    assert entry.changes_dict["state"] == ["inferred", "verified"]


def test_an_orcid_with_a_wrong_check_character_says_which_is_expected(
    admin_client, rajbhandari
):
    response = post_change(
        admin_client, rajbhandari.samyam, orcid=WRONG_CHECK, affiliation="Microsoft"
    )

    soup = soup_of(response)
    assert texts(soup, ".field-orcid .errorlist") == [
        f"{WRONG_CHECK} is not an ORCID iD: its check character should be 7, "
        "not 8 (ISO 7064 MOD 11-2)."
    ]
    person = Person.objects.get(pk=rajbhandari.samyam.pk)
    assert (person.orcid, person.affiliation) == ("", "")
    assert not LogEntry.objects.get_for_object(person).filter(
        action=LogEntry.Action.UPDATE
    )


def test_verified_needs_an_orcid_and_a_name_reads_family_comma_given(
    admin_client, rajbhandari
):
    response = post_change(
        admin_client, rajbhandari.samyam, state="verified", name_line="A, B, C"
    )

    assert texts(soup_of(response), ".errorlist") == [
        "a person reads ‘Family, Given’ (one comma), an organisation "
        "‘{Name, as written}’."
    ]
    response = post_change(admin_client, rajbhandari.samyam, state="verified")
    assert texts(soup_of(response), ".field-state .errorlist") == [
        "Only a person with an ORCID iD can be verified."
    ]
    assert Person.objects.get(pk=rajbhandari.samyam.pk).state == PersonState.INFERRED


def test_an_orcid_another_person_holds_links_to_them(admin_client, rajbhandari):
    post_change(admin_client, rajbhandari.samyam, orcid=ORCID)

    response = post_change(admin_client, rajbhandari.initial, orcid=ORCID)

    error = soup_of(response).select_one(".field-orcid .errorlist")
    assert error.get_text(" ", strip=True) == (
        "Samyam Rajbhandari holds this ORCID iD: if they are one person, merge them."
    )
    assert error.a["href"] == change_url(rajbhandari.samyam)


def test_a_new_address_keeps_the_old_one_as_a_redirect(admin_client, rajbhandari):
    post_change(admin_client, rajbhandari.samyam, slug="samyam-rajbhandari-msr")

    address = PersonAddress.objects.get(slug="samyam-rajbhandari")
    assert list(address.persons.all()) == [rajbhandari.samyam]
    assert Person.objects.get(pk=rajbhandari.samyam.pk).slug == (
        "samyam-rajbhandari-msr"
    )


def test_the_change_page_lists_the_positions_and_links_their_documents(
    admin_client, rajbhandari
):
    soup = soup_of(admin_client.get(change_url(rajbhandari.samyam)))

    assert texts(soup, ".positions tbody tr") == [
        "LIT-101 now 1 Rajbhandari, Samyam",
        "LIT-101 v1 1 Rajbhandari, Samyam",
    ]
    link = soup.select_one(".positions tbody a")
    assert link["href"] == reverse(
        "admin:catalogue_document_change", args=[rajbhandari.first.pk]
    )
    assert soup.select_one("#id_name_line")["value"] == "Rajbhandari, Samyam"
    tools = texts(soup, ".object-tools a")
    assert tools == ["Split this person…", "Audit log", "History", "View on site"]


def test_an_editor_reads_a_person_and_changes_nothing(client, editor, rajbhandari):
    client.force_login(editor)
    url = change_url(rajbhandari.samyam)

    soup = soup_of(client.get(url))
    refused = client.post(url, {"name_line": "Someone, Else", "state": "inferred"})

    assert soup.select("input[name=name_line]") == []
    assert texts(soup, ".field-name_line .readonly") == ["Rajbhandari, Samyam"]
    assert "Split this person…" not in texts(soup, ".object-tools a")
    assert refused.status_code == 403
    assert Person.objects.get(pk=rajbhandari.samyam.pk).name == SAMYAM


# Merging.


def merge(client, persons, **fields):
    return client.post(
        PEOPLE,
        {
            "action": "merge_people_action",
            "_selected_action": [person.pk for person in persons],
            **fields,
        },
    )


def test_the_merge_page_lists_each_person_with_what_they_hold(
    admin_client, rajbhandari
):
    page = merge(admin_client, [rajbhandari.samyam, rajbhandari.initial])

    soup = soup_of(page)
    assert texts(soup, "table.merging tbody tr") == [
        "S. Rajbhandari s-rajbhandari Inferred – – LIT-102",
        "Samyam Rajbhandari samyam-rajbhandari Inferred – – LIT-101",
    ]
    # The fuller name is offered as the one to keep.
    assert soup.select_one("input[name=keep][checked]")["value"] == str(
        rajbhandari.samyam.pk
    )
    assert Person.objects.filter(slug__contains="rajbhandari").count() == 2


def test_a_publisher_merges_and_the_old_address_names_the_kept_person(
    client, publisher, rajbhandari
):
    client.force_login(publisher)
    kept = rajbhandari.samyam

    response = merge(
        client,
        [kept, rajbhandari.initial],
        keep=str(kept.pk),
        confirm="Confirm",
    )

    assert response.status_code == 302
    assert said(client.get(PEOPLE)) == [
        "Merged S. Rajbhandari into Samyam Rajbhandari (samyam-rajbhandari): the "
        "old address s-rajbhandari now redirects to samyam-rajbhandari."
    ]
    assert not Person.objects.filter(pk=rajbhandari.initial.pk).exists()
    assert sorted(kept.authorships.values_list("document__number", flat=True)) == [
        101,
        101,
        102,
        102,
    ]
    address = PersonAddress.objects.get(slug="s-rajbhandari")
    assert list(address.persons.all()) == [kept]
    entries = LogEntry.objects.filter(actor=publisher, object_repr="S. Rajbhandari")
    assert entries.filter(action=LogEntry.Action.DELETE).count() == 1


def test_an_editor_without_the_right_to_merge_is_refused(client, editor, rajbhandari):
    client.force_login(editor)

    soup = soup_of(client.get(PEOPLE))
    response = merge(
        client,
        [rajbhandari.samyam, rajbhandari.initial],
        keep=str(rajbhandari.samyam.pk),
        confirm="Confirm",
    )

    # The list offers an editor no action, so it reads the post as a list.
    assert "merge_people_action" not in str(soup)
    assert response.context["title"] == "Select person to view"
    assert Person.objects.filter(slug__contains="rajbhandari").count() == 2


def test_one_person_is_not_merged(admin_client, rajbhandari):
    response = merge(admin_client, [rajbhandari.samyam])

    assert response.status_code == 302
    assert said(admin_client.get(PEOPLE)) == ["Select two people or more to merge."]


def test_two_different_orcids_are_two_people_and_nothing_is_merged(
    admin_client, rajbhandari
):
    post_change(admin_client, rajbhandari.samyam, orcid=ORCID)
    post_change(admin_client, rajbhandari.initial, orcid="0000-0001-5109-3700")

    page = merge(
        admin_client,
        [rajbhandari.samyam, rajbhandari.initial],
        keep=str(rajbhandari.samyam.pk),
        confirm="Confirm",
    )

    assert texts(soup_of(page), ".errorlist") == [
        "S. Rajbhandari (0000-0001-5109-3700) and Samyam Rajbhandari "
        f"({ORCID}) hold different ORCID iDs: they are two people."
    ]
    assert Person.objects.filter(slug__contains="rajbhandari").count() == 2


# Splitting.


def test_the_split_page_lists_every_position_with_what_tells_them_apart(
    admin_client, cited
):
    soup = soup_of(admin_client.get(split_url(cited.person)))

    assert texts(soup, "table.splitting tbody tr") == [
        "LIT-027 and v1 Rajbhandari Rasley Distributed optimization 2020 "
        "New person for LIT-027, author 1 Person 1 Person 2",
        "LIT-028 Rajbhandari Ruwase Distributed optimization 2022 "
        "New person for LIT-028, author 1 Person 1 Person 2",
    ]
    assert [field["name"] for field in soup.select("input[name^=affiliation]")] == [
        "affiliation_1",
        "affiliation_2",
    ]


def post_split(client, person, assignments, **fields):
    page = client.get(split_url(person), {"groups": fields.get("groups", 2)})
    data = form_data(page, "form.split")
    selects = sorted(name for name in data if name.startswith("position_"))
    for name, group in zip(selects, assignments, strict=True):
        data[name] = str(group)
    data.update(fields)
    return client.post(split_url(person), data)


def test_a_split_needs_every_new_person_to_have_a_position(admin_client, cited):
    response = post_split(admin_client, cited.person, [1, 1])

    assert texts(soup_of(response), ".errorlist") == [
        "Person 2 would have no position: give it one, or split into fewer people."
    ]
    assert list(Person.objects.filter(slug__startswith="rajbhandari")) == [cited.person]


def test_a_split_makes_two_people_or_more(admin_client, cited):
    response = post_split(admin_client, cited.person, [1, 1], groups="1")

    assert texts(soup_of(response), ".errorlist") == [
        "A split makes two people or more: choose at least two."
    ]
    assert Person.objects.filter(pk=cited.person.pk).exists()


def test_a_split_gives_each_new_person_their_positions(client, publisher, cited):
    client.force_login(publisher)

    response = post_split(
        client, cited.person, [1, 2], affiliation_1="", affiliation_2="Microsoft"
    )

    assert response.status_code == 302
    first = Person.objects.get(slug="rajbhandari-2")
    second = Person.objects.get(slug="rajbhandari-microsoft")
    assert said(client.get(response["Location"])) == [
        "Split Rajbhandari into 2 people: Rajbhandari (rajbhandari-2), Rajbhandari "
        "(rajbhandari-microsoft). The old address rajbhandari lists them."
    ]
    assert sorted(first.authorships.values_list("document__number", flat=True)) == [
        27,
        27,
    ]
    assert list(second.authorships.values_list("document__number", flat=True)) == [28]
    assert (second.affiliation, second.state) == ("Microsoft", PersonState.ASSERTED)
    address = PersonAddress.objects.get(slug="rajbhandari")
    assert set(address.persons.all()) == {first, second}


def test_an_editor_may_not_split(client, editor, cited):
    client.force_login(editor)

    assert client.get(split_url(cited.person)).status_code == 403
    assert client.post(split_url(cited.person), {}).status_code == 403


def test_the_rights_follow_the_roles():
    editor, publisher = UserFactory(editor=True), UserFactory(publisher=True)

    rights = ["view_person", "change_person", "merge_person", "view_personproposal"]
    assert {
        right: (
            editor.has_perm(f"catalogue.{right}"),
            publisher.has_perm(f"catalogue.{right}"),
        )
        for right in rights
    } == {
        "view_person": (True, True),
        "change_person": (False, True),
        "merge_person": (False, True),
        "view_personproposal": (True, True),
    }

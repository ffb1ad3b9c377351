"""People: author positions linked by evidence, and the editors' verbs on them."""

import io

import pytest
from auditlog.models import LogEntry
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management import call_command

import actions.documents
from actions.people import (
    accept_proposal,
    edit_person,
    merge_people,
    reject_proposal,
    split_person,
)
from catalogue.citations import derived_authors
from catalogue.models import (
    Authorship,
    Document,
    Person,
    PersonAddress,
    PersonProposal,
    PersonState,
    ProposalStatus,
)
from pagecache.models import PendingExpiry
from public.scopes import PEOPLE, document_scope
from tests.factories import (
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
    UserFactory,
    factory_publisher,
)

pytestmark = pytest.mark.django_db


def names(*people):
    """CSL names from "Given Family" strings; "{Org}" an organisation."""
    written = []
    for person in people:
        if person.startswith("{"):
            written.append({"literal": person.strip("{}")})
        else:
            given, _, family = person.rpartition(" ")
            written.append(
                {"family": family, "given": given} if given else {"family": family}
            )
    return written


def paper(number, *people, topic=None, registry=None, **fields):
    """A public document by ``people``, linked as publishing links it."""
    author_list = names(*people)
    return DocumentFactory(
        number=number,
        registry=registry,
        topic=topic,
        author_list=author_list,
        authors=derived_authors(author_list),
        published=True,
        **fields,
    )


@pytest.fixture
def lit():
    return RegistryFactory(prefix="LIT")


def person_at(document, position=0):
    return Authorship.objects.get(
        document=document, version=None, position=position
    ).person


def test_a_new_documents_authors_are_people_with_their_names_as_written(lit):
    document = paper(
        101, "Yang Liu", "Arthur Douillard", "{Wan Team, Alibaba}", registry=lit
    )

    linked = Authorship.objects.filter(document=document, version=None)
    assert [(a.position, a.name, a.person.display_name) for a in linked] == [
        (0, {"family": "Liu", "given": "Yang"}, "Yang Liu"),
        (1, {"family": "Douillard", "given": "Arthur"}, "Arthur Douillard"),
        (2, {"literal": "Wan Team, Alibaba"}, "Wan Team, Alibaba"),
    ]
    assert [a.person.slug for a in linked] == [
        "yang-liu",
        "arthur-douillard",
        "wan-team-alibaba",
    ]
    assert {a.person.state for a in linked} == {PersonState.INFERRED}
    # The document's own author list is untouched.
    assert Document.objects.get(pk=document.pk).author_list == names(
        "Yang Liu", "Arthur Douillard", "{Wan Team, Alibaba}"
    )
    # Each new person has the audit entry a save would have made.
    created = LogEntry.objects.get_for_model(Person).filter(
        action=LogEntry.Action.CREATE
    )
    assert created.count() == 3
    assert {entry.actor.username for entry in created} == {"factory-publisher"}


def test_the_same_name_with_a_shared_co_author_is_one_person(lit):
    one = paper(101, "Yang Liu", "Arthur Douillard", registry=lit, topic=TopicFactory())
    other = paper(
        212, "Yang Liu", "Arthur Douillard", registry=lit, topic=TopicFactory()
    )

    assert person_at(one) == person_at(other)
    assert person_at(one, 1) == person_at(other, 1)
    assert not PersonProposal.objects.exists()


def test_the_same_name_in_a_shared_topic_is_one_person(lit):
    topic = TopicFactory()
    one = paper(101, "Yang Liu", registry=lit, topic=topic)
    other = paper(212, "Yang Liu", "Someone Else", registry=lit, topic=topic)

    assert person_at(one) == person_at(other)


def test_namesakes_with_nothing_in_common_stay_two_people_and_a_proposal_says_so(lit):
    one = paper(101, "Yang Liu", "Arthur Douillard", registry=lit, topic=TopicFactory())
    other = paper(212, "Yang Liu", "Mei Chen", registry=lit, topic=TopicFactory())

    first, second = person_at(one), person_at(other)
    assert first != second
    assert (first.slug, second.slug) == ("yang-liu", "yang-liu-2")
    proposal = PersonProposal.objects.get()
    assert proposal.authorship.person == second and proposal.candidate == first
    assert proposal.reason == (
        "Yang Liu in LIT-212 may be Yang Liu of LIT-101: the same name, and no "
        "co-author, topic or venue in common"
    )


def test_a_spelling_variant_with_a_shared_co_author_is_proposed_not_merged(lit):
    one = paper(101, "Yang Liu", "Arthur Douillard", registry=lit, topic=TopicFactory())
    other = paper(212, "Y. Liu", "Arthur Douillard", registry=lit, topic=TopicFactory())

    assert person_at(one) != person_at(other)
    # The co-author is one person: the same spelling and a shared co-author.
    assert person_at(one, 1) == person_at(other, 1)
    proposal = PersonProposal.objects.get()
    assert proposal.reason == (
        "Y. Liu in LIT-212 may be Yang Liu of LIT-101: shared co-author Douillard"
    )
    assert proposal.status == ProposalStatus.OPEN


def test_a_variant_with_no_evidence_is_a_new_person_and_no_proposal(lit):
    paper(101, "Yang Liu", registry=lit, topic=TopicFactory())
    paper(212, "Y. Liu", registry=lit, topic=TopicFactory())

    assert Person.objects.count() == 2
    assert not PersonProposal.objects.exists()


def test_an_orcid_on_the_name_links_whatever_the_spelling(lit):
    one = paper(101, "Yang Liu", registry=lit, topic=TopicFactory())
    edit_person(
        person=person_at(one),
        user=factory_publisher(),
        changes={"orcid": "0000-0002-1825-0097", "state": PersonState.VERIFIED},
    )
    author_list = [
        {
            "family": "Liu",
            "given": "Y.",
            "ORCID": "https://orcid.org/0000-0002-1825-0097",
        }
    ]
    other = DocumentFactory(
        number=212, registry=lit, author_list=author_list, authors="Liu", published=True
    )

    assert person_at(other) == person_at(one)


def test_namesakes_in_a_generated_record_stay_apart(lit):
    """Two groups of twenty papers, each with its own Yang Liu, a co-author
    they keep and others they do not, and topics of their own: two people,
    never one."""
    edinburgh = [TopicFactory() for _ in range(2)]
    beijing = [TopicFactory() for _ in range(2)]
    for n in range(20):
        paper(
            100 + n,
            "Yang Liu",
            "Ada Scot",
            f"Cy Dee{n}",
            registry=lit,
            topic=edinburgh[n % 2],
        )
        paper(
            200 + n,
            "Yang Liu",
            "Bo Han",
            f"Eve Fay{n}",
            registry=lit,
            topic=beijing[n % 2],
        )

    people = Person.objects.filter(display_name="Yang Liu")
    assert people.count() == 2
    held = [
        sorted(
            p.authorships.filter(version=None).values_list(
                "document__number", flat=True
            )
        )
        for p in people
    ]
    assert sorted(held) == [list(range(100, 120)), list(range(200, 220))]
    # One proposal, made when the second Yang Liu was first met.
    assert PersonProposal.objects.count() == 1


def test_an_edit_keeps_the_people_of_unchanged_names_and_relinks_the_rest(lit):
    document = paper(
        101, "Yang Liu", "Arthur Douillard", registry=lit, topic=TopicFactory()
    )
    other = paper(212, "Samyam Rajbhandari", registry=lit, topic=TopicFactory())
    douillard = person_at(document, 1)
    # An editor said the two are one; a later edit must not undo it.
    merge_people(
        source=person_at(other), target=person_at(document), user=factory_publisher()
    )
    kept = person_at(document)

    author_list = names("Yang Liu", "Keith Rush")
    revision = actions.documents.edit_document(
        document=document,
        user=factory_publisher(),
        changes={"author_list": author_list, "authors": derived_authors(author_list)},
    )
    assert revision is not None
    # A pending edit is not the published text: nothing is relinked yet.
    assert person_at(document, 1) == douillard
    actions.documents.publish(document=document, user=factory_publisher())

    assert person_at(document) == kept
    assert person_at(document, 1).display_name == "Keith Rush"
    # The first version still names Douillard at its second position.
    first = document.versions.get(number=1)
    assert first.authorships.get(position=1).person == douillard


def test_each_published_version_has_its_positions(lit):
    document = paper(
        101, "Yang Liu", "Arthur Douillard", registry=lit, topic=TopicFactory()
    )
    author_list = names("Yang Liu", "Arthur Douillard", "Keith Rush")
    actions.documents.edit_document(
        document=document,
        user=factory_publisher(),
        changes={"author_list": author_list, "authors": derived_authors(author_list)},
    )
    actions.documents.publish(document=document, user=factory_publisher())

    first, second = document.versions.order_by("number")
    assert [a.person for a in first.authorships.order_by("position")] == [
        person_at(document, 0),
        person_at(document, 1),
    ]
    assert [a.person for a in second.authorships.order_by("position")] == [
        person_at(document, n) for n in range(3)
    ]


def test_a_draft_saved_by_an_editor_is_linked_too(lit):
    draft = Document(
        registry=lit,
        title="A draft",
        authors="Liu",
        author_list=names("Yang Liu"),
        year=2024,
        summary="Drafted.",
    )
    actions.documents.save_document(document=draft, user=factory_publisher())

    assert person_at(draft).display_name == "Yang Liu"
    assert not Person.objects.public().exists()


def test_a_citation_without_an_author_list_links_its_names(lit):
    document = DocumentFactory(
        number=27, registry=lit, authors="Rajbhandari et al.", published=True
    )
    other = DocumentFactory(
        number=102,
        registry=lit,
        authors="Rajbhandari et al.",
        topic=document.topic,
        published=True,
    )

    assert person_at(document) == person_at(other)
    assert person_at(document).display_name == "Rajbhandari"


def test_the_command_links_the_whole_record_and_is_safe_to_run_again(lit):
    topic = TopicFactory()
    for n in range(5):
        paper(100 + n, "Yang Liu", "Arthur Douillard", registry=lit, topic=topic)
    Authorship.objects.all().delete()
    Person.objects.all().delete()

    out = io.StringIO()
    call_command("link_people", stdout=out)
    assert "Linked the authors of 5 documents: 2 new people" in out.getvalue()
    assert Authorship.objects.filter(version=None).count() == 10
    assert Authorship.objects.filter(version__isnull=False).count() == 10
    before = list(Authorship.objects.values_list("pk", "person"))

    call_command("link_people", stdout=out)
    assert "0 new people, 0 new proposals" in out.getvalue()
    assert list(Authorship.objects.values_list("pk", "person")) == before


# The editors' verbs


def test_a_merge_moves_every_position_and_keeps_the_old_address(lit):
    topic_one, topic_two = TopicFactory(), TopicFactory()
    one = paper(27, "Samyam Rajbhandari", registry=lit, topic=topic_one)
    other = paper(102, "S. Rajbhandari", registry=lit, topic=topic_two)
    target, source = person_at(one), person_at(other)
    since = PendingExpiry.objects.order_by("-pk").values_list("pk", flat=True).first()

    merged = merge_people(source=source, target=target, user=factory_publisher())

    assert merged == target
    assert person_at(other) == target
    assert not Person.objects.filter(pk=source.pk).exists()
    address = PersonAddress.objects.get(slug=source.slug)
    assert list(address.persons.all()) == [target]
    assert Person.objects.get(pk=target.pk).state == PersonState.ASSERTED
    expired = PendingExpiry.objects.filter(pk__gt=since or 0)
    scopes = {scope for expiry in expired for scope in expiry.scopes}
    assert {
        PEOPLE,
        document_scope(one.identifier),
        document_scope(other.identifier),
    } <= scopes
    deleted = LogEntry.objects.get_for_model(Person).get(action=LogEntry.Action.DELETE)
    assert deleted.object_pk == str(source.pk)
    assert deleted.actor.username == "factory-publisher"


def test_a_merge_needs_the_right_to_merge(lit):
    one = paper(27, "Samyam Rajbhandari", registry=lit, topic=TopicFactory())
    other = paper(102, "S. Rajbhandari", registry=lit, topic=TopicFactory())

    with pytest.raises(PermissionDenied):
        merge_people(source=person_at(other), target=person_at(one), user=UserFactory())
    assert Person.objects.count() == 2


def test_two_orcids_are_two_people(lit):
    one = paper(27, "Yang Liu", registry=lit, topic=TopicFactory())
    other = paper(102, "Yang Liu", registry=lit, topic=TopicFactory())
    publisher = factory_publisher()
    edit_person(
        person=person_at(one), user=publisher, changes={"orcid": "0000-0002-1825-0097"}
    )
    edit_person(
        person=person_at(other),
        user=publisher,
        changes={"orcid": "0000-0001-5109-3700"},
    )

    with pytest.raises(ValidationError, match="different ORCID iDs"):
        merge_people(source=person_at(other), target=person_at(one), user=publisher)


def test_a_split_makes_a_person_of_each_group_and_the_old_address_lists_them(lit):
    topic = TopicFactory()
    papers = [paper(100 + n, "Yang Liu", registry=lit, topic=topic) for n in range(3)]
    person = person_at(papers[0])
    positions = list(
        person.authorships.order_by("document__number").values_list("pk", flat=True)
    )

    made = split_person(
        person=person,
        groups=[([positions[0]], "Edinburgh"), positions[1:]],
        user=factory_publisher(),
    )

    assert [p.slug for p in made] == ["yang-liu-edinburgh", "yang-liu-2"]
    assert person_at(papers[0]) == made[0]
    assert {person_at(p) for p in papers[1:]} == {made[1]}
    assert {p.state for p in made} == {PersonState.ASSERTED}
    assert set(PersonAddress.objects.get(slug="yang-liu").persons.all()) == set(made)


@pytest.mark.parametrize(
    "groups",
    [lambda pks: [pks], lambda pks: [pks[:1], []], lambda pks: [pks[:1], pks[:1]]],
    ids=["one group", "an empty group", "a position missing"],
)
def test_a_split_that_does_not_place_every_position_once_writes_nothing(lit, groups):
    topic = TopicFactory()
    papers = [paper(100 + n, "Yang Liu", registry=lit, topic=topic) for n in range(2)]
    person = person_at(papers[0])
    pks = list(person.authorships.values_list("pk", flat=True))

    with pytest.raises(ValidationError):
        split_person(person=person, groups=groups(pks), user=factory_publisher())
    assert list(Person.objects.all()) == [person]
    assert not PersonAddress.objects.exists()


def test_a_new_slug_keeps_the_old_one_as_an_address(lit):
    document = paper(27, "S. Rajbhandari", registry=lit, topic=TopicFactory())
    person = person_at(document)

    edit_person(
        person=person,
        user=factory_publisher(),
        changes={
            "name": {"family": "Rajbhandari", "given": "Samyam"},
            "slug": "samyam-rajbhandari",
        },
    )

    person.refresh_from_db()
    assert (person.display_name, person.slug) == (
        "Samyam Rajbhandari",
        "samyam-rajbhandari",
    )
    assert list(PersonAddress.objects.get(slug="s-rajbhandari").persons.all()) == [
        person
    ]


def test_verified_needs_an_orcid_and_a_bad_orcid_is_named(lit):
    person = person_at(paper(27, "Yang Liu", registry=lit, topic=TopicFactory()))

    with pytest.raises(ValidationError, match="ORCID"):
        edit_person(
            person=person,
            user=factory_publisher(),
            changes={"state": PersonState.VERIFIED},
        )
    with pytest.raises(ValidationError, match="should be 7, not 8"):
        edit_person(
            person=person,
            user=factory_publisher(),
            changes={"orcid": "0000-0002-1825-0098"},
        )
    assert Person.objects.get(pk=person.pk).orcid == ""


def test_accepting_a_proposal_merges_and_rejecting_keeps_two_people(lit):
    paper(101, "Yang Liu", "Arthur Douillard", registry=lit, topic=TopicFactory())
    variant = paper(
        212, "Y. Liu", "Arthur Douillard", registry=lit, topic=TopicFactory()
    )
    proposal = PersonProposal.objects.get()
    candidate = proposal.candidate

    accept_proposal(proposal=proposal, user=factory_publisher())

    assert person_at(variant) == candidate
    proposal = PersonProposal.objects.get()
    assert (proposal.status, proposal.decided_by.username) == (
        "accepted",
        "factory-publisher",
    )
    with pytest.raises(ValidationError, match="already accepted"):
        reject_proposal(proposal=proposal, user=factory_publisher())


def test_a_rejected_proposal_stays_rejected(lit):
    paper(101, "Yang Liu", "Arthur Douillard", registry=lit, topic=TopicFactory())
    variant = paper(
        212, "Y. Liu", "Arthur Douillard", registry=lit, topic=TopicFactory()
    )

    reject_proposal(proposal=PersonProposal.objects.get(), user=factory_publisher())

    assert PersonProposal.objects.get().status == ProposalStatus.REJECTED
    assert Person.objects.filter(display_name__endswith="Liu").count() == 2
    assert person_at(variant).display_name == "Y. Liu"


def test_an_orcid_the_source_gives_is_kept_unverified_on_the_new_person(lit):
    author_list = [
        {
            "family": "Liu",
            "given": "Yang",
            "ORCID": "http://orcid.org/0000-0002-1825-0097",
        }
    ]
    document = DocumentFactory(
        number=101, registry=lit, author_list=author_list, authors="Liu", published=True
    )

    person = person_at(document)
    assert (person.orcid, person.state) == ("0000-0002-1825-0097", PersonState.INFERRED)
    assert not person.is_verified


def test_one_orcid_is_one_persons(lit):
    one = paper(27, "Yang Liu", registry=lit, topic=TopicFactory())
    other = paper(102, "Yang Liu", registry=lit, topic=TopicFactory())
    publisher = factory_publisher()
    edit_person(
        person=person_at(one), user=publisher, changes={"orcid": "0000-0002-1825-0097"}
    )

    with pytest.raises(ValidationError, match="holds this ORCID iD: merge the two"):
        edit_person(
            person=person_at(other),
            user=publisher,
            changes={"orcid": "0000-0002-1825-0097"},
        )


def test_a_new_name_takes_a_new_slug_and_the_old_one_redirects(lit):
    person = person_at(paper(27, "S. Rajbhandari", registry=lit, topic=TopicFactory()))

    edit_person(
        person=person,
        user=factory_publisher(),
        changes={
            "name": {"family": "Rajbhandari", "given": "Samyam"},
            "slug": person.slug,
        },
    )

    person.refresh_from_db()
    assert person.slug == "samyam-rajbhandari"
    assert list(PersonAddress.objects.get(slug="s-rajbhandari").persons.all()) == [
        person
    ]


def test_a_slug_an_editor_chose_stays_when_the_name_changes(lit):
    person = person_at(paper(27, "S. Rajbhandari", registry=lit, topic=TopicFactory()))
    publisher = factory_publisher()
    edit_person(
        person=person, user=publisher, changes={"slug": "rajbhandari-deepspeed"}
    )

    edit_person(
        person=person,
        user=publisher,
        changes={"name": {"family": "Rajbhandari", "given": "Samyam"}},
    )

    person.refresh_from_db()
    assert person.slug == "rajbhandari-deepspeed"

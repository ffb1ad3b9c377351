"""Authors' ORCID iDs in the records: a MODS name whose person the record
has verified carries the iD (``nameIdentifier``), valid against MODS 3.7;
no other name does, and Dublin Core is as it was. A change to the people
that changes which iDs a record gives moves its datestamp."""

import itertools
from datetime import timedelta

import pytest
from django.utils import timezone
from lxml import etree

import actions.people
from catalogue.models import Document, Person
from catalogue.orcid import check_character
from tests.factories import (
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
    factory_publisher,
)
from tests.oai.oai import NS, ask

pytestmark = pytest.mark.django_db

HOST = "oai:anthology.invalid"
ORCID = "0000-0002-1825-0097"


def verify(person, orcid=ORCID, state="verified"):
    return actions.people.edit_person(
        person=person,
        user=factory_publisher(),
        changes={"orcid": orcid, "state": state},
    )


def mods_names(tree):
    """``[(family, orcid iDs)]`` of each author name of each MODS record."""
    return [
        (
            name.findtext("mods:namePart[@type='family']", namespaces=NS),
            name.xpath("mods:nameIdentifier[@type='orcid']/text()", namespaces=NS),
        )
        for name in tree.iterfind(".//mods:mods/mods:name[mods:namePart]", NS)
    ]


@pytest.fixture
def memory():
    """LIT-004 by Chen, Xu, Zhang and Guestrin (the full list), and LIT-005
    by "Chen et al." (the citation's names only), both public."""
    topic = TopicFactory(slug="distributed")
    DocumentFactory(
        sublinear_memory=True, all_authors=True, topic=topic, published=True
    )
    DocumentFactory(
        number=5, authors="Chen et al.", topic=topic, year=2017, published=True
    )
    return {
        "chen": Person.objects.get(slug="tianqi-chen"),
        "guestrin": Person.objects.get(slug="carlos-guestrin"),
    }


def test_a_verified_author_carries_the_orcid_in_mods(client, memory):
    verify(memory["chen"])
    verify(memory["guestrin"], orcid="0000-0001-5109-3700", state="asserted")

    tree = ask(
        client, verb="GetRecord", identifier=f"{HOST}:LIT-004", metadataPrefix="mods"
    )

    assert mods_names(tree) == [
        ("Chen", [f"https://orcid.org/{ORCID}"]),
        ("Xu", []),
        ("Zhang", []),
        # An iD an editor set, and has not verified, is not given.
        ("Guestrin", []),
    ]


def test_each_listed_record_carries_its_own_authors_orcids(client, memory):
    verify(memory["chen"])

    tree = ask(client, verb="ListRecords", metadataPrefix="mods")

    # LIT-005's "Chen" is another person (the same family, no given name):
    # the record does not vouch it is the verified one.
    assert sorted(mods_names(tree)) == [
        ("Chen", []),
        ("Chen", [f"https://orcid.org/{ORCID}"]),
        ("Guestrin", []),
        ("Xu", []),
        ("Zhang", []),
    ]


def test_dublin_core_is_the_same_once_an_author_is_verified(client, memory):
    def dublin_core():
        """``{identifier: its oai_dc metadata}``, listed and got one by one."""
        listed = ask(client, verb="ListRecords", metadataPrefix="oai_dc")
        got = ask(
            client,
            verb="GetRecord",
            identifier=f"{HOST}:LIT-004",
            metadataPrefix="oai_dc",
        )
        return [
            {
                record.findtext("o:header/o:identifier", namespaces=NS): xml(
                    record.find("o:metadata", NS)
                )
                for record in tree.iterfind(".//o:record", NS)
            }
            for tree in (listed, got)
        ]

    before = dublin_core()
    verify(memory["chen"])

    # The record's datestamp moves (its MODS changed); its Dublin Core is
    # as it was.
    assert dublin_core() == before
    assert b"Chen, Tianqi" in before[1][f"{HOST}:LIT-004"]
    assert all(b"orcid" not in metadata for metadata in before[0].values())


def xml(tree):
    return etree.tostring(tree)


def linked_record(count):
    """``count`` public documents, each by two people (the next document's
    first author is this one's second), linked as the imports link them;
    every other person verified, each with an iD of their own."""
    registry, topic = RegistryFactory(), TopicFactory()
    families = ["Liu", "Wang", "Kumar", "Müller", "Okafor", "van der Berg", "Silva"]
    given = ["Yang", "Wei", "Anna", "Rahul", "Jonas", "Chidi", "Maria", "Sophie"]
    names = [
        {"family": family, "given": first}
        for first, family in itertools.islice(
            itertools.product(given, families), count + 1
        )
    ]
    documents = Document.objects.bulk_create(
        DocumentFactory.build(
            registry=registry,
            topic=topic,
            number=n + 1,
            status=Document.Status.ACTIVE,
            author_list=[names[n], names[n + 1]],
            updated_at=timezone.now(),
        )
        for n in range(count)
    )
    actions.people.link_documents(documents)
    for n, person in enumerate(Person.objects.order_by("pk")):
        if n % 2 == 0:
            verify(person, orcid=orcid_of(n))


def orcid_of(n):
    """A real iD's shape with the check character ISO 7064 gives it."""
    digits = f"0000000{n:08d}"
    iD = digits + check_character(digits)
    return "-".join(iD[i : i + 4] for i in range(0, 16, 4))


@pytest.mark.parametrize("count", [5, 50])
def test_a_page_of_records_reads_the_orcids_in_one_query(
    client, django_assert_num_queries, count
):
    linked_record(count)

    # The list's length, the page, its tags, its authors' verified iDs.
    with django_assert_num_queries(4):
        tree = ask(client, verb="ListRecords", metadataPrefix="mods")

    names = mods_names(tree)
    assert len(names) == 2 * count
    identified = [orcids for _, orcids in names if orcids]
    assert len(identified) == count
    assert Person.objects.filter(state="verified").count() == (count + 2) // 2


def datestamps(client):
    """``{identifier: datestamp}`` of every record, as harvesters list them."""
    tree = ask(client, verb="ListIdentifiers", metadataPrefix="mods")
    return {
        header.findtext("o:identifier", namespaces=NS): header.findtext(
            "o:datestamp", namespaces=NS
        )
        for header in tree.iterfind(".//o:header", NS)
    }


def an_hour_ago():
    Document.objects.update(updated_at=timezone.now() - timedelta(hours=1))


def test_verifying_an_author_moves_the_datestamps_of_their_records(client, memory):
    an_hour_ago()
    before = datestamps(client)

    verify(memory["chen"])
    verified = datestamps(client)
    # A verified person's new affiliation changes no record.
    an_hour_ago()
    before_affiliation = datestamps(client)
    actions.people.edit_person(
        person=memory["chen"],
        user=factory_publisher(),
        changes={"affiliation": "University of Washington"},
    )

    assert verified[f"{HOST}:LIT-004"] > before[f"{HOST}:LIT-004"]
    # LIT-005's Chen is another person: their record is as it was.
    assert verified[f"{HOST}:LIT-005"] == before[f"{HOST}:LIT-005"]
    assert datestamps(client) == before_affiliation


def test_merging_into_a_verified_person_moves_the_merged_records(client, memory):
    verify(memory["chen"])
    an_hour_ago()
    before = datestamps(client)

    actions.people.merge_people(
        source=Person.objects.get(slug="chen"),
        target=memory["chen"],
        user=factory_publisher(),
    )

    after = datestamps(client)
    assert after[f"{HOST}:LIT-005"] > before[f"{HOST}:LIT-005"]
    assert after[f"{HOST}:LIT-004"] == before[f"{HOST}:LIT-004"]
    tree = ask(
        client, verb="GetRecord", identifier=f"{HOST}:LIT-005", metadataPrefix="mods"
    )
    assert mods_names(tree) == [("Chen", [f"https://orcid.org/{ORCID}"])]

"""People in the API: the people public documents name, each with their
public documents, and every document's author positions linked to them."""

import itertools

import pytest
from django.utils import timezone

import actions.documents
import actions.people
from catalogue.models import Authorship, Document, Person
from tests.factories import (
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
    factory_publisher,
)

pytestmark = pytest.mark.django_db

ORCID = "0000-0002-1825-0097"

CHEN = {"family": "Chen", "given": "Tianqi"}
GUESTRIN = {"family": "Guestrin", "given": "Carlos"}


@pytest.fixture
def authors(public_record):
    """Two public documents by Tianqi Chen and Carlos Guestrin, the second
    spelling him "Tianqi Chén": LIT-009 and LIT-010, in the public record's
    topic."""
    registry, topic = public_record["cited"].registry, public_record["topic"]
    first = DocumentFactory(
        registry=registry,
        number=9,
        topic=topic,
        authors="Chen et al.",
        author_list=[CHEN, {"family": "Xu", "given": "Bing"}, GUESTRIN],
        published=True,
    )
    second = DocumentFactory(
        registry=registry,
        number=10,
        topic=topic,
        authors="Chén and Guestrin",
        author_list=[{"family": "Chén", "given": "Tianqi"}, GUESTRIN],
        published=True,
    )
    return {**public_record, "first": first, "second": second}


def person(slug):
    return Person.objects.get(slug=slug)


def verify(slug, **changes):
    """Verify the person at ``slug`` by ORCID iD, as an editor does."""
    return actions.people.edit_person(
        person=person(slug),
        user=factory_publisher(),
        changes={"orcid": ORCID, "state": "verified", **changes},
    )


def results(response):
    assert response.status_code == 200
    return response.json()["results"]


def slugs(response):
    return [row["id"] for row in results(response)]


def test_a_verified_person_shows_their_orcid_and_public_documents(client, authors):
    verify(
        "tianqi-chen",
        affiliation="University of Washington",
        homepage="https://tqchen.com/",
    )

    rows = {row["id"]: row for row in results(client.get("/api/people/"))}

    assert rows["tianqi-chen"] == {
        "id": "tianqi-chen",
        "url": "http://testserver/api/people/tianqi-chen/",
        "name": "Tianqi Chen",
        "sort_name": "Chen, Tianqi",
        "csl_name": CHEN,
        "orcid": ORCID,
        "orcid_url": f"https://orcid.org/{ORCID}",
        "orcid_verified": True,
        "state": "verified",
        "affiliation": "University of Washington",
        "homepage": "https://tqchen.com/",
        "document_count": 2,
        "documents": ["LIT-009", "LIT-010"],
    }
    assert rows["carlos-guestrin"]["orcid"] is None
    assert rows["carlos-guestrin"]["orcid_verified"] is False
    assert rows["carlos-guestrin"]["state"] == "inferred"


def test_an_orcid_an_editor_has_not_verified_is_not_shown(client, authors):
    actions.people.edit_person(
        person=person("carlos-guestrin"),
        user=factory_publisher(),
        changes={"orcid": ORCID, "state": "asserted"},
    )

    row = client.get("/api/people/carlos-guestrin/").json()

    assert (row["orcid"], row["orcid_url"], row["orcid_verified"]) == (
        None,
        None,
        False,
    )
    assert row["state"] == "asserted"


def test_a_person_lists_each_position_with_the_name_as_written(client, authors):
    detail = client.get("/api/people/tianqi-chen/").json()

    assert detail["documents"] == ["LIT-009", "LIT-010"]
    assert detail["authorships"] == [
        {
            "identifier": "LIT-009",
            "url": "http://testserver/api/documents/LIT-009/",
            "position": 0,
            "name": CHEN,
        },
        {
            "identifier": "LIT-010",
            "url": "http://testserver/api/documents/LIT-010/",
            "position": 0,
            "name": {"family": "Chén", "given": "Tianqi"},
        },
    ]
    assert client.get(detail["authorships"][1]["url"]).status_code == 200


def test_documents_link_each_author_position_to_its_person(client, authors):
    listed = {row["identifier"]: row for row in results(client.get("/api/documents/"))}
    detail = client.get("/api/documents/LIT-010/").json()

    assert detail["authors_linked"] == [
        {
            "position": 0,
            "name": {"family": "Chén", "given": "Tianqi"},
            "person": "tianqi-chen",
            "person_url": "http://testserver/api/people/tianqi-chen/",
        },
        {
            "position": 1,
            "name": GUESTRIN,
            "person": "carlos-guestrin",
            "person_url": "http://testserver/api/people/carlos-guestrin/",
        },
    ]
    assert listed["LIT-010"]["authors_linked"] == detail["authors_linked"]
    assert [a["person"] for a in listed["LIT-009"]["authors_linked"]] == [
        "tianqi-chen",
        "bing-xu",
        "carlos-guestrin",
    ]
    # The author list stays as written: the people are beside it.
    assert detail["author_list"] == [{"family": "Chén", "given": "Tianqi"}, GUESTRIN]


def test_drafts_and_pending_revisions_name_no_one_in_the_api(
    client, authors, with_draft, editor, people, token_of
):
    # A draft by Unread and by Tianqi Chen, and a pending revision of LIT-009
    # naming a new author: none of it is public.
    draft = DocumentFactory.build(
        registry=authors["cited"].registry,
        number=13,
        topic=authors["topic"],
        author_list=[CHEN, {"family": "Unread", "given": "Also"}],
    )
    actions.documents.save_document(document=draft, user=editor)
    actions.documents.edit_document(
        document=authors["first"],
        user=editor,
        changes={"author_list": [{"family": "Pending", "given": "Paula"}, CHEN]},
    )
    public = set(Person.objects.public().values_list("slug", flat=True))
    # The drafts' authors are people of the record, for the editors' desk.
    assert Person.objects.filter(slug__in=["unread", "also-unread"]).count() == 2
    token = token_of(people["editor"])

    for headers in [{}, token]:
        listed = slugs(client.get("/api/people/?page_size=200", **headers))
        assert set(listed) == public
        assert {"unread", "also-unread", "paula-pending"}.isdisjoint(listed)
        chen = client.get("/api/people/tianqi-chen/", **headers).json()
        assert (chen["document_count"], chen["documents"]) == (
            2,
            ["LIT-009", "LIT-010"],
        )
        for slug in ["unread", "also-unread", "paula-pending"]:
            assert client.get(f"/api/people/{slug}/", **headers).status_code == 404
    # An editor sees the draft, and its positions: the person only public
    # documents name has no address, the one a public document names has.
    draft = client.get("/api/documents/LIT-013/", **token).json()
    assert [a["person"] for a in draft["authors_linked"]] == ["tianqi-chen", None]
    assert draft["authors_linked"][1]["person_url"] is None
    assert [a["name"] for a in draft["authors_linked"]] == [
        CHEN,
        {"family": "Unread", "given": "Also"},
    ]


def test_a_merged_or_renamed_address_answers_301_to_the_person(client, authors):
    source, target = person("bing-xu"), person("carlos-guestrin")
    actions.people.merge_people(source=source, target=target, user=factory_publisher())
    actions.people.edit_person(
        person=person("carlos-guestrin"),
        user=factory_publisher(),
        changes={"slug": "guestrin"},
    )

    merged = client.get("/api/people/bing-xu/")
    renamed = client.get("/api/people/carlos-guestrin/")

    assert (merged.status_code, merged["Location"]) == (
        301,
        "http://testserver/api/people/guestrin/",
    )
    assert (renamed.status_code, renamed["Location"]) == (
        301,
        "http://testserver/api/people/guestrin/",
    )
    now = client.get(merged["Location"]).json()
    assert now["documents"] == ["LIT-009", "LIT-010"]
    assert "bing-xu" not in slugs(client.get("/api/people/"))


def test_a_split_address_lists_the_people_it_names(client, authors):
    chen = person("tianqi-chen")
    # Each document's positions: its text's and its versions'.
    by_document = [
        list(
            chen.authorships.filter(document=authors[key]).values_list("pk", flat=True)
        )
        for key in ["first", "second"]
    ]
    made = actions.people.split_person(
        person=chen,
        groups=[by_document[0], (by_document[1], "Elsewhere")],
        user=factory_publisher(),
    )

    answer = client.get("/api/people/tianqi-chen/")

    assert answer.status_code == 300
    assert answer.json()["people"] == [
        f"http://testserver/api/people/{new.slug}/" for new in made
    ]
    assert [client.get(url).json()["documents"] for url in answer.json()["people"]] == [
        ["LIT-009"],
        ["LIT-010"],
    ]


def realistic_names(count):
    """``count`` distinct names, as author lists write them."""
    families = ["Liu", "Wang", "Zhang", "Kumar", "Müller", "Okafor", "Silva"]
    families += ["van der Berg", "Nakamura", "Dubois", "Kowalski", "O'Brien"]
    given = ["Yang", "Wei", "Anna", "Rahul", "Jonas", "Chidi", "Maria", "Sophie"]
    given += ["Kenji", "Luc", "Zofia"]
    pairs = itertools.product(given, families)
    return [
        {"family": family, "given": first}
        for first, family in itertools.islice(pairs, count)
    ]


def people_in_bulk(count):
    """``count`` people, each the first author of a public document and the
    second of the next one's, linked as the imports link them."""
    registry, topic = RegistryFactory(), TopicFactory()
    names = realistic_names(count)
    documents = Document.objects.bulk_create(
        DocumentFactory.build(
            registry=registry,
            topic=topic,
            number=100 + n,
            status=Document.Status.ACTIVE,
            author_list=[names[n], names[n - 1]] if n else [names[n]],
            updated_at=timezone.now(),
        )
        for n in range(count)
    )
    actions.people.link_documents(documents)
    return names


def test_a_cursor_walks_every_person_once(client):
    people_in_bulk(120)
    expected = list(
        Person.objects.public().order_by("pk").values_list("slug", flat=True)
    )
    seen, url = [], "/api/people/?page_size=50"
    pages = 0
    while url:
        response = client.get(url)
        seen += slugs(response)
        url = response.json()["next"]
        pages += 1
        if url:
            assert f'<{url}>; rel="next"' in response["Link"]

    assert len(expected) == 120
    assert seen == expected
    assert pages == 3


# The people, then their public positions with their documents; a person
# (and their positions).
PEOPLE_PAGES = [
    ("people", "/api/people/?page_size=200", 2),
    ("person", "/api/people/latest/", 2),
    # The documents, their tags, their positions with their people.
    ("documents", "/api/documents/?page_size=200", 3),
    # The document; its tags, positions, versions and references; what it
    # supersedes, what names it, the decision records naming it.
    ("document", "/api/documents/LIT-101/", 9),
    # A former address: no person there, the address, the people it names.
    ("former address", "/api/people/former/", 3),
]


@pytest.mark.parametrize("count", [5, 50])
def test_people_pages_cost_the_same_queries_at_5_and_50_people(
    client, django_assert_num_queries, count
):
    people_in_bulk(count)
    last = Person.objects.order_by("pk").last()
    actions.people.edit_person(
        person=Person.objects.order_by("pk").first(),
        user=factory_publisher(),
        changes={"orcid": ORCID, "state": "verified"},
    )
    actions.people.edit_person(
        person=last, user=factory_publisher(), changes={"slug": "former"}
    )
    actions.people.edit_person(
        person=last, user=factory_publisher(), changes={"slug": "latest"}
    )
    assert Authorship.objects.filter(version=None).count() == 2 * count - 1

    for name, path, queries in PEOPLE_PAGES:
        with django_assert_num_queries(queries, info=name):
            response = client.get(path)
        assert response.status_code in {200, 301}, name
    everyone = client.get("/api/people/?page_size=200").json()["results"]
    assert len(everyone) == count


def test_a_person_is_fresh_in_the_api_after_an_edit(client, authors, committed):
    paths = [
        "/api/people/",
        "/api/people/tianqi-chen/",
        "/api/documents/",
        "/api/documents/LIT-010/",
    ]
    before = {path: client.get(path) for path in paths}
    for path in paths:
        assert client.get(path)["ETag"] == before[path]["ETag"]

    with committed():
        actions.people.edit_person(
            person=person("tianqi-chen"),
            user=factory_publisher(),
            changes={"name": {"family": "Chen", "given": "T."}, "slug": "t-chen"},
        )

    listed = {row["id"] for row in results(client.get("/api/people/"))}
    assert "t-chen" in listed and "tianqi-chen" not in listed
    assert client.get("/api/people/tianqi-chen/").status_code == 301
    document = client.get("/api/documents/LIT-010/").json()
    assert document["authors_linked"][0]["person"] == "t-chen"
    # The name as written is the document's, whatever the person is called.
    assert document["authors_linked"][0]["name"] == {
        "family": "Chén",
        "given": "Tianqi",
    }
    rows = results(client.get("/api/documents/"))
    assert "t-chen" in {a["person"] for row in rows for a in row["authors_linked"]}

"""The people and venue pages: who the record names, by what spellings, with
which documents, co-authors and venues; their former addresses after merges
and splits; search finding them; and nothing of a draft, ever."""

import json

import pytest
from django.urls import reverse
from lxml import etree

import actions.documents
import actions.people
from catalogue.citations import derived_authors
from catalogue.models import Authorship, Person, Venue
from public import views
from tests.factories import DocumentFactory, RegistryFactory, TopicFactory, UserFactory
from tests.html import soup_of, text_of

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"


def name(given, family):
    return {"family": family, "given": given} if given else {"family": family}


def cited(names):
    """The citation's authors as the record prints them: ``Liu and
    Douillard``, ``Liu et al.``."""
    families = [author["family"] for author in names]
    if len(families) == 1:
        return families[0]
    if len(families) == 2:
        return " and ".join(families)
    return f"{families[0]} et al."


def published(number, authors, *, topic, year, title=None, **fields):
    """A public document of ``authors`` (CSL names), linked through the
    publish action as every publication is."""
    return DocumentFactory(
        number=number,
        topic=topic,
        year=year,
        author_list=authors,
        authors=cited(authors),
        title=title or f"Work number {number}",
        published=True,
        **fields,
    )


YANG_LIU = name("Yang", "Liu")
Y_LIU = name("Y.", "Liu")
DOUILLARD = name("Arthur", "Douillard")
MAATEN = name("Laurens", "van der Maaten")
TAN = name("Mingxing", "Tan")


@pytest.fixture
def superuser():
    return UserFactory(is_superuser=True, username="editor-in-chief")


@pytest.fixture
def record(editor):
    """Two topics; the Yang Liu of LIT-101 and LIT-103 (with Douillard, in
    Memory; one at OSDI), another Yang Liu in Evaluation (LIT-212, with Tan),
    a "Y. Liu" of LIT-102 the linker only proposes, van der Maaten (of
    LIT-103, and with Douillard of LIT-300, unfiled), and a draft naming the
    first Yang Liu with a co-author of its own."""
    memory = TopicFactory(name="Memory", slug="memory")
    evaluation = TopicFactory(name="Evaluation", slug="evaluation")
    documents = {
        101: published(
            101,
            [YANG_LIU, DOUILLARD],
            topic=memory,
            year=2021,
            citation_note="OSDI ‘21",
            source_identifier="",
        ),
        102: published(102, [Y_LIU, DOUILLARD], topic=memory, year=2022),
        103: published(103, [YANG_LIU, DOUILLARD, MAATEN], topic=memory, year=2023),
        212: published(212, [YANG_LIU, TAN], topic=evaluation, year=2024),
        300: published(300, [MAATEN, DOUILLARD], topic=None, year=2008),
    }
    draft = DocumentFactory.build(
        registry=RegistryFactory(),
        number=400,
        topic=memory,
        year=2025,
        author_list=[YANG_LIU, name("Secret", "Coauthor")],
        authors="Liu and Coauthor",
        citation_note="OSDI ‘25",
        source_identifier="",
        title="A draft nobody may read",
    )
    actions.documents.save_document(document=draft, user=editor)
    return {"memory": memory, "evaluation": evaluation, "draft": draft, **documents}


def headings(soup):
    return [h3.get_text(" ", strip=True) for h3 in soup.select(".document-group h3")]


def person_at(number, position=0):
    return Authorship.objects.get(
        document__number=number, version__isnull=True, position=position
    ).person


def test_the_linker_made_two_yang_lius_and_a_y_liu_for_this_record(record):
    first, second = person_at(101), person_at(212)

    assert person_at(103) == first
    assert (first.slug, second.slug, person_at(102).slug) == (
        "yang-liu",
        "yang-liu-2",
        "y-liu",
    )
    # The draft's author is the first Yang Liu, by their shared topic.
    assert person_at(400) == first


def test_people_index_lists_public_people_by_family_name_under_letters(client, record):
    soup = soup_of(client.get(reverse("catalogue:people")))

    groups = {
        section.h2.get_text(): [li.get_text(" ", strip=True) for li in section("li")]
        for section in soup.select(".letter-group")
    }
    assert groups == {
        "D": ["Douillard, Arthur 4 documents"],
        "L": [
            "Liu, Y. 1 document",
            "Liu, Yang 2 documents",
            "Liu, Yang 1 document",
        ],
        # Particles are demoted: van der Maaten is filed under M.
        "M": ["Maaten, Laurens van der 2 documents"],
        "T": ["Tan, Mingxing 1 document"],
    }
    letters = [(a.get_text(), a["href"]) for a in soup.select("nav.letters a")]
    assert letters == [
        (letter, f"/people/#letter-{letter}") for letter in ["D", "L", "M", "T"]
    ]
    assert "Coauthor" not in soup.get_text()


def test_the_letters_lead_to_the_page_each_starts_on(client, record, monkeypatch):
    monkeypatch.setattr(views.PersonListView, "paginate_by", 2)

    soup = soup_of(client.get(reverse("catalogue:people")))
    later = soup_of(client.get(reverse("catalogue:people"), {"page": 3}))

    letters = {a.get_text(): a["href"] for a in soup.select("nav.letters a")}
    # D, Liu Y.; Liu Yang, Liu Yang; van der Maaten, Tan.
    assert letters == {
        "D": "/people/#letter-D",
        "L": "/people/#letter-L",
        "M": "/people/?page=3#letter-M",
        "T": "/people/?page=3#letter-T",
    }
    assert [h2["id"] for h2 in later.select(".letter-group h2")] == [
        "letter-M",
        "letter-T",
    ]
    assert soup.select_one(".pagination").get_text(" ", strip=True) == (
        "Page 1 of 3 Next page"
    )
    assert client.get(reverse("catalogue:people"), {"page": 4}).status_code == 404


def test_person_page_shows_spellings_documents_by_topic_counts_years_and_more(
    client, record
):
    person = person_at(101)

    soup = soup_of(client.get(person.get_absolute_url()))

    assert soup.h1.get_text() == "Yang Liu"
    assert soup.select_one(".unverified").get_text() == "Unverified"
    assert soup.select_one("a.orcid") is None
    facts = dict(
        zip(
            [dt.get_text() for dt in soup.select(".person .facts dt")],
            [dd.get_text() for dd in soup.select(".person .facts dd")],
            strict=True,
        )
    )
    assert facts == {
        "Written as": "Yang Liu",
        "Years": "2021–2023: 2021 (1), 2023 (1)",
        "Venues": "OSDI (1)",
    }
    assert soup.select_one(".person-documents .counts").get_text() == (
        "2 of 5 LIT documents. Back to the full index."
    )
    groups = [
        (h3.get_text(" ", strip=True), [td.get_text() for td in table("td", "label")])
        for h3, table in zip(
            soup.select(".document-group h3"),
            soup.select(".document-group table"),
            strict=True,
        )
    ]
    assert groups == [("Memory (2)", ["LIT-101", "LIT-103"])]
    coauthors = [li.get_text(" ", strip=True) for li in soup.select(".coauthors li")]
    assert coauthors == ["Arthur Douillard 2 shared", "Laurens van der Maaten 1 shared"]
    assert [a["href"] for a in soup.select(".coauthors a")] == [
        person_at(101, 1).get_absolute_url(),
        person_at(103, 2).get_absolute_url(),
    ]
    assert soup.select_one(".person .facts a")["href"] == reverse(
        "catalogue:venue-detail", args=["osdi"]
    )
    # Nothing of the draft that names them too.
    assert "A draft nobody may read" not in soup.get_text()
    assert "Coauthor" not in soup.get_text()
    assert "2025" not in soup.select_one(".person").get_text()


def test_a_persons_documents_are_grouped_in_editorial_order_unfiled_last(
    client, record
):
    maaten = person_at(103, 2)

    soup = soup_of(client.get(maaten.get_absolute_url()))

    assert [
        h3.get_text(" ", strip=True) for h3 in soup.select(".document-group h3")
    ] == [
        "Memory (1)",
        "Unfiled (1)",
    ]
    assert soup.select(".document-group h3 a")[1]["href"] == reverse(
        "catalogue:unfiled"
    )


def test_namesakes_are_linked_from_each_others_pages(client, record):
    first, second = person_at(101), person_at(212)

    box = soup_of(client.get(first.get_absolute_url())).select_one(".namesakes")
    other = soup_of(client.get(second.get_absolute_url())).select_one(".namesakes")

    assert box.h2.get_text() == "Other people named Yang Liu"
    assert [(a.get_text(), a["href"]) for a in box("a")] == [
        ("Yang Liu", second.get_absolute_url())
    ]
    assert box.li.get_text() == "Yang Liu: 1 document"
    assert [a["href"] for a in other("a")] == [first.get_absolute_url()]


def test_a_verified_person_shows_their_orcid_id_and_says_so_to_machines(
    client, record, superuser
):
    person = actions.people.edit_person(
        person=person_at(101),
        user=superuser,
        changes={
            "orcid": "0000-0002-1825-0097",
            "state": Person.State.VERIFIED,
            "affiliation": "Tsinghua University",
            "homepage": "https://example.org/yang-liu",
        },
    )

    response = client.get(person.get_absolute_url())
    soup = soup_of(response)

    assert soup.select_one(".unverified") is None
    orcid = soup.select_one("a.orcid")
    assert orcid["href"] == orcid.get_text() == "https://orcid.org/0000-0002-1825-0097"
    facts = [dd.get_text() for dd in soup.select(".person .facts dd")]
    assert facts[:2] == ["Tsinghua University", "https://example.org/yang-liu"]
    (script,) = soup.select('script[type="application/ld+json"]')
    page = json.loads(script.string)
    assert page["@type"] == "ProfilePage"
    assert page["mainEntity"] == {
        "@type": "Person",
        "@id": f"http://testserver{person.get_absolute_url()}#person",
        "url": f"http://testserver{person.get_absolute_url()}",
        "name": "Yang Liu",
        "familyName": "Liu",
        "givenName": "Yang",
        "affiliation": {"@type": "Organization", "name": "Tsinghua University"},
        "identifier": {
            "@type": "PropertyValue",
            "propertyID": "ORCID",
            "value": "0000-0002-1825-0097",
        },
        "sameAs": ["https://orcid.org/0000-0002-1825-0097"],
    }


def test_an_orcid_id_not_verified_is_neither_shown_nor_claimed(
    client, record, superuser
):
    person = actions.people.edit_person(
        person=person_at(101),
        user=superuser,
        changes={"orcid": "0000-0002-1825-0097", "state": Person.State.ASSERTED},
    )

    soup = soup_of(client.get(person.get_absolute_url()))

    assert soup.select_one(".unverified").get_text() == "Unverified"
    assert "0000-0002-1825-0097" not in soup.decode()


def test_a_merged_address_answers_301_to_the_person_it_became(
    client, record, superuser
):
    merged = person_at(102)
    target = person_at(101)
    old = merged.get_absolute_url()

    actions.people.merge_people(source=merged, target=target, user=superuser)

    response = client.get(old)
    assert response.status_code == 301
    assert response["Location"] == target.get_absolute_url()
    soup = soup_of(client.get(target.get_absolute_url()))
    assert soup.select(".person .facts dd")[0].get_text() == "Y. Liu; Yang Liu"
    assert (
        soup.select_one(".person-documents .counts")
        .get_text()
        .startswith("3 of 5 LIT documents.")
    )


def test_a_split_address_lists_the_people_it_names_and_is_not_indexed(
    client, record, superuser
):
    person = person_at(101)
    positions = {
        authorship.document.number: authorship.pk
        for authorship in person.authorships.filter(version__isnull=True)
    }
    versions = list(
        person.authorships.filter(version__isnull=False).values_list(
            "pk", "document__number"
        )
    )
    by_document = {
        number: [positions[number]] + [pk for pk, of in versions if of == number]
        for number in positions
    }
    made = actions.people.split_person(
        person=person,
        groups=[
            (by_document[101] + by_document[400], "Tsinghua University"),
            (by_document[103], "Carnegie Mellon University"),
        ],
        user=superuser,
    )

    response = client.get("/people/yang-liu/")

    soup = soup_of(response)
    assert soup.find("meta", attrs={"name": "robots"})["content"] == "noindex"
    assert [li.get_text() for li in soup.select("ul.people li")] == [
        "Yang Liu (Carnegie Mellon University): 1 document",
        "Yang Liu (Tsinghua University): 1 document",
    ]
    assert sorted(a["href"] for a in soup.select("ul.people a")) == sorted(
        person.get_absolute_url() for person in made
    )


def test_unknown_addresses_and_a_drafts_own_authors_are_not_found(client, record):
    secret = person_at(400, 1)

    assert secret.slug == "secret-coauthor"
    for path in [
        "/people/nobody/",
        secret.get_absolute_url(),
        reverse("catalogue:person-feed", args=[secret.slug]),
    ]:
        assert client.get(path).status_code == 404, path


def test_a_prolific_persons_documents_come_a_page_at_a_time(
    client, record, monkeypatch
):
    monkeypatch.setattr(views.people, "DOCUMENTS_PER_PAGE", 1)
    person = person_at(101)

    first = soup_of(client.get(person.get_absolute_url()))
    second = soup_of(client.get(person.get_absolute_url(), {"page": 2}))

    assert [td.get_text() for td in first.select("td.label")] == ["LIT-101"]
    assert [td.get_text() for td in second.select("td.label")] == ["LIT-103"]
    # The group's count is of all its documents, on every page.
    assert second.select_one(".document-group h3").get_text(" ", strip=True) == (
        "Memory (2)"
    )
    assert client.get(person.get_absolute_url(), {"page": 3}).status_code == 404


def test_document_page_links_each_author_and_keeps_the_citation_as_written(
    client, record
):
    soup = soup_of(client.get("/LIT-103/"))

    authors = soup.select_one(".facts dd.authors")
    assert authors.get_text() == "Yang Liu, Arthur Douillard, Laurens van der Maaten"
    assert [a["href"] for a in authors("a")] == [
        person_at(103, position).get_absolute_url() for position in range(3)
    ]
    assert soup.select_one(".citation").get_text().startswith("Liu et al. (2023)")
    (script,) = soup.select('script[type="application/ld+json"]')
    work = json.loads(script.string)["@graph"][1]
    assert [author.get("url") for author in work["author"]] == [
        f"http://testserver{person_at(103, position).get_absolute_url()}"
        for position in range(3)
    ]


def test_a_citation_of_family_names_links_them_and_says_et_al(client):
    document = DocumentFactory(
        number=27, authors="Rajbhandari et al.", year=2020, published=True
    )

    soup = soup_of(client.get(document.get_absolute_url()))

    authors = soup.select_one(".facts dd.authors")
    assert authors.get_text().strip() == "Rajbhandari et al."
    assert authors.a["href"] == "/people/rajbhandari/"


def test_document_page_links_its_known_venue(client, record):
    soup = soup_of(client.get("/LIT-101/"))

    facts = dict(
        zip(
            [dt.get_text() for dt in soup.select(".facts dt")],
            soup.select(".facts dd"),
            strict=True,
        )
    )
    venue = facts["Venue"].a
    assert venue.get_text() == (
        "USENIX Symposium on Operating Systems Design and Implementation"
    )
    assert venue["href"] == "/venues/osdi/"


def test_a_version_page_links_the_names_it_wrote_to_people_who_have_pages(
    client, record, publisher
):
    document = record[102]
    actions.documents.edit_document(
        document=document,
        user=publisher,
        changes={
            "author_list": [name("Ying", "Lu"), DOUILLARD],
            "authors": "Lu and Douillard",
        },
    )
    actions.documents.publish(document=document, user=publisher)

    first = soup_of(client.get("/LIT-102/v1/")).select_one("dd.authors")
    second = soup_of(client.get("/LIT-102/v2/")).select_one("dd.authors")

    # "Y. Liu" is named by no text now: their name stays, without a link.
    assert first.get_text().strip() == "Y. Liu, Arthur Douillard"
    assert [a.get_text() for a in first("a")] == ["Arthur Douillard"]
    assert [a.get_text() for a in second("a")] == ["Ying Lu", "Arthur Douillard"]
    assert client.get("/people/y-liu/").status_code == 404


def test_searching_a_persons_name_goes_to_their_page(client, record):
    maaten = person_at(103, 2)

    for query in [
        "Laurens van der Maaten",
        "laurens VAN DER maaten",
        "Laurens van der Maatén",
    ]:
        response = client.get(reverse("catalogue:search"), {"q": query})
        assert response.status_code == 302, query
        assert response["Location"] == maaten.get_absolute_url()


def test_a_search_of_namesakes_or_with_filters_lists_the_people_it_names(
    client, record
):
    namesakes = soup_of(client.get(reverse("catalogue:search"), {"q": "Yang Liu"}))
    filtered = soup_of(
        client.get(reverse("catalogue:search"), {"q": "Douillard", "year_from": "2000"})
    )
    partial = soup_of(client.get(reverse("catalogue:search"), {"q": "Douil"}))

    # Both, and the Liu of another spelling after them.
    assert [li.get_text() for li in namesakes.select(".people-results li")] == [
        "Yang Liu: 2 documents",
        "Yang Liu: 1 document",
        "Y. Liu: 1 document",
    ]
    assert [li.get_text() for li in filtered.select(".people-results li")] == [
        "Arthur Douillard: 4 documents"
    ]
    assert partial.select_one(".people-results a")["href"] == (
        person_at(101, 1).get_absolute_url()
    )
    # The people come before the documents.
    headings = [h2.get_text() for h2 in filtered.select("main h2")]
    assert headings[0] == "People (1)"
    assert headings[-1].startswith("Documents")


def test_a_search_never_finds_a_drafts_own_author(client, record):
    soup = soup_of(client.get(reverse("catalogue:search"), {"q": "Secret Coauthor"}))

    assert soup.select(".people-results li") == []


def test_a_search_lists_the_ten_closest_public_people_past_a_drafts_author(
    client, editor
):
    givens = ["Bo", "Ann", "Beth", "Clara", "Daniel", "Eleanor", "Fernanda"]
    givens += ["Gwendolyn", "Hildegarde", "Ingeborgine", "Jacquelinette"]
    for number, given in enumerate(givens, start=1):
        published(number, [name(given, "Liu")], topic=None, year=2020)
    # The shortest name of all, and the first of its length: named by a draft
    # alone.
    draft = DocumentFactory.build(
        registry=RegistryFactory(),
        number=90,
        topic=TopicFactory(),
        year=2025,
        author_list=[name("Al", "Liu")],
        authors="Liu",
    )
    actions.documents.save_document(document=draft, user=editor)
    assert Person.objects.filter(display_name="Al Liu").exists()

    soup = soup_of(client.get(reverse("catalogue:search"), {"q": "liu"}))

    assert soup.select_one("#people-results").get_text() == "People (the 10 closest)"
    assert [a.get_text() for a in soup.select(".people-results a")] == [
        f"{given} Liu" for given in givens[:10]
    ]


def test_a_persons_feed_holds_the_versions_of_their_public_documents(client, record):
    person = person_at(101)

    feed = etree.fromstring(
        client.get(reverse("catalogue:person-feed", args=[person.slug])).content
    )

    assert feed.findtext(f"{ATOM}title") == "Anthology: Yang Liu"
    assert sorted(
        entry.findtext(f"{ATOM}title") for entry in feed.iter(f"{ATOM}entry")
    ) == [
        "LIT-101: Work number 101",
        "LIT-103: Work number 103",
    ]
    soup = soup_of(client.get(person.get_absolute_url()))
    assert soup.find(
        "link", rel="alternate", title="Yang Liu: new and revised documents"
    )


def test_venues_are_listed_with_their_counts_none_for_most(client, record):
    soup = soup_of(client.get(reverse("catalogue:venue-list")))

    rows = {
        tr.td.get_text(): tr.select_one("td.count").get_text()
        for tr in soup.select("table.venues tbody tr")
    }
    assert rows == {
        venue.name: "1" if venue.slug == "osdi" else "0"
        for venue in Venue.objects.all()
    }


def test_a_venue_page_lists_its_documents_newest_first_with_counts_per_year(
    client, record
):
    osdi = Venue.objects.get(slug="osdi")
    DocumentFactory(
        number=501,
        authors="Jiang et al.",
        year=2020,
        citation_note="OSDI ‘20",
        source_identifier="",
        topic=record["memory"],
        published=True,
    )
    DocumentFactory(
        number=502,
        authors="Zheng et al.",
        year=2022,
        citation_note="OSDI ‘22",
        source_identifier="",
        topic=None,
        published=True,
    )

    soup = soup_of(client.get(osdi.get_absolute_url()))

    assert soup.h1.get_text() == "OSDI"
    facts = [dd.get_text() for dd in soup.select(".facts dd")]
    assert facts == ["Conference paper", "3", "2022 (1), 2021 (1), 2020 (1)"]
    assert [
        h3.get_text(" ", strip=True) for h3 in soup.select(".document-group h3")
    ] == [
        "2022 (1)",
        "2021 (1)",
        "2020 (1)",
    ]
    assert [td.get_text() for td in soup.select("td.label")] == [
        "LIT-502",
        "LIT-101",
        "LIT-501",
    ]
    assert [td.get_text() for td in soup.select("td.topic")] == [
        "Unfiled",
        "Memory",
        "Memory",
    ]
    # The draft's OSDI '25 is counted nowhere.
    assert "2025" not in soup.get_text()


def test_the_sitemap_lists_the_people_and_the_venues_of_public_documents(
    client, record
):
    people = etree.fromstring(client.get("/sitemap-people.xml").content)
    venues = etree.fromstring(client.get("/sitemap-venues.xml").content)
    pages = etree.fromstring(client.get("/sitemap-pages.xml").content)

    loc = "{http://www.sitemaps.org/schemas/sitemap/0.9}loc"
    assert sorted(e.text for e in people.iter(loc)) == sorted(
        f"http://testserver{person.get_absolute_url()}"
        for person in Person.objects.public()
    )
    assert "http://testserver/people/secret-coauthor/" not in {
        e.text for e in people.iter(loc)
    }
    assert [e.text for e in venues.iter(loc)] == ["http://testserver/venues/osdi/"]
    assert {"http://testserver/people/", "http://testserver/venues/"} <= {
        e.text for e in pages.iter(loc)
    }


def test_every_page_links_people_and_venues_from_the_site_navigation(client, record):
    soup = soup_of(client.get("/"))

    nav = [a.get_text() for a in soup.select("header nav a")]
    assert "People" in nav and "Venues" in nav


def test_a_person_page_shows_a_new_title_and_a_merge_answers_its_old_address(
    client, record, publisher, superuser, committed, django_assert_num_queries
):
    person = person_at(101)
    y_liu = person_at(102)
    pages = [person.get_absolute_url(), y_liu.get_absolute_url()]
    for path in pages:
        text_of(client, path)
        with django_assert_num_queries(0):
            assert client.get(path).status_code == 200  # Cached.

    with committed():
        actions.documents.edit_document(
            document=record[103], user=publisher, changes={"title": "A new title"}
        )
        actions.documents.publish(document=record[103], user=publisher)
    assert "A new title" in text_of(client, pages[0])

    with committed():
        actions.people.merge_people(source=y_liu, target=person, user=superuser)
    response = client.get(pages[1])
    assert response.status_code == 301
    assert response["Location"] == pages[0]
    assert "LIT-102" in text_of(client, pages[0])


def test_the_index_files_accented_and_particle_names_under_their_letters(client):
    registry = RegistryFactory(prefix="LIT")
    names = [
        {"family": "Ünal", "given": "Ayşe"},
        {"family": "van der Maaten", "given": "Laurens"},
        {"family": "Zhang", "given": "Wei"},
        {"family": "Abadi", "given": "Martín"},
    ]
    for number, name in enumerate(names, start=1):
        DocumentFactory(
            number=number,
            registry=registry,
            author_list=[name],
            authors=derived_authors([name]),
            published=True,
        )

    soup = soup_of(client.get("/people/"))
    links = soup.select("main li a[href^='/people/']")
    letters = [a.get_text() for a in links if "#" in a["href"]]
    listed = [a.get_text() for a in links if "#" not in a["href"]]

    assert letters == ["A", "M", "U", "Z"]
    assert listed == [
        "Abadi, Martín",
        "Maaten, Laurens van der",
        "Ünal, Ayşe",
        "Zhang, Wei",
    ]

"""Every public page and admin list costs the same queries at any size.

Each page is asked for once, uncached, at 50 and at 2,000 documents; the
counts were taken at 50 and are held at 2,000. The people and venue pages
are asked for at 50 and 1,200 people, the busiest of them named by nearly
every document: more than any page of people (500), of a person's documents
(100) or of names read at once (1,000) holds.
"""

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.urls import reverse
from django.utils import timezone
from taggit.models import Tag, TaggedItem

import actions.rows
from catalogue.models import (
    Authorship,
    Document,
    DocumentVenue,
    DocumentVersion,
    Person,
    Preface,
    Reference,
    Topic,
    Venue,
)
from catalogue.names import display_name, family_of, name_key, sort_key, sort_name
from public.feeds import DocumentVersionFeed, TopicFeed
from tests.factories import (
    DecisionLogFactory,
    DecisionRecordFactory,
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
)

pytestmark = pytest.mark.django_db


def fill(n):
    """``n`` documents over three topics and two registries, in bulk: versions,
    tags, cross-references, a few unfiled, drafts and withdrawn ones."""
    registries = [RegistryFactory(), RegistryFactory(prefix="PRA", name="Practice")]
    topics = [
        TopicFactory(slug="busy"),
        *TopicFactory.create_batch(2),
    ]
    statuses = [Document.Status.ACTIVE] * 7 + [
        Document.Status.WITHDRAWN,
        Document.Status.DRAFT,
        Document.Status.SUPERSEDED,
    ]
    documents = Document.objects.bulk_create(
        DocumentFactory.build(
            registry=registries[i % 10 == 9],
            number=i + 1,
            version=1 + i % 3,
            status=statuses[i % 10],
            topic=None if i % 13 == 0 else topics[i % 3],
            summary=f"Builds on LIT-{max(i, 1):03d} and ADR-001.",
        )
        for i in range(n)
    )
    now = timezone.now()
    DocumentVersion.objects.bulk_create(
        DocumentVersion(
            document=document, number=v, published_at=now, **document.content()
        )
        for document in documents
        for v in range(1, document.version + 1)
    )
    tags = [Tag.objects.create(name=f"tag-{k}", slug=f"tag-{k}") for k in range(5)]
    TaggedItem.objects.bulk_create(
        TaggedItem(content_object=document, tag=tags[i % 5])
        for i, document in enumerate(documents)
    )
    Reference.objects.bulk_create(
        Reference(document=document, prefix="LIT", number=max(i, 1))
        for i, document in enumerate(documents)
    )
    DecisionRecordFactory(number=1, body="Names LIT-001.")
    team = DecisionLogFactory(name="Team")
    DecisionRecordFactory(log=team, number=1, body="Names ADR-001 of its own log.")
    Preface.objects.create(heading="Topics", text="The kinds of claim (ADR-001).")
    # The rows the actions would have stored, written in bulk above.
    actions.rows.rebuild()
    return documents


def public_pages():
    """(name, path, queries) for every public page type."""
    return [
        ("full index", reverse("catalogue:index"), 4),
        # The topic; its count line (per registry, which sums the list: no
        # count of its own); the page's documents; their stored rows; the
        # preface and the target of its name; the documents per year, for
        # its chart; the filters' registries and tags.
        ("topic", reverse("catalogue:topic-detail", args=["busy"]), 9),
        # The count line, the page, its rows, the filters' choices.
        ("unfiled", reverse("catalogue:unfiled"), 5),
        ("registries", reverse("catalogue:registry-list"), 1),
        # The registry, the count, the page, its rows, the filters' choices.
        ("registry", reverse("catalogue:registry-detail", args=["LIT"]), 6),
        ("tag", reverse("catalogue:tag-detail", args=["tag-1"]), 6),
        ("tags", reverse("catalogue:tag-list"), 1),
        # Topics; public documents by topic, year and status; first
        # publications by month; the most named, and their titles.
        ("statistics", reverse("catalogue:statistics"), 5),
        # Filtered, a list counts what its filters leave.
        ("filtered topic", "/topics/busy/?year_from=2000", 10),
        ("filtered registry", "/registries/LIT/?year_from=2000", 7),
        # A sort only orders the rows: what the same page costs unsorted.
        ("topic by year", "/topics/busy/?sort=-year", 9),
        ("filtered topic by title", "/topics/busy/?year_from=2000&sort=title", 10),
        ("unfiled by year", "/unfiled/?sort=year", 5),
        ("registry newest first", "/registries/LIT/?sort=-number", 6),
        ("tag by title", "/tags/tag-1/?sort=-title", 6),
        # And its related work, stored: one query; its author positions
        # with their people, for the authors' links: one more; and its
        # published corrections: one more.
        ("document", "/LIT-001/", 11),
        # And the version's author positions with their people.
        ("version", "/LIT-002/v2/", 10),
        # The log, its records, the statuses they state (the filter's
        # choices), and the other logs holding public records.
        ("decisions", reverse("catalogue:decision-list"), 6),
        ("decisions of a status", "/decisions/?status=accepted", 6),
        ("a team's decisions", "/decisions/team/", 6),
        # And its published corrections.
        ("a team's decision", "/decisions/team/ADR-001/", 7),
        # The log, its records and their published corrections.
        ("decision feed", reverse("catalogue:decision-feed"), 3),
        ("a team's decision feed", "/decisions/team/feed/", 3),
        ("decision", reverse("catalogue:decision-detail", args=["ADR-001"]), 7),
        # And the people whose names match the words: one query. On
        # PostgreSQL a page past the documents whose title matches (no title
        # says "builds") ranks the others: one more.
        (
            "search",
            reverse("catalogue:search") + "?q=builds",
            8 + (connection.vendor == "postgresql"),
        ),
        ("search by year", reverse("catalogue:search") + "?year_from=2000", 5),
        ("feed", reverse("catalogue:feed"), 3),
        ("topic feed", reverse("catalogue:topic-feed", args=["busy"]), 4),
        # A list's feed: what its page names (the topic, the registry, the
        # tag), then the versions of its selection with what they
        # supersede, and its notices.
        ("filtered topic feed", "/topics/busy/feed/?year_from=2000", 4),
        ("unfiled feed", "/unfiled/feed/?year_from=2000", 3),
        ("registry feed", "/registries/LIT/feed/?year_from=2000", 4),
        ("tag feed", "/tags/tag-1/feed/", 4),
        ("search feed", reverse("catalogue:search-feed") + "?q=builds", 3),
        # The log, its records of the status, their published corrections.
        ("decision feed of a status", "/decisions/feed/?status=accepted", 3),
        # A count per section, the people's and the venues' included.
        ("sitemap", reverse("catalogue:sitemap"), 9),
        ("sitemap of documents", "/sitemap-documents.xml", 2),
        ("sitemap of tags", "/sitemap-tags.xml", 2),
    ]


FAMILIES = ["Abadi", "Bernstein", "Chen", "Douillard", "Müller", "van der Maaten"]


def person_named(name, slug):
    return Person(
        name=name,
        slug=slug,
        display_name=display_name(name),
        sort_name=sort_name(name),
        sort_key=sort_key(name),
    )


def fill_people(n):
    """``fill(n)``'s documents, each naming three people at its positions
    (its text's and its versions'): its own, the next document's, and
    Rajbhandari, who is on every one; the first two of ``n`` people both
    Yang Liu; every third document at OSDI."""
    documents = fill(n)
    people = Person.objects.bulk_create(
        [
            person_named({"family": "Liu", "given": "Yang"}, "yang-liu"),
            person_named({"family": "Liu", "given": "Yang"}, "yang-liu-2"),
            *(
                person_named(
                    {"family": FAMILIES[i % len(FAMILIES)], "given": f"Given {i}"},
                    f"person-{i}",
                )
                for i in range(2, n)
            ),
            person_named({"family": "Rajbhandari"}, "rajbhandari"),
        ]
    )
    busy = people[-1]
    versions = {}
    for version in DocumentVersion.objects.all():
        versions.setdefault(version.document_id, []).append(version.pk)

    def position(document, version, number, person):
        return Authorship(
            document=document,
            version_id=version,
            position=number,
            name=person.name,
            key=name_key(person.name),
            family=family_of(person.name),
            person=person,
        )

    Authorship.objects.bulk_create(
        position(document, version, number, person)
        for i, document in enumerate(documents)
        for version in [None, *versions[document.pk]]
        for number, person in enumerate([people[i], people[(i + 1) % n], busy])
    )
    osdi = Venue.objects.get(slug="osdi")
    DocumentVenue.objects.bulk_create(
        DocumentVenue(document=document, venue=osdi) for document in documents[::3]
    )
    return busy


def people_pages():
    """(name, path, queries) for every page of people and venues."""
    search = reverse("catalogue:search")
    return [
        # The letters with the count, then the page of people with theirs.
        ("people", reverse("catalogue:people"), 2),
        # The person; their documents by topic; their share of each
        # registry; the page of documents; their stored rows; their years,
        # spellings, co-authors, venues and namesakes.
        ("busiest person", "/people/rajbhandari/", 10),
        ("a namesake", "/people/yang-liu/", 10),
        # The person, the versions with what they supersede, the notices.
        ("person feed", "/people/rajbhandari/feed/", 4),
        # The count, then the page of venues with theirs.
        ("venues", reverse("catalogue:venue-list"), 2),
        # The venue; its documents by year; the page of them; their rows.
        ("venue", "/venues/osdi/", 4),
        # The venue, its documents' versions with what they supersede, and
        # their notices.
        ("venue feed", "/venues/osdi/feed/", 4),
        # A document naming three people: its positions with them, one query.
        ("document", "/LIT-005/", 11),
        ("version", "/LIT-005/v2/", 10),
        # The people the name finds, and no more: straight to the one.
        ("search for a name", f"{search}?q=rajbhandari", 1),
        # Namesakes: both listed, above the documents.
        ("search for namesakes", f"{search}?q=Yang+Liu", 8),
        ("sitemap of people", "/sitemap-people.xml", 2),
        ("sitemap of venues", "/sitemap-venues.xml", 2),
    ]


@pytest.mark.parametrize("n", [50, 1200])
def test_every_page_of_people_and_venues_costs_the_same_queries_at_50_and_1200(
    client, django_assert_num_queries, n
):
    busy = fill_people(n)
    assert busy.authorships.filter(version__isnull=True).count() == n
    for name, path, queries in people_pages():
        with django_assert_num_queries(queries, info=name):
            response = client.get(path)
        assert response.status_code == (302 if name == "search for a name" else 200)


ADMIN_LISTS = {
    # Counted in one query: on PostgreSQL an estimate, or an exact count
    # when the estimate is small (paginators.EstimatedCountPaginator).
    "catalogue_document": 13,
    "catalogue_topic": 6,
    "catalogue_registry": 6,
    # And the logs offered as a filter.
    "catalogue_decisionrecord": 7,
    "catalogue_preface": 7,
    # And the preface's broken names: the preface, the registries' and the
    # decision logs' prefixes, their targets.
    "catalogue_brokenreference": 10,
    "taggit_tag": 6,
}


@pytest.mark.parametrize("n", [50, 2000])
def test_every_public_page_costs_the_same_queries_at_50_and_2000_documents(
    client, django_assert_num_queries, n
):
    fill(n)
    for name, path, queries in public_pages():
        with django_assert_num_queries(queries, info=name):
            response = client.get(path)
        assert response.status_code == 200, name


@pytest.mark.parametrize("n", [50, 2000])
def test_every_admin_list_costs_the_same_queries_at_50_and_2000_documents(
    admin_client, django_assert_num_queries, n
):
    fill(n)
    admin_client.get(reverse("admin:index"))  # Session and content types.
    for model, queries in ADMIN_LISTS.items():
        with django_assert_num_queries(queries, info=model):
            response = admin_client.get(reverse(f"admin:{model}_changelist"))
        assert response.status_code == 200, model
    assert User.objects.count() == 1


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="PostgreSQL's plans are read"
)
def test_the_feeds_read_the_newest_versions_from_an_index_not_a_sort():
    fill(2000)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")

    plans = [
        DocumentVersionFeed().newest_versions().explain(),
        TopicFeed().newest_versions(Topic.objects.get(slug="busy")).explain(),
    ]

    for plan in plans:
        assert "version_publication_order" in plan
        assert "Sort" not in plan

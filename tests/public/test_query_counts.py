"""Every public page and admin list costs the same queries at any size.

Each page is asked for once, uncached, at 50 and at 2,000 documents; the
counts were taken at 50 and are held at 2,000.
"""

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.urls import reverse
from django.utils import timezone
from taggit.models import Tag, TaggedItem

from catalogue.models import Document, DocumentVersion, Preface, Reference, Topic
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
    return documents


def public_pages():
    """(name, path, queries) for every public page type."""
    return [
        ("full index", reverse("catalogue:index"), 4),
        # And the topic's documents per year, for its chart.
        ("topic", reverse("catalogue:topic-detail", args=["busy"]), 11),
        ("unfiled", reverse("catalogue:unfiled"), 7),
        ("registries", reverse("catalogue:registry-list"), 1),
        ("registry", reverse("catalogue:registry-detail", args=["LIT"]), 7),
        ("tag", reverse("catalogue:tag-detail", args=["tag-1"]), 7),
        ("tags", reverse("catalogue:tag-list"), 1),
        # Topics; public documents by topic, year and status; first
        # publications by month; the most named, and their titles.
        ("statistics", reverse("catalogue:statistics"), 5),
        ("filtered topic", "/topics/busy/?year_from=2000", 11),
        ("filtered registry", "/registries/LIT/?year_from=2000", 8),
        # A sort only orders the rows: what the same page costs unsorted.
        ("topic by year", "/topics/busy/?sort=-year", 11),
        ("filtered topic by title", "/topics/busy/?year_from=2000&sort=title", 11),
        ("unfiled by year", "/unfiled/?sort=year", 7),
        ("registry newest first", "/registries/LIT/?sort=-number", 7),
        ("tag by title", "/tags/tag-1/?sort=-title", 7),
        # And its related work, stored: one query.
        ("document", "/LIT-001/", 9),
        ("version", "/LIT-002/v2/", 8),
        # The log, its records, the statuses they state (the filter's
        # choices), and the other logs holding public records.
        ("decisions", reverse("catalogue:decision-list"), 6),
        ("decisions of a status", "/decisions/?status=accepted", 6),
        ("a team's decisions", "/decisions/team/", 6),
        ("a team's decision", "/decisions/team/ADR-001/", 6),
        ("decision feed", reverse("catalogue:decision-feed"), 2),
        ("a team's decision feed", "/decisions/team/feed/", 2),
        ("decision", reverse("catalogue:decision-detail", args=["ADR-001"]), 6),
        ("search", reverse("catalogue:search") + "?q=builds", 7),
        ("search by year", reverse("catalogue:search") + "?year_from=2000", 5),
        ("feed", reverse("catalogue:feed"), 3),
        ("topic feed", reverse("catalogue:topic-feed", args=["busy"]), 4),
        ("sitemap", reverse("catalogue:sitemap"), 7),
        ("sitemap of documents", "/sitemap-documents.xml", 2),
        ("sitemap of tags", "/sitemap-tags.xml", 2),
    ]


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

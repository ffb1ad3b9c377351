"""The editors' admin: list, search, queues, versions, preview."""

import pytest
from bs4 import BeautifulSoup
from django.urls import reverse

import actions.documents
from catalogue.models import Document
from tests.databases import BOTH, WEB_LAYER
from tests.factories import DocumentFactory, RegistryFactory, TopicFactory, UserFactory

pytestmark = [pytest.mark.django_db, WEB_LAYER]


def many_documents(n):
    """``n`` public documents, a few unfiled and tagged, written in bulk."""
    registry, topics = RegistryFactory(), TopicFactory.create_batch(3)
    documents = Document.objects.bulk_create(
        DocumentFactory.build(
            registry=registry,
            number=i + 1,
            topic=None if i % 7 == 0 else topics[i % 3],
            status=Document.Status.ACTIVE,
        )
        for i in range(n)
    )
    for document in documents[:3]:
        document.tags.add("memory", "sharding")
    return documents


@BOTH
@pytest.mark.parametrize("n", [10, 1000])
def test_the_desk_list_change_and_review_pages_cost_the_same_queries_at_any_size(
    admin_client, admin_user, django_assert_num_queries, n
):
    documents = many_documents(n)
    actions.documents.edit_document(
        document=documents[1], user=admin_user, changes={"title": "Held"}
    )
    pages = {
        "desk": reverse("admin:index"),
        "list": reverse("admin:catalogue_document_changelist"),
        "change": reverse("admin:catalogue_document_change", args=[documents[0].pk]),
        "review": reverse("admin:catalogue_document_review", args=[documents[1].pk]),
    }
    admin_client.get(pages["list"])  # Warm the session and content-type caches.

    for name, path in pages.items():
        with django_assert_num_queries(QUERIES[name], info=name):
            assert admin_client.get(path).status_code == 200, name


# Counted once at 10 documents; the test holds them at 1,000. The list is
# counted in one query, estimated or exact.
# The desk and the change form each read the schedules too (one query), and
# the change form the preview links (one more). The desk's review queue takes
# four (its two counts and its two lists); the change and review pages' review
# panel reads its thread, and the review page its steps' preconditions and the
# reviewers to choose from.
QUERIES = {"desk": 19, "list": 13, "change": 13, "review": 14}


@pytest.mark.parametrize("term", ["LIT-004", "lit 4", "LIT4", "lit-0004"])
def test_search_finds_a_document_by_its_identifier(admin_client, term):
    wanted = DocumentFactory(number=4, title="Wanted", published=True)
    # Titles of words that hold neither "lit" nor a digit of the number.
    DocumentFactory(number=40, title="Another paper", published=True)
    DocumentFactory(number=14, title="A third paper", published=True)

    response = admin_client.get(
        reverse("admin:catalogue_document_changelist"), {"q": term}
    )

    assert list(response.context["cl"].result_list) == [wanted]


def test_the_unfiled_queue_is_one_click_away_with_its_count(admin_client):
    DocumentFactory.create_batch(2, unfiled=True, published=True)
    DocumentFactory(published=True)

    page = admin_client.get(reverse("admin:catalogue_document_changelist"))

    assert "Unfiled (2)" in page.content.decode()
    queue = admin_client.get(
        reverse("admin:catalogue_document_changelist"), {"queue": "unfiled"}
    )
    assert queue.context["cl"].result_count == 2


def test_each_filter_opens(admin_client):
    document = DocumentFactory(year=2016, published=True)
    document.tags.add("memory")
    changelist = reverse("admin:catalogue_document_changelist")

    for query in [
        {"status__exact": "active"},
        {"registry__id__exact": document.registry_id},
        {"topic__id__exact": document.topic_id},
        {"topic__isnull": "True"},
        {"year": "2016"},
        {"tags__id__exact": document.tags.get().pk},
        {"queue": "pending"},
        {"queue": "in_review"},
    ]:
        response = admin_client.get(changelist, query)
        assert response.status_code == 200, query
        assert "errornote" not in response.content.decode(), query


def test_admin_shows_a_version_compared_word_by_word_and_reverts_it(admin_client):
    publisher = UserFactory(publisher=True)
    document = DocumentFactory(draft=True, summary="Gradient checkpointing saves.")
    actions.documents.publish(document=document, user=publisher)
    actions.documents.edit_document(
        document=document,
        user=publisher,
        changes={"summary": "Gradient checkpointing trades compute for memory."},
    )
    actions.documents.publish(document=document, user=publisher)
    url = reverse("admin:catalogue_document_version", args=[document.pk, 1])

    page = admin_client.get(
        reverse("admin:catalogue_document_version", args=[document.pk, 2])
    ).content.decode()
    assert '<del class="diff">saves.</del>' in page
    assert '<ins class="diff">trades compute for memory.</ins>' in page
    assert "css/diff.css" in page

    admin_client.post(url)

    document.refresh_from_db()
    assert document.version == 2
    assert document.pending_revision().summary == "Gradient checkpointing saves."


def test_preview_shows_the_pending_revision_to_staff_only(admin_client, client):
    document = DocumentFactory(title="Published", published=True)
    actions.documents.edit_document(
        document=document, user=UserFactory(editor=True), changes={"title": "Pending"}
    )
    preview = reverse("admin:catalogue_document_preview", args=[document.pk])

    assert "Pending" in admin_client.get(preview).content.decode()
    assert client.get(preview).status_code == 302  # To the admin's login page.
    assert "Pending" not in client.get(document.get_absolute_url()).content.decode()


def test_view_on_site_only_for_public_documents(admin_client):
    public, draft = DocumentFactory(published=True), DocumentFactory(draft=True)

    def has_link(document):
        page = admin_client.get(
            reverse("admin:catalogue_document_change", args=[document.pk])
        )
        return "View on site" in page.content.decode()

    assert has_link(public) and not has_link(draft)


def test_the_audit_log_page_shows_who_changed_what(admin_client):
    document = DocumentFactory(draft=True, title="Before")
    actions.documents.edit_document(
        document=document, user=UserFactory(editor=True), changes={"title": "After"}
    )

    page = admin_client.get(
        reverse("admin:catalogue_document_auditlog", args=[document.pk])
    ).content.decode()

    assert "Before" in page and "After" in page


def buttons_on(client, document):
    """The workflow controls the change form offers: buttons by their names,
    links by their text."""
    response = client.get(
        reverse("admin:catalogue_document_change", args=[document.pk])
    )
    assert response.status_code == 200
    soup = BeautifulSoup(response.content, "html.parser")
    return [
        control.get("name") or control.get_text()
        for control in soup.select(".workflow-buttons input, .workflow-buttons a")
    ]


@pytest.mark.parametrize(
    ("role", "state", "offered"),
    [
        ("editor", "draft", ["_submit_for_review"]),
        ("publisher", "draft", ["_submit_for_review", "_publish"]),
        ("editor", "in_review", []),
        ("publisher", "in_review", ["_publish"]),
        ("editor", "active", []),
        ("publisher", "active", ["_publish", "Withdraw…"]),
        ("editor", "pending", ["_discard_revision"]),
        ("publisher", "pending", ["_publish", "_discard_revision", "Withdraw…"]),
        ("publisher", "withdrawn", ["_publish", "_reinstate"]),
        ("editor", "withdrawn", []),
    ],
)
def test_the_change_form_offers_the_steps_the_user_may_take_now(
    client, editorial_groups, role, state, offered
):
    user = UserFactory(**{role: True})
    status = "active" if state == "pending" else state
    document = DocumentFactory(number=4, status=status)
    if state == "pending":
        actions.documents.edit_document(
            document=document, user=user, changes={"title": "Held for review"}
        )
    client.force_login(user)

    assert buttons_on(client, document) == offered

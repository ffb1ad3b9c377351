"""A change refreshes exactly the cached pages that show it (public.scopes).

Changes go through the workflow, which expires pages once its transaction
commits: ``committed`` runs those on-commit callbacks, as a real commit would.
A page served from the cache costs no SQL query, which is how these tests
tell a cached page (warm) from a rendered one.
"""

import pytest
from django.core.cache import cache
from django.urls import reverse

import actions.decisions
import actions.documents
from api import urls as api_urls
from catalogue.models import Preface
from catalogue.references import write_references
from public import scopes
from public import urls as public_urls
from tests.factories import (
    DecisionRecordFactory,
    DocumentFactory,
    UserFactory,
)
from tests.html import is_warm, text_of

pytestmark = pytest.mark.django_db


def test_publishing_a_revision_refreshes_its_page_topic_index_and_feeds(
    client, filed, publisher, committed, django_assert_num_queries
):
    document = filed["document"]
    pages = [
        document.get_absolute_url(),
        filed["first"].get_absolute_url(),
        reverse("catalogue:registry-detail", args=["LIT"]),
        reverse("catalogue:feed"),
        reverse("catalogue:topic-feed", args=["distributed"]),
        reverse("catalogue:search") + "?year_from=1000",
    ]
    for path in pages:
        assert "New title" not in text_of(client, path)
    third = filed["third"].get_absolute_url()
    text_of(client, third)

    with committed():
        actions.documents.edit_document(
            document=document, user=publisher, changes={"title": "New title"}
        )
        actions.documents.publish(document=document, user=publisher)

    for path in pages:
        assert "New title" in text_of(client, path), path
    is_warm(client, third, django_assert_num_queries)


def test_refiling_refreshes_the_old_and_new_topic_and_leaves_others_warm(
    client, filed, publisher, committed, django_assert_num_queries
):
    document = filed["document"]
    old, new = (
        filed["first"].get_absolute_url(),
        filed["second"].get_absolute_url(),
    )
    unrelated = filed["third"].get_absolute_url()
    for path in (old, new, unrelated, reverse("catalogue:index")):
        text_of(client, path)
    assert "Old title" in text_of(client, old)

    with committed():
        actions.documents.edit_document(
            document=document, user=publisher, changes={"topic": filed["second"]}
        )
        actions.documents.publish(document=document, user=publisher)

    assert "Old title" not in text_of(client, old)
    assert "Old title" in text_of(client, new)
    assert "Evaluation" in text_of(client, document.get_absolute_url())
    is_warm(client, unrelated, django_assert_num_queries)


def test_a_pending_revision_changes_no_cached_page(
    client, filed, publisher, committed, django_assert_num_queries
):
    path = filed["document"].get_absolute_url()
    text_of(client, path)

    with committed():
        actions.documents.edit_document(
            document=filed["document"],
            user=publisher,
            changes={"title": "Unpublished title"},
        )

    response = is_warm(client, path, django_assert_num_queries)
    assert "Unpublished title" not in response.content.decode()
    cache.clear()
    assert "Unpublished title" not in text_of(client, path)


def test_first_publication_shows_everywhere_and_updates_every_topic_total(
    client, filed, publisher, committed
):
    draft = DocumentFactory(number=9, topic=filed["second"], draft=True, title="Fresh")
    unrelated = filed["third"].get_absolute_url()
    pages = [
        reverse("catalogue:index"),
        filed["second"].get_absolute_url(),
        reverse("catalogue:feed"),
        reverse("catalogue:registry-detail", args=["LIT"]),
    ]
    for path in pages:
        assert "Fresh" not in text_of(client, path)
    assert "1 of 2 LIT documents" in text_of(client, unrelated)
    assert client.get(draft.get_absolute_url()).status_code == 404

    with committed():
        actions.documents.publish(document=draft, user=publisher)

    assert "Fresh" in text_of(client, draft.get_absolute_url())
    for path in pages[1:]:
        assert "Fresh" in text_of(client, path), path
    assert "1 LIT" in text_of(client, reverse("catalogue:index"))
    # Every topic page prints its registry's total, so every one is fresh.
    assert "1 of 3 LIT documents" in text_of(client, unrelated)


def test_withdrawing_refreshes_the_pages_that_link_to_the_document(
    client, filed, publisher, committed
):
    citing = DocumentFactory(
        number=12, topic=filed["third"], summary="Builds on LIT-004.", published=True
    )
    write_references(documents=[citing])
    own = filed["document"].get_absolute_url()
    linking = [citing.get_absolute_url(), filed["third"].get_absolute_url()]
    assert "Withdrawn:" not in text_of(client, own)
    for path in linking:
        assert "reference-retired" not in text_of(client, path)

    with committed():
        actions.documents.withdraw(document=filed["document"], user=publisher)

    assert "Withdrawn:" in text_of(client, own)
    for path in linking:
        assert "reference-retired" in text_of(client, path), path


def test_superseding_refreshes_the_superseded_page(client, filed, publisher, committed):
    path = filed["document"].get_absolute_url()
    assert "Superseded by" not in text_of(client, path)

    with committed():
        actions.documents.supersede(
            document=filed["document"],
            successor=filed["other"],
            user=publisher,
        )

    assert "Superseded by" in text_of(client, path)


def test_editing_a_topic_in_the_admin_refreshes_its_pages(
    client, filed, publisher, committed
):
    topic = filed["first"]
    pages = [
        topic.get_absolute_url(),
        reverse("catalogue:index"),
        filed["document"].get_absolute_url(),
    ]
    for path in pages:
        text_of(client, path)
    editor = UserFactory(is_superuser=True)
    staff = client.__class__()
    staff.force_login(editor)

    with committed():
        response = staff.post(
            reverse("admin:catalogue_topic_change", args=[topic.pk]),
            {
                "name": "Parallel training",
                "slug": topic.slug,
                "scope": topic.scope,
                "flavour": topic.flavour,
                "position": topic.position,
            },
        )
    assert response.status_code == 302

    for path in pages:
        assert "Parallel training" in text_of(client, path), path


def test_editing_the_preface_in_the_admin_refreshes_the_pages_it_opens(
    client, filed, committed
):
    Preface.objects.create(heading="Topics", text="The kinds of claim.")
    pages = [reverse("catalogue:index"), filed["first"].get_absolute_url()]
    for path in pages:
        text_of(client, path)
    staff = client.__class__()
    staff.force_login(UserFactory(is_superuser=True))

    with committed():
        staff.post(
            reverse("admin:catalogue_preface_change", args=[1]),
            {"heading": "Topics", "text": "The kinds of claim, revised."},
        )

    for path in pages:
        assert "revised" in text_of(client, path), path


def test_publishing_a_decision_refreshes_the_decisions_and_what_names_it(
    client, filed, publisher, committed
):
    decision = DecisionRecordFactory(number=26, draft=True, title="One axis")
    naming = DocumentFactory(
        number=15, topic=filed["third"], summary="See ADR-026.", published=True
    )
    write_references(documents=[naming])
    pages = [
        reverse("catalogue:decision-list"),
        naming.get_absolute_url(),
        filed["third"].get_absolute_url(),
    ]
    for path in pages:
        assert 'href="/decisions/ADR-026/"' not in text_of(client, path)

    with committed():
        actions.decisions.publish_decision(decision=decision, user=publisher)

    for path in pages:
        assert 'href="/decisions/ADR-026/"' in text_of(client, path), path


def test_a_decisions_revision_refreshes_the_documents_it_names_and_named(
    client, filed, publisher, committed
):
    """A document's page lists the decision records naming it, so an edit
    that names it or stops naming it refreshes that page."""
    named_before, named_after = filed["document"], filed["other"]
    with committed():
        decision = DecisionRecordFactory(number=26, body="On LIT-004.")
        write_references(decisions=[decision])
    before, after = named_before.get_absolute_url(), named_after.get_absolute_url()
    assert "ADR-026" in text_of(client, before)
    assert "ADR-026" not in text_of(client, after)

    with committed():
        decision.body = "On LIT-007 now."
        actions.decisions.save_decision(
            decision=decision, user=publisher, supersedes=[]
        )
        actions.decisions.publish_decision(decision=decision, user=publisher)

    assert "ADR-026" not in text_of(client, before)
    assert "ADR-026" in text_of(client, after)


def test_every_public_page_names_the_scopes_it_shows():
    """A page missing from the map would never be cached; one the map names
    that no URL serves would be a stale entry. Staff exports are not cached,
    nor decision images (any log's), which carry validators of their own, nor
    the API's description and its docs, which show nothing of the record."""
    pages = {
        f"{namespace}:{pattern.name}"
        for namespace, urls in (("catalogue", public_urls), ("api", api_urls))
        for pattern in urls.urlpatterns
        if getattr(pattern, "name", None)
    }
    never = {name for name in pages if name.startswith("catalogue:export-")}
    never.update({"catalogue:decision-image", "catalogue:log-decision-image"})
    never.update({"api:schema", "api:docs"})
    # What left the record is read from the audit trail, which no change
    # expires by scope: each call is answered afresh.
    never.add("api:removed-list")
    # A preview link's page of unpublished text is kept by no cache.
    never.add("catalogue:preview")

    assert pages - never == set(scopes.PAGES)

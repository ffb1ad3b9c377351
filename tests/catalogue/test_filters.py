import pytest

from catalogue.filters import DocumentFilter
from catalogue.models import Document
from tests.factories import DocumentFactory, RegistryFactory, TopicFactory

pytestmark = pytest.mark.django_db


def filtered(data, *, public=True):
    filterset = DocumentFilter(
        data, queryset=Document.objects.order_by("number"), public=public
    )
    assert filterset.is_valid(), filterset.errors
    return list(filterset.qs)


def test_filters_by_registry_prefix_and_topic_slug():
    topic = TopicFactory(slug="optimisation")
    wanted = DocumentFactory(topic=topic, published=True)
    DocumentFactory(topic=topic, registry=RegistryFactory(prefix="PRA"), published=True)
    DocumentFactory(published=True)

    assert filtered({"registry": "LIT", "topic": "optimisation"}) == [wanted]


def test_unfiled_is_a_topic_choice():
    unfiled = DocumentFactory(unfiled=True, published=True)
    DocumentFactory(published=True)

    assert filtered({"topic": "unfiled"}) == [unfiled]


def test_year_range_is_inclusive():
    DocumentFactory(year=2015, published=True)
    inside = [
        DocumentFactory(year=2016, published=True),
        DocumentFactory(year=2018, published=True),
    ]
    DocumentFactory(year=2019, published=True)

    assert filtered({"year_from": "2016", "year_to": "2018"}) == inside


def test_tags_must_all_match():
    both = DocumentFactory(published=True)
    both.tags.add("memory", "checkpointing")
    DocumentFactory(published=True).tags.add("memory")

    assert filtered({"tag": ["memory", "checkpointing"]}) == [both]


@pytest.mark.parametrize(
    "data", [{"year_from": "abc"}, {"year_to": "99999999999"}, {"status": "draft"}]
)
def test_malformed_or_private_values_are_form_errors(data):
    filterset = DocumentFilter(data, queryset=Document.objects.all())

    assert not filterset.is_valid()


def test_staff_filters_offer_every_status():
    draft = DocumentFactory(draft=True)
    DocumentFactory(published=True)

    assert filtered({"status": "draft"}, public=False) == [draft]


@pytest.mark.django_db
def test_private_statuses_stay_refused_after_the_class_filters_built_their_fields():
    # Reading the class's own filters (as the API's schema does) builds and
    # keeps their form fields, with every status among the choices.
    assert "draft" in dict(DocumentFilter.base_filters["status"].field.choices)

    assert not DocumentFilter({"status": "draft"}).is_valid()
    assert DocumentFilter({"status": "draft"}, public=False).is_valid()

"""A list's filter fields are written without Django's widget templates
(``public.widgets``), into the bytes those templates write: every field of
the lists' and the search's filters, unbound and bound, with choices whose
names need escaping."""

import pytest
from django.forms.renderers import TemplatesSetting
from django.http import QueryDict
from django.template.loader import render_to_string
from taggit.models import Tag

from catalogue.filters import DocumentFilter, DocumentTableFilter
from catalogue.models import Document
from public.templatetags.catalogue import filter_fields
from tests.factories import DocumentFactory, RegistryFactory, TopicFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def record():
    """Public documents in two registries and two topics, one unfiled, with
    tags and names that must be escaped."""
    practice = RegistryFactory(prefix="PRA", name='Practice <"&"> registry')
    topic = TopicFactory(name="Evaluation & <benchmarks>", slug="evaluation")
    DocumentFactory(topic=topic, tags=["memory", "a&b <c>"], published=True)
    DocumentFactory(registry=practice, topic=None, tags=["ünïcode"], published=True)
    DocumentFactory(topic=topic, tags=["draft-only"])


def as_django_writes_them(filterset):
    """The filter fields as Django's own renderer writes them."""
    form = filterset.form
    form.renderer = TemplatesSetting()
    html = render_to_string("catalogue/_filter_fields.html", {"form": form})
    return html.strip()


QUERIES = [
    "",
    "registry=PRA",
    "status=withdrawn&year_from=2001&year_to=2020",
    "tag=memory&tag={escaped}&sort=-year",
    "topic=unfiled&tag={unicode}",
    "topic=evaluation&registry=LIT&status=active",
]


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("filterset_class", [DocumentTableFilter, DocumentFilter])
def test_the_filter_fields_are_the_bytes_djangos_templates_write(
    record, filterset_class, query
):
    slugs = {
        "escaped": Tag.objects.get(name="a&b <c>").slug,
        "unicode": Tag.objects.get(name="ünïcode").slug,
    }

    def filterset():
        data = QueryDict(query.format(**slugs)) if query else None
        built = filterset_class(data, queryset=Document.objects.public())
        if built.is_bound:
            assert built.is_valid(), built.errors
        return built

    ours = filter_fields(filterset().form)
    assert 'name="tag"' in ours
    assert ours == as_django_writes_them(filterset())


def test_a_topic_pages_filter_fields_are_the_bytes_djangos_templates_write(
    client, record
):
    page = client.get("/topics/evaluation/?tag=memory&year_from=2000").content
    filterset = DocumentTableFilter(
        QueryDict("tag=memory&year_from=2000"), queryset=Document.objects.public()
    )
    del filterset.filters["topic"]
    assert filterset.is_valid()
    assert as_django_writes_them(filterset).encode() in page

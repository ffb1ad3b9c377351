"""Adding a document by identifier, and editing its author list, through
the admin's add form; the list of documents whose authors are incomplete."""

import pytest
from bs4 import BeautifulSoup
from django.test import Client
from django.urls import reverse

from catalogue.models import Document
from tests.factories import DocumentFactory, RegistryFactory, TopicFactory

pytestmark = pytest.mark.django_db

ADD = "admin:catalogue_document_add"


def add_form(client, identifier):
    """The add form after the lookup form is sent with ``identifier``."""
    response = client.post(
        reverse(ADD), {"identifier": identifier, "_lookup": "Look up"}
    )
    assert response.status_code == 200
    return read_form(response)


def read_form(response):
    soup = BeautifulSoup(response.content, "html.parser")
    form = soup.find("form", id="document_form")
    values = {
        field["name"]: field.get("value", "")
        for field in form.find_all("input")
        if field.get("name")
    }
    values |= {area["name"]: area.get_text() for area in form.find_all("textarea")}
    for select in form.find_all("select"):
        chosen = select.find("option", selected=True)
        values[select["name"]] = chosen["value"] if chosen else ""
    messages = [item.get_text() for item in soup.select("ul.messagelist li")]
    return values, messages


def test_a_pasted_arxiv_address_fills_in_the_form(editor, client, metadata_sources):
    RegistryFactory()
    client.force_login(editor)

    values, messages = add_form(client, "https://arxiv.org/abs/1604.06174v2")

    assert {
        name: values[name]
        for name in [
            "title",
            "authors",
            "year",
            "source_identifier",
            "venue",
            "publication_type",
            "publication_date",
            "doi",
        ]
    } == {
        "title": "Training Deep Nets with Sublinear Memory Cost",
        "authors": "Chen et al.",
        "year": "2016",
        "source_identifier": "ARXIV-1604.06174",
        "venue": "",
        "publication_type": "preprint",
        "publication_date": "2016-04-21",
        "doi": "",
    }
    assert values["author_list"].strip() == (
        "Chen, Tianqi\nXu, Bing\nZhang, Chiyuan\nGuestrin, Carlos"
    )
    assert messages[0].startswith("Filled in from arXiv")


def test_a_link_with_an_identifier_asks_no_service_and_fills_in_nothing(
    editor, client, metadata_sources
):
    RegistryFactory()
    metadata_sources.requests.clear()
    client.force_login(editor)

    response = client.get(reverse(ADD), {"identifier": "10.1109/TAC.2003.812781"})

    values, messages = read_form(response)
    assert metadata_sources.requests == []
    assert (values["title"], values["source_identifier"], messages) == ("", "", [])


def test_a_lookup_without_the_forms_csrf_token_is_refused(editor, metadata_sources):
    client = Client(enforce_csrf_checks=True)
    client.force_login(editor)
    metadata_sources.requests.clear()

    response = client.post(
        reverse(ADD), {"identifier": "10.1109/TAC.2003.812781", "_lookup": "Look up"}
    )

    assert response.status_code == 403
    assert metadata_sources.requests == []


def test_the_lookup_form_is_sent_by_post_with_its_token(editor, client):
    client.force_login(editor)

    soup = BeautifulSoup(client.get(reverse(ADD)).content, "html.parser")

    form = soup.select_one("form.lookup-by-identifier")
    assert form["method"] == "post"
    assert form.find("input", attrs={"name": "csrfmiddlewaretoken"}) is not None
    assert form.find("input", attrs={"name": "_lookup", "type": "submit"})


def test_a_source_already_cited_is_named_before_anything_is_asked(
    editor, client, metadata_sources
):
    DocumentFactory(sublinear_memory=True, published=True)
    metadata_sources.requests.clear()
    client.force_login(editor)

    values, messages = add_form(client, "arXiv:1604.06174")

    assert messages == [
        "LIT-004 v4: Training Deep Nets with Sublinear Memory Cost already cites "
        "ARXIV-1604.06174: edit it rather than adding it again."
    ]
    assert values["title"] == ""
    assert metadata_sources.requests == []


def test_without_a_network_the_form_says_so_and_stays_usable(
    editor, client, offline_sources
):
    RegistryFactory()
    client.force_login(editor)

    values, messages = add_form(client, "10.1109/TAC.2003.812781")

    assert values["source_identifier"] == "DOI:10.1109/TAC.2003.812781"
    assert values["title"] == ""
    assert messages == [
        "Crossref could not be reached (ConnectError): is this server offline? Fill "
        "in the form by hand, or try again later. The form is yours to fill in by "
        "hand."
    ]


@pytest.mark.parametrize(
    ("identifier", "message"),
    [
        ("10.5555/missing", "Crossref knows no DOI 10.5555/missing."),
        ("10.5555/limited", "try again in 30 seconds."),
        ("2222.22222", "with another paper, 1604.06174v2: nothing was filled in."),
    ],
)
def test_a_bad_answer_fills_in_nothing_and_says_why(
    editor, client, metadata_sources, identifier, message
):
    RegistryFactory()
    client.force_login(editor)

    values, messages = add_form(client, identifier)

    assert values["title"] == values["authors"] == ""
    assert message in messages[0]


def test_the_filled_in_form_saves_a_draft_with_its_author_list(editor, client):
    registry = RegistryFactory()
    topic = TopicFactory(name="Distributed optimization")
    client.force_login(editor)

    response = client.post(
        reverse(ADD),
        {
            "registry": registry.pk,
            "topic": topic.pk,
            "tags": "memory",
            "title": "BytePS",
            # Left empty: derived from the author list.
            "authors": "",
            "author_list": "Jiang, Yimin\nZhu, Yibo\n{ByteDance Inc., AI Lab}\n",
            "year": "2020",
            "venue": "OSDI ‘20",
            "publication_type": "conference_paper",
            "publication_date": "2020-11",
            "summary": "A unified architecture.",
            "versions-TOTAL_FORMS": "0",
            "versions-INITIAL_FORMS": "0",
        },
    )

    assert response.status_code == 302, response.context["errors"]
    document = Document.objects.get(title="BytePS")
    assert document.authors == "Jiang et al."
    assert document.author_list == [
        {"family": "Jiang", "given": "Yimin"},
        {"family": "Zhu", "given": "Yibo"},
        {"literal": "ByteDance Inc., AI Lab"},
    ]
    assert (document.topic, list(document.tags.names())) == (topic, ["memory"])


def test_a_bad_author_line_is_named_and_nothing_is_saved(editor, client):
    registry = RegistryFactory()
    client.force_login(editor)

    response = client.post(
        reverse(ADD),
        {
            "registry": registry.pk,
            "title": "BytePS",
            "authors": "",
            "author_list": "Jiang, Yimin\nZhu, Yibo, Jr, III\n",
            "year": "2020",
            "summary": "A unified architecture.",
        },
    )

    assert response.status_code == 200
    assert response.context["adminform"].form.errors["author_list"] == [
        "Line 2 (‘Zhu, Yibo, Jr, III’): a person reads ‘Family, Given’ (one comma), "
        "an organisation ‘{Name, as written}’."
    ]
    assert not Document.objects.exists()


def test_editors_list_the_documents_whose_authors_are_incomplete(editor, client):
    incomplete = DocumentFactory(authors="Chen et al.", published=True)
    DocumentFactory(authors="Chen et al.", all_authors=True, published=True)
    DocumentFactory(authors="Jadbabaie, Lin and Morse", published=True)
    client.force_login(editor)

    response = client.get(
        reverse("admin:catalogue_document_changelist"), {"authors": "incomplete"}
    )

    assert list(response.context["cl"].result_list) == [incomplete]

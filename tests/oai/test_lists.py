"""Lists are walked in pages by resumption tokens that survive changes made
between pages; ``from`` and ``until`` select by datestamp, to the second or
the day; and a page costs the same queries however large the record."""

from datetime import UTC, datetime, timedelta

import pytest

import actions.documents
from catalogue.models import Document
from oai import records
from oai.protocol import Resumption
from tests.factories import DocumentFactory, RegistryFactory, TopicFactory
from tests.oai.oai import NS, ask, error_codes, headers, identifiers, token, walk

pytestmark = pytest.mark.django_db

HOST = "oai:anthology.invalid"


def at(text):
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def stamp(document, moment):
    """Set when ``document``'s row last changed, as if it were then."""
    Document.objects.filter(pk=document.pk).update(updated_at=moment)


@pytest.fixture
def seven(monkeypatch):
    """Seven public documents, a second apart, walked three a page."""
    monkeypatch.setattr(records, "PAGE_SIZE", 3)
    documents = [DocumentFactory(number=n, published=True) for n in range(1, 8)]
    for n, document in enumerate(documents):
        stamp(document, at("2026-01-02T10:00:00") + timedelta(seconds=n))
    return documents


def test_a_list_is_walked_in_pages_to_an_empty_token(client, seven):
    pages = walk(client, "ListIdentifiers", metadataPrefix="oai_dc")

    assert [identifiers(page) for page in pages] == [
        [f"{HOST}:LIT-001", f"{HOST}:LIT-002", f"{HOST}:LIT-003"],
        [f"{HOST}:LIT-004", f"{HOST}:LIT-005", f"{HOST}:LIT-006"],
        [f"{HOST}:LIT-007"],
    ]
    tokens = [token(page) for page in pages]
    assert [(t.get("cursor"), t.get("completeListSize")) for t in tokens] == [
        ("0", "7"),
        ("3", "7"),
        ("6", "7"),
    ]
    assert tokens[-1].text is None  # The last page's token is empty.


def test_records_are_walked_with_their_metadata(client, seven):
    pages = walk(client, "ListRecords", metadataPrefix="mods")

    assert sum(len(page.findall(".//mods:mods", NS)) for page in pages) == 7


def test_a_token_resumes_the_list_with_its_original_arguments(client, seven):
    first = ask(
        client,
        verb="ListIdentifiers",
        metadataPrefix="oai_dc",
        **{"from": "2026-01-02T10:00:02Z"},
    )
    rest = ask(client, verb="ListIdentifiers", resumptionToken=token(first).text)

    assert identifiers(first) + identifiers(rest) == [
        f"{HOST}:LIT-00{n}" for n in range(3, 8)
    ]
    assert rest.find("o:request", NS).attrib == {
        "verb": "ListIdentifiers",
        "resumptionToken": token(first).text,
    }


def test_changes_between_pages_skip_no_record(client, seven, publisher, editor):
    first = ask(client, verb="ListIdentifiers", metadataPrefix="oai_dc")
    # Between the pages: a record already given is revised, one not yet given
    # is withdrawn, and a new one is published.
    actions.documents.edit_document(
        document=seven[0], user=editor, changes={"title": "Revised"}
    )
    actions.documents.publish(document=seven[0], user=publisher)
    actions.documents.withdraw(document=seven[4], user=publisher)
    DocumentFactory(number=8, published=True)
    rest = walk(client, "ListIdentifiers", resumptionToken=token(first).text)
    later = [header for page in rest for header in headers(page)]

    assert [i for i, _, _ in later] == [
        f"{HOST}:LIT-004",
        f"{HOST}:LIT-006",
        f"{HOST}:LIT-007",
        # Changed since the list began: after every unchanged record.
        f"{HOST}:LIT-001",
        f"{HOST}:LIT-005",
        f"{HOST}:LIT-008",
    ]
    assert [deleted for i, _, deleted in later if i == f"{HOST}:LIT-005"] == [True]


@pytest.mark.parametrize(
    "arguments,numbers",
    [
        ({"from": "2026-01-02T10:00:02Z"}, [3, 4, 5, 6, 7]),
        ({"until": "2026-01-02T10:00:02Z"}, [1, 2, 3]),
        ({"from": "2026-01-02T10:00:02Z", "until": "2026-01-02T10:00:02Z"}, [3]),
        ({"from": "2026-01-02", "until": "2026-01-02"}, [1, 2, 3, 4, 5, 6, 7]),
        ({"from": "2026-01-03"}, []),
        ({"until": "2026-01-01"}, []),
    ],
)
def test_from_and_until_select_whole_seconds_and_days(
    client, seven, arguments, numbers
):
    # Within a second: the datestamp says 10:00:02, the row 10:00:02.75.
    stamp(seven[2], at("2026-01-02T10:00:02.750000"))
    pages = walk(client, "ListIdentifiers", metadataPrefix="oai_dc", **arguments)

    if not numbers:
        assert error_codes(pages[0]) == ["noRecordsMatch"]
        return
    assert [i for page in pages for i in identifiers(page)] == [
        f"{HOST}:LIT-{n:03d}" for n in numbers
    ]


def test_a_datestamp_is_written_to_the_second(client, seven):
    stamp(seven[0], at("2026-01-02T09:59:59.999999"))
    tree = ask(
        client, verb="GetRecord", identifier=f"{HOST}:LIT-001", metadataPrefix="mods"
    )

    assert headers(tree)[0][1] == "2026-01-02T09:59:59Z"


# The page and the list's length; the tags of records; their authors'
# verified ORCID iDs, for the format that writes them.
QUERIES = {
    ("ListRecords", "oai_dc"): 3,
    ("ListRecords", "mods"): 4,
    ("ListIdentifiers", "oai_dc"): 2,
    ("ListIdentifiers", "mods"): 2,
}


@pytest.mark.parametrize("count", [10, 1000])
@pytest.mark.parametrize(("verb", "prefix"), list(QUERIES))
def test_a_page_costs_the_same_queries_at_any_size(
    client, django_assert_num_queries, count, verb, prefix
):
    registry = RegistryFactory()
    topics = [TopicFactory(), TopicFactory()]
    Document.objects.bulk_create(
        DocumentFactory.build(
            registry=registry,
            topic=topics[number % 2],
            number=number,
            status=Document.Status.ACTIVE,
        )
        for number in range(1, count + 1)
    )
    for document in Document.objects.filter(number__lte=10):
        document.tags.add("memory", f"tag-{document.number}")
    queries = QUERIES[verb, prefix]

    with django_assert_num_queries(queries):
        first = ask(client, verb=verb, metadataPrefix=prefix)
    resumed = token(first)
    if resumed is None:
        # A list of one page: resume it from its fifth record instead.
        fifth = Document.objects.order_by("updated_at", "pk")[4]
        resumed_token = Resumption(
            verb, {"metadataPrefix": prefix}, (fifth.updated_at, fifth.pk), 5, count
        ).token()
    else:
        resumed_token = resumed.text
    with django_assert_num_queries(queries - 1):
        # The length came with the token.
        ask(client, verb=verb, resumptionToken=resumed_token)

"""Every XML answer the site writes stays well-formed whatever text a row
stored before the record refused control characters and noncharacters
holds: each feed, each sitemap file and each OAI-PMH answer is read by a
strict parser (lxml, no recovery), the OAI-PMH ones validated against the
protocol's and the formats' schemas; and the arguments an OAI-PMH request
carries, echoed or named in its answer, never break it.

Old rows are written as they were then, with a queryset's ``update()``,
which no validation sees. A row cannot hold a lone surrogate (no database
encodes one as UTF-8), nor, on PostgreSQL, a NUL."""

from urllib.parse import urlsplit

import pytest
from django.core.cache import cache
from django.db import connection
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree
from taggit.models import Tag

import actions.documents
from catalogue.models import (
    DecisionLog,
    DecisionRecord,
    Document,
    DocumentNotice,
    DocumentVersion,
    Person,
    Registry,
    Topic,
    Venue,
)
from tests.factories import (
    DecisionLogFactory,
    DecisionRecordFactory,
    DocumentFactory,
    TopicFactory,
)
from tests.oai.oai import error_codes, schema

pytestmark = pytest.mark.django_db

# Characters XML cannot carry, and the record refuses besides.
REFUSED = ["\x01", "\x08", "\x0b", "\x0c", "\x1b", "\x1f", "\x7f", "\x85"]
REFUSED += ["\ufdd0", "\ufffe", "\uffff", "\U0001fffe", "\U0010ffff"]


def stored_text():
    """Text a row of either database can hold, those characters often."""
    refused = REFUSED + (["\x00"] if connection.vendor == "sqlite" else [])
    character = st.one_of(
        st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"),
        st.sampled_from(refused),
    )
    return st.text(alphabet=character, max_size=40)


STRICT = etree.XMLParser(recover=False, resolve_entities=False, no_network=True)
OLD_ROWS = settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


def fresh():
    """Nothing cached: each example's rows are read again."""
    cache.clear()


@pytest.fixture
def record(publisher):
    """A public document with its people, venue, tags and topic; a withdrawn
    one with its notice; the record's own decision log and a team's."""
    topic = TopicFactory(name="Distributed optimization", slug="distributed")
    document = DocumentFactory(
        topic=topic,
        tags=["memory"],
        author_list=[{"family": "Chen", "given": "Tianqi"}],
        authors="Chen",
        venue="OSDI",
        doi="10.5555/osdi",
        published=True,
    )
    withdrawn = DocumentFactory(topic=topic, published=True)
    actions.documents.withdraw(document=withdrawn, user=publisher, reason="Retracted.")
    DecisionRecordFactory(number=1, title="Use PostgreSQL", body="## Context\n")
    team = DecisionLogFactory(name="Platform team")
    DecisionRecordFactory(log=team, number=1, title="Use Redis")
    return {
        "document": document,
        "topic": topic,
        "team": team,
        "person": Person.objects.public().get(name__family="Chen"),
        "tag": Tag.objects.get(name="memory"),
        "venue": Venue.objects.get(name="OSDI"),
    }


def write_old_rows(text):
    """``text`` in every text of the record an XML answer carries."""
    Document.objects.update(
        title=f"T{text}",
        summary=f"S{text}",
        authors=f"A{text}",
        citation_note=text,
        venue=text,
        doi=f"10.5555/{text}",
        withdrawal_reason=text,
        author_list=[{"family": f"F{text}", "given": text}, {"literal": f"L{text}"}],
    )
    DocumentVersion.objects.update(
        title=f"T{text}",
        summary=f"S{text}",
        authors=f"A{text}",
        citation_note=text,
        venue=text,
        author_list=[{"family": f"F{text}", "given": text}],
        note=text,
    )
    DocumentNotice.objects.update(reason=text)
    # Names are unique: each keeps its own.
    for model, texts in [
        (Topic, {"scope": text}),
        (Registry, {"description": text}),
        (Tag, {}),
        (DecisionLog, {}),
    ]:
        for n, pk in enumerate(model.objects.values_list("pk", flat=True)):
            model.objects.filter(pk=pk).update(name=f"N{n}{text}", **texts)
    Person.objects.update(
        name={"family": f"F{text}", "given": text},
        display_name=f"D{text}",
        affiliation=text,
    )
    DecisionRecord.objects.update(
        title=f"T{text}", status_text=text, body=text, status_history=text
    )


def feeds(record):
    return [
        reverse("catalogue:feed"),
        reverse("catalogue:topic-feed", args=[record["topic"].slug]),
        reverse("catalogue:topic-feed", args=[record["topic"].slug])
        + "?year_from=1000",
        reverse("catalogue:registry-feed", args=["LIT"]),
        reverse("catalogue:tag-feed", args=[record["tag"].slug]),
        reverse("catalogue:venue-feed", args=[record["venue"].slug]),
        reverse("catalogue:person-feed", args=[record["person"].slug]),
        reverse(
            "catalogue:document-feed",
            kwargs={"identifier": record["document"].identifier},
        ),
        reverse("catalogue:decision-feed"),
        reverse("catalogue:log-decision-feed", kwargs={"log": record["team"].slug}),
    ]


def oai_requests(record):
    identifier = f"oai:anthology.invalid:{record['document'].identifier}"
    return [
        {"verb": "Identify"},
        {"verb": "ListSets"},
        {"verb": "ListMetadataFormats", "identifier": identifier},
        {"verb": "ListIdentifiers", "metadataPrefix": "oai_dc"},
        *[
            request
            for prefix in ("oai_dc", "mods")
            for request in (
                {"verb": "ListRecords", "metadataPrefix": prefix},
                {
                    "verb": "GetRecord",
                    "metadataPrefix": prefix,
                    "identifier": identifier,
                },
            )
        ],
    ]


def read(client, path, data=None):
    response = client.get(path, data)
    assert response.status_code == 200, (path, data)
    return etree.fromstring(response.content, STRICT)


def sitemap_files(client):
    index = read(client, reverse("catalogue:sitemap"))
    locations = index.iterfind(
        "{http://www.sitemaps.org/schemas/sitemap/0.9}sitemap/"
        "{http://www.sitemaps.org/schemas/sitemap/0.9}loc"
    )
    return [urlsplit(location.text).path for location in locations]


@OLD_ROWS
@given(text=stored_text())
def test_every_xml_answer_is_well_formed_whatever_an_old_row_holds(
    client, record, text
):
    write_old_rows(text)
    fresh()

    for path in feeds(record):
        feed = read(client, path)
        assert feed.find("{http://www.w3.org/2005/Atom}entry") is not None, path
    for path in sitemap_files(client):
        read(client, path)
    for request in oai_requests(record):
        answer = read(client, "/oai/", request)
        schema().assertValid(answer)
        assert error_codes(answer) == [], request


def test_an_old_rows_characters_are_written_as_u_fffd_the_rest_as_stored(
    client, record
):
    typographic = "‘Sublinear’ “memory” — 2 × ≈ 😀 e\u0301"
    write_old_rows(f" {typographic}\x0b\ufffe")
    fresh()

    feed = read(client, reverse("catalogue:feed"))
    titles = [
        title.text for title in feed.iterfind("{*}entry/{*}title") if "T " in title.text
    ]
    answer = read(
        client,
        "/oai/",
        {
            "verb": "GetRecord",
            "metadataPrefix": "oai_dc",
            "identifier": f"oai:anthology.invalid:{record['document'].identifier}",
        },
    )

    assert titles and all(
        title.endswith(f"T {typographic}\ufffd\ufffd") for title in titles
    )
    assert answer.findtext(".//{*}title") == f"T {typographic}\ufffd\ufffd"


ARGUMENTS = ["verb", "identifier", "metadataPrefix", "set", "from", "resumptionToken"]


@OLD_ROWS
@given(
    arguments=st.dictionaries(
        st.one_of(st.sampled_from(ARGUMENTS), stored_text()),
        stored_text(),
        max_size=4,
    ),
    verb=st.sampled_from(["Identify", "GetRecord", "ListRecords", "ListSets", None]),
)
def test_every_oai_answer_to_any_arguments_is_valid(client, record, arguments, verb):
    if verb is not None:
        arguments.setdefault("verb", verb)
    # A NUL is refused by the site before any view (400).
    arguments = {
        key: value
        for key, value in arguments.items()
        if "\x00" not in key and "\x00" not in value
    }

    schema().assertValid(read(client, "/oai/", arguments))


@pytest.mark.parametrize(
    ("arguments", "code", "said"),
    [
        (
            {"verb": "Ident\x01ify"},
            "badVerb",
            "The argument verb holds a control character (U+0001) "
            "('Ident[U+0001]ify'): no argument may hold one.",
        ),
        (
            {"verb": "ListRecords", "metadataPrefix": "oai\x1bdc"},
            "badArgument",
            "The argument metadataPrefix holds a control character (U+001B) "
            "('oai[U+001B]dc'): no argument may hold one.",
        ),
        (
            {
                "verb": "GetRecord",
                "metadataPrefix": "mods",
                "identifier": "oai:anthology.invalid:LIT-001\ufffe",
            },
            "badArgument",
            "The argument identifier holds a noncharacter (U+FFFE) "
            "('oai:anthology.invalid:LIT-001[U+FFFE]'): no argument may hold one.",
        ),
        (
            {"verb": "Identify", "\x01": "x"},
            "badArgument",
            "The argument [U+0001] holds a control character (U+0001) "
            "('[U+0001]'): no argument may hold one.",
        ),
    ],
    ids=["in the verb", "in a prefix", "in an identifier", "in an argument's name"],
)
def test_an_argument_xml_cannot_carry_is_named_never_echoed(
    client, record, arguments, code, said
):
    answer = read(client, "/oai/", arguments)

    schema().assertValid(answer)
    assert error_codes(answer) == [code]
    assert answer.findtext("{*}error") == said
    assert answer.find("{*}request").attrib == {}

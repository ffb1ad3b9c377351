"""Every answer a harvester can get, error answers included, is valid against
OAI-PMH.xsd: a malformed argument is a badArgument that echoes nothing, and
the records are named under the repository identifier the operator set."""

import pytest
from django.core.checks import run_checks
from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catalogue.models import Document
from oai.checks import check_repository_identifier
from tests.factories import DocumentFactory, TopicFactory
from tests.oai.oai import NS, ask, error_codes, identifiers

pytestmark = pytest.mark.django_db

HOST = "oai:anthology.invalid"


@pytest.fixture(scope="module")
def made_record(module_db):
    """LIT-004, filed, and LIT-009 withdrawn: records of both kinds, made once
    for the module (``module_db``)."""
    with module_db():
        topic = TopicFactory(name="Distributed optimization", slug="distributed")
        DocumentFactory(sublinear_memory=True, topic=topic, published=True)
        DocumentFactory(number=9, topic=None, withdrawn=True)


@pytest.fixture
def record(made_record, db):
    """The module's record, each test's changes rolled back to it."""


def answer(client, arguments):
    """The error codes of the answer to ``arguments`` and its request
    element's attributes; ``ask`` has validated it against the schemas."""
    tree = ask(client, **arguments)
    return error_codes(tree), dict(tree.find("o:request", NS).attrib)


# The arguments an outside harvester's run sent, each the schema refuses to
# echo: a badArgument whatever else is wrong (here an unknown format).
MALFORMED = [
    {"metadataPrefix": "bad prefix"},
    {"metadataPrefix": ""},
    {"metadataPrefix": "marc21", "from": "yesterday"},
    {"metadataPrefix": "marc21", "set": "bad set"},
    {"metadataPrefix": "marc21", "until": "2026-13-45"},
]


@pytest.mark.parametrize("verb", ["ListRecords", "ListIdentifiers"])
@pytest.mark.parametrize("arguments", MALFORMED)
def test_a_malformed_argument_is_a_bad_argument_echoing_nothing(
    client, record, verb, arguments
):
    assert answer(client, {"verb": verb, **arguments}) == (["badArgument"], {})


@pytest.mark.parametrize(
    "arguments",
    [
        {"metadataPrefix": "bad prefix", "identifier": f"{HOST}:LIT-004"},
        {"metadataPrefix": "", "identifier": f"{HOST}:LIT-004"},
        {"metadataPrefix": "mods", "identifier": "not a uri"},
        {"metadataPrefix": "mods", "identifier": "oai:x:%zz"},
        {"metadataPrefix": "mods", "identifier": "::LIT-004"},
        {"metadataPrefix": "mods", "identifier": "oai:x:a#b#c"},
        {"metadataPrefix": "mods", "identifier": "http://x.org:99999999999/"},
        {"metadataPrefix": "mods", "identifier": ""},
    ],
)
def test_get_record_refuses_malformed_arguments(client, record, arguments):
    assert answer(client, {"verb": "GetRecord", **arguments}) == (["badArgument"], {})


# Each verb with each error it can answer, the arguments echoed where the
# error is not badVerb or badArgument.
EVERY_ERROR = [
    ({"verb": "Identify", "identifier": f"{HOST}:LIT-004"}, "badArgument"),
    ({"verb": "Identify", "verb2": "x"}, "badArgument"),
    ({"verb": "ListMetadataFormats", "identifier": "a b"}, "badArgument"),
    ({"verb": "ListMetadataFormats", "set": "x"}, "badArgument"),
    (
        {"verb": "ListMetadataFormats", "identifier": f"{HOST}:LIT-404"},
        "idDoesNotExist",
    ),
    ({"verb": "ListSets", "set": "bad set"}, "badArgument"),
    ({"verb": "ListSets", "resumptionToken": "x"}, "badResumptionToken"),
    ({"verb": "GetRecord", "identifier": f"{HOST}:LIT-004"}, "badArgument"),
    (
        {"verb": "GetRecord", "identifier": f"{HOST}:LIT-004", "metadataPrefix": "x"},
        "cannotDisseminateFormat",
    ),
    (
        {
            "verb": "GetRecord",
            "identifier": f"{HOST}:LIT-404",
            "metadataPrefix": "mods",
        },
        "idDoesNotExist",
    ),
    (
        {
            "verb": "GetRecord",
            "identifier": "oai:127.0.0.1:LIT-004",
            "metadataPrefix": "mods",
        },
        "idDoesNotExist",
    ),
    *[
        case
        for verb in ["ListIdentifiers", "ListRecords"]
        for case in [
            ({"verb": verb}, "badArgument"),
            (
                {"verb": verb, "metadataPrefix": "mods", "from": "2026-01-01T00:00"},
                "badArgument",
            ),
            (
                {"verb": verb, "metadataPrefix": "mods", "until": "9999-12-31"},
                "badArgument",
            ),
            ({"verb": verb, "metadataPrefix": "mods", "set": "a::b"}, "badArgument"),
            ({"verb": verb, "resumptionToken": "x", "set": "topic"}, "badArgument"),
            ({"verb": verb, "resumptionToken": "forged"}, "badResumptionToken"),
            ({"verb": verb, "metadataPrefix": "marc21"}, "cannotDisseminateFormat"),
            (
                {"verb": verb, "metadataPrefix": "marc21", "from": "2026-01-01"},
                "cannotDisseminateFormat",
            ),
            (
                {"verb": verb, "metadataPrefix": "mods", "set": "topic:none"},
                "noRecordsMatch",
            ),
            (
                {"verb": verb, "metadataPrefix": "mods", "until": "1990-01-01"},
                "noRecordsMatch",
            ),
        ]
    ],
    ({"verb": "Harvest"}, "badVerb"),
    ({"verb": "", "metadataPrefix": "bad prefix"}, "badVerb"),
]


@pytest.mark.parametrize("arguments,code", EVERY_ERROR)
def test_every_error_of_every_verb_is_a_valid_answer(client, record, arguments, code):
    codes, echoed = answer(client, arguments)

    assert codes == [code]
    if code in {"badVerb", "badArgument"}:
        assert echoed == {}
    else:
        assert echoed == arguments


ARGUMENT_NAMES = [
    "identifier",
    "metadataPrefix",
    "from",
    "until",
    "set",
    "resumptionToken",
]
# Text as a harvester or a fuzzer types it: the characters of the arguments'
# own shapes, often, and any other but NUL (refused before any view, a 400).
VALUE = st.text(
    alphabet=st.one_of(
        st.sampled_from("oai:LIT-004_dcmods.!~*'()T0123456789Z/%#?@&=+$, "),
        st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"),
    ),
    max_size=30,
)


@settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    verb=st.sampled_from(
        [
            "Identify",
            "ListMetadataFormats",
            "ListSets",
            "GetRecord",
            "ListIdentifiers",
            "ListRecords",
        ]
    ),
    arguments=st.dictionaries(st.sampled_from(ARGUMENT_NAMES), VALUE, max_size=3),
)
def test_any_argument_gets_an_answer_valid_against_the_schemas(
    client, record, verb, arguments
):
    codes, echoed = answer(client, {"verb": verb, **arguments})

    if codes in (["badVerb"], ["badArgument"]):
        assert echoed == {}


# The repository identifier


def test_identify_describes_the_records_identifiers(client, record):
    tree = ask(client, verb="Identify")
    description = tree.find("o:Identify/o:description/id:oai-identifier", NS)
    oldest = Document.objects.public().order_by("updated_at", "pk").first()

    assert [(child.tag.split("}")[1], child.text) for child in description] == [
        ("scheme", "oai"),
        ("repositoryIdentifier", "anthology.invalid"),
        ("delimiter", ":"),
        ("sampleIdentifier", f"{HOST}:{oldest.identifier}"),
    ]


@override_settings(OAI_REPOSITORY_IDENTIFIER="anthology.example.org")
def test_records_are_named_under_the_repository_identifier(client, record):
    listed = identifiers(ask(client, verb="ListIdentifiers", metadataPrefix="oai_dc"))
    found = ask(
        client,
        verb="GetRecord",
        identifier="oai:anthology.example.org:LIT-004",
        metadataPrefix="oai_dc",
    )

    assert sorted(listed) == [
        "oai:anthology.example.org:LIT-004",
        "oai:anthology.example.org:LIT-009",
    ]
    assert identifiers(found) == ["oai:anthology.example.org:LIT-004"]


@pytest.mark.parametrize(
    "site_url", ["http://127.0.0.1:8000", "https://elsewhere.example.net"]
)
def test_a_new_site_address_renames_no_record(client, record, site_url):
    with override_settings(SITE_URL=site_url):
        listed = identifiers(ask(client, verb="ListIdentifiers", metadataPrefix="mods"))
        found = ask(
            client,
            verb="GetRecord",
            identifier=f"{HOST}:LIT-004",
            metadataPrefix="mods",
        )

    assert sorted(listed) == [f"{HOST}:LIT-004", f"{HOST}:LIT-009"]
    assert error_codes(found) == []


@pytest.mark.parametrize(
    "identifier",
    [
        "127.0.0.1",
        "testserver",
        "https://anthology.example.org",
        "anthology.example.org:8000",
        "-anthology.example.org",
        "anthology.1example.org",
        "anthology..org",
        "",
    ],
)
def test_the_check_refuses_a_repository_identifier_that_is_no_domain_name(identifier):
    with override_settings(OAI_REPOSITORY_IDENTIFIER=identifier):
        problems = check_repository_identifier()
        everywhere = run_checks(tags=["oai"])

    assert [problem.id for problem in problems] == ["oai.E001"]
    assert (
        f"OAI_REPOSITORY_IDENTIFIER={identifier!r} is not a domain name"
        in problems[0].msg
    )
    assert [problem.id for problem in everywhere] == ["oai.E001"]


@pytest.mark.parametrize(
    "identifier", ["anthology.example.org", "a.b", "lcoa1.loc.gov"]
)
def test_the_check_takes_a_domain_name(identifier):
    with override_settings(OAI_REPOSITORY_IDENTIFIER=identifier):
        assert run_checks(tags=["oai"], include_deployment_checks=True) == []


def test_a_deployment_is_warned_of_the_development_default():
    problems = run_checks(tags=["oai"], include_deployment_checks=True)

    assert [problem.id for problem in problems] == ["oai.W001"]

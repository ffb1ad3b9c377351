"""The OAI-PMH 2.0 endpoint answers each verb and each error as the protocol
says, every answer valid against the published schemas, and shows only what
readers may see."""

import pytest
from lxml import etree

import actions.documents
from catalogue.models import Document, Registry
from tests.factories import DocumentFactory, TopicFactory, UserFactory
from tests.oai.oai import NS, ask, error_codes, headers, identifiers

pytestmark = pytest.mark.django_db

HOST = "oai:anthology.invalid"


@pytest.fixture(scope="module")
def made_record(module_db):
    """LIT-004 with its full author list, filed and tagged; LIT-007 superseded
    by it; LIT-009 withdrawn; and what readers never see: a draft, a document
    in review, a registry of drafts and LIT-004's pending revision: made once
    for the module (``module_db``), each test's changes rolled back."""
    with module_db():
        make_record(UserFactory(publisher=True), UserFactory(editor=True))


@pytest.fixture
def record(made_record, db):
    """The record, as each test finds it: LIT-004 and LIT-007 read afresh."""
    return {
        "memory": Document.objects.get(registry__prefix="LIT", number=4),
        "older": Document.objects.get(registry__prefix="LIT", number=7),
    }


def make_record(publisher, editor):
    topic = TopicFactory(name="Distributed optimization", slug="distributed")
    memory = DocumentFactory(
        sublinear_memory=True,
        all_authors=True,
        topic=topic,
        tags=["checkpointing", "memory"],
        venue="arXiv",
        doi="10.48550/arXiv.1604.06174",
        summary="Trades compute for memory: O(√n) “checkpoints” — at ≈30% cost.",
        published=True,
    )
    older = DocumentFactory(number=7, authors="CoreWeave", topic=None, published=True)
    actions.documents.supersede(document=older, successor=memory, user=publisher)
    DocumentFactory(number=9, topic=None, withdrawn=True)
    DocumentFactory(number=11, topic=None, draft=True, title="A draft")
    DocumentFactory(number=12, topic=None, in_review=True, title="In review")
    drafts = Registry.objects.create(prefix="DRAFT", name="Only drafts")
    DocumentFactory(registry=drafts, number=1, topic=topic, draft=True)
    actions.documents.edit_document(
        document=memory, user=editor, changes={"title": "A pending title"}
    )
    return {"memory": memory, "older": older}


def test_identify_describes_the_repository(client, record):
    tree = ask(client, verb="Identify")
    identify = tree.find("o:Identify", NS)
    earliest = Document.objects.public().order_by("updated_at").first()

    assert identify.findtext("o:baseURL", namespaces=NS) == "http://testserver/oai/"
    assert identify.findtext("o:protocolVersion", namespaces=NS) == "2.0"
    assert identify.findtext("o:deletedRecord", namespaces=NS) == "persistent"
    assert identify.findtext("o:granularity", namespaces=NS) == "YYYY-MM-DDThh:mm:ssZ"
    assert identify.findtext(
        "o:earliestDatestamp", namespaces=NS
    ) == earliest.updated_at.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert tree.find("o:request", NS).attrib == {"verb": "Identify"}


def test_a_post_is_answered_as_a_get(client, record):
    by_post = ask(client, method="post", verb="ListIdentifiers", metadataPrefix="mods")
    by_get = ask(client, verb="ListIdentifiers", metadataPrefix="mods")

    assert headers(by_post) == headers(by_get)


def test_every_record_is_offered_in_both_formats(client, record):
    everywhere = ask(client, verb="ListMetadataFormats")
    one = ask(client, verb="ListMetadataFormats", identifier=f"{HOST}:LIT-004")

    prefixes = [
        tree.xpath("//o:metadataPrefix/text()", namespaces=NS)
        for tree in (everywhere, one)
    ]
    assert prefixes == [["oai_dc", "mods"], ["oai_dc", "mods"]]


def test_sets_are_the_registries_with_public_documents_and_the_topics(client, record):
    TopicFactory(name="Evaluation", slug="evaluation", scope="benchmarks")
    tree = ask(client, verb="ListSets")

    assert tree.xpath("//o:setSpec/text()", namespaces=NS) == [
        "registry",
        "registry:LIT",
        "topic",
        "topic:distributed",
        "topic:evaluation",
    ]
    assert tree.xpath(
        "//o:set[o:setSpec='topic:evaluation']//dc:description/text()", namespaces=NS
    ) == ["benchmarks"]


def test_a_list_holds_the_public_documents_a_withdrawn_one_deleted(client, record):
    tree = ask(client, verb="ListIdentifiers", metadataPrefix="oai_dc")

    assert sorted((i, deleted) for i, _, deleted in headers(tree)) == [
        (f"{HOST}:LIT-004", False),
        (f"{HOST}:LIT-007", False),
        (f"{HOST}:LIT-009", True),
    ]
    assert tree.find(".//o:resumptionToken", NS) is None


def test_a_deleted_record_has_a_header_alone(client, record):
    tree = ask(
        client, verb="GetRecord", identifier=f"{HOST}:LIT-009", metadataPrefix="mods"
    )

    assert headers(tree)[0][2] is True
    assert tree.find(".//o:metadata", NS) is None


def test_a_record_in_oai_dc_is_the_published_text_byte_for_byte(client, record):
    tree = ask(
        client, verb="GetRecord", identifier=f"{HOST}:LIT-004", metadataPrefix="oai_dc"
    )
    dc = tree.find(".//oai_dc:dc", NS)

    def values(name):
        return dc.xpath(f"dc:{name}/text()", namespaces=NS)

    assert values("title") == ["Training Deep Nets with Sublinear Memory Cost"]
    assert values("creator") == [
        "Chen, Tianqi",
        "Xu, Bing",
        "Zhang, Chiyuan",
        "Guestrin, Carlos",
    ]
    # The editors' summary is no abstract: oai_dc carries no description.
    assert values("description") == []
    assert values("subject") == ["Distributed optimization", "checkpointing", "memory"]
    assert values("date") == ["2016-04-21"]
    assert values("type") == ["Text", "Preprint"]
    assert values("identifier") == [
        "http://testserver/LIT-004/",
        "https://arxiv.org/abs/1604.06174",
        "https://doi.org/10.48550/arXiv.1604.06174",
    ]
    assert values("source") == ["arXiv"]
    assert headers(tree)[0][0] == f"{HOST}:LIT-004"
    assert tree.xpath("//o:header/o:setSpec/text()", namespaces=NS) == [
        "registry:LIT",
        "topic:distributed",
    ]


def test_a_superseded_record_names_its_successor(client, record):
    tree = ask(
        client, verb="GetRecord", identifier=f"{HOST}:LIT-007", metadataPrefix="oai_dc"
    )
    mods = ask(
        client, verb="GetRecord", identifier=f"{HOST}:LIT-007", metadataPrefix="mods"
    )

    assert tree.xpath("//dc:relation/text()", namespaces=NS) == [
        "http://testserver/LIT-004/"
    ]
    assert tree.xpath("//dc:creator/text()", namespaces=NS) == ["CoreWeave"]
    assert mods.xpath(
        "//mods:relatedItem[@type='succeeding']/mods:location/mods:url/text()",
        namespaces=NS,
    ) == ["http://testserver/LIT-004/"]
    assert mods.xpath("//mods:name/@type", namespaces=NS) == ["corporate"]


def test_a_record_in_mods_names_each_author_and_the_work(client, record):
    tree = ask(
        client, verb="GetRecord", identifier=f"{HOST}:LIT-004", metadataPrefix="mods"
    )
    mods = tree.find(".//mods:mods", NS)

    assert [
        (
            name.xpath("mods:namePart[@type='family']/text()", namespaces=NS),
            name.xpath("mods:namePart[@type='given']/text()", namespaces=NS),
        )
        for name in mods.iterfind("mods:name", NS)
    ] == [
        (["Chen"], ["Tianqi"]),
        (["Xu"], ["Bing"]),
        (["Zhang"], ["Chiyuan"]),
        (["Guestrin"], ["Carlos"]),
    ]
    assert mods.xpath("mods:identifier[@type='doi']/text()", namespaces=NS) == [
        "10.48550/arXiv.1604.06174"
    ]
    assert mods.xpath("mods:identifier[@type='arxiv']/text()", namespaces=NS) == [
        "1604.06174"
    ]
    assert mods.xpath(
        "mods:relatedItem[@type='host']//mods:title/text()", namespaces=NS
    ) == ["arXiv"]
    assert mods.xpath("mods:originInfo/mods:dateIssued/text()", namespaces=NS) == [
        "2016-04-21"
    ]
    assert mods.find("mods:abstract", NS) is None
    assert mods.xpath(
        "mods:note[@displayLabel='Anthology summary']/text()", namespaces=NS
    ) == [
        "Anthology summary (LIT-004 v4): "
        "Trades compute for memory: O(√n) “checkpoints” — at ≈30% cost."
    ]
    assert mods.xpath(
        "mods:recordInfo/mods:recordIdentifier/text()", namespaces=NS
    ) == ["LIT-004 v4"]


def test_an_incomplete_author_list_says_et_al_in_mods(client, publisher):
    DocumentFactory(number=5, authors="Jiang et al.", published=True)
    tree = ask(
        client, verb="GetRecord", identifier=f"{HOST}:LIT-005", metadataPrefix="mods"
    )

    assert tree.xpath("//mods:name/mods:namePart/text()", namespaces=NS) == ["Jiang"]
    assert tree.xpath("//mods:name/mods:etal/text()", namespaces=NS) == ["et al."]


@pytest.mark.parametrize("identifier", ["LIT-011", "LIT-012", "DRAFT-001", "LIT-404"])
def test_unpublished_documents_have_no_record(client, record, identifier):
    for verb, prefix in [("GetRecord", "oai_dc"), ("ListMetadataFormats", None)]:
        arguments = {"identifier": f"{HOST}:{identifier}"}
        if prefix:
            arguments["metadataPrefix"] = prefix
        assert error_codes(ask(client, verb=verb, **arguments)) == ["idDoesNotExist"]


def test_a_pending_revision_shows_nowhere(client, record):
    for prefix in ["oai_dc", "mods"]:
        content = etree.tostring(ask(client, verb="ListRecords", metadataPrefix=prefix))
        assert b"A pending title" not in content
        assert b"A draft" not in content and b"In review" not in content


def test_sets_select_their_records(client, record):
    def listed(spec):
        tree = ask(client, verb="ListIdentifiers", metadataPrefix="oai_dc", set=spec)
        return sorted(identifiers(tree))

    assert listed("topic:distributed") == [f"{HOST}:LIT-004"]
    assert listed("topic") == [f"{HOST}:LIT-004"]
    assert (
        listed("registry:LIT")
        == listed("registry")
        == [
            f"{HOST}:LIT-004",
            f"{HOST}:LIT-007",
            f"{HOST}:LIT-009",
        ]
    )


BAD_VERB = [{}, {"verb": "Harvest"}, {"verb": ["Identify", "Identify"]}]
BAD_ARGUMENT = [
    {"verb": "Identify", "set": "x"},
    {"verb": "ListRecords"},
    {"verb": "ListRecords", "metadataPrefix": ["oai_dc", "mods"]},
    {"verb": "ListRecords", "metadataPrefix": "oai_dc", "from": "2026-13-01"},
    {"verb": "ListRecords", "metadataPrefix": "oai_dc", "from": "yesterday"},
    {"verb": "ListRecords", "metadataPrefix": "oai_dc", "from": "2026-01-01T00:00Z"},
    {
        "verb": "ListRecords",
        "metadataPrefix": "oai_dc",
        "from": "2026-01-01T00:00:00+01:00",
    },
    {
        "verb": "ListRecords",
        "metadataPrefix": "oai_dc",
        "from": "2026-01-01",
        "until": "2026-02-01T00:00:00Z",
    },
    {
        "verb": "ListRecords",
        "metadataPrefix": "oai_dc",
        "from": "2026-02-01",
        "until": "2026-01-01",
    },
    {"verb": "ListRecords", "metadataPrefix": "oai_dc", "set": "not a set"},
    {"verb": "ListIdentifiers", "resumptionToken": "x", "metadataPrefix": "oai_dc"},
    {"verb": "GetRecord", "metadataPrefix": "oai_dc"},
    {"verb": "GetRecord", "identifier": f"{HOST}:LIT-004"},
    {"verb": "ListSets", "from": "2026-01-01"},
]


@pytest.mark.parametrize(
    "arguments,code",
    [
        *[(arguments, "badVerb") for arguments in BAD_VERB],
        *[(arguments, "badArgument") for arguments in BAD_ARGUMENT],
        (
            {"verb": "ListRecords", "metadataPrefix": "marc21"},
            "cannotDisseminateFormat",
        ),
        (
            {
                "verb": "GetRecord",
                "identifier": f"{HOST}:LIT-004",
                "metadataPrefix": "x",
            },
            "cannotDisseminateFormat",
        ),
        (
            {"verb": "GetRecord", "identifier": "LIT-004", "metadataPrefix": "mods"},
            "idDoesNotExist",
        ),
        (
            {
                "verb": "GetRecord",
                "identifier": "oai:elsewhere.org:LIT-004",
                "metadataPrefix": "mods",
            },
            "idDoesNotExist",
        ),
        ({"verb": "ListRecords", "resumptionToken": "forged"}, "badResumptionToken"),
        ({"verb": "ListIdentifiers", "resumptionToken": ""}, "badResumptionToken"),
        ({"verb": "ListSets", "resumptionToken": "x"}, "badResumptionToken"),
        (
            {"verb": "ListRecords", "metadataPrefix": "oai_dc", "set": "registry:NOPE"},
            "noRecordsMatch",
        ),
        (
            {
                "verb": "ListRecords",
                "metadataPrefix": "oai_dc",
                "set": "registry:DRAFT",
            },
            "noRecordsMatch",
        ),
        (
            {"verb": "ListRecords", "metadataPrefix": "oai_dc", "until": "1990-01-01"},
            "noRecordsMatch",
        ),
        (
            {
                "verb": "ListIdentifiers",
                "metadataPrefix": "mods",
                "from": "2999-01-01T00:00:00Z",
            },
            "noRecordsMatch",
        ),
    ],
)
def test_each_error_is_answered_with_its_code(client, record, arguments, code):
    tree = ask(client, **arguments)

    assert error_codes(tree) == [code]
    assert tree.findtext("o:error", namespaces=NS)  # Says what was wrong.
    request = tree.find("o:request", NS)
    assert request.text == "http://testserver/oai/"
    if code in {"badVerb", "badArgument"}:
        assert request.attrib == {}  # The protocol: the base URL alone.


def test_a_token_of_one_list_is_refused_by_another(client, record, monkeypatch):
    monkeypatch.setattr("oai.records.PAGE_SIZE", 1)
    first = ask(client, verb="ListIdentifiers", metadataPrefix="oai_dc")
    token = first.findtext(".//o:resumptionToken", namespaces=NS)

    assert error_codes(ask(client, verb="ListRecords", resumptionToken=token)) == [
        "badResumptionToken"
    ]
    assert error_codes(
        ask(client, verb="ListIdentifiers", resumptionToken=token[:-2] + "xx")
    ) == ["badResumptionToken"]


def test_answers_are_never_cached(client, record):
    response = client.get("/oai/", {"verb": "Identify"})

    assert "no-store" in response["Cache-Control"]

"""Asking the OAI-PMH endpoint, and reading its answers as a harvester does:
every answer is validated against the published schemas (schemas/)."""

from functools import cache
from pathlib import Path

from lxml import etree

SCHEMAS = Path(__file__).parent / "schemas"
NS = {
    "o": "http://www.openarchives.org/OAI/2.0/",
    "oai_dc": "http://www.openarchives.org/OAI/2.0/oai_dc/",
    "dc": "http://purl.org/dc/elements/1.1/",
    "mods": "http://www.loc.gov/mods/v3",
    "id": "http://www.openarchives.org/OAI/2.0/oai-identifier",
}

# One schema holding the protocol's, both formats' and the oai-identifier
# description's: an answer's metadata and Identify's descriptions are
# validated strictly ("##other", processContents="strict"), so each one's
# schema must be known.
ALL_SCHEMAS = b"""<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:import namespace="http://www.openarchives.org/OAI/2.0/"
             schemaLocation="OAI-PMH.xsd"/>
  <xs:import namespace="http://www.openarchives.org/OAI/2.0/oai-identifier"
             schemaLocation="oai-identifier.xsd"/>
  <xs:import namespace="http://www.openarchives.org/OAI/2.0/oai_dc/"
             schemaLocation="oai_dc.xsd"/>
  <xs:import namespace="http://www.loc.gov/mods/v3"
             schemaLocation="mods-3-7.xsd"/>
</xs:schema>"""


@cache
def schema():
    parser = etree.XMLParser(no_network=True, resolve_entities=False)
    root = etree.fromstring(ALL_SCHEMAS, parser, base_url=str(SCHEMAS / "all.xsd"))
    return etree.XMLSchema(root)


def ask(client, method="get", **arguments):
    """The endpoint's answer to ``arguments`` (a list value repeats the
    argument), parsed and validated."""
    response = getattr(client, method)("/oai/", arguments)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/xml; charset=utf-8"
    return valid(response.content)


def valid(content):
    tree = etree.fromstring(content)
    schema().assertValid(tree)
    return tree


def error_codes(tree):
    return [error.get("code") for error in tree.iterfind("o:error", NS)]


def headers(tree):
    """``[(identifier, datestamp, deleted)]`` of an answer's headers."""
    return [
        (
            header.findtext("o:identifier", namespaces=NS),
            header.findtext("o:datestamp", namespaces=NS),
            header.get("status") == "deleted",
        )
        for header in tree.iterfind(".//o:header", NS)
    ]


def identifiers(tree):
    return [identifier for identifier, _, _ in headers(tree)]


def token(tree):
    """The answer's resumptionToken element, or None."""
    return tree.find(".//o:resumptionToken", NS)


def walk(client, verb, **arguments):
    """Every page of a list, following its tokens: ``[tree]``."""
    pages = [ask(client, verb=verb, **arguments)]
    while (next_token := token(pages[-1])) is not None and next_token.text:
        pages.append(ask(client, verb=verb, resumptionToken=next_token.text))
    return pages

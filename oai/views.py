"""The endpoint: one URL, six verbs, answered in XML (xml.etree) a page at
a time. Answers are never cached: a harvest must see the record as it is,
and a list's pages are keyed by its resumption tokens, not by the page cache's
scopes."""

from datetime import UTC, datetime
from xml.etree.ElementTree import Element, SubElement, register_namespace, tostring

from django.conf import settings
from django.http import HttpResponse
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from catalogue.addresses import absolute_url
from catalogue.identifiers import Identifier
from catalogue.text import unsafe_character, xml_safe
from oai import records
from oai.metadata import DC, FORMATS, NAMESPACES, OAI_DC, OAI_DC_FORMAT, XSI
from oai.protocol import (
    OAIError,
    Resumption,
    check_set_spec,
    datestamp,
    read_bounds,
    read_request,
)

OAI = "http://www.openarchives.org/OAI/2.0/"
OAI_SCHEMA = "http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd"
OAI_IDENTIFIER = "http://www.openarchives.org/OAI/2.0/oai-identifier"
OAI_IDENTIFIER_SCHEMA = "http://www.openarchives.org/OAI/2.0/oai-identifier.xsd"
IN_OAI = f"{{{OAI}}}"

for _prefix, _namespace in NAMESPACES.items():
    register_namespace(_prefix, _namespace)
register_namespace("", OAI)
register_namespace("oai-identifier", OAI_IDENTIFIER)


# The protocol takes its arguments in a GET's query or a form POST's body;
# a harvester sends no CSRF token, and the endpoint changes nothing.
@csrf_exempt
@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def endpoint(request):
    """An OAI-PMH 2.0 answer to ``verb`` and its arguments."""
    query = request.POST if request.method == "POST" else request.GET
    now = datetime.now(UTC)
    root = Element(
        f"{IN_OAI}OAI-PMH",
        {f"{{{XSI}}}schemaLocation": f"{OAI} {OAI_SCHEMA}"},
    )
    SubElement(root, f"{IN_OAI}responseDate").text = datestamp(now)
    echo = SubElement(root, f"{IN_OAI}request")
    echo.text = absolute_url(reverse("oai:endpoint"))
    try:
        verb, arguments = read_request(query)
        echo.attrib.update({"verb": verb, **arguments})
        root.append(VERBS[verb](arguments))
    except OAIError as error:
        if error.is_bad_request:
            echo.attrib.clear()
        SubElement(root, f"{IN_OAI}error", code=error.code).text = error.message
    body = tostring(root, encoding="utf-8", xml_declaration=True)
    # One search of the answer costs less than a walk of every element, and
    # only a row stored before the record refused them holds any.
    if unsafe_character(body.decode()):
        body = tostring(_xml_safe(root), encoding="utf-8", xml_declaration=True)
    return HttpResponse(body, content_type="text/xml; charset=utf-8")


def _xml_safe(root):
    """``root`` with its text and attribute values ``xml_safe``: ElementTree
    writes any character as it is, and a row stored before the record refused
    control characters and noncharacters would make the answer ill-formed."""
    for element in root.iter():
        element.text, element.tail = xml_safe(element.text), xml_safe(element.tail)
        if element.attrib:
            element.attrib = {
                name: xml_safe(value) for name, value in element.attrib.items()
            }
    return root


def _add(parent, tag, text=None, **attributes):
    element = SubElement(parent, f"{IN_OAI}{tag}", attributes)
    if text is not None:
        element.text = str(text)
    return element


def identify(arguments):
    earliest = records.earliest()
    answer = Element(f"{IN_OAI}Identify")
    _add(answer, "repositoryName", settings.OAI_REPOSITORY_NAME)
    _add(answer, "baseURL", absolute_url(reverse("oai:endpoint")))
    _add(answer, "protocolVersion", "2.0")
    _add(answer, "adminEmail", settings.OAI_ADMIN_EMAIL)
    # With no record yet, the earliest a record could come.
    _add(
        answer,
        "earliestDatestamp",
        datestamp(earliest.updated_at if earliest else datetime.now(UTC)),
    )
    _add(answer, "deletedRecord", "persistent")
    _add(answer, "granularity", "YYYY-MM-DDThh:mm:ssZ")
    _oai_identifier_description(answer, earliest)
    return answer


def _oai_identifier_description(answer, earliest):
    """Identify's description of the records' identifiers, as the
    oai-identifier guidelines write it: the scheme, the repository
    identifier, the delimiter and a record's identifier as a sample (the
    oldest record's, or the first a registry's documents take)."""
    sample = earliest.identifier if earliest else Identifier("LIT", 1)
    description = _add(answer, "description")
    root = SubElement(
        description,
        f"{{{OAI_IDENTIFIER}}}oai-identifier",
        {f"{{{XSI}}}schemaLocation": f"{OAI_IDENTIFIER} {OAI_IDENTIFIER_SCHEMA}"},
    )
    for tag, text in [
        ("scheme", "oai"),
        ("repositoryIdentifier", settings.OAI_REPOSITORY_IDENTIFIER),
        ("delimiter", ":"),
        ("sampleIdentifier", records.oai_identifier(sample)),
    ]:
        SubElement(root, f"{{{OAI_IDENTIFIER}}}{tag}").text = text


def list_metadata_formats(arguments):
    """Every format, for the whole repository or one record: each record is
    disseminated in all of them, so noMetadataFormats never applies."""
    if "identifier" in arguments:
        records.find(records.read_oai_identifier(arguments["identifier"]))
    answer = Element(f"{IN_OAI}ListMetadataFormats")
    for metadata_format in FORMATS.values():
        element = _add(answer, "metadataFormat")
        _add(element, "metadataPrefix", metadata_format.prefix)
        _add(element, "schema", metadata_format.schema)
        _add(element, "metadataNamespace", metadata_format.namespace)
    return answer


def list_sets(arguments):
    """Every set at once: they are few. A token is never issued for them."""
    if "resumptionToken" in arguments:
        raise OAIError(
            "badResumptionToken", "ListSets answers whole; it issues no token."
        )
    answer = Element(f"{IN_OAI}ListSets")
    for spec, name, description in records.sets():
        element = _add(answer, "set")
        _add(element, "setSpec", spec)
        _add(element, "setName", name)
        if description:
            described = _add(element, "setDescription")
            dc = SubElement(
                described,
                f"{{{OAI_DC}}}dc",
                {f"{{{XSI}}}schemaLocation": f"{OAI_DC} {OAI_DC_FORMAT.schema}"},
            )
            SubElement(dc, f"{{{DC}}}description").text = description
    return answer


def get_record(arguments):
    metadata_format = _format(arguments["metadataPrefix"])
    identifier = records.read_oai_identifier(arguments["identifier"])
    document = records.find(identifier, orcids=metadata_format.orcids)
    answer = Element(f"{IN_OAI}GetRecord")
    answer.append(_record(document, metadata_format, records.document_page_path()))
    return answer


def _format(prefix):
    if prefix not in FORMATS:
        raise OAIError(
            "cannotDisseminateFormat",
            f"metadataPrefix={prefix!r} is not a format of this repository: "
            f"{', '.join(FORMATS)}.",
        )
    return FORMATS[prefix]


def _header(document):
    header = Element(f"{IN_OAI}header")
    if records.is_deleted(document):
        header.set("status", "deleted")
    _add(header, "identifier", records.oai_identifier(document.identifier))
    _add(header, "datestamp", datestamp(document.updated_at))
    for spec in records.set_specs(document):
        _add(header, "setSpec", spec)
    return header


def _record(document, metadata_format, page_path):
    record = Element(f"{IN_OAI}record")
    record.append(_header(document))
    if not records.is_deleted(document):
        facts = records.facts(document, page_path)
        _add(record, "metadata").append(metadata_format.build(document, facts))
    return record


def list_identifiers(arguments):
    return _list("ListIdentifiers", arguments, metadata=False)


def list_records(arguments):
    return _list("ListRecords", arguments, metadata=True)


def _list(verb, arguments, *, metadata):
    """A page of headers or records: the first, or the one a token resumes."""
    if "resumptionToken" in arguments:
        resumption = Resumption.read(verb, arguments["resumptionToken"])
        arguments = resumption.arguments
    else:
        resumption = None
    metadata_format = _format(arguments["metadataPrefix"])
    if "set" in arguments:
        check_set_spec(arguments["set"])
    documents = records.selected(read_bounds(arguments), arguments.get("set"))
    if resumption is None:
        # How long the list is as it begins; the protocol lets later pages
        # carry it as an estimate, so a page costs the same from the second on.
        size = documents.count()
        resumption = Resumption(verb, arguments, after=None, cursor=0, size=size)
    found = records.page(
        documents,
        resumption.after,
        metadata=metadata,
        orcids=metadata and metadata_format.orcids,
    )
    if not found:
        raise OAIError("noRecordsMatch", "No record matches these arguments.")
    answer = Element(f"{IN_OAI}{verb}")
    page_path = records.document_page_path()
    for document in found[: records.PAGE_SIZE]:
        if metadata:
            answer.append(_record(document, metadata_format, page_path))
        else:
            answer.append(_header(document))
    _resumption_token(answer, resumption, found)
    return answer


def _resumption_token(answer, resumption, found):
    """The token of the next page; an empty one on the last page of a list
    that had more than one; none on a list of one page."""
    shown = found[: records.PAGE_SIZE]
    more = len(found) > records.PAGE_SIZE
    if not more and resumption.after is None:
        return
    token = ""
    if more:
        last = shown[-1]
        token = Resumption(
            resumption.verb,
            resumption.arguments,
            after=(last.updated_at, last.pk),
            cursor=resumption.cursor + len(shown),
            size=resumption.size,
        ).token()
    attributes = {"cursor": str(resumption.cursor)}
    size = max(resumption.size, resumption.cursor + len(shown))
    if size:
        attributes["completeListSize"] = str(size)
    _add(answer, "resumptionToken", token, **attributes)


VERBS = {
    "Identify": identify,
    "ListMetadataFormats": list_metadata_formats,
    "ListSets": list_sets,
    "GetRecord": get_record,
    "ListIdentifiers": list_identifiers,
    "ListRecords": list_records,
}

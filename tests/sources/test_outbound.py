"""A lookup's requests are bounded, whatever the server does: one deadline
for the whole lookup (a server dripping its answer a byte at a time, headers
or body, is cut off at it), a maximum answer read while streaming (a huge
answer, a gzip bomb), redirects only within the service's own address (not
to another port of the machine, not to the site), identifiers that cannot
lead elsewhere in the service's paths, and every answer that cannot be read
(JSON nested past any parser's depth) a message for the editor."""

import pytest

from sources.metadata import LookupFailed, look_up
from tests.fake_server import FakeServer


@pytest.fixture
def other_service():
    """Something else listening on the machine: it must never be asked."""
    server = FakeServer()
    yield server
    server.close()


def failure(pasted):
    with pytest.raises(LookupFailed) as failed:
        look_up(pasted)
    return failed.value.code, failed.value.message


@pytest.mark.parametrize(
    "doi", ["10.5555/drip", "10.5555/drip-headers"], ids=["body", "headers"]
)
def test_a_server_dripping_its_answer_is_cut_off_at_the_lookups_deadline(
    metadata_sources, doi
):
    assert failure(doi) == (
        "timeout",
        "Crossref did not answer within 1.5 seconds; try again later, or fill in "
        "the form by hand.",
    )


@pytest.mark.parametrize("doi", ["10.5555/huge", "10.5555/gzip-bomb"])
def test_an_answer_larger_than_the_limit_is_not_read(metadata_sources, settings, doi):
    settings.METADATA_MAX_BYTES = 1024 * 1024

    assert failure(doi) == (
        "too_large",
        "Crossref's answer is larger than 1,048,576 bytes; it was not read. Fill "
        "in the form by hand.",
    )


REFUSED_REDIRECT = (
    "redirect",
    "Crossref sent us to another address than its own; nothing was asked of it, "
    "and nothing was filled in.",
)


def test_a_redirect_to_another_port_is_refused_without_asking_it(
    metadata_sources, other_service
):
    port = other_service.url.rsplit(":", 1)[1]

    assert failure(f"10.5555/redirect-to-{port}") == REFUSED_REDIRECT
    assert other_service.received == []


def test_a_redirect_to_the_site_is_refused_alike(metadata_sources):
    assert failure("10.5555/redirect-to-site") == REFUSED_REDIRECT


def test_a_redirect_within_the_service_is_followed(metadata_sources, settings):
    settings.METADATA_CROSSREF_URL = f"{metadata_sources.url}/moved/crossref"
    metadata_sources.requests.clear()

    work = look_up("10.1109/TAC.2003.812781")

    assert work.source_identifier == "DOI:10.1109/TAC.2003.812781"
    assert [path for path, _ in metadata_sources.requests] == [
        "/moved/crossref/works/10.1109/TAC.2003.812781",
        "/crossref/works/10.1109/TAC.2003.812781",
    ]


@pytest.mark.parametrize(
    "pasted",
    [
        "10.1234/../../../admin?x=",
        "DOI:10.1234/./works",
        "https://doi.org/10.1234/a/../../b",
    ],
)
def test_a_doi_leading_elsewhere_in_the_path_is_refused_unasked(
    metadata_sources, pasted
):
    metadata_sources.requests.clear()

    code, message = failure(pasted)

    assert code == "not_an_identifier"
    assert "is not an arXiv id" in message
    assert metadata_sources.requests == []


def test_question_marks_and_hashes_in_a_doi_stay_in_its_path(metadata_sources):
    metadata_sources.requests.clear()

    code, message = failure("10.5555/a?mailto=x#y")

    assert (code, message) == (
        "not_found",
        "Crossref knows no DOI 10.5555/a?mailto=x#y.",
    )
    assert [path for path, _ in metadata_sources.requests] == [
        "/crossref/works/10.5555/a%3Fmailto%3Dx%23y"
    ]


def test_json_nested_past_the_parsers_depth_is_a_message(metadata_sources):
    code, message = failure("10.5555/nested")

    assert code == "malformed"
    assert message.startswith(
        "Crossref's answer for DOI 10.5555/nested could not be read (malformed "
        "JSON: RecursionError"
    )

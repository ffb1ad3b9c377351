"""Metadata by identifier, from the fake arXiv and Crossref: what each answer
fills in, and the editor's message for each way an answer fails."""

import pytest

from sources.metadata import LookupFailed, look_up, recorded_identifier

CHEN = [
    {"family": "Chen", "given": "Tianqi"},
    {"family": "Xu", "given": "Bing"},
    {"family": "Zhang", "given": "Chiyuan"},
    {"family": "Guestrin", "given": "Carlos"},
]


@pytest.mark.parametrize(
    "pasted",
    [
        "1604.06174",
        "arXiv:1604.06174",
        "https://arxiv.org/abs/1604.06174v2",
        "arxiv.org/pdf/1604.06174.pdf",
        "ARXIV-1604.06174",
    ],
)
def test_an_arxiv_id_in_any_spelling_gives_the_preprint(metadata_sources, pasted):
    work = look_up(pasted)

    assert work.form_fields() == {
        "title": "Training Deep Nets with Sublinear Memory Cost",
        "authors": "Chen et al.",
        "year": 2016,
        "source_identifier": "ARXIV-1604.06174",
        "author_list": CHEN,
        "venue": "",
        "publication_type": "preprint",
        "publication_date": "2016-04-21",
        "doi": "",
    }


def test_an_arxiv_preprint_keeps_its_journal_reference_and_doi(metadata_sources):
    work = look_up("2105.05720")

    assert (work.venue, work.doi, work.authors) == (
        "ASPLOS 2022",
        "10.1145/3503222.3507778",
        "Jangda et al.",
    )
    assert len(work.author_list) == 9
    assert work.author_list[0] == {"family": "Jangda", "given": "Abhinav"}


@pytest.mark.parametrize(
    "pasted",
    [
        "10.1109/TAC.2003.812781",
        "DOI:10.1109/TAC.2003.812781",
        "https://doi.org/10.1109/TAC.2003.812781",
    ],
)
def test_a_doi_gives_the_journal_article(metadata_sources, pasted):
    work = look_up(pasted)

    assert work.form_fields() == {
        "title": "Coordination of groups of mobile autonomous agents using nearest "
        "neighbor rules",
        "authors": "Jadbabaie et al.",
        "year": 2003,
        "source_identifier": "DOI:10.1109/TAC.2003.812781",
        "author_list": [
            {"family": "Jadbabaie", "given": "A."},
            {"family": "Lin", "given": "Jie"},
            {"family": "Morse", "given": "A.S."},
        ],
        "venue": "IEEE Transactions on Automatic Control",
        "publication_type": "journal_article",
        "publication_date": "2003-06",
        "doi": "10.1109/tac.2003.812781",
    }


def test_a_conference_paper_keeps_an_organisation_whole(metadata_sources):
    work = look_up("10.5555/osdi.2020.byteps")

    assert work.publication_type == "conference_paper"
    assert work.author_list[2] == {"literal": "ByteDance Inc., AI Lab"}
    assert work.venue.endswith("(OSDI ‘20)")


def test_requests_name_us_and_where_to_write(metadata_sources):
    metadata_sources.requests.clear()

    look_up("10.1109/TAC.2003.812781")

    ((path, agent),) = metadata_sources.requests
    assert path == "/crossref/works/10.1109/TAC.2003.812781"
    assert agent == "anthology/1.0 (metadata lookup; mailto:editors@example.org)"


def test_a_work_found_once_is_not_asked_for_again(metadata_sources):
    metadata_sources.requests.clear()

    first = look_up("1604.06174")
    again = look_up("arXiv:1604.06174v2")

    assert again == first
    assert len(metadata_sources.requests) == 1


@pytest.mark.parametrize(
    ("pasted", "code", "message"),
    [
        ("9999.99999", "not_found", "arXiv knows no paper 9999.99999."),
        ("cond-mat/0000000", "not_found", "arXiv knows no paper cond-mat/0000000."),
        ("1111.11111", "malformed", "arXiv's answer for 1111.11111 could not be read"),
        (
            "2222.22222",
            "other_work",
            "arXiv answered for 2222.22222 with another paper, 1604.06174v2",
        ),
        ("3333.33333", "timeout", "arXiv did not answer within 1.5 seconds"),
        ("4444.44444", "rate_limited", "try again in 30 seconds"),
        ("5555.55555", "service_error", "arXiv answered 503 for paper 5555.55555"),
        ("10.5555/missing", "not_found", "Crossref knows no DOI 10.5555/missing."),
        ("10.5555/malformed", "malformed", "(malformed JSON: JSONDecodeError"),
        ("10.5555/no-title", "malformed", "has no title or no date"),
        (
            "10.5555/other",
            "other_work",
            "with another work, 10.1109/tac.1986.1104412: nothing was filled in",
        ),
        ("10.5555/limited", "rate_limited", "Crossref is limiting our requests"),
        ("10.5555/slow", "timeout", "Crossref did not answer within 1.5 seconds"),
        ("Chen et al. 2016", "not_an_identifier", "is not an arXiv id"),
    ],
)
def test_each_bad_answer_tells_the_editor_what_went_wrong(
    metadata_sources, pasted, code, message
):
    with pytest.raises(LookupFailed) as failed:
        look_up(pasted)

    assert failed.value.code == code
    assert message in failed.value.message


def test_a_failed_lookup_is_not_remembered(metadata_sources):
    with pytest.raises(LookupFailed):
        look_up("4444.44444")
    metadata_sources.requests.clear()

    with pytest.raises(LookupFailed):
        look_up("4444.44444")

    assert len(metadata_sources.requests) == 1


def test_without_a_network_the_lookup_says_so(offline_sources):
    with pytest.raises(LookupFailed) as failed:
        look_up("1604.06174")

    assert failed.value.code == "unreachable"
    assert "arXiv could not be reached" in failed.value.message


@pytest.mark.parametrize(
    ("pasted", "recorded"),
    [
        ("cs/0112017", "ARXIV-cs/0112017"),
        ("https://dx.doi.org/10.1145/3503222.3507778", "DOI:10.1145/3503222.3507778"),
        ("doi: 10.1145/3503222.3507778", "DOI:10.1145/3503222.3507778"),
    ],
)
def test_pasted_identifiers_take_the_records_spelling(pasted, recorded):
    assert recorded_identifier(pasted) == recorded

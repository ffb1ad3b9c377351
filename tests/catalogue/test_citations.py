import pytest
from django.core.exceptions import ValidationError
from hypothesis import given, reject
from hypothesis import strategies as st

from catalogue.citations import (
    Citation,
    author_lines,
    derived_authors,
    identifier_url,
    join_summary,
    parse_author_lines,
    split_summary,
)

# Every citation form DOMAIN.md lists, with the fields it must parse into.
FORMS = [
    (
        "Chen et al. (2016), ARXIV-1604.06174. Gradient checkpointing: ...",
        Citation("Chen et al.", 2016, "ARXIV-1604.06174", ""),
        "Gradient checkpointing: ...",
    ),
    (
        "Jadbabaie, Lin and Morse (2003), DOI:10.1109/TAC.2003.812781. ...",
        Citation("Jadbabaie, Lin and Morse", 2003, "DOI:10.1109/TAC.2003.812781", ""),
        "...",
    ),
    (
        "Jiang et al. (2020), OSDI ‘20. BytePS: ...",
        Citation("Jiang et al.", 2020, "", "OSDI ‘20"),
        "BytePS: ...",
    ),
    (
        "CoreWeave (2025). Fits a ...",
        Citation("CoreWeave", 2025, "", ""),
        "Fits a ...",
    ),
    (
        "Jangda et al. (2021), ARXIV-2105.05720 — CoCoNet (ASPLOS 2022). A DSL ...",
        Citation("Jangda et al.", 2021, "ARXIV-2105.05720", "— CoCoNet (ASPLOS 2022)"),
        "A DSL ...",
    ),
    (
        "Afroz et al. (2025), ARXIV-2511.14124 (SoCC ‘25). A tensor ...",
        Citation("Afroz et al.", 2025, "ARXIV-2511.14124", "(SoCC ‘25)"),
        "A tensor ...",
    ),
    (
        "Zheng et al., Tsinghua and NVIDIA (2025), ARXIV-2510.08431. sCM made ...",
        Citation("Zheng et al., Tsinghua and NVIDIA", 2025, "ARXIV-2510.08431", ""),
        "sCM made ...",
    ),
]


@pytest.mark.parametrize(("summary", "citation", "text"), FORMS)
def test_each_citation_form_parses_into_fields(summary, citation, text):
    assert split_summary(summary) == (citation, text)


@pytest.mark.parametrize(("summary", "citation", "text"), FORMS)
def test_each_citation_form_renders_back_to_its_text(summary, citation, text):
    assert join_summary(citation, text) == summary


def test_every_seed_summary_round_trips(seed_rows):
    assert len(seed_rows) == 67
    for _, _, summary, _ in seed_rows:
        citation, text = split_summary(summary)
        assert join_summary(citation, text) == summary
        assert text and not text.startswith(" ")


def test_a_citation_without_text_ends_with_its_full_stop():
    citation = Citation("Stich", 2018, "ARXIV-1805.09767")
    assert join_summary(citation, "") == "Stich (2018), ARXIV-1805.09767."
    assert split_summary("Stich (2018), ARXIV-1805.09767.") == (citation, "")


@pytest.mark.parametrize(
    "summary",
    [
        "Chen et al. 2016, ARXIV-1604.06174. No parentheses.",
        "Chen et al. (16), ARXIV-1604.06174. Two-digit year.",
        "Chen et al. (2016) ARXIV-1604.06174. No comma.",
        "Chen et al. (2016), ARXIV-1604.06174 and no full stop",
        "(2016). No authors.",
        "Chen et al. (0999). A year below 1000 cannot be printed back.",
    ],
)
def test_a_summary_without_a_citation_is_refused(summary):
    with pytest.raises(ValueError, match=r"citation|year"):
        split_summary(summary)


@pytest.mark.parametrize(
    ("identifier", "url"),
    [
        ("ARXIV-1604.06174", "https://arxiv.org/abs/1604.06174"),
        ("DOI:10.1109/TAC.2003.812781", "https://doi.org/10.1109/TAC.2003.812781"),
        ("", ""),
        ("OSDI ‘20", ""),
    ],
)
def test_identifiers_link_to_their_source(identifier, url):
    assert identifier_url(identifier) == url


@pytest.mark.parametrize(
    ("citation", "field", "code"),
    [
        (Citation("", 2020), "authors", "authors_blank"),
        (Citation("Foo (2019) and Bar", 2020), "authors", "authors_year"),
        (Citation("Foo", 999), "year", "year_digits"),
        (Citation("Foo", 2020, "arXiv:1604.06174"), "identifier", "identifier_form"),
        (Citation("Foo", 2020, "", "NeurIPS. Oral"), "note", "note_full_stop"),
        (Citation("Foo", 2020, "", "ARXIV-1604.06174"), "note", "note_identifier"),
    ],
)
def test_fields_that_would_not_parse_back_are_refused(citation, field, code):
    with pytest.raises(ValidationError) as raised:
        citation.validate()
    assert [error.code for error in raised.value.error_dict[field]] == [code]


# Text as editors type it, typographic characters included.
words = st.text(
    alphabet=st.characters(
        whitelist_categories=["L", "N"], whitelist_characters="‘’“”—×≈-,&'"
    ),
    min_size=1,
    max_size=12,
)
phrases = st.lists(words, min_size=1, max_size=4).map(" ".join)
identifiers = st.one_of(
    st.just(""),
    st.from_regex(r"ARXIV-[0-9]{4}\.[0-9]{4,5}", fullmatch=True),
    st.from_regex(r"DOI:10\.[0-9]{4}/[A-Z]{2,4}\.[0-9]{4}\.[0-9]{3,7}", fullmatch=True),
)


@st.composite
def citations(draw):
    citation = Citation(
        authors=draw(phrases),
        year=draw(st.integers(1000, 9999)),
        identifier=draw(identifiers),
        note=draw(st.one_of(st.just(""), phrases)),
    )
    try:
        citation.validate()
    except ValidationError:
        reject()
    return citation


@given(citations(), st.one_of(st.just(""), phrases))
def test_any_valid_citation_round_trips_through_its_text(citation, text):
    assert split_summary(join_summary(citation, text)) == (citation, text)


# The full author list, as editors write it.

ORGANISATION = {"literal": "Wan Team, Alibaba"}


@pytest.mark.parametrize(
    ("lines", "authors"),
    [
        (
            "Chen, Tianqi\nXu, Bing",
            [{"family": "Chen", "given": "Tianqi"}, {"family": "Xu", "given": "Bing"}],
        ),
        ("  {Wan Team, Alibaba}  \n\n", [ORGANISATION]),
        ("Plato", [{"family": "Plato"}]),
        (
            "de la Fuente, José María",
            [{"family": "de la Fuente", "given": "José María"}],
        ),
    ],
)
def test_author_lines_read_persons_and_organisations(lines, authors):
    assert parse_author_lines(lines) == authors
    assert parse_author_lines(author_lines(authors)) == authors


@pytest.mark.parametrize(
    "line", ["Chen, Tianqi, Jr", "Chen,", "{Wan Team", "{ }", "Chen {x}"]
)
def test_an_author_line_that_is_neither_is_refused_with_its_line(line):
    with pytest.raises(ValidationError) as refused:
        parse_author_lines(f"Xu, Bing\n{line}")

    assert refused.value.messages[0].startswith(f"Line 2 (‘{line}’):")


@pytest.mark.parametrize(
    ("families", "authors"),
    [
        (["Chen"], "Chen"),
        (["Chen", "Xu"], "Chen and Xu"),
        (["Chen", "Xu", "Zhang"], "Chen et al."),
    ],
)
def test_the_citations_authors_derive_from_the_list(families, authors):
    assert derived_authors([{"family": name} for name in families]) == authors


def test_an_organisation_is_cited_by_its_whole_name():
    assert derived_authors([ORGANISATION]) == "Wan Team, Alibaba"

"""Names as the record compares and sorts them, and ORCID iDs."""

import pytest
from django.core.exceptions import ValidationError

from catalogue.names import (
    are_variants,
    display_name,
    fold,
    index_letter,
    name_key,
    sort_name,
)
from catalogue.orcid import check_character, normalise_orcid, validate_orcid


@pytest.mark.parametrize(
    "orcid",
    [
        # ORCID's own examples: Josiah Carberry, and an iD whose check is X.
        "0000-0002-1825-0097",
        "0000-0002-1694-233X",
        "0000-0001-5109-3700",
    ],
)
def test_a_valid_orcid_passes(orcid):
    validate_orcid(orcid)


@pytest.mark.parametrize(
    ("orcid", "expected"),
    [("0000-0002-1825-0098", "7"), ("0000-0002-1694-2330", "X")],
)
def test_a_wrong_check_character_is_named(orcid, expected):
    with pytest.raises(ValidationError, match=f"should be {expected}, not {orcid[-1]}"):
        validate_orcid(orcid)


@pytest.mark.parametrize(
    "value", ["0000-0002-1825", "0000-0002-1825-009x", "0000 0002 1825 0097", ""]
)
def test_a_value_not_shaped_as_an_orcid_is_refused(value):
    with pytest.raises(ValidationError, match="four groups of four digits"):
        validate_orcid(value)


def test_the_check_character_follows_iso_7064_mod_11_2():
    # Worked by hand: the digits 000000021825009 give a total of 1314,
    # remainder 5 by 11, and (12 - 5) % 11 = 7.
    assert check_character("000000021825009") == "7"
    assert check_character("000000021694233") == "X"


@pytest.mark.parametrize(
    "value",
    [
        "https://orcid.org/0000-0002-1694-233x",
        "http://orcid.org/0000-0002-1694-233X/",
        "0000000216942 33X".replace(" ", ""),
        " 0000-0002-1694-233X ",
    ],
)
def test_an_orcid_as_readers_paste_it_is_stored_bare(value):
    assert normalise_orcid(value) == "0000-0002-1694-233X"


def test_names_fold_case_accents_and_punctuation():
    assert fold("Łukasz  Kaiser") == "lukasz kaiser"
    assert fold("Gürbüzbalaban") == "gurbuzbalaban"
    assert fold("O’Brien") == "o brien"
    assert name_key({"family": "Liu", "given": "Yang"}) == name_key(
        {"family": "LIU", "given": "Yáng"}
    )
    assert name_key({"literal": "Wan Team, Alibaba"}) == "org|wan team alibaba"


@pytest.mark.parametrize(
    ("one", "other", "expected"),
    [
        ({"family": "Liu", "given": "Y."}, {"family": "Liu", "given": "Yang"}, True),
        ({"family": "Liu"}, {"family": "Liu", "given": "Yang"}, True),
        ({"family": "Liu", "given": "Yi"}, {"family": "Liu", "given": "Yang"}, False),
        ({"family": "Liu", "given": "Y. Z."}, {"family": "Liu", "given": "Yang"}, True),
        ({"family": "Lu", "given": "Yang"}, {"family": "Liu", "given": "Yang"}, False),
        ({"literal": "CoreWeave"}, {"family": "CoreWeave"}, True),
        ({"literal": "CoreWeave"}, {"family": "Coreweave", "given": "A."}, False),
    ],
)
def test_variants_agree_as_far_as_both_names_go(one, other, expected):
    assert are_variants(one, other) is expected
    assert are_variants(other, one) is expected


@pytest.mark.parametrize(
    ("name", "shown", "sorted_as", "letter"),
    [
        (
            {"family": "van der Maaten", "given": "Laurens"},
            "Laurens van der Maaten",
            "Maaten, Laurens van der",
            "M",
        ),
        # A capitalised particle is part of the family name, as Zotero reads it.
        (
            {"family": "Del Balso", "given": "Mike"},
            "Mike Del Balso",
            "Del Balso, Mike",
            "D",
        ),
        ({"family": "Rajbhandari"}, "Rajbhandari", "Rajbhandari", "R"),
        (
            {"literal": "Wan Team, Alibaba"},
            "Wan Team, Alibaba",
            "Wan Team, Alibaba",
            "W",
        ),
        ({"family": "Ünal", "given": "Ayşe"}, "Ayşe Ünal", "Ünal, Ayşe", "U"),
        ({"literal": "3M Research"}, "3M Research", "3M Research", "#"),
    ],
)
def test_names_show_and_sort_as_zotero_and_csl_read_them(
    name, shown, sorted_as, letter
):
    assert display_name(name) == shown
    assert sort_name(name) == sorted_as
    assert index_letter(sort_name(name)) == letter

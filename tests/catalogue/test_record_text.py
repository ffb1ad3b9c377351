"""The one rule of what text the record may hold (``catalogue.text``): no
control character but tab, line feed and carriage return, no noncharacter,
no lone surrogate; everything else is text, kept byte for byte. And every
form of the project applies it to every field."""

import importlib
import inspect
from pathlib import Path
from xml.etree import ElementTree

import pytest
from django import forms
from django.core.exceptions import ValidationError
from hypothesis import given
from hypothesis import strategies as st

from catalogue.text import (
    RecordTextForm,
    cleaned,
    describe,
    unsafe_character,
    validate_record_text,
    xml_safe,
)

ROOT = Path(__file__).resolve().parents[2]

REFUSED = [
    ("\x00", "a NUL character (U+0000)"),
    ("\x01", "a control character (U+0001)"),
    ("\x08", "a control character (U+0008)"),
    ("\x0b", "a control character (U+000B)"),
    ("\x0c", "a control character (U+000C)"),
    ("\x0e", "a control character (U+000E)"),
    ("\x1b", "a control character (U+001B)"),
    ("\x1f", "a control character (U+001F)"),
    ("\x7f", "a control character (U+007F)"),
    ("\x85", "a control character (U+0085)"),
    ("\x9f", "a control character (U+009F)"),
    ("\ufdd0", "a noncharacter (U+FDD0)"),
    ("\ufdef", "a noncharacter (U+FDEF)"),
    ("\ufffe", "a noncharacter (U+FFFE)"),
    ("\uffff", "a noncharacter (U+FFFF)"),
    ("\U0001fffe", "a noncharacter (U+1FFFE)"),
    ("\U0010ffff", "a noncharacter (U+10FFFF)"),
    ("\ud800", "a lone surrogate (U+D800)"),
    ("\udfff", "a lone surrogate (U+DFFF)"),
]

# Text as the record's pages and its readers write it: the seed's
# typographic characters, symbols, emoji (a ZWJ sequence, a flag, a skin
# tone), combining marks, right-to-left text and its marks, the characters
# around the refused ones.
KEPT = [
    "Jiang et al. (2020), OSDI ‘20. “BytePS” — 2 × faster, ≈ 8 GB…",
    "tab\there, lines\nand\r\nends",
    "Ünïcödé café, ﬁ ligature, Å (A\u030a), ṩ (s\u0323\u0307), 한국어",
    "emoji 😀 👩‍🔬 🇫🇷 👍🏽, astral 𝔸𝕓 𓂀",
    "عربي \u200f(RTL)\u200e, עברית, זר\u200d, soft\u00adhyphen, nbsp\u00a0",
    "\ufffd U+FFFD itself, \ufdcf and \ufdf0 beside the noncharacters, \ufffd",
    "\U0001fffd and \U0010fffd, the last characters of their planes",
    " ~ \xa0 ¡ \u0100 \ud7ff \ue000 \U00010000",
]


@pytest.mark.parametrize(
    ("character", "named"), REFUSED, ids=[named for _, named in REFUSED]
)
def test_each_character_xml_cannot_carry_is_refused_and_named(character, named):
    with pytest.raises(ValidationError) as refused:
        validate_record_text(f"Training{character} deep nets")

    assert refused.value.messages == [
        f"holds {named}, which no text of the record may hold; remove it"
    ]
    assert describe(character) == named
    assert refused.value.code == ("nul" if character == "\x00" else "unsafe_character")


@pytest.mark.parametrize("text", KEPT)
def test_text_is_kept_byte_for_byte(text):
    validate_record_text(text)

    assert unsafe_character(text) == ""
    assert xml_safe(text) == cleaned(text) == text
    assert xml_safe(text).encode() == text.encode()


def test_json_is_read_through_its_keys_and_strings():
    assert unsafe_character({"deciders": ["Ann", "Bo\x0b"]}) == "\x0b"
    assert unsafe_character({"a\ufffe": 1}) == "\ufffe"
    assert unsafe_character([{"family": "Chen", "given": "Tianqi"}, 2016, None]) == ""
    assert cleaned([{"family": "Li\x1b"}, 7]) == [{"family": "Li"}, 7]


def parses(text):
    """``text`` as the text of an XML element, read back by a strict parser."""
    element = ElementTree.Element("t")
    element.text = text
    element.set("a", text)
    parsed = ElementTree.fromstring(ElementTree.tostring(element, encoding="utf-8"))
    return parsed.text or "", parsed.get("a")


ANY_TEXT = st.text(
    alphabet=st.one_of(
        st.characters(), st.sampled_from([character for character, _ in REFUSED])
    ),
    max_size=60,
)


@given(text=ANY_TEXT)
def test_any_text_is_refused_exactly_when_xml_safe_would_change_it(text):
    # Surrogates cannot be encoded as UTF-8; xml_safe is what makes them so.
    safe = xml_safe(text)
    text_read, attribute_read = parses(safe)

    assert attribute_read == safe
    assert text_read == safe.replace("\r", "\n") or "\r" in safe
    assert (unsafe_character(text) == "") == (safe == text)
    if safe == text:
        validate_record_text(text)
    else:
        with pytest.raises(ValidationError):
            validate_record_text(text)


# The project's forms that take no text of the record, and why.
NOT_RECORD_TEXT = {
    # The user name and password an editor signs in with.
    "editorial.site.EditorialLoginForm",
    # Files: each of their cells or lines is checked by the import.
    "editorial.admin.csv_import.CSVImportForm",
    "editorial.admin.page_import.TopicPageForm",
    # Django's admin reads an invalid action form as "no action selected":
    # the tag it carries is refused by the bulk action that reads it.
    "editorial.admin.forms.DocumentActionForm",
}


def project_forms():
    """Every form class defined in the project's modules."""
    found = {}
    for path in sorted(ROOT.glob("*/**/*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[0] in {"tests", "bench", "docs", ".venv"} or "migrations" in parts:
            continue
        if not (ROOT / parts[0] / "apps.py").exists() and parts[0] != "anthology":
            continue
        module = importlib.import_module(".".join(parts))
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, forms.BaseForm)
                and value.__module__ == module.__name__
            ):
                found[f"{module.__name__}.{name}"] = value
    return found


def test_every_form_of_the_project_refuses_what_no_text_of_the_record_may_hold():
    found = project_forms()
    unchecked = [
        name
        for name, form in found.items()
        if not issubclass(form, RecordTextForm) and name not in NOT_RECORD_TEXT
    ]

    assert "corrections.forms.DocumentCorrectionForm" in found
    assert "editorial.admin.forms.WithdrawalForm" in found
    assert unchecked == []
    assert set(found) >= NOT_RECORD_TEXT

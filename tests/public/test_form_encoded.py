"""COinS titles are form-encoded as ``urllib.parse.urlencode`` writes them:
every character of every value, whatever its script."""

from urllib.parse import urlencode

from hypothesis import given
from hypothesis import strategies as st

from public.structured import form_encoded

# Text as a document's fields hold it: any character but a lone surrogate,
# which UTF-8 cannot write (nor can urlencode).
TEXT = st.text(st.characters(exclude_categories=["Cs"]))


@given(st.lists(st.tuples(TEXT, TEXT)))
def test_fields_are_encoded_as_urlencode_encodes_them(fields):
    assert form_encoded(fields) == urlencode(fields)


def test_typographic_text_and_reserved_characters():
    fields = [
        ("rft.atitle", "ZeRO: “memory” — 100% & more/less ~ a_b.c-d"),
        ("rft.au", "Müller, Zoë"),
        ("rft.jtitle", "𝔸 ☃ 中文 + space"),
    ]
    assert form_encoded(fields) == urlencode(fields)

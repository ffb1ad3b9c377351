"""Tags as editors type them: one tag a comma-separated entry, written back so
that they read the same again."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from taggit.utils import edit_string_for_tags
from taggit.utils import parse_tags as taggit_parse

from catalogue.tags import parse_tags, render_tags
from editorial.admin.forms import TagName


@pytest.mark.parametrize(
    ("typed", "names"),
    [
        ("sequence parallelism", ["sequence parallelism"]),
        ("sequence  parallelism", ["sequence  parallelism"]),
        ("memory, sequence parallelism", ["memory", "sequence parallelism"]),
        ("  memory ,checkpointing,, ", ["memory", "checkpointing"]),
        ('"pipeline parallelism"', ["pipeline parallelism"]),
        ('"Smith, Jones", memory', ["Smith, Jones", "memory"]),
        ('say "hi", memory', ['say "hi"', "memory"]),
        ('"""quoted"" words"', ['"quoted" words']),
        ('"open, memory', ['"open', "memory"]),
        ('"a" b, c', ['"a" b', "c"]),
        ("Memory, memory, MEMORY", ["Memory"]),
        ("Zhang’s “rule” — 4×, ≈ loss", ["Zhang’s “rule” — 4×", "≈ loss"]),
        ("", []),
        (None, []),
    ],
)
def test_each_comma_separated_entry_is_one_tag(typed, names):
    assert parse_tags(typed) == names


def test_names_are_written_without_quotes_unless_a_comma_or_a_quote_asks():
    assert render_tags(["pipeline parallelism", "memory"]) == (
        "pipeline parallelism, memory"
    )
    assert render_tags(["Smith, Jones", '"quoted" words', 'say "hi"']) == (
        '"Smith, Jones", """quoted"" words", say "hi"'
    )


def test_taggit_reads_and_writes_the_field_with_them():
    assert taggit_parse("sequence parallelism, memory") == [
        "memory",
        "sequence parallelism",
    ]
    assert edit_string_for_tags([TagName("pipeline parallelism")]) == (
        "pipeline parallelism"
    )


# Names as the record holds them: no spaces around them, none empty, none
# the same as another but for case; anything else, quotes, commas and
# typographic characters included.
names = st.lists(
    st.text(
        alphabet=st.one_of(
            st.sampled_from(" ,\"'“”‘’—–×≈…\u00a0"), st.characters(codec="utf-8")
        ),
        min_size=1,
        max_size=30,
    )
    .map(str.strip)
    .filter(bool),
    max_size=8,
    unique_by=str.lower,
)


@given(names)
def test_what_is_written_reads_back_as_the_same_names(tags):
    assert parse_tags(render_tags(tags)) == tags

"""Where a comparison of versions stops: spacing is a change like any other,
and a changed run is compared word by word up to 250,000 token pairs."""

import copy

import pytest
from bs4 import BeautifulSoup

from actions.batch import DocumentWrite, DocumentWriter
from catalogue.models import Document
from public.diffs import Change, render_word_diff, word_diff
from tests.factories import DocumentFactory, RegistryFactory, TopicFactory


@pytest.mark.parametrize(
    ("old", "new", "changes"),
    [
        (
            "a b",
            "a  b",
            [("equal", "a"), ("delete", " "), ("insert", "  "), ("equal", "b")],
        ),
        (
            "One. Two.",
            "One.\n\nTwo.",
            [("equal", "One."), ("delete", " "), ("insert", "\n\n"), ("equal", "Two.")],
        ),
        ("a b", "a b ", [("equal", "a b"), ("insert", " ")]),
    ],
)
def test_a_change_of_spacing_alone_is_a_change(old, new, changes):
    # Joining the runs gives each text back, spacing included, so a change of
    # spacing is shown deleted and inserted, never as equal text.
    assert [(c.kind, c.text) for c in word_diff(old, new)] == changes


def test_a_change_of_spacing_alone_is_marked_as_it_is():
    html = str(render_word_diff("One. Two.", "One.\n\nTwo."))

    assert html == 'One.<del class="diff"> </del><ins class="diff">\n\n</ins>Two.'


def test_the_spaces_around_a_changed_word_stay_outside_its_mark():
    html = str(render_word_diff("the rule", "the rule — revised"))

    assert html == 'the rule <ins class="diff">— revised</ins>'


@pytest.mark.parametrize("text", ["", "a  b\n", "One. Two."])
def test_a_text_compared_with_itself_is_one_equal_run(text):
    assert word_diff(text, text) == ([Change("equal", text)] if text else [])


def test_a_changed_word_is_its_deletion_then_its_insertion():
    assert word_diff("x a y", "x b y") == [
        Change("equal", "x "),
        Change("delete", "a"),
        Change("insert", "b"),
        Change("equal", " y"),
    ]


def test_neighbouring_runs_of_one_kind_are_one_run():
    # The sentence "c." is matched whole, the space before it word by word.
    assert word_diff("a x. c. z", "a y. c. w") == [
        Change("equal", "a "),
        Change("delete", "x."),
        Change("insert", "y."),
        Change("equal", " c. "),
        Change("delete", "z"),
        Change("insert", "w"),
    ]


def test_a_change_between_repeated_sentences_is_shown_where_it_is():
    # "X." and "Y." are held once by each text and anchor the comparison;
    # "A." is held twice, so the run between them is compared as a whole.
    old, new = "P1. X. A. B. A. Y. Z1.", "P2. X. A. C. A. Y. Z2."

    assert word_diff(old, new) == [
        Change("delete", "P1."),
        Change("insert", "P2."),
        Change("equal", " X. A. "),
        Change("delete", "B."),
        Change("insert", "C."),
        Change("equal", " A. Y. "),
        Change("delete", "Z1."),
        Change("insert", "Z2."),
    ]


def words(first, last):
    return " ".join(f"w{n}" for n in range(first, last))


# One sentence of 200 words and 200 spaces (400 tokens), its first word
# changed from the texts below, so no start or end is in common.
NEW = f"v0 {words(1, 200)} "


def test_a_changed_run_of_250_000_pairs_is_compared_word_by_word(weighed):
    old = words(0, 313)  # 313 words and 312 spaces: 625 x 400 tokens.

    changes = word_diff(old, NEW)

    assert changes == [
        Change("delete", "w0"),
        Change("insert", "v0"),
        Change("equal", f" {words(1, 200)} "),
        Change("delete", words(200, 313)),
    ]
    assert max(weighed) == 250_000


def test_a_changed_run_of_more_pairs_is_shown_replaced_whole(weighed):
    old = words(0, 314)  # 627 x 400 tokens: 250,800 pairs.

    changes = word_diff(old, NEW)

    assert changes == [Change("delete", old), Change("insert", NEW)]
    assert max(weighed, default=0) <= 250_000


@pytest.mark.django_db
def test_a_version_whose_summary_was_rewrapped_shows_the_summary_changed(client):
    # An import brings version 2 of LIT-004 with its paragraphs broken apart.
    writer = DocumentWriter(note="Imported.", via="import_index reading-list.txt")
    writer.create(
        [
            DocumentWrite(
                DocumentFactory.build(
                    registry=RegistryFactory(),
                    topic=TopicFactory(),
                    number=4,
                    title="Sublinear memory",
                    summary="Checkpoints trade compute. Memory falls.",
                    status=Document.Status.ACTIVE,
                )
            )
        ]
    )
    document = Document.objects.get()
    before = copy.copy(document)
    document.summary, document.version = (
        "Checkpoints trade compute.\n\nMemory falls.",
        2,
    )
    writer.update([DocumentWrite(document, before=before)])

    page = client.get("/LIT-004/v2/").content.decode()

    soup = BeautifulSoup(page, "html.parser")
    changed = [h.get_text() for h in soup.select(".version-comparison h3")]
    collapsed = [s.get_text() for s in soup.select(".version-comparison summary")]
    assert changed == ["Summary"]
    assert collapsed == ["Title (unchanged)", "Citation (unchanged)"]
    assert (
        '<p class="diff-text">Checkpoints trade compute.<del class="diff"> </del>'
        '<ins class="diff">\n\n</ins>Memory falls.</p>'
    ) in page


def test_a_long_unchanged_run_between_two_changes_stays_equal(weighed):
    # 600 repeated sentences are no anchors; the 360,000 pairs between "X."
    # and "Y." are past the budget, yet both sides are the same.
    repeated = "A. " * 600
    old, new = f"P. X. {repeated}Y. Q.", f"R. X. {repeated}Y. S."

    assert word_diff(old, new) == [
        Change("delete", "P."),
        Change("insert", "R."),
        Change("equal", f" X. {repeated}Y. "),
        Change("delete", "Q."),
        Change("insert", "S."),
    ]
    assert max(weighed) <= 250_000

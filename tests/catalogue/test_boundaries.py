"""Where identifiers and numbers stop: each limit pinned on both of its sides."""

import pytest
from django.core.exceptions import ValidationError

from catalogue.identifiers import Identifier
from catalogue.models import Registry
from catalogue.numbering import check_unissued, issue_number, mark_issued
from tests.factories import DocumentFactory, RegistryFactory

# The highest number a registry can hold: the integer column's, 2**31 - 1.
LAST_NUMBER = 2_147_483_647


class TestPermanentForm:
    """``LIT-004``: the number printed with at least three digits."""

    @pytest.mark.parametrize(
        ("number", "printed"),
        [(4, "LIT-004"), (999, "LIT-999"), (1000, "LIT-1000"), (12345, "LIT-12345")],
    )
    def test_a_number_is_printed_with_three_digits_or_as_many_as_it_has(
        self, number, printed
    ):
        assert Identifier("LIT", number) == printed

    def test_the_label_shows_the_version_from_v2_on(self):
        identifier = Identifier("LIT", 4)

        assert (identifier.label(1), identifier.label(2)) == ("LIT-004", "LIT-004 v2")


class TestParse:
    """A URL or a cell: the permanent form, or a padded spelling of it."""

    @pytest.mark.parametrize(
        ("text", "key"),
        [
            ("LIT-004", ("LIT", 4)),
            ("LIT-1000", ("LIT", 1000)),
            ("ARXIV2-017", ("ARXIV2", 17)),
            # Padded: the view redirects it to LIT-004.
            ("LIT-0004", ("LIT", 4)),
        ],
    )
    def test_an_identifier_is_read_with_its_parts(self, text, key):
        assert Identifier.parse(text).key == key

    @pytest.mark.parametrize(
        "text", ["LIT-04", "LIT-4", "lit-004", "LIT 004", "LIT-004 v2", "-004", ""]
    )
    def test_anything_else_is_refused(self, text):
        with pytest.raises(ValueError, match="is not an identifier"):
            Identifier.parse(text)

    def test_the_last_number_a_registry_can_hold_is_read(self):
        assert Identifier.parse("LIT-2147483647").number == LAST_NUMBER

    def test_a_number_past_the_last_is_refused(self):
        with pytest.raises(ValueError, match="beyond any registry's numbers"):
            Identifier.parse("LIT-2147483648")


class TestParseLabel:
    """A listed label: the permanent form only, the version from v2 on."""

    @pytest.mark.parametrize(
        ("text", "parsed"),
        [
            ("LIT-004", (("LIT", 4), 1)),
            ("LIT-004 v4", (("LIT", 4), 4)),
            ("LIT-1000", (("LIT", 1000), 1)),
            ("LIT-1000 v12", (("LIT", 1000), 12)),
        ],
    )
    def test_a_label_in_the_permanent_form_is_read(self, text, parsed):
        identifier, version = Identifier.parse_label(text)

        assert (identifier.key, version) == parsed

    @pytest.mark.parametrize("text", ["LIT-0004", "LIT-0004 v2", "LIT-01000"])
    def test_a_padded_label_is_refused(self, text):
        # Three digits are the permanent form below 1000; from 1000 on, the
        # digits the number has: a list prints nothing else.
        with pytest.raises(ValueError, match="is not spelled as LIT-004 is"):
            Identifier.parse_label(text)

    @pytest.mark.parametrize(
        "text", ["LIT-04", "LIT-004 v0", "LIT-004 v02", "LIT-004v2"]
    )
    def test_a_label_of_another_shape_is_refused(self, text):
        with pytest.raises(ValueError, match="is not a label"):
            Identifier.parse_label(text)


class TestParseTyped:
    """What a reader types in a search box: any case, spacing or padding, up to
    40 characters."""

    @pytest.mark.parametrize(
        "typed", ["LIT-004", "lit 4", "LIT4", "lit-0004 v2", "  Lit - 04  "]
    )
    def test_the_spellings_people_type_are_read(self, typed):
        assert Identifier.parse_typed(typed) == "LIT-004"

    def test_forty_characters_are_read(self):
        typed = "LIT-" + "0" * 33 + "004"
        assert len(typed) == 40

        assert Identifier.parse_typed(typed) == "LIT-004"

    def test_forty_characters_with_spaces_around_them_are_read(self):
        # The length is the typed text's, without the spaces around it.
        typed = "   LIT-" + "0" * 33 + "004   "

        assert Identifier.parse_typed(typed) == "LIT-004"

    def test_forty_one_characters_are_not_an_identifier(self):
        typed = "LIT-" + "0" * 34 + "004"
        assert len(typed) == 41

        assert Identifier.parse_typed(typed) is None

    @pytest.mark.parametrize(
        "typed", ["memory", "4 LIT", "LIT-", "LIT 2147483648", "sublinear memory 4"]
    )
    def test_other_words_are_not_an_identifier(self, typed):
        assert Identifier.parse_typed(typed) is None

    def test_the_last_number_typed_is_read(self):
        assert Identifier.parse_typed("lit 2147483647").number == LAST_NUMBER


@pytest.mark.django_db
class TestCheckUnissued:
    """A number given for a new document: never issued, within the column."""

    def test_the_number_after_the_highest_issued_is_accepted(self):
        registry = RegistryFactory(last_number=783)

        check_unissued(registry=registry, number=784)

    def test_the_highest_issued_number_is_refused(self):
        registry = RegistryFactory(last_number=783)

        with pytest.raises(ValidationError) as refusal:
            check_unissued(registry=registry, number=783)

        assert refusal.value.code == "number_issued"
        assert refusal.value.message == (
            "LIT-783 was issued before (LIT has issued up to 783); a number is "
            "never reused. Leave it blank for the next one."
        )

    def test_a_number_a_bulk_load_wrote_above_the_mark_counts_as_issued(self):
        registry = RegistryFactory()
        DocumentFactory(registry=registry, number=9)
        # Written as a bulk load writes it: the registry's mark is not moved.
        Registry.objects.filter(pk=registry.pk).update(last_number=5)

        with pytest.raises(ValidationError) as refusal:
            check_unissued(registry=registry, number=9)
        check_unissued(registry=registry, number=10)

        assert refusal.value.code == "number_issued"

    def test_the_last_number_is_accepted_while_unissued(self):
        registry = RegistryFactory(last_number=LAST_NUMBER - 1)

        check_unissued(registry=registry, number=LAST_NUMBER)

    @pytest.mark.parametrize("number", [LAST_NUMBER + 1, 0, -1])
    def test_a_number_outside_the_column_is_refused(self, number):
        registry = RegistryFactory()

        with pytest.raises(ValidationError) as refusal:
            check_unissued(registry=registry, number=number)

        assert refusal.value.code == "number_out_of_range"
        assert refusal.value.message == (
            f"LIT numbers run from 1 to 2147483647; {number} is out of range."
        )

    def test_number_one_is_accepted_in_a_new_registry(self):
        check_unissued(registry=RegistryFactory(), number=1)


@pytest.mark.django_db
class TestIssueNumber:
    """The next number: one more than the highest ever issued, up to the last."""

    def test_a_new_registry_issues_one_then_two(self):
        registry = RegistryFactory()

        issued = [issue_number(registry=registry), issue_number(registry=registry)]

        assert issued == [1, 2]
        assert Registry.objects.get().last_number == 2

    def test_the_number_after_a_bulk_loaded_one_is_issued(self):
        registry = RegistryFactory()
        DocumentFactory(registry=registry, number=41)
        Registry.objects.filter(pk=registry.pk).update(last_number=3)

        assert issue_number(registry=registry) == 42

    def test_the_last_number_is_issued(self):
        registry = RegistryFactory(last_number=LAST_NUMBER - 1)

        assert issue_number(registry=registry) == LAST_NUMBER
        assert registry.last_number == LAST_NUMBER

    def test_no_number_is_issued_past_the_last(self):
        registry = RegistryFactory(last_number=LAST_NUMBER)

        with pytest.raises(ValidationError) as refusal:
            issue_number(registry=registry)

        assert refusal.value.code == "numbers_exhausted"
        assert refusal.value.message == (
            "Registry LIT has issued its last number, 2147483647."
        )
        assert Registry.objects.get().last_number == LAST_NUMBER


@pytest.mark.django_db
class TestMarkIssued:
    def test_a_higher_number_raises_the_mark(self):
        registry = RegistryFactory(last_number=7)

        mark_issued(registry=registry, number=12)

        assert Registry.objects.get().last_number == 12

    def test_a_lower_number_leaves_the_mark(self):
        registry = RegistryFactory(last_number=7)

        mark_issued(registry=registry, number=3)

        assert Registry.objects.get().last_number == 7

    def test_marking_a_number_leaves_other_registries_marks(self):
        registry = RegistryFactory(last_number=7)
        other = RegistryFactory(prefix="ADR", last_number=2)

        mark_issued(registry=registry, number=12)

        assert Registry.objects.get(pk=other.pk).last_number == 2

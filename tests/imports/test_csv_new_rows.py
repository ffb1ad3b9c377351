"""A CSV row written as a spreadsheet user writes a new document (identifier
and number left blank) is numbered by its registry; any other problem is a
sentence naming its row and column, and no answer ever shows an exception."""

import csv
import io
import re

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catalogue.models import Document, Registry
from formats import exports
from tests.factories import DocumentFactory, RegistryFactory
from tests.imports.test_import_csv import confirm, csv_text, preview, problems, row

pytestmark = [pytest.mark.django_db, pytest.mark.redis]


def new_row(title, **values):
    return row(
        identifier="",
        number="",
        version="",
        status="",
        title=title,
        **values,
    )


def listed(response):
    return [
        (change.kind, change.entry, change.numbered)
        for change in response.context["outcome"].rows()
    ]


def test_a_new_row_is_numbered_by_its_registry_in_the_dry_run_and_the_import(
    admin_client,
):
    registry = RegistryFactory()
    registry.last_number = 783
    registry.save()
    DocumentFactory(registry=registry, number=56, published=True)

    response = preview(admin_client, csv_text([new_row("PipeDream")]))

    assert listed(response) == [("new", "LIT-784: PipeDream", True)]
    page = response.content.decode()
    assert "numbered by its registry: the next number free when you confirm" in page
    assert Document.objects.count() == 1

    confirm(admin_client, response)

    document = Document.objects.get(number=784)
    assert (document.title, document.status, document.version) == (
        "PipeDream",
        Document.Status.DRAFT,
        1,
    )
    registry.refresh_from_db()
    assert registry.last_number == 784


def test_new_rows_follow_the_numbers_the_file_states(admin_client):
    content = csv_text(
        [
            new_row("First"),
            row(identifier="LIT-790", number="790"),
            new_row("Second"),
        ]
    )

    response = preview(admin_client, content)

    assert listed(response) == [
        ("new", "LIT-791: First", True),
        ("new", "LIT-790: Training Deep Nets with Sublinear Memory Cost", False),
        ("new", "LIT-792: Second", True),
    ]


def test_a_new_row_without_a_registry_names_its_column(admin_client):
    RegistryFactory()

    found = problems(preview(admin_client, csv_text([new_row("X", registry="")])))

    assert found == {1: {"registry": ["Name the registry, by its prefix (LIT)."]}}
    assert Registry.objects.count() == 1


# The dry run meets damaged, odd and hostile files: cells of any text
# (control characters, NUL, formula starts, quotes, very long), columns
# missing, shuffled or doubled, rows short or long. Whatever it meets, it
# answers a page of messages, never a 500 nor an exception's name.
DRY_RUN = settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

ODD_TEXT = st.one_of(
    st.sampled_from(
        [
            "",
            " ",
            "LIT",
            "LIT-004",
            "lit 4",
            "0",
            "-1",
            "4.0",
            "99999999999999999999",
            '=HYPERLINK("x")',
            "active",
            "withdrawn",
            "draft",
            "\x00",
            "a\x00b",
            "\r\n",
            '"',
            "‘’ “” — × ≈",
            "2026-13-45T99:99",
            "ADR-026",
        ]
    ),
    st.text(max_size=40),
)
COLUMN = st.sampled_from(exports.DOCUMENT_COLUMNS)
EXCEPTION_NAME = re.compile(r"\b\w*(Error|Exception)\b|Traceback")


def odd_file(columns, rows):
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8", "surrogatepass")


@st.composite
def odd_csv(draw):
    columns = draw(
        st.one_of(
            st.just(exports.DOCUMENT_COLUMNS),
            st.lists(COLUMN, min_size=1, max_size=len(exports.DOCUMENT_COLUMNS)),
            st.permutations(exports.DOCUMENT_COLUMNS),
        )
    )
    rows = draw(
        st.lists(
            st.one_of(
                # A sound row with some cells made odd.
                st.builds(
                    lambda cells: [cells.get(c, row()[c]) for c in columns],
                    st.dictionaries(COLUMN, ODD_TEXT, max_size=4),
                ),
                # A row of any length, of any text.
                st.lists(ODD_TEXT, max_size=len(columns) + 2),
            ),
            max_size=4,
        )
    )
    return odd_file(columns, rows)


@DRY_RUN
@given(content=odd_csv())
def test_the_dry_run_answers_any_file_with_messages(admin_client, content):
    response = preview(admin_client, content)

    page = response.content.decode()
    shown = re.sub(r"<[^>]+>", " ", page)
    assert not EXCEPTION_NAME.search(shown), shown
    assert Document.objects.count() == 0


def test_a_refused_dry_runs_page_is_about_its_result(admin_client):
    response = preview(admin_client, csv_text([new_row("X", registry="")]))

    page = response.content.decode()
    assert 'type="file"' not in page
    assert "This importer will import the following fields" not in page
    assert "upload it again</a>." in page


def test_the_upload_form_lists_the_columns_it_reads(admin_client):
    page = admin_client.get(reverse("admin:catalogue_document_import"))

    text = page.content.decode()
    assert "This importer will import the following fields" in text
    assert "<code>identifier, registry, number" in text.replace("\n", "")

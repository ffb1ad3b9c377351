"""Every API address for each role, with and without a token: the same
answers, and drafts only for the roles that may view them in the admin."""

import pytest
from django.urls import URLPattern

import actions.people
import api.urls
from catalogue.models import Authorship, DecisionRecord
from tests.databases import WEB_LAYER
from tests.factories import DecisionRecordFactory, factory_publisher

pytestmark = [pytest.mark.django_db, WEB_LAYER]

ROLES = ["anonymous", "staff", "editor", "publisher", "superuser"]

# Every API address (under /api/, "." for the root), with what each role
# gets: anonymous, staff (no permission), editor, publisher, superuser. The
# drafts-aware ones answer a draft to those who may view drafts in the admin,
# and 404 to the others.
ADDRESSES = """
root                 .                                           200 200 200 200 200
schema               schema/                                     200 200 200 200 200
docs                 docs/                                       200 200 200 200 200
document-list        documents/                                  200 200 200 200 200
document-detail      documents/LIT-004/                          200 200 200 200 200
document-detail      documents/LIT-012/                          404 404 200 200 200
topic-list           topics/                                     200 200 200 200 200
topic-detail         topics/distributed/                         200 200 200 200 200
registry-list        registries/                                 200 200 200 200 200
registry-detail      registries/LIT/                             200 200 200 200 200
tag-list             tags/                                       200 200 200 200 200
tag-detail           tags/memory/                                200 200 200 200 200
person-list          people/                                     200 200 200 200 200
person-detail        people/cited-author/                        200 200 200 200 200
person-detail        people/unread/                              404 404 404 404 404
decision-log-list    decision-logs/                              200 200 200 200 200
decision-log-detail  decision-logs/anthology/                    200 200 200 200 200
decision-record-list decision-logs/anthology/records/            200 200 200 200 200
decision-record      decision-logs/anthology/records/ADR-026/    200 200 200 200 200
decision-record      decision-logs/anthology/records/ADR-030/    404 404 200 200 200
decision-record-twin decision-logs/anthology/records/ADR-026/2/  200 200 200 200 200
problem-type         problems/invalid-parameter/                 200 200 200 200 200
removed-list         removed/?since=2000-01-01T00:00:00Z         200 200 200 200 200
"""


def table():
    rows = [line.split() for line in ADDRESSES.strip().splitlines()]
    return [
        (
            name,
            "/api/" if path == "." else f"/api/{path}",
            dict(zip(ROLES, map(int, codes), strict=True)),
        )
        for name, path, *codes in rows
    ]


@pytest.fixture
def record(with_draft):
    """The public record with a draft document, LIT-012, a second file of
    ADR-026 and a draft decision record, ADR-030; LIT-004's first author is at
    ``cited-author``. People are public alike for every role: the draft's
    author, Unread, has no address."""
    cited = Authorship.objects.get(
        document=with_draft["cited"], version=None, position=0
    )
    actions.people.edit_person(
        person=cited.person,
        user=factory_publisher(),
        changes={"slug": "cited-author"},
    )
    own = DecisionRecord.objects.get(number=26).log
    DecisionRecordFactory(log=own, number=26, twin=2, title="A second file")
    DecisionRecordFactory(log=own, number=30, draft=True, title="Undecided")
    return with_draft


def test_the_table_names_every_api_address():
    names = {
        pattern.name
        for pattern in api.urls.urlpatterns
        if isinstance(pattern, URLPattern) and pattern.name
    }

    assert {name for name, _, _ in table()} == names


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("credentials", ["token", "session"])
def test_each_role_gets_what_the_table_says(
    client, record, people, token_of, role, credentials
):
    headers = {}
    if role != "anonymous" and credentials == "token":
        headers = token_of(people[role])
    elif role != "anonymous":
        client.force_login(people[role])

    answers = [
        (path, client.get(path, **headers).status_code) for _, path, _ in table()
    ]

    assert answers == [(path, codes[role]) for _, path, codes in table()]


@pytest.mark.parametrize("role", ROLES)
def test_drafts_are_listed_only_for_those_who_may_view_them(
    client, record, people, token_of, role
):
    headers = token_of(people[role]) if role != "anonymous" else {}
    documents = client.get("/api/documents/", **headers).json()["results"]
    records = client.get("/api/decision-logs/anthology/records/", **headers).json()

    may_view = role in {"editor", "publisher", "superuser"}
    assert ("LIT-012" in {row["identifier"] for row in documents}) == may_view
    assert ("ADR-030" in {row["identifier"] for row in records["results"]}) == may_view

"""The read-only API: what it shows, to whom, how it pages, and how it is
cached and limited."""

import csv
import io
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

import actions.decisions
import actions.documents
from api.models import ApiToken
from tests.api.conftest import bearer, make_token
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db


def identifiers(response):
    return [row["identifier"] for row in response.json()["results"]]


def test_the_root_names_every_list(client):
    root = client.get("/api/").json()

    assert root == {
        "documents": "http://testserver/api/documents/",
        "topics": "http://testserver/api/topics/",
        "registries": "http://testserver/api/registries/",
        "tags": "http://testserver/api/tags/",
        "people": "http://testserver/api/people/",
        "decision_logs": "http://testserver/api/decision-logs/",
        "removed": "http://testserver/api/removed/",
        "schema": "http://testserver/api/schema/",
        "docs": "http://testserver/api/docs/",
    }


def test_a_document_shows_its_citation_authors_versions_and_references(
    client, public_record
):
    DocumentFactory(
        registry=public_record["cited"].registry,
        number=9,
        topic=public_record["topic"],
        title="Gradient checkpointing – revisited",
        authors="Chen et al.",
        source_identifier="ARXIV-1604.06174",
        all_authors=True,
        published=True,
    )

    document = client.get("/api/documents/LIT-009/").json()
    cited = client.get("/api/documents/LIT-004/").json()

    assert document["title"] == "Gradient checkpointing – revisited"
    year = document["year"]
    assert document["citation"] == f"Chen et al. ({year}), ARXIV-1604.06174"
    assert [author["family"] for author in document["author_list"]] == [
        "Chen",
        "Xu",
        "Zhang",
        "Guestrin",
    ]
    assert document["authors_complete"] is True
    assert document["work_identifiers"] == [
        {
            "scheme": "arXiv",
            "value": "1604.06174",
            "url": "https://arxiv.org/abs/1604.06174",
        }
    ]
    assert document["topic"] == "distributed"
    assert [version["number"] for version in document["versions"]] == [1]
    assert document["page_url"] == "http://testserver/LIT-009/"
    assert cited["referenced_by"] == ["LIT-007"]
    assert client.get("/api/documents/LIT-007/").json()["references"] == ["LIT-004"]
    assert client.get("/api/documents/LIT-007/").json()["tags"] == ["memory"]


def test_supersession_shows_both_ways(client, public_record, publisher):
    actions.documents.supersede(
        document=public_record["cited"],
        successor=public_record["citing"],
        user=publisher,
    )

    older = client.get("/api/documents/LIT-004/").json()
    newer = client.get("/api/documents/LIT-007/").json()

    assert (older["status"], older["superseded_by"]) == ("superseded", "LIT-007")
    assert newer["supersedes"] == ["LIT-004"]


def test_lists_of_topics_registries_tags_and_decisions(client, public_record):
    topics = client.get("/api/topics/").json()["results"]
    registries = client.get("/api/registries/").json()["results"]
    tags = client.get("/api/tags/").json()["results"]
    logs = client.get("/api/decision-logs/").json()["results"]
    records = client.get(logs[0]["records_url"]).json()["results"]

    assert [(t["slug"], t["document_count"]) for t in topics] == [("distributed", 2)]
    assert [(r["prefix"], r["document_count"]) for r in registries] == [("LIT", 2)]
    assert [(t["slug"], t["document_count"]) for t in tags] == [("memory", 1)]
    assert [record["identifier"] for record in records] == ["ADR-026"]
    detail = client.get(records[0]["url"]).json()
    assert detail["title"] == "One axis for both registries"
    assert client.get("/api/topics/distributed/").json()["name"] == (
        "Distributed optimization"
    )
    assert client.get("/api/tags/memory/").status_code == 200
    assert client.get("/api/registries/LIT/").status_code == 200


def test_the_filters_are_the_public_lists(client, public_record):
    DocumentFactory(
        registry=public_record["cited"].registry,
        number=30,
        unfiled=True,
        year=1985,
        published=True,
    )

    assert identifiers(client.get("/api/documents/?tag=memory")) == ["LIT-007"]
    assert identifiers(client.get("/api/documents/?topic=unfiled")) == ["LIT-030"]
    # The factories' years start at 1990.
    assert identifiers(client.get("/api/documents/?year_to=1989")) == ["LIT-030"]
    refused = client.get("/api/documents/?year_from=last+year")
    assert refused.status_code == 400
    assert refused["Content-Type"] == "application/problem+json"
    assert refused.json() == {
        "type": "http://testserver/api/problems/invalid-parameter/",
        "title": "A query parameter the API cannot read",
        "status": 400,
        "detail": "year_from: Enter a whole number.",
        "parameter": "year_from",
        "invalid-params": [{"name": "year_from", "reason": "Enter a whole number."}],
    }
    # A draft's status is not offered to readers.
    assert client.get("/api/documents/?status=draft").status_code == 400


def test_a_cursor_walks_the_whole_list_with_link_headers(client, public_record):
    for number in range(20, 25):
        DocumentFactory(
            registry=public_record["cited"].registry, number=number, published=True
        )
    seen, url = [], "/api/documents/?page_size=2"
    while url:
        response = client.get(url)
        seen += identifiers(response)
        link = response.get("Link", "")
        assert ('rel="next"' in link) == bool(response.json()["next"])
        url = response.json()["next"]
        if url:
            assert f'<{url}>; rel="next"' in link

    assert seen == ["LIT-004", "LIT-007", *(f"LIT-{n:03d}" for n in range(20, 25))]


def test_drafts_are_for_those_who_may_view_them_in_the_admin(
    client, with_draft, people, token_of
):
    anonymous = identifiers(client.get("/api/documents/"))
    staff = identifiers(client.get("/api/documents/", **token_of(people["staff"])))
    editor = identifiers(client.get("/api/documents/", **token_of(people["editor"])))

    assert anonymous == staff == ["LIT-004", "LIT-007"]
    assert editor == ["LIT-004", "LIT-007", "LIT-012"]
    assert client.get("/api/documents/LIT-012/").status_code == 404
    detail = client.get("/api/documents/LIT-012/", **token_of(people["editor"]))
    assert detail.json()["status"] == "draft"
    drafts = client.get("/api/documents/?status=draft", **token_of(people["editor"]))
    assert identifiers(drafts) == ["LIT-012"]
    assert client.get("/api/tags/unseen/").status_code == 404


@pytest.mark.parametrize(
    "header",
    [
        "Bearer anth_not-a-token",
        "Bearer ",
        "Basic cm9vdDpyb290",
        "Token anth_x",
    ],
)
def test_a_request_with_a_wrong_authorization_is_refused(client, header):
    response = client.get("/api/documents/", HTTP_AUTHORIZATION=header)

    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert "no usable API token" in response.json()["detail"]


def test_revoked_expired_and_inactive_users_tokens_are_refused(client, people):
    revoked, revoked_secret = make_token(people["editor"])
    revoked.revoked_at = timezone.now()
    revoked.save()
    _, expired = make_token(
        people["editor"], expires_at=timezone.now() - timedelta(seconds=1)
    )
    _, leaver = make_token(people["publisher"])
    people["publisher"].is_active = False
    people["publisher"].save()

    for secret in [revoked_secret, expired, leaver]:
        assert client.get("/api/", **bearer(secret)).status_code == 401


def test_a_token_is_kept_as_a_digest_and_notes_its_last_use(client, people):
    token, secret = make_token(people["editor"])

    client.get("/api/", **bearer(secret))

    token.refresh_from_db()
    assert secret not in {token.key_digest, token.key_start}
    assert secret.startswith(token.key_start)
    assert token.last_used_at is not None
    assert ApiToken.objects.filter(key_digest=secret).exists() is False


def test_the_staff_csv_export_takes_a_token(client, with_draft, people, token_of):
    url = reverse("catalogue:export-documents")

    anonymous = client.get(url)
    staff = client.get(url, **token_of(people["staff"]))
    editor = client.get(url, **token_of(people["editor"]))

    assert anonymous.status_code == 302
    assert staff.status_code == 403
    assert editor.status_code == 200
    rows = list(csv.DictReader(io.StringIO(editor.getvalue().decode())))
    assert "A draft nobody may read" in {row["title"] for row in rows}


def test_anonymous_requests_are_limited_per_client_address(client, settings):
    settings.API_ANONYMOUS_RATE = "2/minute"

    answers = [client.get("/api/").status_code for _ in range(3)]
    refused = client.get("/api/")
    elsewhere = client.get("/api/", REMOTE_ADDR="192.0.2.7")

    assert answers == [200, 200, 429]
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert "no-store" in refused["Cache-Control"]
    assert elsewhere.status_code == 200
    # The public pages are not the API's to limit.
    assert client.get("/").status_code == 200


def test_behind_the_proxy_the_client_is_the_forwarded_address(client, settings):
    settings.API_ANONYMOUS_RATE = "1/minute"
    settings.BEHIND_PROXY = True
    settings.PROXY_COUNT = 1
    settings.TRUSTED_PROXIES = ["10.0.0.1"]
    via_proxy = {"REMOTE_ADDR": "10.0.0.1"}

    first = client.get("/api/", HTTP_X_FORWARDED_FOR="192.0.2.1", **via_proxy)
    second = client.get("/api/", HTTP_X_FORWARDED_FOR="192.0.2.2", **via_proxy)
    again = client.get("/api/", HTTP_X_FORWARDED_FOR="192.0.2.1", **via_proxy)
    # Sent straight to the site, a forged X-Forwarded-For is dropped: the
    # peer's own address counts, whatever the header says.
    forged = [
        client.get(
            "/api/", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}", REMOTE_ADDR="203.0.113.9"
        ).status_code
        for n in range(2)
    ]

    assert [first.status_code, second.status_code, again.status_code] == [
        200,
        200,
        429,
    ]
    assert forged == [200, 429]


def test_tokens_are_limited_per_user_whatever_their_number(client, people, settings):
    settings.API_TOKEN_RATE = "2/minute"
    _, secret = make_token(people["editor"])
    _, other = make_token(people["editor"])
    _, someone_elses = make_token(people["publisher"])

    answers = [client.get("/api/", **bearer(secret)).status_code for _ in range(2)]
    refused = client.get("/api/", **bearer(other))

    # A second token of the same member draws on the same budget.
    assert answers == [200, 200]
    assert refused.status_code == 429
    assert refused.json()["detail"] == (
        "Too many requests: at most 2/minute for this token's user, all of their "
        "tokens together."
    )
    assert client.get("/api/", **bearer(someone_elses)).status_code == 200
    # The export counts against the same budget.
    export = client.get(reverse("catalogue:export-topics"), **bearer(secret))
    assert export.status_code == 429


ADD_TOKEN = "/admin/api/apitoken/add/"


def add_token(client, expires_at):
    return client.post(
        ADD_TOKEN,
        {
            "name": "nightly export",
            "expires_at_0": f"{expires_at:%Y-%m-%d}",
            "expires_at_1": f"{expires_at:%H:%M:%S}",
        },
    )


def test_a_token_may_not_outlast_the_longest_expiry(client, people, settings):
    settings.API_TOKEN_MAX_DAYS = 365
    client.force_login(people["editor"])
    far = timezone.now() + timedelta(days=366)

    response = add_token(client, far.replace(year=9999, month=12, day=31))
    within = add_token(client, timezone.now() + timedelta(days=364))

    assert response.status_code == 200
    longest = timezone.now() + timedelta(days=365)
    assert response.context["adminform"].form.errors["expires_at"] == [
        f"A token lasts 365 days at most: choose an expiry on or before "
        f"{longest:%Y-%m-%d}."
    ]
    assert within.status_code == 200  # The page showing the secret once.
    assert list(ApiToken.objects.values_list("user__username", flat=True)) == ["ed"]


def test_a_token_may_not_expire_in_the_past(client, people):
    client.force_login(people["editor"])

    response = add_token(client, timezone.now() - timedelta(days=1))

    assert response.context["adminform"].form.errors["expires_at"] == [
        "The expiry has passed: choose one in the future."
    ]
    assert not ApiToken.objects.exists()


def test_a_member_holds_at_most_so_many_usable_tokens(client, people, settings):
    settings.API_TOKEN_MAX_PER_USER = 2
    client.force_login(people["editor"])
    soon = timezone.now() + timedelta(days=30)
    make_token(people["editor"], revoked_at=timezone.now())
    make_token(people["editor"], expires_at=timezone.now() - timedelta(days=1))
    make_token(people["publisher"])
    make_token(people["publisher"])

    made = [add_token(client, soon).status_code for _ in range(2)]
    refused = add_token(client, soon)

    assert made == [200, 200]
    assert refused.context["adminform"].form.non_field_errors() == [
        "You hold 2 usable API tokens, the most one person may: revoke one you no "
        "longer use before making another."
    ]
    assert ApiToken.objects.usable().filter(user=people["editor"]).count() == 2


def test_an_api_answer_is_fresh_on_the_next_request_after_a_change(
    client, public_record, publisher, committed, django_assert_num_queries
):
    paths = ["/api/documents/", "/api/documents/LIT-004/", "/api/topics/"]
    before = {path: client.get(path) for path in paths}
    for path in paths:
        with django_assert_num_queries(0):
            cached = client.get(path)
        assert cached.content == before[path].content
        assert cached["ETag"] == before[path]["ETag"]

    with committed():
        actions.documents.withdraw(
            document=public_record["cited"], user=publisher, reason="Did not hold."
        )

    after = {path: client.get(path) for path in paths}
    assert after["/api/documents/LIT-004/"].json()["status"] == "withdrawn"
    assert after["/api/documents/"].json()["results"][0]["status"] == "withdrawn"
    assert all(after[path]["ETag"] != before[path]["ETag"] for path in paths)


def test_a_decision_change_is_fresh_in_the_api(
    client, public_record, publisher, committed
):
    log = client.get("/api/decision-logs/").json()["results"][0]
    path = log["records_url"].removeprefix("http://testserver")
    client.get(path)
    decision = actions.decisions.DecisionRecord(number=27, title="A second decision")

    with committed():
        actions.decisions.save_decision(
            decision=decision, user=publisher, supersedes=[]
        )
        actions.decisions.publish_decision(decision=decision, user=publisher)

    assert [row["identifier"] for row in client.get(path).json()["results"]] == [
        "ADR-026",
        "ADR-027",
    ]


def test_a_tokens_answers_are_never_cached_nor_served_from_the_cache(
    client, with_draft, people, token_of
):
    header = token_of(people["editor"])
    anonymous = client.get("/api/documents/")
    with_token = client.get("/api/documents/", **header)
    anonymous_again = client.get("/api/documents/")

    assert "LIT-012" in identifiers(with_token)
    assert "LIT-012" not in identifiers(anonymous_again)
    assert anonymous_again.content == anonymous.content
    assert "no-store" in with_token["Cache-Control"]
    assert "private" in with_token["Cache-Control"]
    assert "ETag" not in with_token
    assert "Authorization" in anonymous["Vary"]
    assert "public" in anonymous["Cache-Control"]

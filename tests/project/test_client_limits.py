"""Readers' pages no cache answered are limited per client, searches apart;
and every limit (readers' pages, the correction form, the API, the login
lockout) counts a client by one spelling of its address: an IPv6 client by
its /64, an IPv4-mapped address as its IPv4 address, case aside."""

import ast
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.test import RequestFactory
from django.urls import reverse
from django.utils.module_loading import import_string
from django_ratelimit import core as ratelimit_core

from anthology import edge, limits
from api import middleware as api_middleware
from corrections import limits as correction_limits
from tests.factories import PASSWORD, DocumentFactory, UserFactory
from tests.html import form_data, soup_of

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
SEARCH = reverse("catalogue:search")
# Varnish in front, on this machine, as deploy/varnish/anthology.vcl sets
# X-Forwarded-For.
PROXIED = {"BEHIND_PROXY": True, "PROXY_COUNT": 1, "TRUSTED_PROXIES": ["127.0.0.1"]}
# One client's addresses, as clients and proxies spell them: one /64.
ONE_CLIENT = [
    "2001:db8:0:7::1",
    "2001:DB8:0:7::1",
    "2001:0db8:0000:0007:0000:0000:0000:0002",
    "[2001:db8:0:7:ffff::3]",
    "2001:db8:0:7::4%eth0",
]
# Another client: the next /64.
ANOTHER = "2001:db8:0:8::1"


@pytest.fixture
def proxied(settings):
    for name, value in PROXIED.items():
        setattr(settings, name, value)
    return settings


def via(address):
    return {"REMOTE_ADDR": "127.0.0.1", "HTTP_X_FORWARDED_FOR": address}


@pytest.mark.parametrize(
    ("address", "client"),
    [
        ("203.0.113.7", "203.0.113.7"),
        (" 203.0.113.7 ", "203.0.113.7"),
        ("::ffff:203.0.113.7", "203.0.113.7"),
        ("::FFFF:cb00:7107", "203.0.113.7"),
        *((spelling, "2001:db8:0:7::") for spelling in ONE_CLIENT),
        (ANOTHER, "2001:db8:0:8::"),
        ("::1", "::"),
        ("not an address", "not an address"),
    ],
)
def test_each_spelling_of_an_address_counts_as_one_client(address, client):
    assert edge.client_spelling(address) == client


def test_every_limit_and_the_lockout_read_the_one_client_address(proxied):
    request = RequestFactory().get("/", **via("2001:DB8:0:7::99"))
    request.META.update(via("2001:DB8:0:7::99"))

    assert proxied.AXES_CLIENT_IP_CALLABLE == "anthology.edge.client_address"
    assert {
        import_string(proxied.AXES_CLIENT_IP_CALLABLE)(request),
        correction_limits.client_address("group", request),
        api_middleware.client_address(request),
        limits._client("group", request),
    } == {"2001:db8:0:7::"}


def readers_of_the_address():
    """Every line of the project's code outside ``anthology/edge.py`` that
    reads the peer's address or X-Forwarded-For."""
    found = []
    for path in sorted(ROOT.glob("*/**/*.py")):
        relative = path.relative_to(ROOT)
        if relative.parts[0] in {"tests", "bench", "docs", ".venv"}:
            continue
        if relative == Path("anthology/edge.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value in {
                "REMOTE_ADDR",
                "HTTP_X_FORWARDED_FOR",
            }:
                found.append(f"{relative}:{node.lineno}")
    return found


def test_no_code_but_the_edge_reads_who_the_client_is():
    # A limit keyed on REMOTE_ADDR or X-Forwarded-For itself would count the
    # proxy, or each spelling apart: every one goes through client_address.
    assert readers_of_the_address() == []


# Readers' pages


@pytest.fixture
def rates(settings, monkeypatch):
    settings.READER_SEARCH_RATE = "3/minute"
    settings.READER_PAGE_RATE = "4/minute"
    # The limiter's clock stands still: its windows are whole minutes, and one
    # ending between a test's requests would start the count again.
    now = int(time.time())
    monkeypatch.setattr(ratelimit_core, "time", SimpleNamespace(time=lambda: now))
    return settings


@pytest.fixture
def record():
    return DocumentFactory(number=1, title="Pipeline parallelism", published=True)


def searches(client, count, start=0, **extra):
    """The statuses of ``count`` searches no cache holds (a new query each)."""
    return [
        client.get(SEARCH, {"q": f"nonsense{n}"}, **extra).status_code
        for n in range(start, start + count)
    ]


def test_a_flood_of_new_searches_from_one_address_gets_429_after_its_limit(
    client, rates, record
):
    answers = searches(client, 5)
    refused = client.get(SEARCH, {"q": "another"})

    assert answers == [200] * 3 + [429] * 2
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert "no-store" in refused["Cache-Control"]
    refused.status_code = 200
    page = soup_of(refused)
    assert page.select_one("h1").get_text() == "Too many searches for now"
    # Pages other than searches have their own count.
    assert client.get("/").status_code == 200


def test_uncached_pages_from_one_address_get_429_after_their_limit(
    client, rates, record
):
    paths = ["/", "/LIT-001/", "/registries/", "/unfiled/", "/feed/", "/tags/"]

    answers = [client.get(path).status_code for path in paths]

    assert answers == [200, 200, 200, 200, 429, 429]


def test_a_page_the_cache_answers_is_not_counted(client, rates, record):
    answers = [client.get("/LIT-001/").status_code for _ in range(10)]

    assert answers == [200] * 10


def test_one_clients_flood_leaves_another_client_alone(client, proxied, rates, record):
    flood = searches(client, 4, **via(ONE_CLIENT[0]))
    spelt_otherwise = searches(client, 1, start=10, **via(ONE_CLIENT[2]))
    other = searches(client, 3, start=20, **via(ANOTHER))

    assert flood == [200, 200, 200, 429]
    assert spelt_otherwise == [429]
    assert other == [200, 200, 200]


def test_a_forged_forwarded_for_from_an_untrusted_peer_counts_as_the_peer(
    client, proxied, rates, record
):
    answers = [
        client.get(
            SEARCH,
            {"q": f"nonsense{n}"},
            REMOTE_ADDR="198.51.100.7",
            HTTP_X_FORWARDED_FOR=f"203.0.113.{n}",
        ).status_code
        for n in range(4)
    ]

    assert answers == [200, 200, 200, 429]


def test_editors_the_admin_the_api_and_the_probe_are_not_counted(
    client, rates, record, editorial_groups
):
    for path in ["/admin/login/", "/api/", "/health/"] * 3:
        assert client.get(path).status_code == 200
    client.force_login(UserFactory(editor=True))

    assert searches(client, 5) == [200] * 5


# Every other limit counts a client as one /64, however it spells it.


def test_the_lockout_counts_a_clients_spellings_together(client, proxied):
    UserFactory(username="ada", is_staff=True)
    path = reverse("admin:login")

    def log_in(password, address):
        data = {"username": "ada", "password": password, "next": "/admin/"}
        return client.post(path, data, **via(address)).status_code

    failures = [log_in("guess", address) for address in ONE_CLIENT]
    locked = log_in(PASSWORD, "2001:db8:0:7:abcd::1")
    elsewhere = log_in(PASSWORD, ANOTHER)

    assert failures == [200, 200, 200, 200, 429]
    assert (locked, elsewhere) == (429, 302)


def test_the_api_counts_a_clients_spellings_together(client, proxied, settings):
    settings.API_ANONYMOUS_RATE = "2/minute"

    answers = [
        client.get("/api/", **via(address)).status_code for address in ONE_CLIENT
    ]

    assert answers == [200, 200, 429, 429, 429]
    assert client.get("/api/", **via(ANOTHER)).status_code == 200


def test_the_correction_form_counts_a_clients_spellings_together(
    client, proxied, settings
):
    settings.CORRECTIONS_RATE = "2/hour"
    settings.CORRECTIONS_TOTAL_RATE = "100/hour"
    document = DocumentFactory(number=219, title="Memory", published=True)
    path = reverse("corrections:document", kwargs={"identifier": document.identifier})

    def propose(n, address):
        data = form_data(client.get(path, **via(address)), "form.correction-form")
        data["title"] = f"Memory, take {n}"
        return client.post(path, data, **via(address)).status_code

    answers = [propose(n, address) for n, address in enumerate(ONE_CLIENT[:3])]

    assert answers == [302, 302, 429]
    assert propose(9, ANOTHER) == 302


def test_a_client_over_its_limit_is_refused_without_a_query(
    client, rates, record, django_assert_num_queries
):
    searches(client, 3)

    with django_assert_num_queries(0):
        refused = client.get(SEARCH, {"q": "once more"})

    assert refused.status_code == 429
    assert "Too many searches for now" in refused.content.decode()


def test_an_editor_behind_a_flooding_address_is_served(
    client, rates, record, editorial_groups
):
    searches(client, 4)
    client.force_login(UserFactory(editor=True))

    assert searches(client, 2, start=10) == [200, 200]

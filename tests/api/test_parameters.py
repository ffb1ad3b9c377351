"""Every query parameter of the API is read or refused: a value the API
cannot read, a parameter it does not take, one given twice or empty is a
400 in the one shape of the API's errors (RFC 9457 problem details) naming
the parameter, never a 500 nor a value silently ignored or clamped."""

import base64
from urllib.parse import quote

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def public_record(module_public_record):
    """The small public record, made once for the module: its tests only read."""
    return module_public_record


MAX_PAGE_SIZE = 200

PROBLEM_MEMBERS = {"type", "title", "status", "detail"}


def cursor(text):
    return quote(base64.b64encode(text.encode()).decode())


def assert_problem(response, status, parameter=None):
    # A query spelled otherwise than the API writes it is first redirected to
    # its canonical spelling (pagecache.queries), at most once.
    assert len(getattr(response, "redirect_chain", [])) <= 1
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"] == "application/problem+json"
    problem = response.json()
    assert set(problem) >= PROBLEM_MEMBERS
    assert problem["status"] == status
    assert all(isinstance(problem[name], str) for name in PROBLEM_MEMBERS - {"status"})
    if parameter is not None:
        assert problem["parameter"] == parameter
        assert parameter in problem["detail"]
        assert problem["invalid-params"][0]["name"] == parameter
    return problem


# What an attacker sent as a cursor: positions that are not numbers, and
# cursors that are no base64 at all.
TAMPERED_CURSORS = [
    cursor("p=abc"),
    cursor("p=1e5"),
    cursor("p=1.5"),
    cursor("p="),
    cursor("p=%00"),
    cursor("p=-3"),
    cursor("p=1&p=2"),
    cursor("o=5000&p=1"),
    cursor("r=2&p=1"),
    cursor("x=1"),
    cursor("p=" + "9" * 40),
    "garbled!!",
    "cD0xMA",  # "p=10" without its padding
    "%FF%FE",
    "",
]


@pytest.mark.parametrize(
    "path",
    [
        "/api/documents/",
        "/api/topics/",
        "/api/registries/",
        "/api/tags/",
        "/api/people/",
        "/api/decision-logs/",
        "/api/decision-logs/anthology/records/",
    ],
)
@pytest.mark.parametrize("value", TAMPERED_CURSORS)
def test_a_tampered_cursor_is_refused_naming_it(client, public_record, path, value):
    assert_problem(client.get(f"{path}?cursor={value}", follow=True), 400, "cursor")


def test_the_cursors_the_api_writes_are_read(client, public_record):
    first = client.get("/api/documents/?page_size=1").json()

    second = client.get(first["next"])

    assert second.status_code == 200
    assert [row["identifier"] for row in second.json()["results"]] == ["LIT-007"]
    back = client.get(second.json()["previous"])
    assert [row["identifier"] for row in back.json()["results"]] == ["LIT-004"]


@pytest.mark.parametrize(
    "value",
    ["0", "-1", "abc", "1.5", "1e3", str(MAX_PAGE_SIZE + 1), "5000", "9" * 30],
)
def test_a_page_size_out_of_its_bounds_is_refused_not_clamped(
    client, public_record, value
):
    problem = assert_problem(
        client.get(f"/api/documents/?page_size={quote(value)}", follow=True),
        400,
        "page_size",
    )
    assert f"1 to {MAX_PAGE_SIZE}" in problem["detail"]


def test_a_page_size_within_its_bounds_is_read(client, public_record):
    page = client.get(f"/api/documents/?page_size={MAX_PAGE_SIZE}")

    assert page.status_code == 200
    assert len(page.json()["results"]) == 2


@pytest.mark.parametrize("name", ["tag", "topic", "registry", "status", "year_from"])
def test_an_empty_filter_is_refused_like_any_other(client, public_record, name):
    assert_problem(client.get(f"/api/documents/?{name}="), 400, name)


@pytest.mark.parametrize(
    "query, name",
    [
        ("format=json", "format"),
        ("page=2", "page"),
        ("utm_source=x", "utm_source"),
        ("Topic=distributed", "Topic"),
    ],
)
def test_a_parameter_the_list_does_not_take_is_refused(
    client, public_record, query, name
):
    assert_problem(client.get(f"/api/documents/?{query}"), 400, name)


def test_a_single_parameter_given_twice_is_refused(client, public_record):
    assert_problem(
        client.get("/api/documents/?topic=distributed&topic=unfiled"), 400, "topic"
    )
    assert (
        client.get("/api/documents/?tag=memory&tag=memory", follow=True).status_code
        == 200
    )


def test_a_detail_takes_no_parameter(client, public_record):
    assert_problem(client.get("/api/documents/LIT-004/?x=1"), 400, "x")
    assert_problem(client.get("/api/?cursor=1"), 400, "cursor")
    problem_type = "/api/problems/invalid-parameter/"
    assert client.get(problem_type).json()["title"] == (
        "A query parameter the API cannot read"
    )
    assert_problem(client.get(f"{problem_type}?x=1"), 400, "x")


def test_a_filter_the_list_cannot_read_names_it(client, public_record):
    problem = assert_problem(
        client.get("/api/documents/?year_from=last+year"), 400, "year_from"
    )
    assert problem["invalid-params"] == [
        {"name": "year_from", "reason": "Enter a whole number."}
    ]


def test_a_nul_in_a_parameter_is_a_problem_in_json(client, public_record):
    assert_problem(client.get("/api/documents/?topic=%00"), 400, "topic")
    assert_problem(client.get("/api/documents/?q%00=1"), 400)


def test_every_client_error_under_the_api_has_the_one_shape(client, public_record):
    assert_problem(client.get("/api/nothing-here/"), 404)
    assert_problem(client.get("/api/documents/LIT-999/"), 404)
    assert_problem(client.get("/api/topics/nothing/"), 404)
    assert_problem(client.post("/api/documents/"), 405)
    assert_problem(client.get("/api/documents/", HTTP_ACCEPT="text/html"), 406)
    assert_problem(
        client.get("/api/documents/", HTTP_AUTHORIZATION="Bearer anth_nothing"), 401
    )
    assert_problem(client.get("/api/documents/", CONTENT_LENGTH="many"), 400)
    assert_problem(client.get("/api/documents/", CONTENT_LENGTH="99999999"), 413)


def test_over_the_rate_limit_is_a_problem(client, public_record, settings):
    settings.API_ANONYMOUS_RATE = "1/minute"
    client.get("/api/topics/")

    problem = assert_problem(client.get("/api/topics/"), 429)

    assert "1/minute" in problem["detail"]


# Values no parameter of any kind can read.
BAD_VALUES = ["", "%00", "not a value", "-1", "1e5", "\u2028", "%FF", "9" * 40]


def operations(client):
    """(path, query parameters) of every operation the description states,
    the path's own parameters filled in from the small public record."""
    description = client.get("/api/schema/?format=json").json()
    filled = {
        "{identifier}": "LIT-004",
        "{slug}": "distributed",
        "{prefix}": "LIT",
        "{log}": "anthology",
        "{twin}": "1",
    }
    for path, methods in description["paths"].items():
        for placeholder, value in filled.items():
            path = path.replace(placeholder, value)
        if "/people/" in path and path != "/api/people/":
            path = "/api/people/nobody/"
        if "/records/ADR-" not in path and "{identifier}" not in path:
            path = path.replace("/records/LIT-004/", "/records/ADR-026/")
        if "/tags/" in path and path != "/api/tags/":
            path = "/api/tags/memory/"
        names = [
            p["name"]
            for p in methods["get"].get("parameters", [])
            if p["in"] == "query"
        ]
        yield path, names


def test_every_operation_refuses_every_bad_parameter_with_a_problem(
    client, public_record, settings
):
    settings.API_ANONYMOUS_RATE = "100000/minute"
    checked = 0
    for path, names in operations(client):
        for name in [*names, "unknown"]:
            for value in BAD_VALUES:
                response = client.get(f"{path}?{name}={value}", follow=True)
                if name == "unknown" or value in {"", "%00", "9" * 40}:
                    assert_problem(response, 400, name)
                else:
                    # Some parameters take any text (a tag's slug): a value
                    # naming nothing is then an empty list, never a 500.
                    assert response.status_code in {200, 400}, (path, name, value)
                    if response.status_code == 400:
                        assert_problem(response, 400, name)
                checked += 1
    assert checked > 16 * len(BAD_VALUES)


def test_the_description_and_the_reference_refuse_what_they_do_not_take(
    client, public_record
):
    assert_problem(client.get("/api/schema/?lang=fr"), 400, "lang")
    assert_problem(client.get("/api/schema/?format=xml"), 400, "format")
    assert_problem(client.get("/api/docs/?script="), 400, "script")
    assert client.get("/api/schema/?format=json").status_code == 200


def test_an_accept_the_description_cannot_satisfy_is_a_problem_in_json(
    client, public_record
):
    problem = assert_problem(
        client.get("/api/schema/", HTTP_ACCEPT="application/xml"), 406
    )
    assert problem["title"] == "Not Acceptable"
    assert_problem(client.get("/api/documents/", HTTP_ACCEPT="application/xml"), 406)
    assert_problem(client.get("/api/", HTTP_ACCEPT="application/xml"), 406)


def test_a_nul_in_a_path_under_the_api_is_a_problem_in_json(client, public_record):
    assert_problem(client.get("/api/documents/LIT-0%0004/"), 400)
    assert_problem(client.get("/api/documents%00/"), 400)


def stated_bounds(schema):
    """What ``schema`` bounds a value by: a range, a length, a form or a list
    of values."""
    if schema.get("type") == "array":
        return stated_bounds(schema["items"])
    if schema.get("type") == "integer":
        return {"minimum", "maximum"} <= set(schema)
    return (
        "enum" in schema
        or "pattern" in schema
        or {"minLength", "maxLength"} <= set(schema)
    )


def test_the_description_states_every_parameters_bounds(client):
    description = client.get("/api/schema/?format=json").json()

    unbounded = [
        (path, parameter["name"])
        for path, methods in description["paths"].items()
        for operation in methods.values()
        for parameter in operation.get("parameters", [])
        if not stated_bounds(parameter["schema"])
    ]

    assert unbounded == []


def test_every_operation_states_each_client_error_as_a_problem(client):
    description = client.get("/api/schema/?format=json").json()
    answered = {"400", "401", "404", "405", "406", "413", "429"}

    unstated = [
        (path, status)
        for path, methods in description["paths"].items()
        for operation in methods.values()
        for status in sorted(answered)
        if "application/problem+json"
        not in operation["responses"].get(status, {}).get("content", {})
    ]

    assert unstated == []

"""While the database cannot be reached (before the shared cache's probe has
marked the site down), a request that needs it is answered 503 with
Retry-After and the site's page for it, never Django's 500; an error of a
query on a working connection is still a 500."""

from contextlib import contextmanager

import pytest
from django.db import InterfaceError, OperationalError, connection
from django.template.loader import render_to_string
from django.test import Client

from anthology.errors import database_unreachable
from tests.factories import DocumentFactory
from tests.tools import free_port

pytestmark = pytest.mark.django_db(transaction=True)


@contextmanager
def out_of_reach(folder):
    """The site's database connection, closed, now reaches for a server that
    refuses it (PostgreSQL: a port nothing listens on; SQLite: a file in a
    folder that does not exist); put back after."""
    saved = dict(connection.settings_dict)
    if connection.vendor == "postgresql":
        connection.settings_dict["PORT"] = str(free_port())
    else:
        connection.settings_dict["NAME"] = str(folder / "gone" / "db.sqlite3")
    connection.close()
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict.update(saved)


def answers_503(response):
    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    assert "no-store" in response["Cache-Control"]
    assert response.content.decode() == render_to_string("503.html")


@pytest.mark.parametrize("path", ["/", "/LIT-004/", "/feed/", "/search/?q=memory"])
def test_a_reader_gets_503_while_the_database_is_out_of_reach(path, tmp_path):
    DocumentFactory(number=4, published=True)

    with out_of_reach(tmp_path):
        answers_503(Client(raise_request_exception=False).get(path))


def test_an_editor_gets_503_too(editor, tmp_path):
    client = Client(raise_request_exception=False)
    client.force_login(editor)

    with out_of_reach(tmp_path):
        answers_503(client.get("/admin/catalogue/document/"))
        answers_503(client.post("/admin/logout/"))


def test_a_querys_own_error_on_a_working_connection_is_no_outage():
    connection.ensure_connection()

    assert not database_unreachable(OperationalError("no such table: elsewhere"))
    assert not database_unreachable(ValueError("not the database's"))


@pytest.mark.database("postgresql", reason="SQLite's connections never break")
def test_a_connection_lost_under_the_site_is_an_outage():
    connection.ensure_connection()
    connection.connection.close()
    try:
        assert database_unreachable(InterfaceError("the connection is closed"))
    finally:
        connection.close()

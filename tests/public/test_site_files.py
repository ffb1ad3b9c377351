"""What every site is asked for besides its pages: robots.txt, a favicon,
error pages, a card for link previews."""

import struct
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import include, path

from tests.factories import DocumentFactory, TopicFactory
from tests.html import soup_of

pytestmark = pytest.mark.django_db


def test_robots_txt_points_at_the_sitemap_and_keeps_crawlers_out_of_the_admin(
    client,
):
    response = client.get("/robots.txt")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain"
    lines = response.content.decode().splitlines()
    assert "Sitemap: http://testserver/sitemap.xml" in lines
    assert "Disallow: /admin/" in lines


def test_favicon_ico_leads_to_the_static_icon(client):
    response = client.get("/favicon.ico")

    assert response.status_code == 302
    assert response["Location"] == "/static/favicon.ico"
    # An ICO file's header: reserved, then type 1 (icon).
    assert Path(finders.find("favicon.ico")).read_bytes()[:4] == b"\x00\x00\x01\x00"


def test_every_page_carries_the_four_opengraph_properties(client):
    topic = TopicFactory(slug="busy")
    DocumentFactory(number=4, topic=topic, published=True)

    for page in ["/", "/topics/busy/", "/LIT-004/"]:
        soup = soup_of(client.get(page))
        properties = {
            meta["property"]: meta["content"]
            for meta in soup.select("meta[property^='og:']")
        }
        assert properties["og:image"] == "http://testserver/static/img/site-card.png"
        assert properties["og:url"] == f"http://testserver{page}"
        assert properties["og:title"] and properties["og:type"], page
    card = Path(finders.find("img/site-card.png")).read_bytes()
    assert card[:8] == b"\x89PNG\r\n\x1a\n"
    # OpenGraph's recommended 1200 × 630, as the page declares.
    assert struct.unpack(">II", card[16:24]) == (1200, 630)


def test_a_missing_page_is_answered_with_the_sites_own_404(client):
    response = client.get("/topics/no-such-topic/")

    assert response.status_code == 404
    soup = soup_of_any(response)
    assert soup.h1.get_text() == "Not found"
    assert soup.select_one("link[rel=stylesheet]") is not None
    assert soup.select_one("#not-found-q") is not None


def test_a_bad_request_is_answered_with_the_sites_own_400_saying_why(client):
    response = client.get("/search/", {"q": "x" * 201})

    assert response.status_code == 400
    soup = soup_of_any(response)
    assert soup.select_one(".lead").get_text() == "A search is at most 200 characters."


def failing_view(request):
    raise RuntimeError("a fault")


urlpatterns = [path("fails/", failing_view), path("", include("public.urls"))]


@pytest.mark.urls(__name__)
def test_the_500_page_renders_without_the_database(django_db_blocker):
    client = Client(raise_request_exception=False)

    with django_db_blocker.block():
        response = client.get("/fails/")

    assert response.status_code == 500
    soup = soup_of_any(response)
    assert soup.h1.get_text() == "Something went wrong on our side"
    assert soup.select_one("link[rel=stylesheet]")["href"] == "/static/css/site.css"


def soup_of_any(response):
    return BeautifulSoup(response.content, "html.parser")

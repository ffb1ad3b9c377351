"""Reading the site's pages in tests."""

from bs4 import BeautifulSoup


def soup_of(response):
    """The parsed HTML of a page that opened (200)."""
    assert response.status_code == 200, response.status_code
    return BeautifulSoup(response.content, "html.parser")


def text_of(client, path):
    """The text of the page at ``path``, which must open."""
    response = client.get(path)
    assert response.status_code == 200
    return response.content.decode()


def is_warm(client, path, django_assert_num_queries):
    """The anonymous page comes from the cache: not one query."""
    with django_assert_num_queries(0):
        response = client.get(path)
    assert response.status_code == 200
    return response


def form_data(response, selector="#content-main form"):
    """What a browser posts for the form ``selector`` of a page, untouched:
    every named input, select and textarea with the value the page gives it
    (checked boxes only; no submit button)."""
    soup = BeautifulSoup(response.content, "html.parser")
    form = soup.select_one(selector)
    data = {}
    for field in form.select("input[name], select[name], textarea[name]"):
        name, kind = field["name"], field.get("type", "")
        if field.name == "select":
            options = field.select("option")
            chosen = [option for option in options if option.has_attr("selected")]
            if not chosen and not field.has_attr("multiple"):
                chosen = options[:1]
            values = [option.get("value", option.get_text()) for option in chosen]
        elif field.name == "textarea":
            # A browser drops the newline that follows <textarea>.
            values = [field.get_text().removeprefix("\n")]
        elif kind in {"checkbox", "radio"}:
            values = [field.get("value", "on")] if field.has_attr("checked") else []
        elif kind in {"submit", "button", "image", "file"}:
            values = []
        else:
            values = [field.get("value", "")]
        if values:
            data.setdefault(name, []).extend(values)
    return {name: v[0] if len(v) == 1 else v for name, v in data.items()}


def facts_of(soup):
    """A page's facts list (``.facts``) as (term, text) pairs."""
    terms, texts = soup.select(".facts dt"), soup.select(".facts dd")
    return [(dt.get_text(), dd.get_text()) for dt, dd in zip(terms, texts, strict=True)]


def csp_refusals(page):
    """What Chromium reports the Content-Security-Policy refused on ``page``,
    as it happens (its console messages; a 404, such as a favicon's, is not
    one)."""
    refused = []
    page.on(
        "console",
        lambda message: (
            refused.append(message.text)
            if "Content Security Policy" in message.text
            else None
        ),
    )
    return refused

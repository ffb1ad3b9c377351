"""The private page where a reader follows a request: what was proposed
beside what readers saw, the status, the public reason of a refusal, and
once published the page that shows it. A link names one request: it shows
nothing of another, and any other token is not found. HTML and script a
reader writes are text, on the form, on this page and in the mail."""

import pytest
from django.core import mail, signing
from django.urls import resolve, reverse

import actions.corrections
import actions.documents
from catalogue.models import Correction
from public import scopes
from tests.factories import CorrectionFactory, DocumentFactory, UserFactory
from tests.html import form_data, soup_of

pytestmark = pytest.mark.django_db

SCRIPT = '<script>alert("x")</script><img src=x onerror=alert(1)>'


@pytest.fixture
def document():
    return DocumentFactory(
        number=219,
        title="Memory-efficient training",
        author_list=[{"family": "Chen", "given": "Tianqi"}],
        published=True,
    )


def follow_url(correction):
    return reverse("corrections:follow", kwargs={"token": correction.token()})


def rows_of(soup):
    return [
        [cell.get_text() for cell in row.select("th, td")]
        for row in soup.select("table.proposed tbody tr")
    ]


def test_the_page_shows_what_was_proposed_beside_what_readers_saw(client, document):
    correction = CorrectionFactory(
        document=document,
        changes={
            "title": "Memory-efficient training of deep nets",
            "author_list": [
                {"family": "Chen", "given": "Tianqi"},
                {"family": "Xu", "given": "Bing"},
            ],
        },
        note="The summary's figure is the paper's second.",
        email="reader@example.org",
    )

    response = client.get(follow_url(correction))
    soup = soup_of(response)

    assert soup.select_one("h1").get_text() == "Your correction of LIT-219"
    assert soup.select_one(".correction-status").get_text() == "Waiting"
    assert rows_of(soup) == [
        [
            "Title",
            "Memory-efficient training",
            "Memory-efficient training of deep nets",
        ],
        ["Every author, one a line", "Chen, Tianqi", "Chen, TianqiXu, Bing"],
    ]
    assert soup.select_one(".note").get_text() == (
        "The summary's figure is the paper's second."
    )
    # The address is the reader's: said to be kept, never shown.
    assert "reader@example.org" not in response.content.decode()
    assert "Cache-Control" in response
    assert "no-store" in response["Cache-Control"]
    assert response["X-Robots-Tag"] == "noindex, nofollow"
    assert scopes.page_scopes(resolve(follow_url(correction))) is None


def test_a_declined_request_shows_the_public_reason_alone(client, document):
    correction = CorrectionFactory(document=document)
    actions.corrections.decline(
        correction=correction,
        user=UserFactory(publisher=True),
        public_reason="The title page reads as we have it.",
        private_reason="The third such request this week.",
    )

    page = client.get(follow_url(correction)).content.decode()

    assert "Declined" in page
    assert "The title page reads as we have it." in page
    assert "third such request" not in page


def test_a_published_request_links_to_the_page_that_shows_it(client, document):
    publisher = UserFactory(publisher=True)
    correction = CorrectionFactory(
        document=document, changes={"title": "Memory-efficient training, corrected"}
    )
    before = soup_of(client.get(follow_url(correction)))
    actions.corrections.accept(correction=correction, user=publisher)
    accepted = soup_of(client.get(follow_url(correction)))
    actions.documents.publish(document=document, user=publisher)

    published = soup_of(client.get(follow_url(correction)))

    assert before.select_one(".correction-status").get_text() == "Waiting"
    assert accepted.select_one(".correction-status").get_text() == (
        "Accepted, waiting for publication"
    )
    assert published.select_one(".correction-status").get_text() == "Published"
    facts = published.select_one(".facts").get_text()
    assert "title corrected (a reader’s correction)" in facts
    assert [a["href"] for a in published.select(".facts a")] == ["/LIT-219/"] * 2


def test_a_link_shows_its_own_request_and_nothing_of_another(client, document):
    mine = CorrectionFactory(document=document, changes={"title": "Mine"})
    theirs = CorrectionFactory(
        document=DocumentFactory(number=7, title="Other work", published=True),
        changes={"title": "Theirs, with a secret"},
        note="Their private note.",
    )

    page = client.get(follow_url(mine)).content.decode()

    assert "Mine" in page
    assert "Theirs" not in page and "Their private note" not in page
    assert "LIT-007" not in page
    assert mine.token() != theirs.token()


@pytest.mark.parametrize(
    "token",
    [
        "1",
        "1:forged",
        "not-a-token",
        signing.Signer(salt="another.salt").sign("1"),
        signing.Signer(salt="catalogue.correction").sign("999999"),
    ],
)
def test_any_other_token_is_not_found(client, document, token):
    CorrectionFactory(document=document)

    assert client.get(f"/corrections/{token}/").status_code == 404


def test_a_token_of_another_proposal_changed_by_one_digit_is_not_found(
    client, document
):
    first = CorrectionFactory(document=document)
    second = CorrectionFactory(document=document, changes={"title": "Second"})
    # The second's number under the first's signature.
    forged = f"{second.pk}:{first.token().split(':', 1)[1]}"

    assert client.get(f"/corrections/{forged}/").status_code == 404


def test_html_and_script_are_text_on_the_form_and_the_page(client, document):
    path = reverse("corrections:document", kwargs={"identifier": document.identifier})
    data = form_data(client.get(path), "form.correction-form")
    # Every text field but the identifier, which takes only an identifier's
    # shape, and the date, only a date's.
    for name in ["title", "authors", "venue", "doi", "note", "reason"]:
        data[name] = f"{name} {SCRIPT}"
    data["author_list"] = f"Chen, Tianqi\n{SCRIPT}"
    data["email"] = "reader@example.org"
    refused = client.post(
        path, {**data, "year": "<b>1</b>", "source_identifier": SCRIPT}
    )
    sent = client.post(path, data)
    assert sent.status_code == 302
    correction = Correction.objects.get()
    assert correction.changes["title"] == f"title {SCRIPT}"
    followed = client.get(sent["Location"])
    actions.corrections.decline(
        correction=correction,
        user=UserFactory(publisher=True),
        public_reason=f"Declined: {SCRIPT}",
    )
    declined = client.get(sent["Location"])

    for response in refused, followed, declined:
        page = response.content.decode()
        assert "<script>" not in page
        assert "<img src=x" not in page
        assert page.count("&lt;script&gt;") >= 5
    assert "&lt;b&gt;1&lt;/b&gt;" in refused.content.decode()
    assert soup_of(declined).select_one(".public-reason").get_text() == (
        f"Declined: {SCRIPT}"
    )


def test_the_mail_carries_what_the_reader_wrote_as_plain_text(
    client, document, django_capture_on_commit_callbacks
):
    correction = actions.corrections.propose(
        target=document,
        changes={"title": SCRIPT},
        reason=SCRIPT,
        email="reader@example.org",
    )
    with django_capture_on_commit_callbacks(execute=True):
        actions.corrections.decline(
            correction=correction,
            user=UserFactory(publisher=True),
            public_reason=f"Declined: {SCRIPT}",
        )

    (sent,) = mail.outbox
    assert sent.content_subtype == "plain"
    assert sent.alternatives == []
    # As written, never as entities: a plain-text mail shows it as text.
    assert f"Their reason: Declined: {SCRIPT}" in sent.body
    assert "&lt;" not in sent.body
    assert follow_url(correction) in sent.body


def test_the_form_and_the_page_cost_a_fixed_number_of_queries(
    client, document, django_assert_num_queries
):
    path = reverse("corrections:document", kwargs={"identifier": document.identifier})
    correction = CorrectionFactory(document=document)

    # The document with its registry.
    with django_assert_num_queries(1):
        assert client.get(path).status_code == 200
    # The correction with its document and registry.
    with django_assert_num_queries(1):
        assert client.get(follow_url(correction)).status_code == 200

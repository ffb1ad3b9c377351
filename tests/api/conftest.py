import pytest

import actions.people
from api.models import ApiToken
from tests.factories import DocumentFactory, UserFactory


def make_token(user, **fields):
    """A usable token of ``user`` and its secret, as the admin makes them."""
    token = ApiToken(user=user, name="script", **fields)
    secret = token.issue_secret()
    token.save()
    return token, secret


def bearer(secret):
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


@pytest.fixture
def token_of():
    """``token_of(user)``: the Authorization header of a new token of ``user``."""
    return lambda user, **fields: bearer(make_token(user, **fields)[1])


@pytest.fixture
def people():
    return {
        "staff": UserFactory(username="staff-only"),
        "editor": UserFactory(editor=True, username="ed"),
        "publisher": UserFactory(publisher=True, username="pub"),
        "superuser": UserFactory(username="root", is_superuser=True),
    }


@pytest.fixture
def with_draft(public_record):
    """The small public record and a draft in its topic, LIT-012, tagged
    "unseen", by Unread (a person no public document names)."""
    draft = DocumentFactory(
        registry=public_record["cited"].registry,
        number=12,
        topic=public_record["topic"],
        title="A draft nobody may read",
        authors="Unread et al.",
        tags=["unseen"],
    )
    # As the desk's save links a draft's authors.
    actions.people.link_documents([draft])
    return {**public_record, "draft": draft}

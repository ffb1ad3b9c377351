"""Every action checks its actor's permission, whoever calls it.

An account without the right is refused before anything is written; so is a
call that names neither an account nor a command. A command run on the
server names itself (``via``) and acts with the server's rights; told to act
as an account (``--user``), it has that account's rights and none more.
"""

import io

import pytest
from django.core.exceptions import PermissionDenied
from django.core.management import CommandError, call_command
from django.utils import timezone

import actions.decisions
import actions.documents
import actions.filing
import actions.related
from actions.batch import DocumentWrite, DocumentWriter
from catalogue.models import (
    DecisionImage,
    DecisionLog,
    DecisionRecord,
    DecisionRelation,
    Document,
    Preface,
    Registry,
    RelatedDocument,
    Topic,
)
from tests.factories import (
    DecisionRecordFactory,
    DocumentFactory,
    RegistryFactory,
    TopicFactory,
    UserFactory,
    png_bytes,
)

pytestmark = pytest.mark.django_db


def new_document(number=None):
    return DocumentFactory.build(
        registry=RegistryFactory(), number=number, topic=None, draft=True
    )


def image(decision):
    data = png_bytes()
    return {decision: {"figure.png": (data, "image/png", "0" * 64)}}


# Each action, as a call of ``(user, via)``, with what it would have written.
ACTIONS = {
    "save a new document": (
        lambda user, via: actions.documents.save_document(
            document=new_document(), user=user, via=via
        ),
        lambda: Document.objects.exists(),
    ),
    "add a registry": (
        lambda user, via: actions.filing.save(
            obj=Registry(prefix="PRA", name="Practices"), user=user, via=via
        ),
        lambda: Registry.objects.filter(prefix="PRA").exists(),
    ),
    "add a topic": (
        lambda user, via: actions.filing.save(
            obj=Topic(name="Evaluation", slug="evaluation", position=9),
            user=user,
            via=via,
        ),
        lambda: Topic.objects.filter(slug="evaluation").exists(),
    ),
    "write the preface": (
        lambda user, via: actions.filing.save(
            obj=Preface(heading="The record", text="What it holds."),
            user=user,
            via=via,
        ),
        lambda: Preface.objects.exists(),
    ),
    "open a decision log": (
        lambda user, via: actions.decisions.open_log(
            name="Platform team", user=user, via=via
        ),
        lambda: DecisionLog.objects.filter(name="Platform team").exists(),
    ),
    "import decision records": (
        lambda user, via: actions.decisions.save_imported(
            decisions=[
                DecisionRecord(
                    log=DecisionRecordFactory(number=1).log, number=2, title="Two"
                )
            ],
            user=user,
            at=timezone.now(),
            via=via,
        ),
        lambda: DecisionRecord.objects.filter(number=2).exists(),
    ),
    "store a record's images": (
        lambda user, via: actions.decisions.set_images(
            images=image(DecisionRecordFactory()), user=user, via=via
        ),
        lambda: DecisionImage.objects.exists(),
    ),
    "relate two records": (
        lambda user, via: actions.decisions.keep_relations(
            saved=[
                DecisionRelation(
                    source=DecisionRecordFactory(),
                    target=DecisionRecordFactory(),
                    kind=DecisionRelation.Kind.AMENDS,
                )
            ],
            user=user,
            via=via,
        ),
        lambda: DecisionRelation.objects.exists(),
    ),
    "import documents": (
        lambda user, via: DocumentWriter(note="Imported.", user=user, via=via).create(
            [DocumentWrite(new_document(number=4))]
        ),
        lambda: Document.objects.exists(),
    ),
    "store related work": (
        lambda user, via: actions.related.store_related(
            lists={
                DocumentFactory(published=True).pk: [
                    (DocumentFactory(published=True).pk, 0.5, {})
                ]
            },
            user=user,
            via=via,
        ),
        lambda: RelatedDocument.objects.exists(),
    ),
}


@pytest.mark.parametrize("action", ACTIONS)
def test_an_account_without_the_right_is_refused_and_nothing_written(action):
    take, written = ACTIONS[action]
    staff = UserFactory()  # staff, in no group: no right at all

    with pytest.raises(PermissionDenied, match=f"{staff.username} may not"):
        take(staff, "")

    assert not written()


@pytest.mark.parametrize("action", ACTIONS)
def test_a_call_naming_neither_an_account_nor_a_command_is_refused(action):
    take, written = ACTIONS[action]

    with pytest.raises(PermissionDenied, match="Only an account, or a command"):
        take(None, "")

    assert not written()


@pytest.mark.parametrize("action", ACTIONS)
def test_a_command_naming_itself_acts_with_the_servers_rights(action):
    take, written = ACTIONS[action]

    take(None, "a_command")

    assert written()


def test_a_publisher_may_save_a_draft_but_not_add_a_registry(publisher):
    document = actions.documents.save_document(document=new_document(), user=publisher)

    assert document.pk is not None
    with pytest.raises(PermissionDenied, match="may not add registries"):
        actions.filing.save(obj=Registry(prefix="PRA", name="PRA"), user=publisher)


def test_a_command_told_to_act_as_an_account_has_its_rights_only(tmp_path):
    UserFactory(username="ada", editor=True)
    folder = tmp_path / "adr"
    folder.mkdir()
    (folder / "0001-record-decisions.md").write_text(
        "# 1. Record decisions\n\nDate: 2024-03-01\n\n## Status\n\nAccepted\n",
        encoding="utf-8",
    )

    with pytest.raises(CommandError, match="ada may not import decision records"):
        call_command(
            "import_decisions", str(folder), "--user", "ada", stdout=io.StringIO()
        )

    assert not DecisionRecord.objects.exists()


def test_a_topics_scope_moves_no_datestamp_and_its_name_moves_every_one(
    admin_user,
):
    topic = TopicFactory(name="Optimisation", slug="optimisation")
    document = DocumentFactory(topic=topic, published=True)
    then = timezone.now() - timezone.timedelta(days=30)
    Document.objects.filter(pk=document.pk).update(updated_at=then)

    topic.scope = "parallelism and sharding"
    actions.filing.save(obj=topic, user=admin_user)
    document.refresh_from_db()
    assert document.updated_at == then

    topic.name = "Distributed optimisation"
    actions.filing.save(obj=topic, user=admin_user)
    document.refresh_from_db()
    assert document.updated_at > then

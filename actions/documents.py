"""The documents' actions: what editors and publishers do to a document.

Each action is one transaction that checks the actor's permission and its
precondition (``steps``), changes state, and keeps every promise itself: the
audit entry, the version row, the number, and the pages the change shows on,
expired once it commits (``pages``). The admin's form, its bulk actions and
buttons, the imports and the commands all call these; nothing important
happens in a signal.

Readers see a document's row. An edit to a public document is held as its
pending revision until a publisher publishes it; an unpublished document is
edited in place.
"""

from auditlog.models import LogEntry
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from actions import errata, pages, review, vocabulary
from actions.filing import recorded_tag_names, recorded_tags
from actions.people import link_documents
from actions.steps import (
    Step,
    audited,
    discard_held,
    publish_held,
    require,
    taking,
)
from catalogue.models import Document, DocumentNotice, DocumentVersion, Revision
from catalogue.numbering import check_unissued, issue_number, mark_issued
from catalogue.references import write_references

# What an editor edits on a document: the content, then the filing.
EDITABLE_FIELDS = [
    *Document.CONTENT_FIELDS,
    *Document.BIBLIOGRAPHIC_FIELDS,
    "topic",
    "tags",
]


def _status(document):
    return document.get_status_display().lower()


def _standing(document):
    """What ``document`` is, as a sentence says it: "a draft", "in review"."""
    if document.status == Document.Status.DRAFT:
        return "a draft"
    return _status(document)


def _refused(document, message, code):
    """A precondition's refusal: ``standing`` is what the document is, for
    a bulk action to say why it leaves it alone."""
    return ValidationError(
        message,
        code=code,
        params={"identifier": document.identifier, "standing": _standing(document)},
    )


def _draft_only(document, revision):
    """Only a draft goes to review."""
    if document.status != Document.Status.DRAFT:
        message = f"{document.identifier} is {_standing(document)}, not a draft."
        raise _refused(document, message, "not_a_draft")


def _unpublished_or_pending(document, revision):
    """A publisher publishes a document never published, or an edit held."""
    if document.is_public and revision is None:
        raise ValidationError(
            f"{document.identifier} has no pending revision to publish.",
            code="nothing_to_publish",
        )


def _active_or_superseded(document, revision):
    """Only a document readers see as current, or as superseded, is withdrawn."""
    if document.status not in {Document.Status.ACTIVE, Document.Status.SUPERSEDED}:
        message = (
            f"{document.identifier} is {_standing(document)}: only an active or "
            "superseded document can be withdrawn."
        )
        raise _refused(document, message, "not_withdrawable")


def _withdrawn(document, revision):
    """Only a withdrawn document is reinstated."""
    if document.status != Document.Status.WITHDRAWN:
        message = f"{document.identifier} is {_standing(document)}, not withdrawn."
        raise _refused(document, message, "not_withdrawn")


def _pending(document, revision):
    """Only an edit held as a pending revision can be discarded."""
    if revision is None:
        message = f"{document.identifier} has no pending revision to discard."
        raise ValidationError(message, code="nothing_to_discard")


EDIT = Step("catalogue.change_document", "edit documents", reads_revision=True)
SUBMIT = Step("catalogue.change_document", "submit documents for review", _draft_only)
PUBLISH = Step(
    "catalogue.publish_document",
    "publish documents",
    _unpublished_or_pending,
    reads_revision=True,
)
WITHDRAW = Step(
    "catalogue.publish_document", "withdraw documents", _active_or_superseded
)
REINSTATE = Step("catalogue.publish_document", "reinstate documents", _withdrawn)
DISCARD = Step(
    "catalogue.change_document", "discard revisions", _pending, reads_revision=True
)
SUPERSEDE = Step("catalogue.publish_document", "supersede documents")


# What the editor sees


def editor_state(content, *, topic_id, tags):
    """What an editor sees and edits, in one shape: the content fields, the
    topic as its id and the tags as sorted names."""
    return {**content, "topic": topic_id, "tags": sorted(tags)}


def published_state(document):
    """What readers see of ``document`` now, as ``editor_state``."""
    tags = document.tags.names() if document.pk else []
    return editor_state(
        document.edited_content(), topic_id=document.topic_id, tags=tags
    )


def revision_state(revision):
    """What ``revision`` would make of its document, as ``editor_state``."""
    return editor_state(
        revision.edited_content(),
        topic_id=revision.topic_id,
        tags=revision.tag_names,
    )


def editable_state(document):
    """What an editor sees and edits: the pending revision's values if there
    is one, else the document's."""
    revision = document.pending_revision() if document.pk else None
    if revision is not None:
        return revision_state(revision)
    return published_state(document)


# Writing


ADD = Step("catalogue.add_document", "add documents")


def save_document(*, document, user, tags=None, via=""):
    """Create or save a document that is not public, in place.

    A new document without a number takes its registry's next one. A public
    document is never saved this way: its edits go to ``edit_document``, which
    holds them as a pending revision.
    """
    step = EDIT if document.pk else ADD
    require(user, step.permission, step.doing, via=via)
    with transaction.atomic(), audited(user, via):
        if document.pk and (Document.objects.public().filter(pk=document.pk).exists()):
            raise ValidationError(
                f"{document.identifier} is public: an edit is held as a pending "
                "revision until a publisher publishes it.",
                code="public_document",
            )
        if document.is_public and not document.pk:
            raise ValidationError(
                "A new document starts as a draft; a publisher publishes it.",
                code="new_document_public",
            )
        if not document.number:
            document.number = issue_number(registry=document.registry)
        elif not document.pk:
            check_unissued(registry=document.registry, number=document.number)
            mark_issued(registry=document.registry, number=document.number)
        document.save()
        if tags is not None:
            _set_tags(document, tags)
        write_references(documents=[document])
        link_documents([document], user=user, via=via)
    return document


def edit_document(*, document, user, changes, note="", via=""):
    """Apply an editor's ``changes`` ({field: value}, fields of EDITABLE_FIELDS).

    A document readers can see keeps its published text: the changes go into
    its pending revision (made from the published text if there is none), for
    a publisher to publish. An unpublished document is edited in place.
    Returns the pending revision, or None for an in-place edit or an edit
    that takes the document back to what readers see. A command makes its
    edits with no user, ``via`` naming it.
    """
    unknown = set(changes) - set(EDITABLE_FIELDS)
    if unknown:
        raise ValueError(f"not editable: {', '.join(sorted(unknown))}")
    with taking(EDIT, document, user, via=via) as (document, revision):
        if not document.is_public:
            _edit_in_place(document, changes)
            return None
        return _hold_as_revision(document, revision, user, changes, note)


def _edit_in_place(document, changes):
    for name, value in changes.items():
        if name == "topic":
            document.topic_id = _pk(value)
        elif name != "tags":
            setattr(document, name, value)
    document.full_clean(exclude=["tags"])
    document.save()
    if "tags" in changes:
        _set_tags(document, changes["tags"])
    link_documents([document])


def _hold_as_revision(document, revision, user, changes, note):
    if revision is None:
        revision = Revision.held_from(document, user=user)
    for name, value in changes.items():
        if name == "topic":
            revision.topic_id = _pk(value)
        elif name == "tags":
            revision.tag_names = sorted(recorded_tag_names(value))
        else:
            setattr(revision, name, value)
    if note:
        revision.note = note
    revision.updated_by = user
    revision.full_clean(exclude=["document"])
    if revision_state(revision) == published_state(document):
        # The edit takes the document back to what readers see: nothing waits.
        if revision.pk:
            discard_held(revision, user=user)
            review.settle(document, published=False)
        return None
    revision.save()
    return revision


def _pk(value):
    return getattr(value, "pk", value)


def _set_tags(document, names):
    """Give ``document`` the tags ``names`` stand for: a name whose slug is
    an existing tag's is that tag (``filing.tags_named``)."""
    document.tags.set(recorded_tags(list(names)), clear=False)


def add_tags(*, document, user, names):
    """Add tags to what an editor sees of ``document``, keeping every other tag.

    The tags are read under the document's lock, so two editors or bulk
    actions tagging the same document at once both keep their tags.
    """
    with transaction.atomic():
        document = Document.objects.select_for_update().get(pk=document.pk)
        tags = editable_state(document)["tags"]
        known = {name.lower() for name in tags}
        added = [
            name for name in recorded_tag_names(names) if name.lower() not in known
        ]
        if not added:
            return None
        return edit_document(
            document=document, user=user, changes={"tags": [*tags, *added]}
        )


def submit_for_review(*, document, user):
    """A draft goes to review; an editor's verb."""
    with taking(SUBMIT, document, user) as (document, _):
        document.status = Document.Status.IN_REVIEW
        document.save(update_fields=["status", "updated_at"])
        review.resubmitted(document, user)
    return document


def publish(*, document, user, note="", via=""):
    """Make a document, or its pending revision, what readers see.

    A first publication makes a draft or a document in review active, as v1.
    A pending revision is copied into the document: a change to the title,
    citation or summary raises the version and snapshots it with who, when and
    the change note; a change to filing alone (topic, tags) raises nothing.
    Returns the new DocumentVersion, or None when no version was raised.
    ``via`` names what took the step for ``user`` (a schedule run).
    """
    with taking(PUBLISH, document, user, via=via) as (document, revision):
        if revision is None:
            return _publish_first(document, user, note)
        return _publish_revision(document, revision, user, note)


def _publish_first(document, user, note):
    published_at = timezone.now()
    writer = _creator(document)
    document.full_clean(exclude=["tags"])
    document.status = Document.Status.ACTIVE
    if document.versions.exists():
        document.version = document.versions.first().number + 1
    document.save()
    write_references(documents=[document])
    vocabulary.refresh([document.pk])
    # A new public document changes its registry's total, printed on every
    # topic page, and may bring a tag into the public filters.
    pages.changed(document, listing=True)
    version = _save_version(document, user, note, published_at, writer)
    review.settle(document, published=True, version=version)
    link_documents([document], user=user)
    return version


def _creator(document):
    """Who created ``document``, as the audit trail records it, or None."""
    created = LogEntry.objects.get_for_object(document).filter(
        action=LogEntry.Action.CREATE
    )
    entry = created.select_related("actor").order_by("timestamp").first()
    return entry.actor if entry else None


def _publish_revision(document, revision, user, note):
    published_at = timezone.now()
    raises = revision.edited_content() != document.edited_content()
    before = pages.before_change(document)
    tags_change = sorted(revision.tag_names) != sorted(document.tags.names())
    revision.applied_to(document)
    if raises:
        document.version += 1
    document.save()
    write_references(documents=[document])
    if raises:
        vocabulary.refresh([document.pk])
    _set_tags(document, revision.tag_names)
    if note:
        revision.note = note
    publish_held(revision, user=user, at=published_at)
    errata.settle_revision(revision, user=user, at=published_at)
    pages.changed(document, before=before, listing=tags_change)
    version = None
    if raises:
        version = _save_version(
            document, user, revision.note, published_at, revision.created_by
        )
    review.settle(document, published=True, version=version)
    link_documents([document], user=user)
    return version


def _save_version(document, user, note, published_at, writer):
    people = {"published_by": user, "written_by": writer, "note": note}
    version = DocumentVersion.snapshot(document, published_at=published_at, **people)
    version.save()
    return version


def discard_revision(*, document, user):
    """Drop a document's pending revision; readers never saw it."""
    with taking(DISCARD, document, user) as (document, revision):
        discard_held(revision, user=user)
        errata.release(revision)
        review.settle(document, published=False)
    return revision


def withdraw(*, document, user, reason="", via=""):
    """Retire a public document: it stays listed, marked withdrawn, with the
    date and ``reason`` readers see (a retraction notice)."""
    with taking(WITHDRAW, document, user, via=via) as (document, _):
        document.status = Document.Status.WITHDRAWN
        document.withdrawn_at = timezone.now()
        document.withdrawal_reason = reason.strip()
        document.save(
            update_fields=["status", "withdrawn_at", "withdrawal_reason", "updated_at"]
        )
        _notice(
            document,
            DocumentNotice.Kind.WITHDRAWN,
            user,
            at=document.withdrawn_at,
            reason=document.withdrawal_reason,
        )
        pages.changed(document)
    return document


def _notice(document, kind, user, *, at=None, **facts):
    """Keep the change of ``document``'s standing as a notice readers are
    told of in the feeds."""
    DocumentNotice.objects.create(
        document=document, kind=kind, at=at or timezone.now(), by=user, **facts
    )


def reinstate(*, document, user, via=""):
    """Take a withdrawal back: the document is active again, or superseded
    when it has a successor; the notice goes, the audit trail keeps it."""
    with taking(REINSTATE, document, user, via=via) as (document, _):
        document.status = (
            Document.Status.SUPERSEDED
            if document.superseded_by_id
            else Document.Status.ACTIVE
        )
        document.withdrawn_at = None
        document.withdrawal_reason = ""
        document.save(
            update_fields=["status", "withdrawn_at", "withdrawal_reason", "updated_at"]
        )
        _notice(document, DocumentNotice.Kind.REINSTATED, user)
        pages.changed(document)
    return document


def supersede(*, document, successor, user):
    """Mark a public document superseded by another public one."""
    with taking(SUPERSEDE, document, user) as (document, _):
        if successor is None or successor.pk == document.pk:
            raise ValidationError(
                f"{document.identifier} needs another document as its successor.",
                code="successor_missing",
            )
        if not document.is_public or not successor.is_public:
            raise ValidationError(
                "Only a public document can supersede or be superseded "
                f"({document.identifier} is {_status(document)}, "
                f"{successor.identifier} is {_status(successor)}).",
                code="not_public",
            )
        former = document.superseded_by
        document.status = Document.Status.SUPERSEDED
        document.superseded_by = successor
        document.save(update_fields=["status", "superseded_by", "updated_at"])
        _notice(document, DocumentNotice.Kind.SUPERSEDED, user, successor=successor)
        # The successor's page says what it supersedes, and so did the
        # former successor's.
        for page in [document, successor, former]:
            if page is not None:
                pages.changed(page)
    return document


def revert(*, document, version, user, note=""):
    """Propose a published version's text again, as a new pending revision.

    History is never rewritten: a publisher publishes the revert as a new version.
    """
    return edit_document(
        document=document,
        user=user,
        changes=version.edited_content(),
        note=note or f"Reverted to v{version.number}.",
    )

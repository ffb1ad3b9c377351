"""What documents are filed under and the index is built on: registries,
topics, tags and the preface, saved and deleted as the admin gives them; and
the known venues, by which an import reads a citation's venue and type.

Their names and texts show on most public pages and they change rarely, so
each change expires every cached page.
"""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models.functions import Lower
from django.utils import timezone
from taggit.models import Tag

from actions import pages
from actions.steps import audited, require
from catalogue.models import Document, Revision, Topic


def _permission(obj, verb):
    opts = obj._meta
    return f"{opts.app_label}.{verb}_{opts.model_name}"


def save(*, obj, user):
    """Save a registry, topic, tag, venue or the preface as edited."""
    require(user, _permission(obj, "change" if obj.pk else "add"), "change filing")
    with transaction.atomic(), audited(user):
        if obj.pk:
            _restamp(obj)
        obj.save()
        pages.everything_changed()
    return obj


def delete(*, objs, user):
    """Delete registries, topics, tags or the preface."""
    with transaction.atomic(), audited(user):
        for obj in objs:
            require(user, _permission(obj, "delete"), "delete filing")
            _restamp(obj)
            obj.delete()
        pages.everything_changed()


def _restamp(obj):
    """A topic's or a tag's name is shown with every document filed under it
    or carrying it (the topic's slug names its OAI-PMH set): a change to it
    changes those documents as harvesters read them, so the time their row
    last changed, their records' datestamp, moves too."""
    if isinstance(obj, Topic):
        documents = Document.objects.filter(topic=obj)
    elif isinstance(obj, Tag):
        documents = Document.objects.filter(tags=obj)
    else:
        return
    documents.update(updated_at=timezone.now())


# Merging changes the tags of public documents as readers see them, at once.
MERGE_TAGS = "catalogue.publish_document"


def merge_tags(*, tags, into, user):
    """Fold ``tags`` into the tag named ``into`` (made if there is none, its
    case kept if there is): every document and pending revision that had one
    of them has ``into`` instead, and the folded tags are deleted.

    A document that already had ``into`` keeps it; nothing else it has is
    touched; each document's change is its own audit entry. Returns the tag
    they were folded into and how many documents hold it now.
    """
    require(user, MERGE_TAGS, "merge tags")
    into = into.strip()
    if not into:
        raise ValidationError("Name the tag to keep.", code="tag_name_missing")
    with transaction.atomic(), audited(user):
        target = (
            Tag.objects.annotate(lowered=Lower("name"))
            .filter(lowered=into.lower())
            .order_by("pk")
            .first()
        ) or Tag.objects.create(name=into)
        folded = [tag for tag in tags if tag.pk != target.pk]
        if not folded:
            return target, Document.objects.filter(tags=target).count()
        names = {tag.name.lower() for tag in folded}
        tagged = Document.objects.filter(tags__in=folded).values("pk")
        retagged = []
        for document in Document.objects.filter(pk__in=tagged).select_for_update():
            # Through the tag manager, so the audit trail records each change.
            document.tags.add(target)
            document.tags.remove(*folded)
            retagged.append(document.pk)
        # Their tags are what readers and harvesters see: their datestamp moves.
        Document.objects.filter(pk__in=retagged).update(updated_at=timezone.now())
        pending = Revision.objects.filter(status=Revision.Status.PENDING)
        for revision in pending.select_for_update():
            held = [name for name in revision.tag_names if name.lower() not in names]
            if len(held) == len(revision.tag_names):
                continue
            if target.name.lower() not in {name.lower() for name in held}:
                held.append(target.name)
            revision.tag_names = sorted(held)
            revision.save(update_fields=["tag_names"])
        for tag in folded:
            tag.delete()
        pages.everything_changed()
    return target, Document.objects.filter(tags=target).count()


def import_topics():
    """Topics written by a CSV import, in its transaction: they name every
    page, so every page is expired (nothing, if a dry run rolls it back)."""
    pages.everything_changed()

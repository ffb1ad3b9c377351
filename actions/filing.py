"""What documents are filed under and the index is built on: registries,
topics, tags and the preface, saved and deleted as the admin gives them; and
the known venues, by which an import reads a citation's venue and type.

Their names and texts show on most public pages and they change rarely, so
each change expires every cached page.
"""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max, Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.text import slugify
from taggit.models import Tag

from actions import pages, rows
from actions.steps import audited, require
from catalogue.models import CandidateTopic, Document, Revision, Topic


def _permission(obj, verb):
    opts = obj._meta
    return f"{opts.app_label}.{verb}_{opts.model_name}"


def _doing(obj, verb):
    return f"{verb} {obj._meta.verbose_name_plural}"


def save(*, obj, user, via=""):
    """Save a registry, topic, tag, venue or the preface as edited: the
    admin's add and change pages, and every import that brings one, take
    this action with the same permission (``add_registry``, ``change_topic``).
    A command names itself in ``via`` and acts with the server's rights."""
    verb = "add" if obj._state.adding else "change"
    require(user, _permission(obj, verb), _doing(obj, verb), via=via)
    with transaction.atomic(), audited(user, via):
        if verb == "change":
            _restamp(obj, renamed_only=True)
        obj.save()
        # A new one is shown by every page, and filed under by no document
        # yet: nothing derived from the documents changes.
        pages.everything_changed(record=verb == "change")
    return obj


def delete(*, objs, user, via=""):
    """Delete registries, topics, tags or the preface."""
    with transaction.atomic(), audited(user, via):
        for obj in objs:
            require(user, _permission(obj, "delete"), _doing(obj, "delete"), via=via)
            _restamp(obj)
            obj.delete()
        if any(isinstance(obj, Topic) for obj in objs):
            # Its documents are unfiled now, and their rows with them.
            rows.recount()
        pages.everything_changed()


def _restamp(obj, *, renamed_only=False):
    """A topic's or a tag's name is shown with every document filed under it
    or carrying it (the topic's slug names its OAI-PMH set): a change to it
    changes those documents as harvesters read them, so the time their row
    last changed, their records' datestamp, moves too. A change to anything
    else of it (a topic's scope, its place) moves nothing."""
    if isinstance(obj, Topic):
        documents = Document.objects.filter(topic=obj)
    elif isinstance(obj, Tag):
        documents = Document.objects.filter(tags=obj)
    else:
        return
    if renamed_only:
        stored = type(obj).objects.filter(pk=obj.pk).values("name", "slug").first()
        if stored == {"name": obj.name, "slug": obj.slug}:
            return
    documents.update(updated_at=timezone.now())


def tags_named(names):
    """``{name: tag}`` for each of ``names``: the tag with that name whatever
    its case, else the tag whose slug the name would take ("pipeline-
    parallelism" typed when "pipeline parallelism" is a tag), so that no
    write makes a second tag with the slug ``pipeline-parallelism_1``. A name
    no tag answers stands for a new tag, named as the first of ``names`` with
    its slug was typed (a ``str``, for taggit or the caller to make)."""
    slugs = {name: Tag().slugify(name) for name in names}
    found = (
        Tag.objects.annotate(lowered=Lower("name"))
        .filter(
            Q(lowered__in={name.lower() for name in names})
            | Q(slug__in={slug for slug in slugs.values() if slug})
        )
        .order_by("pk")
    )
    by_name, by_slug = {}, {}
    for tag in found:
        by_name.setdefault(tag.lowered, tag)
        by_slug.setdefault(tag.slug, tag)
    named = {}
    for name in names:
        # A slug of nothing (a name of punctuation alone) tells nothing apart.
        slug = slugs[name] or f"\0{name.lower()}"
        tag = by_name.get(name.lower()) or by_slug.get(slug)
        if tag is None:
            tag = by_slug[slug] = by_name[name.lower()] = name
        named[name] = tag
    return named


def recorded_tags(names):
    """The tags ``names`` stand for (``tags_named``), in order, each once."""
    tags = []
    for tag in tags_named(names).values():
        if tag not in tags:
            tags.append(tag)
    return tags


def recorded_tag_names(names):
    """The names the record holds for ``names``, in order, each once: a
    pending revision keeps its tags as names."""
    return [getattr(tag, "name", tag) for tag in recorded_tags(names)]


# Merging changes the tags of public documents as readers see them, at once.
MERGE_TAGS = "catalogue.publish_document"


def merge_tags(*, tags, into, user):
    """Fold ``tags`` into the tag named ``into`` (made if there is none, its
    case kept if there is; a tag whose slug it would take is it): every
    document and pending revision that had one of them has ``into`` instead,
    and the folded tags are deleted.

    A document that already had ``into`` keeps it; nothing else it has is
    touched; each document's change is its own audit entry. Returns the tag
    they were folded into and how many documents hold it now.
    """
    require(user, MERGE_TAGS, "merge tags")
    into = into.strip()
    if not into:
        raise ValidationError("Name the tag to keep.", code="tag_name_missing")
    with transaction.atomic(), audited(user):
        target = tags_named([into])[into]
        if isinstance(target, str):
            target = Tag.objects.create(name=target)
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


# A candidate topic made into a topic moves public documents at once, as a
# publisher's publication of a refiling does: the publishers decide, and the
# topic they make is only the candidate's (a name, a scope, last in order).
DECIDE_CANDIDATES = "catalogue.publish_document"


def make_topic_from_candidate(*, candidate, user, name, scope=""):
    """Turn the open ``candidate`` into a new topic named ``name`` (last in
    editorial order) and file each of its public members under it: each move
    is its own audit entry; the documents' pages, their old topics' and the
    index are expired. A member with a pending revision refuses the whole
    move, naming it: its editor's held topic would contradict the new one.
    Returns the topic."""
    require(user, DECIDE_CANDIDATES, "make a topic of a candidate")
    name = name.strip()
    if not name:
        raise ValidationError("Name the new topic.", code="topic_name_missing")
    with transaction.atomic(), audited(user):
        candidate = CandidateTopic.objects.select_for_update().get(pk=candidate.pk)
        if candidate.state != CandidateTopic.State.OPEN:
            raise ValidationError(
                f"The candidate “{candidate.name}” was already "
                f"{candidate.get_state_display().lower()}.",
                code="candidate_decided",
            )
        if Topic.objects.filter(name__iexact=name).exists():
            raise ValidationError(
                f"There is already a topic named “{name}”.", code="topic_name_taken"
            )
        documents = list(
            Document.objects.public()
            .filter(pk__in=candidate.members.values("document_id"))
            .select_related("registry", "topic")
            .select_for_update(of=("self",))
            .order_by("registry__prefix", "number")
        )
        held = [
            str(revision.document.identifier)
            for revision in Revision.objects.filter(
                document__in=documents, status=Revision.Status.PENDING
            ).select_related("document__registry")
        ]
        if held:
            raise ValidationError(
                f"{', '.join(sorted(held))} has a pending revision: publish or "
                "discard it first; nothing was moved.",
                code="candidate_member_held",
            )
        last = Topic.objects.aggregate(last=Max("position"))["last"] or 0
        topic = Topic(
            name=name, slug=_free_slug(name), scope=scope.strip(), position=last + 1
        )
        try:
            topic.clean_fields()
        except ValidationError as error:
            raise ValidationError(
                [
                    f"The topic's {field}: {message}"
                    for field, messages in error.message_dict.items()
                    for message in messages
                ],
                code="topic_refused",
            ) from None
        topic.save()
        for document in documents:
            before = pages.before_change(document)
            document.topic = topic
            document.save(update_fields=["topic", "updated_at"])
            pages.changed(document, before=before)
        candidate.state = CandidateTopic.State.MADE
        candidate.topic = topic
        candidate.decided_at = timezone.now()
        candidate.save(update_fields=["state", "topic", "decided_at"])
        # A new topic shows on the index and every topic page's list of topics.
        pages.everything_changed()
    return topic


def _free_slug(name):
    base = slugify(name)[:190] or "topic"
    slug, n = base, 1
    while Topic.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


def dismiss_candidate(*, candidate, user):
    """Dismiss the open ``candidate``: it is not offered again while its
    members stay the same."""
    require(user, DECIDE_CANDIDATES, "dismiss a candidate topic")
    with transaction.atomic():
        updated = (
            CandidateTopic.objects.open()
            .filter(pk=candidate.pk)
            .update(state=CandidateTopic.State.DISMISSED, decided_at=timezone.now())
        )
    if not updated:
        raise ValidationError(
            f"The candidate “{candidate.name}” was already decided.",
            code="candidate_decided",
        )

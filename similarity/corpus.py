"""The record's public text as ``compute`` reads it: the published title and
summary of every public document that is not withdrawn (a pending revision's
text is never read), its topic, its tags and the public documents it names.

Three queries, whatever the record's size.
"""

from django.contrib.contenttypes.models import ContentType
from taggit.models import TaggedItem

from catalogue.identifiers import permanent_form
from catalogue.models import RELATED_STATUSES, Document, Reference
from similarity.compute import Entry


def public_entries():
    """Every public, not withdrawn document as an ``Entry``, in pk order."""
    rows = list(
        Document.objects.filter(status__in=RELATED_STATUSES)
        .order_by("pk")
        .values_list("pk", "registry__prefix", "number", "topic_id", "title", "summary")
    )
    by_key = {(prefix, number): pk for pk, prefix, number, *_ in rows}
    tags = {}
    tagged = TaggedItem.objects.filter(
        content_type=ContentType.objects.get_for_model(Document),
        object_id__in=Document.objects.filter(status__in=RELATED_STATUSES).values("pk"),
    ).values_list("object_id", "tag_id")
    for pk, tag in tagged:
        tags.setdefault(pk, set()).add(tag)
    cites = {}
    named = Reference.objects.filter(
        document__status__in=RELATED_STATUSES, log__isnull=True
    ).values_list("document_id", "prefix", "number")
    for pk, prefix, number in named:
        target = by_key.get((prefix, number))
        if target is not None and target != pk:
            cites.setdefault(pk, set()).add(target)
    return _entries(rows, tags, cites)


def changed_entries(pks, known):
    """The documents ``pks`` that are public and not withdrawn, as ``Entry``
    objects in pk order, naming only the public documents among ``known``
    ({identifier: pk}) and themselves; three queries."""
    rows = list(
        Document.objects.filter(pk__in=list(pks), status__in=RELATED_STATUSES)
        .order_by("pk")
        .values_list("pk", "registry__prefix", "number", "topic_id", "title", "summary")
    )
    found = [pk for pk, *_ in rows]
    known = {
        **known,
        **{permanent_form(prefix, number): pk for pk, prefix, number, *_ in rows},
    }
    tags = {}
    tagged = TaggedItem.objects.filter(
        content_type=ContentType.objects.get_for_model(Document), object_id__in=found
    ).values_list("object_id", "tag_id")
    for pk, tag in tagged:
        tags.setdefault(pk, set()).add(tag)
    cites = {}
    named = Reference.objects.filter(document_id__in=found, log__isnull=True)
    for pk, prefix, number in named.values_list("document_id", "prefix", "number"):
        target = known.get(permanent_form(prefix, number))
        if target is not None and target != pk:
            cites.setdefault(pk, set()).add(target)
    return _entries(rows, tags, cites)


def _entries(rows, tags, cites):
    """``rows`` (pk, prefix, number, topic, title, summary) as ``Entry``
    objects with their ``tags`` and ``cites`` ({pk: set})."""
    return [
        Entry(
            pk=pk,
            identifier=permanent_form(prefix, number),
            topic=topic,
            text=f"{title}\n{summary}",
            tags=frozenset(tags.get(pk, ())),
            cites=frozenset(cites.get(pk, ())),
        )
        for pk, prefix, number, topic, title, summary in rows
    ]


def citing(identifiers):
    """{pk: identifiers it names} of the public, not withdrawn documents
    naming any of ``identifiers`` (their permanent form): one query per
    thousand."""
    wanted = {}
    for identifier in identifiers:
        prefix, number = identifier.rsplit("-", 1)
        wanted.setdefault(prefix, set()).add(int(number))
    found = {}
    for prefix, numbers in wanted.items():
        numbers = sorted(numbers)
        for start in range(0, len(numbers), 1000):
            named = Reference.objects.filter(
                document__status__in=RELATED_STATUSES,
                log__isnull=True,
                prefix=prefix,
                number__in=numbers[start : start + 1000],
            ).values_list("document_id", "prefix", "number")
            for pk, prefix_named, number in named:
                found.setdefault(pk, set()).add(permanent_form(prefix_named, number))
    return found

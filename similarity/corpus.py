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

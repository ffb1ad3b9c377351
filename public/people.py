"""What the people and venue pages show, read in a fixed number of queries
whatever a person's or a venue's number of documents: the index of people by
family name, a person's documents by topic with their co-authors, venues,
years and spellings, a venue's documents by year.

A person is shown only while a public document's text names them
(``Person.objects.public()``), and only public documents are counted or
listed: a draft's authors, co-authors and venue appear nowhere.
"""

from dataclasses import dataclass, field
from itertools import groupby

from django.core.paginator import InvalidPage, Paginator
from django.db.models import Count, F, IntegerField, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.http import Http404
from django.urls import reverse

from catalogue.models import PUBLIC_STATUSES, Authorship, Document, Person, Venue
from catalogue.names import display_name
from public.rows import ListedRow, document_rows

# An index page of 500 names is read at a glance and weighs little; a record
# of 100,000 people has 200 of them.
PEOPLE_PER_PAGE = 500
# A person's or a venue's documents, a page at a time: a prolific author's
# thousand documents are ten pages, each as costly as the first.
DOCUMENTS_PER_PAGE = 100
COAUTHORS_SHOWN = 40
SPELLINGS_SHOWN = 50
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
# The letter of names that open with a digit or a symbol.
OTHER = "#"


def document_count():
    """The number of public documents whose text names the person of the
    row, as an annotation."""
    positions = Authorship.objects.filter(
        person=OuterRef("pk"),
        version__isnull=True,
        document__status__in=PUBLIC_STATUSES,
    )
    return Coalesce(
        Subquery(
            positions.order_by()
            .values("person")
            .annotate(n=Count("document", distinct=True))
            .values("n"),
            output_field=IntegerField(),
        ),
        0,
    )


def public_people():
    """The people a reader may see, each with ``document_count``."""
    return Person.objects.public().annotate(document_count=document_count())


def page_of(queryset, number, count, per_page):
    """Page ``number`` of ``queryset``, whose length ``count`` is known
    already (no count query); Http404 for a page it does not have."""
    paginator = Paginator(queryset, per_page)
    # Paginator counts lazily: the count known is its count.
    paginator.count = count
    try:
        return paginator.page(number or 1)
    except InvalidPage as error:
        raise Http404(str(error)) from None


# The index of people


@dataclass
class Letter:
    """A letter of the index: ``page`` the page its first name is on."""

    letter: str
    count: int
    page: int

    @property
    def anchor(self):
        return "letter-other" if self.letter == OTHER else f"letter-{self.letter}"


def letters(people, per_page=PEOPLE_PER_PAGE):
    """``(total, [Letter])``: how many ``people`` there are and, for each
    letter their sort names open with, how many and on which page of the
    index (in ``sort_key`` order) the first is. One query.

    A letter's first place is the number of sort names the database orders
    before it, so the pages and the letters agree under any collation.
    """
    bounds = {
        letter: Count("pk", filter=Q(sort_key__lt=letter.lower())) for letter in LETTERS
    }
    counted = people.order_by().aggregate(total=Count("pk"), **bounds)
    total = counted["total"]
    starts = [(OTHER, 0), *((letter, counted[letter]) for letter in LETTERS)]
    found = []
    for (letter, start), (_, end) in zip(
        starts, [*starts[1:], (None, total)], strict=True
    ):
        if end > start:
            found.append(Letter(letter, end - start, start // per_page + 1))
    return total, found


@dataclass
class LetterGroup:
    letter: str
    anchor: str
    people: list = field(default_factory=list)


def letter_groups(people):
    """``people`` (in index order) under their letters' headings; a letter
    met again further down the page (a name the database orders apart from
    its letter) gets a heading without the letter's anchor."""
    groups, anchored = [], set()
    for letter, members in groupby(people, key=lambda person: person.index_letter):
        anchor = Letter(letter, 0, 0).anchor
        groups.append(
            LetterGroup(letter, "" if anchor in anchored else anchor, list(members))
        )
        anchored.add(anchor)
    return groups


# A list of documents in groups


@dataclass
class RowGroup:
    """A heading's documents: ``count`` of them in all, ``rows`` the HTML of
    those on this page."""

    name: str
    url: str
    count: int
    rows: str
    anchor: str = ""


def grouped_rows(rows, groups, key, *, topic_column=False):
    """The ``RowGroup``s of ``rows`` (ListedRows in the groups' order):
    ``groups`` maps ``key(row)`` to its group's (name, url, count)."""
    found = []
    for value, members in groupby(rows, key=key):
        name, url, count = groups[value]
        found.append(
            RowGroup(
                name,
                url,
                count,
                document_rows(list(members), topic_column=topic_column),
                anchor=f"group-{value or 'none'}",
            )
        )
    return found


# A person's page


def person_documents(person):
    """The public documents whose text names ``person``."""
    return Document.objects.public().by_person(person)


def topic_groups(documents):
    """``{topic slug: (name, url, count)}`` for ``documents``, in the
    topics' editorial order, unfiled (None) last. One query."""
    rows = (
        documents.order_by()
        .values_list("topic__slug", "topic__name", "topic__position")
        .annotate(n=Count("pk"))
    )
    ordered = sorted(rows, key=lambda row: (row[2] is None, row[2] or 0))
    unfiled = reverse("catalogue:unfiled")
    return {
        slug: (
            name or "Unfiled",
            reverse("catalogue:topic-detail", args=[slug]) if slug else unfiled,
            n,
        )
        for slug, name, _, n in ordered
    }


def in_topic_order(documents):
    """``documents`` as ListedRow values, by topic in editorial order (the
    unfiled last), then in number order."""
    return documents.order_by(
        F("topic__position").asc(nulls_last=True),
        "topic_id",
        "registry__prefix",
        "number",
    ).values_list(*ListedRow.FIELDS)


def year_counts(documents):
    """``[(year, n)]`` of ``documents``, oldest first. One query."""
    return list(documents.order_by("year").values_list("year").annotate(n=Count("pk")))


def spellings(person):
    """How the public documents write ``person``'s name, each spelling once,
    in alphabetical order: in their texts now and in their published
    versions. One query."""
    names = (
        Authorship.objects.filter(person=person, document__status__in=PUBLIC_STATUSES)
        .order_by()
        .values_list("name", flat=True)
        .distinct()[: SPELLINGS_SHOWN * 4]
    )
    return sorted({display_name(name) for name in names})[:SPELLINGS_SHOWN]


def coauthors(person, documents):
    """The other people ``documents`` (public ones naming ``person``) name,
    each with ``shared``, how many of them they share, most shared first;
    up to ``COAUTHORS_SHOWN`` and whether there are more. One query."""
    found = list(
        Person.objects.filter(
            authorships__version__isnull=True,
            authorships__document__in=documents.values("pk"),
        )
        .exclude(pk=person.pk)
        .annotate(shared=Count("authorships__document", distinct=True))
        .order_by("-shared", "sort_key", "slug")[: COAUTHORS_SHOWN + 1]
    )
    return found[:COAUTHORS_SHOWN], len(found) > COAUTHORS_SHOWN


def venues_of(documents):
    """The known venues of ``documents``, each with ``document_count``, most
    first. One query."""
    return list(
        Venue.objects.filter(listings__document__in=documents.values("pk"))
        .annotate(document_count=Count("listings", distinct=True))
        .order_by("-document_count", "name")
    )


def namesakes(person):
    """Other public people of ``person``'s display name, with their counts."""
    return list(
        public_people()
        .filter(display_name=person.display_name)
        .exclude(pk=person.pk)
        .order_by("slug")
    )


# A venue's page


def venue_documents(venue):
    return Document.objects.public().filter(venue_listing__venue=venue)


def newest_first(documents):
    """``documents`` as ListedRow values, newest year first, then in number
    order."""
    return documents.order_by("-year", "registry__prefix", "number").values_list(
        *ListedRow.FIELDS
    )


def row_year(row):
    return row.year


def venue_counts():
    """Every known venue with ``document_count``, its public documents (0
    for none), by name."""
    count = Subquery(
        Document.objects.public()
        .filter(venue_listing__venue=OuterRef("pk"))
        .order_by()
        .values("venue_listing__venue")
        .annotate(n=Count("pk"))
        .values("n"),
        output_field=IntegerField(),
    )
    return Venue.objects.annotate(document_count=Coalesce(count, 0)).order_by("name")

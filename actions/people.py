"""People: each author position linked to a person, and the editors' verbs.

Linking (``link_documents``, ``link_record``) reads each author position of
a document (its author list, else its citation's names) and of each of its
versions, and links it to a person, never guessing silently:

- a position whose name carries an ORCID iD a person holds is that person;
- a person already named by the same spelling (``catalogue.names.name_key``)
  is linked when there is evidence: a co-author, a topic or a venue the
  position's document shares with one of that person's documents;
- the same spelling with no evidence makes a new person, and beside it a
  *proposal* on the editors' desk that the two are one;
- a variant spelling (``Y. Liu`` for ``Yang Liu``) with evidence makes a new
  person and a proposal too, never a link;
- anything else makes a new person.

A position whose name is unchanged keeps its person, so an editor's merges
and splits survive every later import; so does one whose name is spelled
out further (``Chen`` filled in as ``Tianqi Chen``).

Linking is derived from the text, so it runs inside the action that changed
the text and is audited with it: a new person or proposal gets its audit
entry in the same transaction.

The editors' verbs (``merge_people``, ``split_person``, ``edit_person``,
``accept_proposal``, ``reject_proposal``) each check the actor's permission,
run in one transaction, are audited, and expire the pages that show the
people through the outbox. A person's former address is kept as a
``PersonAddress``: it answers 301 to the one person it now names, or lists
the people a split name names.
"""

import re
from collections import defaultdict
from dataclasses import dataclass, field

from auditlog.cid import get_cid
from auditlog.context import auditlog_disabled, auditlog_value
from auditlog.diff import model_instance_diff
from auditlog.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Q, prefetch_related_objects
from django.db.models.base import ModelState
from django.utils import timezone
from django.utils.text import slugify

from actions import pages
from actions.staging import Staging
from actions.steps import _listening, audited, require
from catalogue.identifiers import permanent_form
from catalogue.lookups import AnyOf
from catalogue.models import (
    Authorship,
    Document,
    DocumentVenue,
    DocumentVersion,
    Person,
    PersonAddress,
    PersonProposal,
    PersonState,
    ProposalStatus,
    Venue,
)
from catalogue.names import (
    are_variants,
    display_name,
    family_of,
    fold,
    is_fuller,
    name_key,
)
from catalogue.orcid import normalise_orcid, validate_orcid
from catalogue.venues import named_venue

__all__ = [
    "accept_proposal",
    "edit_person",
    "link_documents",
    "link_record",
    "merge_people",
    "reject_proposal",
    "split_person",
]

MERGE = ("catalogue.merge_person", "merge and split people")
CHANGE = ("catalogue.change_person", "change people")

# Why a proposal names a person of the same name with no evidence.
NO_EVIDENCE = "the same name, and no co-author, topic or venue in common"

# Documents read and linked at a time by ``link_record``.
CHUNK = 2000


@dataclass
class _Known:
    """What the linker knows of one person: the spellings and families their
    positions show, their co-authors' families, topics, venues, and one
    document of theirs to name in a proposal."""

    pk: int
    name: dict
    keys: set = field(default_factory=set)
    coauthors: set = field(default_factory=set)
    topics: set = field(default_factory=set)
    venues: set = field(default_factory=set)
    example: str = ""


class PeopleIndex:
    """The people the linker may link to, loaded for the families it meets
    (or all of them), and kept up to date as it links."""

    def __init__(self):
        self.people = {}
        self.by_key = defaultdict(list)
        self.by_family = defaultdict(list)
        self.by_orcid = {}
        self.slugs = set()
        self.slugs_read = set()
        self.loaded_families = set()
        self.everything = False

    @classmethod
    def of_everyone(cls):
        index = cls()
        index._load(Authorship.objects.filter(version__isnull=True), Person.objects)
        index.slugs = set(Person.objects.values_list("slug", flat=True))
        index.slugs |= set(PersonAddress.objects.values_list("slug", flat=True))
        index.everything = True
        return index

    def need(self, families):
        """Load the people whose positions show any of ``families``."""
        if self.everything:
            return
        families = set(families) - self.loaded_families
        if not families:
            return
        self.loaded_families |= families
        documents = Authorship.objects.filter(
            version__isnull=True, family__in=families
        ).values("document")
        # Every document naming a person already known was read with the
        # family that made them known.
        persons = Person.objects.filter(authorships__family__in=families).distinct()
        self._load(
            Authorship.objects.filter(version__isnull=True, document__in=documents),
            persons,
        )

    def _load(self, authorships, persons):
        for pk, name, orcid in persons.values_list("pk", "name", "orcid"):
            self._person(pk, name, orcid)
        rows = authorships.values_list(
            "document",
            "person",
            "key",
            "family",
            "document__topic",
            "document__venue_listing__venue",
            "document__registry__prefix",
            "document__number",
        ).order_by("document", "position")
        by_document = defaultdict(list)
        for row in rows:
            by_document[row[0]].append(row)
        for positions in by_document.values():
            families = [row[3] for row in positions]
            for _, person, key, family, topic, venue, prefix, number in positions:
                known = self.people.get(person)
                if known is None:
                    continue
                self._add_key(known, key, family)
                known.coauthors.update(f for f in families if f != family)
                if topic:
                    known.topics.add(topic)
                if venue:
                    known.venues.add(venue)
                known.example = known.example or permanent_form(prefix, number)

    def _person(self, pk, name, orcid=""):
        known = self.people.get(pk)
        if known is None:
            known = self.people[pk] = _Known(pk, name)
            self._add_key(known, name_key(name), family_of(name))
            if orcid:
                self.by_orcid[orcid] = pk
        return known

    def _add_key(self, known, key, family):
        if key not in known.keys:
            known.keys.add(key)
            self.by_key[key].append(known.pk)
            if known.pk not in self.by_family[family]:
                self.by_family[family].append(known.pk)

    def rekey(self, real):
        """Give the people known by stand-in pks their real ones."""
        if not real:
            return
        for stand_in, pk in real.items():
            known = self.people.pop(stand_in)
            known.pk = pk
            self.people[pk] = known
        for table in (self.by_key, self.by_family):
            for pks in table.values():
                pks[:] = [real.get(pk, pk) for pk in pks]
        self.by_orcid = {orcid: real.get(pk, pk) for orcid, pk in self.by_orcid.items()}

    def forget(self, pks):
        """The people ``pks`` are gone."""
        for pk in pks:
            known = self.people.pop(pk, None)
            if known is None:
                continue
            for table in (self.by_key, self.by_family):
                for listed in table.values():
                    if pk in listed:
                        listed.remove(pk)
            self.by_orcid = {o: p for o, p in self.by_orcid.items() if p != pk}

    def know_slugs(self, bases):
        """Read the slugs taken among ``bases`` and, for a base taken, its
        namesakes' (``base-2``, ``base-edinburgh``): one query each of people
        and former addresses, and one more for the bases found taken."""
        bases = sorted(set(bases) - self.slugs_read)
        if self.everything or not bases:
            return
        self.slugs_read.update(bases)
        taken = set()
        for model in (Person, PersonAddress):
            taken.update(
                model.objects.filter(slug__in=bases).values_list("slug", flat=True)
            )
        self.slugs |= taken
        taken = sorted(taken)
        for start in range(0, len(taken), 200):
            pattern = "|".join(re.escape(base) for base in taken[start : start + 200])
            for model in (Person, PersonAddress):
                self.slugs.update(
                    model.objects.filter(slug__regex=f"^({pattern})-").values_list(
                        "slug", flat=True
                    )
                )

    def free_slug(self, name, affiliation=""):
        """A slug for a new person called ``name``: ``yang-liu``, else
        ``yang-liu-<affiliation>``, else ``yang-liu-2``, ``yang-liu-3``…"""
        base = slug_base(name)
        choices = [base]
        if affiliation:
            choices.append(f"{base}-{slugify(fold(affiliation))}"[:190].strip("-"))
        self.know_slugs([base])
        for slug in choices:
            if slug not in self.slugs:
                self.slugs.add(slug)
                return slug
        number = 2
        while f"{base}-{number}" in self.slugs:
            number += 1
        self.slugs.add(f"{base}-{number}")
        return f"{base}-{number}"


def slug_base(name):
    """The slug a person called ``name`` takes unless a namesake has it."""
    return slugify(fold(display_name(name)))[:180].strip("-") or "person"


@dataclass
class _Position:
    document: Document
    version_id: int | None
    position: int
    name: dict
    key: str = ""
    family: str = ""

    def __post_init__(self):
        self.key, self.family = name_key(self.name), family_of(self.name)


def positions_of(document):
    """The author positions of ``document``'s text, as CSL names."""
    authors, _ = document.known_authors
    return [dict(author) for author in authors]


def _orcid_of(name):
    """The ORCID iD a name carries (CSL-JSON as Crossref writes it), if it
    is one; else ""."""
    orcid = normalise_orcid(str(name.get("ORCID", "")))
    try:
        validate_orcid(orcid)
    except ValidationError:
        return ""
    return orcid


def _evidence(index, person_pk, document, families):
    """Why ``document``'s position may be the person ``person_pk``: a shared
    co-author, topic or venue, as words; "" for none."""
    known = index.people[person_pk]
    shared = sorted(known.coauthors & families)
    if shared:
        return f"shared co-author {shared[0].title()}"
    if document.topic_id and document.topic_id in known.topics:
        return f"shared topic {document.topic}"
    venue = document.listed_venue
    if venue is not None and venue.pk in known.venues:
        return f"shared venue {venue}"
    return ""


class Linker:
    """Links positions to people, collecting what it makes for one write."""

    def __init__(self, index=None, *, user=None, via=""):
        self.index = index or PeopleIndex()
        self.user = user
        self.via = via
        self.new_people = []
        self.new_authorships = []
        self.new_proposals = []  # (authorship, candidate pk, reason)
        self.renamed = []  # positions whose spelling changed, not their key
        self.stale = []  # pks of positions whose name changed
        self.released = set()  # the people of those positions
        # (person pk, document pk, name): a position's name spelled out further
        self.spelled_out = []

    def link(self, document, versions=(), current=None):
        """Link ``document``'s positions and those of ``versions`` (its
        versions with no positions linked yet); ``current``: its positions
        linked now, by position."""
        names = positions_of(document)
        self.index.need({family_of(name) for name in names})
        kept = {}
        for position, authorship in (current or {}).items():
            name = names[position] if position < len(names) else None
            if name is not None and name_key(name) == authorship.key:
                if authorship.name != name:
                    authorship.name = name
                    self.renamed.append(authorship)
                kept[position] = authorship.person_id
            elif name is not None and are_variants(name, authorship.name):
                # The same author, spelled out further (``Chen`` filled in
                # as ``Tianqi Chen``) or shorter: the position keeps its
                # person, and a person known by this document alone takes
                # the fuller spelling.
                if is_fuller(name, authorship.name):
                    self.spelled_out.append((authorship.person_id, document.pk, name))
                authorship.name, authorship.key = name, name_key(name)
                authorship.family = family_of(name)
                self.renamed.append(authorship)
                known = self.index.people.get(authorship.person_id)
                if known is not None:
                    self.index._add_key(known, authorship.key, authorship.family)
                kept[position] = authorship.person_id
            else:
                self.stale.append(authorship.pk)
                self.released.add(authorship.person_id)
        families = {family_of(name) for name in names}
        by_key = {name_key(names[position]): pk for position, pk in kept.items()}
        for position, name in enumerate(names):
            if position in kept:
                continue
            spot = _Position(document, None, position, name)
            authorship = self._link_one(spot, families - {spot.family})
            by_key.setdefault(spot.key, authorship.person_id)
        for version in versions:
            for position, name in enumerate(version.known_authors[0]):
                spot = _Position(document, version.pk, position, dict(name))
                person = by_key.get(spot.key)
                if person is not None:
                    self._add_authorship(spot, person)
                else:
                    self._link_one(spot, families - {spot.family})

    def _link_one(self, spot, families):
        index, document = self.index, spot.document
        orcid = _orcid_of(spot.name)
        if orcid and orcid in index.by_orcid:
            return self._add_authorship(spot, index.by_orcid[orcid])
        same = index.by_key.get(spot.key, [])
        evidenced = [
            (pk, why)
            for pk in same
            if (why := _evidence(index, pk, document, families))
        ]
        if evidenced:
            return self._add_authorship(spot, evidenced[0][0], families)
        person = self._new_person(spot.name)
        authorship = self._add_authorship(spot, person, families)
        if spot.version_id is not None:
            return authorship
        if same:
            self._propose(authorship, document, same[0], NO_EVIDENCE)
            return authorship
        for pk in index.by_family.get(spot.family, []):
            known = index.people[pk]
            if pk == person or not are_variants(spot.name, known.name):
                continue
            if why := _evidence(index, pk, document, families):
                self._propose(authorship, document, pk, why)
                break
        return authorship

    def _new_person(self, name):
        """A new inferred person called ``name``, known by a stand-in pk (a
        negative number) until ``write`` inserts them all at once."""
        orcid = _orcid_of(name)
        if orcid in self.index.by_orcid:
            orcid = ""
        # An iD the source gives is kept, not vouched for: an editor verifies.
        person = Person(name=name, state=PersonState.INFERRED, orcid=orcid)
        stand_in = -(len(self.new_people) + 1)
        self.new_people.append(person)
        self.index._person(stand_in, name, orcid)
        return stand_in

    def _add_authorship(self, spot, person_pk, families=()):
        authorship = _unsaved(
            Authorship,
            document_id=spot.document.pk,
            version_id=spot.version_id,
            position=spot.position,
            name=spot.name,
            key=spot.key,
            family=spot.family,
            person_id=person_pk,
        )
        self.new_authorships.append(authorship)
        if spot.version_id is None:
            known = self.index.people[person_pk]
            self.index._add_key(known, spot.key, spot.family)
            known.coauthors |= set(families)
            if spot.document.topic_id:
                known.topics.add(spot.document.topic_id)
            if spot.document.listed_venue is not None:
                known.venues.add(spot.document.listed_venue.pk)
            known.example = known.example or str(spot.document.identifier)
        return authorship

    def _spell_out(self):
        """An inferred person whose every position is in the one document
        whose name was spelled out further takes that spelling."""
        if not self.spelled_out:
            return
        persons = {pk for pk, _, _ in self.spelled_out}
        elsewhere = set(
            Authorship.objects.filter(person__in=persons, version__isnull=True)
            .exclude(document__in={pk for _, pk, _ in self.spelled_out})
            .values_list("person", flat=True)
        )
        for person in Person.objects.filter(
            pk__in=persons - elsewhere, state=PersonState.INFERRED
        ):
            name = next(name for pk, _, name in self.spelled_out if pk == person.pk)
            person.name = name
            person.save()
        self.spelled_out = []

    def _propose(self, authorship, document, candidate_pk, why):
        known = self.index.people[candidate_pk]
        reason = (
            f"{display_name(authorship.name)} in {document.identifier} may be "
            f"{display_name(known.name)} of {known.example}: {why}"
        )
        self.new_proposals.append((authorship, candidate_pk, reason[:500]))

    def write(self):
        """Write what linking made: the people, their positions, then the
        proposals, with the audit entries of the people and proposals."""
        if self.stale:
            Authorship.objects.filter(pk__in=self.stale).delete()
        Authorship.objects.bulk_update(
            self.renamed, ["name", "key", "family"], batch_size=2000
        )
        self._spell_out()
        # COPY on PostgreSQL (``Staging``): a whole record's positions at once.
        staging = Staging()
        self.index.know_slugs(slug_base(person.name) for person in self.new_people)
        for person in self.new_people:
            person.slug = self.index.free_slug(person.name)
            person.derive_names()
        staging.insert(Person, self.new_people)
        real = {-(n + 1): person.pk for n, person in enumerate(self.new_people)}
        self.index.rekey(real)
        for authorship in self.new_authorships:
            authorship.person_id = real.get(authorship.person_id, authorship.person_id)
        staging.insert(Authorship, self.new_authorships)
        proposals = [
            PersonProposal(
                authorship=authorship, candidate_id=real.get(pk, pk), reason=reason
            )
            for authorship, pk, reason in self.new_proposals
        ]
        staging.insert(PersonProposal, proposals)
        staging.append(
            LogEntry,
            _created_entries(self.new_people, self.user, self.via)
            + _created_entries(proposals, self.user, self.via),
        )
        staging.switch()
        made = len(self.new_people)
        self.new_people, self.new_authorships, self.new_proposals = [], [], []
        self.renamed, self.stale = [], []
        return made, proposals


def _created_entries(objects, user, via):
    """The audit entries saving ``objects`` one by one would have logged,
    unsaved: every field the save set, from nothing to its value."""
    if not objects or auditlog_disabled.get():
        return []
    model = type(objects[0])
    content_type = ContentType.objects.get_for_model(model)
    cid = get_cid()
    now = timezone.now()
    # A bulk insert sends no signal: the attribution in force (a request's
    # user, an action's) is read here, as auditlog's receiver would.
    attributed = auditlog_value.get(None) or {}
    if attributed and not _listening(attributed.get("signal_duid")):
        attributed = {}  # a request's attribution, left behind when it ended
    if not getattr(user, "is_authenticated", False):
        user = attributed.get("actor")
    if not getattr(user, "is_authenticated", False):
        user = None
    extra = attributed.get("additional_data") or ({"via": via} if via else None)
    written = [
        column
        for column in model._meta.concrete_fields
        if not column.primary_key and column.name not in {"created_at", "updated_at"}
    ]
    entries = []
    for obj in objects:
        changes = {}
        for column in written:
            value = getattr(obj, column.attname)
            if value not in (None, ""):
                changes[column.name] = [
                    "None",
                    value if isinstance(value, dict | list) else str(value),
                ]
        entries.append(
            _unsaved(
                LogEntry,
                content_type_id=content_type.pk,
                object_pk=str(obj.pk),
                object_id=obj.pk,
                object_repr=str(obj)[:2000],
                action=LogEntry.Action.CREATE,
                changes=changes,
                actor_id=getattr(user, "pk", None),
                actor_email=getattr(user, "email", None),
                cid=cid,
                additional_data=extra,
                timestamp=now,
            )
        )
    return entries


def _list_venues(documents, venues, *, new=False):
    """Give each of ``documents`` its known venue (``listed_venue``), read
    from its venue and citation as imports read them (``catalogue.venues``),
    and keep it as its ``DocumentVenue``. ``new``: the documents were just
    written, with none yet."""
    by_name = {fold(venue.name): venue for venue in venues}
    by_name |= {fold(venue.full_name): venue for venue in venues if venue.full_name}
    listed = {}
    if not new:
        listed = dict(
            DocumentVenue.objects.filter(document__in=documents).values_list(
                "document", "venue"
            )
        )
    gone, new = [], []
    for document in documents:
        venue = by_name.get(fold(document.venue)) if document.venue else None
        if venue is None:
            venue, _ = named_venue(
                document.source_identifier, document.citation_note, venues
            )
        document.listed_venue = venue
        if listed.get(document.pk) != (venue.pk if venue else None):
            if document.pk in listed:
                gone.append(document.pk)
            if venue is not None:
                new.append(DocumentVenue(document_id=document.pk, venue=venue))
    if gone:
        DocumentVenue.objects.filter(document__in=gone).delete()
    DocumentVenue.objects.bulk_create(new, batch_size=2000)


def _link_chunk(documents, linker, venues, *, new=False, versions=None):
    """Link ``documents`` (read with their registry, topic and known venue)
    through ``linker``; returns ``(people made, proposals)``. ``new``: the
    documents were just written: none has a position or a venue linked yet.
    ``versions``: their versions with no positions linked, by document, as
    written with them; None: read here."""
    _list_venues(documents, venues, new=new)
    current = defaultdict(dict)
    positions = Authorship.objects.filter(document__in=documents, version__isnull=True)
    for authorship in () if new else positions:
        current[authorship.document_id][authorship.position] = authorship
    unlinked = versions
    if unlinked is None:
        unlinked = defaultdict(list)
        read = DocumentVersion.objects.filter(
            AnyOf(F("document"), [document.pk for document in documents])
        ).only("document", "authors", "author_list")
        for version in read.exclude(authorships__isnull=False):
            unlinked[version.document_id].append(version)
    for document in documents:
        linker.link(
            document, unlinked.get(document.pk, ()), current.get(document.pk, {})
        )
    return linker.write()


# What linking reads of a document.
READ_FIELDS = [
    "registry__prefix",
    "number",
    "topic__name",
    "authors",
    "author_list",
    "venue",
    "source_identifier",
    "citation_note",
]


def _read(pks):
    return list(
        Document.objects.filter(AnyOf(F("pk"), pks))
        .select_related("registry", "topic")
        .only(*READ_FIELDS)
        .order_by("registry__prefix", "number")
    )


def _in_order(documents):
    """``documents`` with their registry and topic (one query each for all
    not yet at hand), in the order ``_read`` reads them."""
    prefetch_related_objects(documents, "registry", "topic")
    return sorted(
        documents, key=lambda document: (document.registry.prefix, document.number)
    )


def _unsaved(model, **values):
    """An unsaved ``model`` instance holding ``values`` (attribute names):
    made as unpickling makes one, without ``Model.__init__``, for the
    thousands of rows one link writes. Fields not given take their
    defaults."""
    instance = model.__new__(model)
    for column in model._meta.concrete_fields:
        if column.attname not in values:
            values[column.attname] = column.get_default()
    instance.__dict__.update(values)
    instance._state = ModelState()
    return instance


def link_documents(
    documents, *, user=None, via="", index=None, new=False, versions=None
):
    """Link the author positions of ``documents`` (and of their versions not
    linked yet) to people, and each to its known venue. Runs inside the
    caller's transaction, as part of the action that changed them; returns
    the proposals it made. ``index``: the people a bulk write has read for
    its earlier batches, kept for the next. ``new``: the documents were
    just written (a bulk write's new rows, as it holds them, every field
    set), so none is linked yet and they are not read again; nor are their
    ``versions``, when given: every version written with them."""
    documents = [document for document in documents if document.pk]
    if not documents:
        return []
    by_document = None
    if new and versions is not None:
        by_document = defaultdict(list)
        for version in versions:
            by_document[version.document_id].append(version)
    with transaction.atomic(), audited(user, via):
        linker = Linker(index, user=user, via=via)
        venues = list(Venue.objects.all())
        proposals = []
        for start in range(0, len(documents), CHUNK):
            chunk = documents[start : start + CHUNK]
            chunk = _in_order(chunk) if new else _read([d.pk for d in chunk])
            _, made = _link_chunk(chunk, linker, venues, new=new, versions=by_document)
            proposals += made
        _forget_unnamed(linker.index, linker.released)
    return proposals


def _forget_unnamed(index, released=None):
    """Delete the people the record inferred that no position names any more
    (an edit changed the name they were made for), and from ``index``:
    among ``released``, the people of the positions linking let go, or
    anyone, when None."""
    if released is not None and not released:
        return
    unnamed = Person.objects.filter(
        state=PersonState.INFERRED, authorships__isnull=True
    ).exclude(former_addresses__isnull=False)
    if released is not None:
        unnamed = unnamed.filter(pk__in=released)
    pks = list(unnamed.values_list("pk", flat=True))
    if pks:
        Person.objects.filter(pk__in=pks).delete()
        index.forget(pks)


def link_record(*, via="link_people", chunk=CHUNK):
    """Link every document of the record, in number order, a chunk at a
    time; returns ``(documents, people made, proposals made)``."""
    index = PeopleIndex.of_everyone()
    made = proposals = 0
    pks = list(
        Document.objects.order_by("registry__prefix", "number").values_list(
            "pk", flat=True
        )
    )
    venues = list(Venue.objects.all())
    with transaction.atomic(), audited(None, via):
        linker = Linker(index, via=via)
        for start in range(0, len(pks), chunk):
            people, made_proposals = _link_chunk(
                _read(pks[start : start + chunk]), linker, venues
            )
            made += people
            proposals += len(made_proposals)
        _forget_unnamed(index)
        pages.everything_changed(record=False)
    return len(pks), made, proposals


# The editors' verbs


def _pages_of(persons, documents=()):
    """Expire what shows ``persons``: the people pages and the lists (under
    ``lists``), and the pages of ``documents`` that name them."""
    pages.people_changed(persons, documents)


def _record_orcids(documents):
    """The ORCID iDs the records of ``documents`` give (OAI-PMH's MODS), as
    (document pk, position, iD): those of the verified people their text
    names."""
    return set(
        Authorship.objects.filter(
            document__in=documents,
            version__isnull=True,
            person__state=PersonState.VERIFIED,
        )
        .exclude(person__orcid="")
        .values_list("document_id", "position", "person__orcid")
    )


def _restamp(documents, before):
    """A document whose record gives other ORCID iDs than ``before`` (its
    ``_record_orcids`` then) has changed as harvesters read it: the time its
    row last changed, its record's datestamp, moves."""
    changed = {pk for pk, _, _ in before ^ _record_orcids(documents)}
    if changed:
        Document.objects.filter(pk__in=changed).update(updated_at=timezone.now())


def _documents_of(*persons):
    return list(
        Document.objects.filter(authorships__person__in=persons)
        .select_related("registry")
        .distinct()
    )


def _keep_address(slug, persons):
    """``slug`` now names ``persons``: a redirect for one, a list for more."""
    address, _ = PersonAddress.objects.get_or_create(slug=slug)
    address.persons.set(persons)
    return address


def _readdress(source, target):
    """Addresses naming ``source`` name ``target`` instead."""
    for address in PersonAddress.objects.filter(persons=source):
        address.persons.remove(source)
        address.persons.add(target)


def merge_people(*, source, target, user, via=""):
    """Merge ``source`` into ``target``: every position of ``source`` becomes
    ``target``'s, its address answers 301 to ``target``'s, and ``source`` is
    gone. ``target`` keeps its name and ORCID iD, and takes ``source``'s iD,
    affiliation and homepage when it has none."""
    require(user, *MERGE, via=via)
    with transaction.atomic(), audited(user, via):
        source = Person.objects.select_for_update().get(pk=source.pk)
        target = Person.objects.select_for_update().get(pk=target.pk)
        if source.pk == target.pk:
            raise ValidationError("A person cannot be merged into themself.")
        if source.orcid and target.orcid and source.orcid != target.orcid:
            raise ValidationError(
                f"{source} ({source.orcid}) and {target} ({target.orcid}) hold "
                "different ORCID iDs: they are two people.",
                code="different_orcids",
            )
        documents = _documents_of(source, target)
        orcids = _record_orcids(documents)
        Authorship.objects.filter(person=source).update(person=target)
        # A proposal that the two are one is decided by the merge itself.
        PersonProposal.objects.filter(
            Q(authorship__person=target, candidate=target)
        ).filter(status=ProposalStatus.OPEN).update(
            status=ProposalStatus.ACCEPTED,
            decided_at=timezone.now(),
            decided_by=user if getattr(user, "is_authenticated", False) else None,
        )
        PersonProposal.objects.filter(candidate=source).update(candidate=target)
        PersonProposal.objects.filter(
            authorship__person=target, candidate=target
        ).exclude(status=ProposalStatus.ACCEPTED).delete()
        before = Person.objects.get(pk=target.pk)
        for name in ["orcid", "affiliation", "homepage"]:
            if not getattr(target, name) and getattr(source, name):
                setattr(target, name, getattr(source, name))
        if target.state == PersonState.INFERRED:
            target.state = PersonState.ASSERTED
        slug = source.slug
        _readdress(source, target)
        source.delete()
        if model_instance_diff(before, target):
            target.save()
        _keep_address(slug, [target])
        _restamp(documents, orcids)
        _pages_of([target], documents)
    return target


def split_person(*, person, groups, user, via=""):
    """Split ``person`` into one person per group of their positions.

    ``groups`` is a list of at least two lists of ``Authorship`` pks, which
    between them hold every position of ``person``, each once. Each group
    becomes a new person of the same name, with a slug of its own
    (``yang-liu-2``, or ``yang-liu-<affiliation>`` when a group is given as
    ``(pks, affiliation)``); the old address lists them all. The new people
    are asserted: an editor told them apart. Returns them, in order.
    """
    require(user, *MERGE, via=via)
    with transaction.atomic(), audited(user, via):
        person = Person.objects.select_for_update().get(pk=person.pk)
        groups = [
            (list(group), "") if not isinstance(group, tuple) else group
            for group in groups
        ]
        if len(groups) < 2 or any(not pks for pks, _ in groups):
            raise ValidationError(
                "A split needs at least two groups of positions, none empty.",
                code="split_groups",
            )
        held = set(person.authorships.values_list("pk", flat=True))
        given = [int(pk) for pks, _ in groups for pk in pks]
        if len(given) != len(set(given)) or set(given) != held:
            raise ValidationError(
                f"Every position of {person} goes to exactly one of the new people.",
                code="split_positions",
            )
        documents = _documents_of(person)
        orcids = _record_orcids(documents)
        index = PeopleIndex()
        index.slugs.add(person.slug)
        made = []
        for number, (pks, affiliation) in enumerate(groups):
            new = Person(
                name=person.name,
                slug=index.free_slug(person.name, affiliation),
                affiliation=affiliation,
                homepage=person.homepage if number == 0 else "",
                state=PersonState.ASSERTED,
            )
            new.save()
            Authorship.objects.filter(pk__in=pks).update(person=new)
            made.append(new)
        PersonProposal.objects.filter(candidate=person).delete()
        slug = person.slug
        for address in PersonAddress.objects.filter(persons=person):
            address.persons.remove(person)
            address.persons.add(*made)
        person.delete()
        _keep_address(slug, made)
        _restamp(documents, orcids)
        _pages_of(made, documents)
    return made


PERSON_FIELDS = ["name", "slug", "orcid", "affiliation", "homepage", "state"]


def edit_person(*, person, user, changes, via=""):
    """Change a person's name, slug, ORCID iD, affiliation, homepage or
    state. A new slug keeps the old one as a redirect; ``verified`` needs an
    ORCID iD, which an editor confirms by setting it."""
    unknown = set(changes) - set(PERSON_FIELDS)
    if unknown:
        raise ValueError(f"not editable: {', '.join(sorted(unknown))}")
    require(user, *CHANGE, via=via)
    with transaction.atomic(), audited(user, via):
        person = Person.objects.select_for_update().get(pk=person.pk)
        old_slug, old_name = person.slug, person.name
        documents = _documents_of(person)
        orcids = _record_orcids(documents)
        for name, value in changes.items():
            if name == "orcid":
                value = normalise_orcid(value) if value else ""
                if value:
                    validate_orcid(value)
                holder = Person.objects.filter(orcid=value).exclude(pk=person.pk)
                if value and (holder := holder.first()) is not None:
                    raise ValidationError(
                        {
                            "orcid": f"{holder} (/people/{holder.slug}/) holds this "
                            "ORCID iD: merge the two instead."
                        },
                        code="orcid_held",
                    )
            setattr(person, name, value)
        if person.state == PersonState.VERIFIED and not person.orcid:
            raise ValidationError(
                {"state": "Only a person with an ORCID iD can be verified."}
            )
        # A slug made from the old name follows a new one, unless the editor
        # chose another; the old one is kept as an address.
        if (
            person.slug == old_slug
            and slug_base(person.name) != slug_base(old_name)
            and re.fullmatch(rf"{re.escape(slug_base(old_name))}(-.+)?", old_slug)
        ):
            person.slug = PeopleIndex().free_slug(person.name, person.affiliation)
        if person.slug != old_slug:
            if (
                PersonAddress.objects.filter(slug=person.slug)
                .exclude(persons=person)
                .exists()
            ):
                raise ValidationError(
                    {"slug": f"/people/{person.slug}/ was another person's address."}
                )
            PersonAddress.objects.filter(slug=person.slug).delete()
        person.full_clean()
        person.save()
        if person.slug != old_slug:
            _keep_address(old_slug, [person])
        _restamp(documents, orcids)
        _pages_of([person], documents)
    return person


def accept_proposal(*, proposal, user, via=""):
    """Accept that the position's person is the candidate: the two merge
    into the candidate."""
    require(user, *MERGE, via=via)
    with transaction.atomic(), audited(user, via):
        proposal = PersonProposal.objects.select_for_update().get(pk=proposal.pk)
        _open(proposal)
        source = proposal.authorship.person
        target = proposal.candidate
        proposal.status = ProposalStatus.ACCEPTED
        proposal.decided_at = timezone.now()
        proposal.decided_by = user
        proposal.save()
        if source.pk != target.pk:
            merge_people(source=source, target=target, user=user, via=via)
    return proposal


def reject_proposal(*, proposal, user, via=""):
    """Reject the proposal: the two stay two people, and the pair is never
    proposed again."""
    require(user, *MERGE, via=via)
    with transaction.atomic(), audited(user, via):
        proposal = PersonProposal.objects.select_for_update().get(pk=proposal.pk)
        _open(proposal)
        proposal.status = ProposalStatus.REJECTED
        proposal.decided_at = timezone.now()
        proposal.decided_by = user
        proposal.save()
    return proposal


def _open(proposal):
    if proposal.status != ProposalStatus.OPEN:
        raise ValidationError(
            f"The proposal is already {proposal.get_status_display().lower()}.",
            code="proposal_decided",
        )

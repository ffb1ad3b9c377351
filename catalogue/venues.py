"""A citation's venue and publication type, read from what it already says.

A citation that names a known venue with its year (``OSDI ‘20``, ``FAST ‘21``,
``(SoCC ‘25)``, ``— CoCoNet (ASPLOS 2022)``) was published there, and is of
the venue's kind; one whose DOI falls under a known venue's DOI prefix
(``10.1109/TAC.``) was published in that venue; one with only an arXiv
identifier is a preprint. Anything else is left unknown, for an editor or
``enrich_metadata`` to fill.
"""

import functools
import re

from catalogue.citations import identifier_value
from catalogue.models import PublicationType

# A venue's year as citations write it: ‘20, '20, ’20 or 2020.
YEAR = r"\s*(?:[‘’']\d{2}|\d{4})"


@functools.lru_cache(maxsize=1024)
def venue_mention(name):
    """The pattern of ``name`` followed by its year, as a whole word (made
    once a name: an import reads every row's citation against every venue)."""
    return re.compile(rf"(?<![\w-]){re.escape(name)}{YEAR}(?![\w-])")


def named_venue(identifier, note, venues):
    """``(Venue, as the citation names it)``: the one of ``venues`` (known
    ``Venue`` rows) a citation with ``identifier`` and ``note`` was published
    in, by its note's venue and year, else its DOI's prefix; ``(None, "")``
    when it names none."""
    # A venue is named with its year: an empty note names none.
    for venue in sorted(venues, key=lambda venue: -len(venue.name)) if note else ():
        if match := venue_mention(venue.name).search(note):
            return venue, match[0].strip()
    doi = identifier_value(identifier, "DOI:").lower()
    for venue in venues:
        if doi and venue.doi_prefix and doi.startswith(venue.doi_prefix.lower()):
            return venue, venue.full_name or venue.name
    return None, ""


def read_venue(identifier, note, venues):
    """``(venue, publication type)`` of a citation with ``identifier`` and
    ``note``, by ``venues`` (known ``Venue`` rows); ``("", "")`` when the
    citation does not say."""
    venue, named = named_venue(identifier, note, venues)
    if venue is not None:
        return named, venue.kind
    if identifier_value(identifier, "ARXIV-"):
        return "", PublicationType.PREPRINT
    return "", PublicationType.UNKNOWN

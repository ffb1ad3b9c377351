"""How good related work and candidate topics are, measured on values alone
(no database): on the seed page's 67 documents, and on a generated set whose
groups are known because they were made so.

- ``topic_hit``: of the documents with any related work, the share whose list
  holds a document of their own topic (on the generated set: of their own
  group, unfiled ones included);
- ``adjusted_rand``: how well the candidate topics recover the groups removed
  from the topic list on purpose, by the adjusted Rand index over the removed
  groups' documents (1 is perfect, 0 is chance); a document left out of every
  candidate counts as a group of its own.
"""

import random
from dataclasses import dataclass

from sklearn.metrics import adjusted_rand_score

from catalogue.references import find_names
from formats import topic_page
from similarity import compute

SYLLABLES = [
    "ka",
    "to",
    "ri",
    "mu",
    "se",
    "la",
    "vo",
    "ne",
    "di",
    "pa",
    "gu",
    "zo",
    "fe",
    "hi",
    "bo",
    "ju",
]


@dataclass
class Figures:
    documents: int
    with_related: int
    topic_hit: float
    candidates: int = 0
    adjusted_rand: float | None = None

    def lines(self, name):
        lines = [
            f"{name}: {self.documents} documents, {self.with_related} with related "
            f"work; own topic in the related list: {self.topic_hit:.3f}"
        ]
        if self.adjusted_rand is not None:
            lines.append(
                f"{name}: {self.candidates} candidate topics; adjusted Rand index "
                f"against the removed groups: {self.adjusted_rand:.3f}"
            )
        return lines


def topic_hit(entries, lists, group_of):
    """The share of documents with related work whose list holds one of
    their own group (``group_of``: pk to group)."""
    listed = [entry for entry in entries if lists.get(entry.pk)]
    if not listed:
        return len(listed), 0.0
    hits = sum(
        any(group_of[r.pk] == group_of[entry.pk] for r in lists[entry.pk])
        for entry in listed
    )
    return len(listed), hits / len(listed)


def seed_entries(text):
    """The seed page's rows as entries: one topic, references among them."""
    parsed = topic_page.parse(text)
    key_of = {(row.prefix, row.number): n for n, row in enumerate(parsed.rows, 1)}
    entries = []
    for n, row in enumerate(parsed.rows, 1):
        cites = {key_of.get(name.key) for name in find_names(row.summary)}
        entries.append(
            compute.Entry(
                pk=n,
                identifier=f"{row.prefix}-{row.number:03d}",
                topic=1,
                text=f"{row.title}\n{row.summary}",
                cites=frozenset(cites - {None, n}),
            )
        )
    return entries


def seed_figures(text):
    entries = seed_entries(text)
    lists = compute.related(compute.build(entries))
    listed, hit = topic_hit(entries, lists, {e.pk: e.topic for e in entries})
    return Figures(len(entries), listed, hit)


def _word(rng):
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))


def generated_entries(*, groups=12, size=25, removed=3, seed=7):
    """``groups`` groups of ``size`` documents, each group with words of its
    own among words all share; the last ``removed`` groups are unfiled, as if
    their topics had been taken off the list. Returns (entries, group of pk)."""
    rng = random.Random(seed)
    common = sorted({_word(rng) for _ in range(600)})
    own = [sorted({_word(rng) for _ in range(40)}) for _ in range(groups)]
    entries, group_of = [], {}
    pk = 0
    for group in range(groups):
        filed = group < groups - removed
        for _ in range(size):
            pk += 1
            title = rng.sample(own[group], 3) + rng.sample(common, 3)
            summary = rng.choices(own[group], k=8) + rng.choices(common, k=14)
            rng.shuffle(summary)
            entries.append(
                compute.Entry(
                    pk=pk,
                    identifier=f"GEN-{pk:03d}",
                    topic=group + 1 if filed else None,
                    text=f"{' '.join(title)}\n{' '.join(summary)}",
                )
            )
            group_of[pk] = group
    return entries, group_of


def generated_figures(**options):
    entries, group_of = generated_entries(**options)
    model = compute.build(entries)
    lists = compute.related(model)
    listed, hit = topic_hit(entries, lists, group_of)
    found = compute.candidates(model)
    removed = [entry.pk for entry in entries if entry.topic is None]
    label = {}
    for n, group in enumerate(found):
        for member, _, _ in group.members:
            label[member] = n
    predicted = [label.get(pk, f"alone-{pk}") for pk in removed]
    truth = [group_of[pk] for pk in removed]
    return Figures(
        len(entries),
        listed,
        hit,
        candidates=len(found),
        adjusted_rand=adjusted_rand_score(truth, [str(p) for p in predicted]),
    )

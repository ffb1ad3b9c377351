"""Two editors' values for the same fields, merged: a pure function.

A field only one side changed keeps that side's value; a field both changed
to different values is a conflict and keeps this editor's value until they
choose, so nothing typed is lost.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Merge:
    """The outcome of merging two editors' values for the same fields."""

    base: dict
    theirs: dict
    mine: dict
    merged: dict
    conflicts: list

    @property
    def taken_from_theirs(self):
        """Fields only the other editor changed: merged in by themselves."""
        return [
            name
            for name in self.merged
            if self.theirs[name] != self.base[name] and name not in self.conflicts
        ]


def three_way_merge(*, base, theirs, mine):
    """Merge ``mine`` and ``theirs``, both edited from ``base``, field by field.

    A field only one side changed keeps that side's value; a field both
    changed to different values is a conflict and keeps mine until the editor
    chooses (nothing typed is lost).
    """
    merged, conflicts = {}, []
    for name in base:
        if mine[name] == base[name]:
            merged[name] = theirs[name]
        elif theirs[name] == base[name] or theirs[name] == mine[name]:
            merged[name] = mine[name]
        else:
            merged[name] = mine[name]
            conflicts.append(name)
    return Merge(
        base=base, theirs=theirs, mine=mine, merged=merged, conflicts=conflicts
    )

"""The editors' admin, one module a subject; importing it registers them all."""

from editorial.admin import (
    accounts,
    corrections,
    decisions,
    documents,
    filing,
    people,
    references,
)

__all__ = [
    "accounts",
    "corrections",
    "decisions",
    "documents",
    "filing",
    "people",
    "references",
]

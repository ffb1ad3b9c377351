"""The editors' admin, one module a subject; importing it registers them all."""

from editorial.admin import (
    accounts,
    decisions,
    documents,
    filing,
    people,
    references,
)

__all__ = ["accounts", "decisions", "documents", "filing", "people", "references"]

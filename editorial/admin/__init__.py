"""The editors' admin, one module a subject; importing it registers them all."""

from editorial.admin import decisions, documents, filing, references

__all__ = ["decisions", "documents", "filing", "references"]

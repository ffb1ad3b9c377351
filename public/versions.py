"""A published version beside the one before it, for readers and editors."""

from dataclasses import dataclass

from catalogue.models import DocumentVersion
from public.diffs import render_word_diff

COMPARED_FIELDS = {
    "title": "Title",
    "citation": "Citation",
    "summary": "Summary",
}


@dataclass(frozen=True)
class FieldComparison:
    label: str
    html: str
    changed: bool


@dataclass(frozen=True)
class VersionComparison:
    version: DocumentVersion
    previous: DocumentVersion | None
    fields: list


def _texts(version):
    return {
        "title": version.title,
        "citation": version.citation.render(),
        "summary": version.summary,
    }


def version_comparison(version):
    """``version`` compared word by word with the version before it.

    When the record holds no earlier version (an import keeps only the version
    it was given), ``previous`` is None and every field shows as it stands.
    """
    previous = (
        version.document.versions.filter(number__lt=version.number)
        .order_by("-number")
        .first()
    )
    new = _texts(version)
    old = _texts(previous) if previous else new
    return VersionComparison(
        version=version,
        previous=previous,
        fields=[
            FieldComparison(
                label=label,
                html=render_word_diff(old[name], new[name]),
                changed=old[name] != new[name],
            )
            for name, label in COMPARED_FIELDS.items()
        ],
    )

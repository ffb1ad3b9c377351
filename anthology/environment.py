"""Every environment variable the anthology reads, declared once.

``settings.py`` reads each of them through this declaration, and the
operators' reference (``docs/reference/settings.md``) is generated from it,
so the two cannot drift.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Variable:
    """An environment variable: its ``name``, the ``type`` of its value, its
    ``default`` as an operator would write it, what it ``means``, and the
    ``section`` of the reference it is listed in."""

    name: str
    type: str
    default: str
    meaning: str
    section: str


VARIABLES: list[Variable] = []


def reference_markdown():
    """The settings reference, as MyST Markdown: one section a heading, one
    variable a row."""
    sections = {}
    for variable in VARIABLES:
        sections.setdefault(variable.section, []).append(variable)
    lines = ["# Settings", ""]
    for section, variables in sections.items():
        lines += [f"## {section}", "", "| Variable | Type | Default | Meaning |"]
        lines.append("|---|---|---|---|")
        lines += [
            f"| `{v.name}` | {v.type} | {v.default or '(none)'} | {v.meaning} |"
            for v in variables
        ]
        lines.append("")
    return "\n".join(lines)

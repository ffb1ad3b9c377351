"""Sphinx's configuration of the anthology's documentation (``make docs``).

The pages are MyST Markdown, one folder an audience. Two reference pages are
generated from the code at every build, before any page is read, so they
cannot drift from it: the settings (``anthology.environment``) and the
management commands (each command's own ``--help``). Git ignores them.
"""

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))

project = "The anthology"
language = "en"
extensions = ["myst_parser"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build"]
# Links to a heading (`page.md#its-heading`) are checked like links to pages.
myst_heading_anchors = 3
html_theme = "alabaster"
html_static_path = ["_static"]
html_css_files = ["docs.css"]
html_show_sourcelink = False

# The project's own management commands: those of its apps, not Django's or
# a library's, which their own documentation describes.
PROJECT_APPS = {path.parent.name for path in ROOT.glob("*/apps.py")}
# Help text wrapped as a terminal of this width shows it.
HELP_COLUMNS = "88"


def settings_page():
    from anthology.environment import reference_markdown

    return reference_markdown()


def commands_page():
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "anthology.settings")
    django.setup()
    from django.core.management import get_commands, load_command_class

    commands = sorted(
        (name, app) for name, app in get_commands().items() if app in PROJECT_APPS
    )
    lines = [
        "# Management commands",
        "",
        "Every command the anthology adds to Django's `manage.py`, with its own",
        "`--help`. Run one from the checkout as `.venv/bin/python manage.py NAME`.",
        "Django's own commands (`migrate`, `createsuperuser`) and those of the",
        "libraries the anthology uses (`rqworker`, `axes_reset_username`) are",
        "described by those projects.",
        "",
    ]
    columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_COLUMNS
    try:
        for name, app in commands:
            parser = load_command_class(app, name).create_parser("manage.py", name)
            lines += [
                f"## {name}",
                "",
                f"From the `{app}` app.",
                "",
                "```text",
                parser.format_help().rstrip(),
                "```",
                "",
            ]
    finally:
        if columns is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = columns
    return "\n".join(lines)


# Pages written at every build, by their path under docs/.
GENERATED = {
    "reference/settings.md": settings_page,
    "reference/commands.md": commands_page,
}


def write_generated_pages(app):
    for name, page in GENERATED.items():
        path = DOCS / name
        text = page().rstrip("\n") + "\n"
        # Written only when changed, so Sphinx reads it again only then.
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


def setup(app):
    app.connect("builder-inited", write_generated_pages)

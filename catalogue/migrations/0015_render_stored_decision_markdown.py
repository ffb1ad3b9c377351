"""Decision records saved before their HTML was stored get it rendered now,
as ``DecisionRecord.save`` renders it: no reader's request renders Markdown."""

from django.db import migrations

from catalogue.models.decision import RENDERERS

# The fields with stored HTML when this migration was written.
RENDERED = {"title": "title_html", "status_text": "status_html", "body": "body_html"}


def render_stored(apps, schema_editor):
    DecisionRecord = apps.get_model("catalogue", "DecisionRecord")
    for decision in DecisionRecord.objects.only("pk", *RENDERED).iterator():
        for name, html in RENDERED.items():
            setattr(decision, html, RENDERERS[name](getattr(decision, name)))
        decision.save(update_fields=list(RENDERED.values()))


class Migration(migrations.Migration):
    dependencies = [
        ("catalogue", "0014_decision_html_and_text_limits"),
    ]

    operations = [
        migrations.RunPython(render_stored, migrations.RunPython.noop, elidable=True),
    ]

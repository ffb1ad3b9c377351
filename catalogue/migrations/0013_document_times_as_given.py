from django.db import migrations

import catalogue.models.fields

# The field class changes what Python stamps, not the column: state only, so
# that SQLite does not rebuild the table (and drop its search triggers, 0009).
FIELDS = {
    "created_at": catalogue.models.fields.StampedTimeField(auto_now_add=True),
    "updated_at": catalogue.models.fields.StampedTimeField(auto_now=True),
}


class Migration(migrations.Migration):
    dependencies = [
        ("catalogue", "0012_version_publication_order"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(model_name="document", name=name, field=field)
                for name, field in FIELDS.items()
            ]
        )
    ]

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("catalogue", "0019_known_venues"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="document",
            index=models.Index(
                fields=["updated_at", "id"], name="document_datestamp_order"
            ),
        ),
    ]

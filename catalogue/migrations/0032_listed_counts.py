import django.db.models.deletion
from django.db import migrations, models
from django.db.models import Count, OuterRef, Subquery


def fill_listings(apps, schema_editor):
    """Each stored row's registry and topic, its document's; then how many
    rows each registry has under each topic, counted once here and kept by
    ``actions.rows`` from now on."""
    Document = apps.get_model("catalogue", "Document")
    DocumentRow = apps.get_model("catalogue", "DocumentRow")
    ListedCount = apps.get_model("catalogue", "ListedCount")
    document = Document.objects.filter(pk=OuterRef("document_id"))
    DocumentRow.objects.update(
        registry_id=Subquery(document.values("registry_id")[:1]),
        topic_id=Subquery(document.values("topic_id")[:1]),
    )
    ListedCount.objects.bulk_create(
        ListedCount(registry_id=registry, topic_id=topic, documents=n)
        for registry, topic, n in DocumentRow.objects.order_by()
        .values_list("registry_id", "topic_id")
        .annotate(n=Count("*"))
    )


class Migration(migrations.Migration):
    dependencies = [
        ("catalogue", "0031_stored_citation_text"),
    ]

    operations = [
        migrations.AddField(
            model_name="documentrow",
            name="registry",
            field=models.ForeignKey(
                editable=False,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="catalogue.registry",
            ),
        ),
        migrations.AddField(
            model_name="documentrow",
            name="topic",
            field=models.ForeignKey(
                editable=False,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="catalogue.topic",
            ),
        ),
        migrations.CreateModel(
            name="ListedCount",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True,
                        primary_key=True,
                        serialize=False,
                        verbose_name="ID",
                    ),
                ),
                (
                    "documents",
                    models.PositiveIntegerField(default=0, editable=False),
                ),
                (
                    "registry",
                    models.ForeignKey(
                        editable=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="catalogue.registry",
                    ),
                ),
                (
                    "topic",
                    models.ForeignKey(
                        editable=False,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="catalogue.topic",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        condition=models.Q(("topic__isnull", False)),
                        fields=("registry", "topic"),
                        name="unique_listed_count",
                    ),
                    models.UniqueConstraint(
                        condition=models.Q(("topic__isnull", True)),
                        fields=("registry",),
                        name="unique_unfiled_count",
                    ),
                ],
            },
        ),
        migrations.RunPython(fill_listings, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="documentrow",
            name="registry",
            field=models.ForeignKey(
                editable=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="catalogue.registry",
            ),
        ),
    ]

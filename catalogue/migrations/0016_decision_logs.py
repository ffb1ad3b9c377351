import importlib

import django.core.validators
import django.db.models.deletion
from django.db import migrations, models

# The record's decisions so far are its own log's, under the names and
# addresses they had: ADR, /decisions/ADR-026/.
OWN_LOG = {
    "name": "The anthology",
    "slug": "anthology",
    "prefix": "ADR",
    "format": "madr",
    "is_own": True,
}


def into_own_log(apps, schema_editor):
    DecisionLog = apps.get_model("catalogue", "DecisionLog")
    DecisionRecord = apps.get_model("catalogue", "DecisionRecord")
    Reference = apps.get_model("catalogue", "Reference")
    if (
        not DecisionRecord.objects.exists()
        and not Reference.objects.filter(prefix="ADR").exists()
    ):
        return
    own = DecisionLog.objects.create(**OWN_LOG)
    DecisionRecord.objects.update(log=own)
    Reference.objects.filter(prefix="ADR").update(log=own)


def keep_sqlite_search(apps, schema_editor):
    """Rebuilding the decision records' table on SQLite drops its search
    triggers (0009): they are made again, naming records by their log's
    prefix."""
    if schema_editor.connection.vendor != "sqlite":
        return
    search = importlib.import_module("catalogue.migrations.0009_search_sqlite")
    table = "catalogue_decisionrecord"
    spec = dict(search.TABLES[table])
    spec["columns"] = {
        **spec["columns"],
        "identifier": "(SELECT prefix FROM catalogue_decisionlog "
        "WHERE id = {row}.log_id) || '-' || printf('%03d', {row}.number)",
    }
    spec["watched"] += ", log_id"
    fts, columns = spec["fts"], spec["columns"]
    for event in ["insert", "update", "delete"]:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {fts}_{event}")
    schema_editor.execute(f"DELETE FROM {fts}")
    schema_editor.execute(
        f"CREATE TRIGGER {fts}_insert AFTER INSERT ON {table} BEGIN "
        f"{search._insert(fts, columns, 'new')} END"
    )
    schema_editor.execute(
        f"CREATE TRIGGER {fts}_update AFTER UPDATE OF {spec['watched']} "
        f"ON {table} BEGIN DELETE FROM {fts} WHERE rowid = old.id; "
        f"{search._insert(fts, columns, 'new')} END"
    )
    schema_editor.execute(
        f"CREATE TRIGGER {fts}_delete AFTER DELETE ON {table} BEGIN "
        f"DELETE FROM {fts} WHERE rowid = old.id; END"
    )
    values = ", ".join(value.format(row=table) for value in columns.values())
    schema_editor.execute(
        f"INSERT INTO {fts}(rowid, {', '.join(columns)}) "
        f"SELECT {table}.id, {values} FROM {table}"
    )


class Migration(migrations.Migration):
    dependencies = [
        ("catalogue", "0015_render_stored_decision_markdown"),
    ]

    operations = [
        migrations.CreateModel(
            name="DecisionLog",
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
                ("name", models.CharField(max_length=200, unique=True)),
                (
                    "slug",
                    models.SlugField(
                        help_text="Its part of the pages' addresses: /decisions/govuk-aws/.",
                        max_length=100,
                        unique=True,
                    ),
                ),
                (
                    "prefix",
                    models.CharField(
                        default="ADR",
                        help_text="How its records are named (ADR-026). Names in a text resolve in the text's own log first.",
                        max_length=20,
                        validators=[
                            django.core.validators.RegexValidator(
                                "^[A-Z][A-Z0-9]*\\Z",
                                "A prefix is capital letters and digits, starting with a letter (LIT).",
                                code="prefix_form",
                            )
                        ],
                    ),
                ),
                (
                    "format",
                    models.CharField(
                        choices=[
                            ("madr", "MADR 3 and 4 (YAML front matter)"),
                            ("madr2", "MADR 2 (bullet lines)"),
                            ("adr-tools", "adr-tools and Nygard's format"),
                        ],
                        default="madr",
                        help_text="The shape its files were read in, and are written back in.",
                        max_length=20,
                    ),
                ),
                (
                    "is_own",
                    models.BooleanField(
                        default=False,
                        editable=False,
                        help_text="The record's own decisions, which its references name.",
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "ordering": ["-is_own", "name"],
                "constraints": [
                    models.UniqueConstraint(
                        condition=models.Q(("is_own", True)),
                        fields=("is_own",),
                        name="one_own_decision_log",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            ("format__in", ["madr", "madr2", "adr-tools"])
                        ),
                        name="decision_log_format_valid",
                    ),
                ],
            },
        ),
        migrations.AddField(
            model_name="decisionrecord",
            name="log",
            field=models.ForeignKey(
                null=True,
                help_text="The log the record belongs to, with its own numbering.",
                on_delete=django.db.models.deletion.PROTECT,
                related_name="decisions",
                to="catalogue.decisionlog",
            ),
        ),
        migrations.AddField(
            model_name="reference",
            name="log",
            field=models.ForeignKey(
                blank=True,
                help_text="The decision log a decision record's name resolves in (the naming text's own, unless it names another); empty for a document's name.",
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="catalogue.decisionlog",
            ),
        ),
        migrations.RunPython(into_own_log, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="decisionrecord",
            name="log",
            field=models.ForeignKey(
                help_text="The log the record belongs to, with its own numbering.",
                on_delete=django.db.models.deletion.PROTECT,
                related_name="decisions",
                to="catalogue.decisionlog",
            ),
        ),
        migrations.AddField(
            model_name="decisionrecord",
            name="twin",
            field=models.PositiveSmallIntegerField(
                default=1,
                editable=False,
                help_text="Where a folder numbers two files alike, the second by file name is ADR-064 (2).",
            ),
        ),
        migrations.AlterModelOptions(
            name="decisionrecord",
            options={
                "ordering": ["number", "twin", "log_id"],
                "permissions": [
                    ("publish_decisionrecord", "Can publish decision records")
                ],
            },
        ),
        migrations.RemoveConstraint(
            model_name="decisionrecord",
            name="unique_decision_source_name",
        ),
        migrations.AlterField(
            model_name="decisionrecord",
            name="number",
            field=models.PositiveIntegerField(),
        ),
        migrations.AddConstraint(
            model_name="decisionrecord",
            constraint=models.UniqueConstraint(
                fields=("log", "number", "twin"), name="unique_decision_number"
            ),
        ),
        migrations.AddConstraint(
            model_name="decisionrecord",
            constraint=models.UniqueConstraint(
                condition=models.Q(("source_name", ""), _negated=True),
                fields=("log", "source_name"),
                name="unique_decision_source_name",
            ),
        ),
        migrations.RunPython(keep_sqlite_search, migrations.RunPython.noop),
    ]

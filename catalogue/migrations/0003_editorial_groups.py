"""The two editorial roles as groups, and decision records already in
the record kept public now that they have a draft state."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

VIEW = [
    "view_registry",
    "view_topic",
    "view_document",
    "view_documentversion",
    "view_revision",
    "view_decisionrecord",
    "view_preface",
]
EDITOR = [
    *VIEW,
    "add_document",
    "change_document",
    "add_revision",
    "change_revision",
]
PUBLISHER = [
    *EDITOR,
    "publish_document",
    "add_decisionrecord",
    "change_decisionrecord",
    "publish_decisionrecord",
]
ROLES = {"Editor": EDITOR, "Publisher": PUBLISHER}
# Both roles read the audit trail and use tags.
SHARED = [
    ("auditlog", "view_logentry"),
    ("taggit", "view_tag"),
    ("taggit", "add_tag"),
]


def create_groups(apps, schema_editor):
    # Permissions are made after all migrations run; make them now.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for name, codenames in ROLES.items():
        group, _ = Group.objects.get_or_create(name=name)
        permissions = list(
            Permission.objects.filter(
                content_type__app_label="catalogue", codename__in=codenames
            )
        )
        for app_label, codename in SHARED:
            permissions.extend(
                Permission.objects.filter(
                    content_type__app_label=app_label, codename=codename
                )
            )
        group.permissions.add(*permissions)


def remove_groups(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=ROLES).delete()


def publish_existing_decisions(apps, schema_editor):
    DecisionRecord = apps.get_model("catalogue", "DecisionRecord")
    for record in DecisionRecord.objects.filter(published_at__isnull=True):
        record.published_at = record.updated_at
        record.save(update_fields=["published_at"])


class Migration(migrations.Migration):
    dependencies = [
        ("catalogue", "0002_workflow"),
        ("auditlog", "0017_add_actor_email"),
        (
            "taggit",
            "0006_rename_taggeditem_content_type_object_id_taggit_tagg_content_8fc721_idx",
        ),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.RunPython(create_groups, remove_groups),
        migrations.RunPython(publish_existing_decisions, migrations.RunPython.noop),
    ]

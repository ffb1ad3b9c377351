"""Who keeps people: both roles see them and the desk's proposals; a
publisher also corrects them (a new name, address or ORCID iD is public at
once, as nothing of a person is held for review), merges and splits them,
and decides the proposals."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

PEOPLE_PERMISSIONS = {
    "Editor": ["view_person", "view_personproposal"],
    "Publisher": [
        "view_person",
        "change_person",
        "merge_person",
        "view_personproposal",
    ],
}


def grant_people_permissions(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    # Permissions are made after all migrations run; make the new ones now.
    catalogue = apps.get_app_config("catalogue")
    catalogue.models_module = True
    create_permissions(catalogue, apps=apps, verbosity=0)
    catalogue.models_module = None
    for name, codenames in PEOPLE_PERMISSIONS.items():
        group = Group.objects.filter(name=name).first()
        if group is not None:
            group.permissions.add(
                *Permission.objects.filter(
                    content_type__app_label="catalogue", codename__in=codenames
                )
            )


class Migration(migrations.Migration):
    dependencies = [
        ("catalogue", "0023_people_and_venues"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        migrations.RunPython(grant_people_permissions, migrations.RunPython.noop),
    ]

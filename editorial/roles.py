"""Who works at the editors' desk: the Editor and Publisher groups (made by
migration 0003), and staff."""

from django.contrib.auth.models import Group

EDITOR = "Editor"
PUBLISHER = "Publisher"


def is_editorial(user):
    """Whether ``user`` may sign in to the admin: staff, or a member of the
    Editor or Publisher group, whether or not they are marked staff."""
    if not user.is_active:
        return False
    return user.is_staff or user.groups.filter(name__in=[EDITOR, PUBLISHER]).exists()


def make_editor(user, *, publisher=False):
    """Put ``user`` in the Editor group, or the Publisher group, and let them
    sign in; they leave the other group."""
    wanted, other = (PUBLISHER, EDITOR) if publisher else (EDITOR, PUBLISHER)
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    user.groups.remove(*Group.objects.filter(name=other))
    user.groups.add(Group.objects.get(name=wanted))
    return user

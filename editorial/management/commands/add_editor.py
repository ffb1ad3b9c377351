"""Give someone a place at the editors' desk, in one step."""

import sys
from getpass import getpass

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from editorial.roles import make_editor


class Command(BaseCommand):
    help = (
        "Make USERNAME an editor (or, with --publisher, a publisher) who can sign "
        "in to the admin. A new account's password is asked for on the terminal."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument(
            "--publisher",
            action="store_true",
            help="Also publish, supersede, withdraw and reinstate.",
        )
        parser.add_argument("--email", default="", help="For a new account.")

    def handle(self, *args, username, publisher, email, **options):
        users = get_user_model()
        user = users.objects.filter(username=username).first()
        if user is None:
            user = users(username=username, email=email)
            user.set_password(self.new_password(user))
            user.save()
            self.stdout.write(f"Created the account {username}.")
        make_editor(user, publisher=publisher)
        role = "a publisher" if publisher else "an editor"
        self.stdout.write(f"{username} is {role} and can sign in at /admin/.")

    def new_password(self, user):
        if not sys.stdin.isatty():
            raise CommandError(
                f"There is no account {user.username}: run this on a terminal to "
                "set its password."
            )
        password = getpass(f"Password for {user.username}: ")
        try:
            validate_password(password, user)
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from None
        # A mistyped password would lock its owner out at once: typed twice.
        if getpass("The same password again: ") != password:
            raise CommandError(
                f"The two passwords differ; no account {user.username} was made."
            )
        return password

"""Give someone a place at the editors' desk, in one step."""

import sys
from getpass import getpass

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from anthology import environment as env
from editorial.roles import make_editor


class Command(BaseCommand):
    help = (
        "Make USERNAME an editor (or, with --publisher, a publisher) who can sign "
        "in to the admin. A new account's password is taken from "
        "ADD_EDITOR_PASSWORD, else read from standard input when that is not a "
        "terminal, else asked for twice on the terminal."
    )
    # Tests hand the command a standard input of their own, as Django's
    # createsuperuser lets them.
    stealth_options = ("stdin",)

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument(
            "--publisher",
            action="store_true",
            help="Also publish, supersede, withdraw and reinstate.",
        )
        parser.add_argument("--email", default="", help="For a new account.")

    def handle(self, *args, username, publisher, email, **options):
        self.stdin = options.get("stdin", sys.stdin)
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
        """The new account's password, from wherever it is given: never
        printed, checked by the password validators, and refused when empty,
        each refusal leaving no account made."""
        if (password := env.read("ADD_EDITOR_PASSWORD")) is not None:
            source = "ADD_EDITOR_PASSWORD"
        elif not self.stdin.isatty():
            # One line, as `printf 'secret\n' |` or a file gives it; only the
            # line's end is taken off, since spaces may belong to a password.
            password = self.stdin.readline().removesuffix("\n").removesuffix("\r")
            source = "standard input"
        else:
            password = self.typed_password(user)
            source = "the terminal"
        if not password:
            raise CommandError(
                f"The password from {source} is empty: no account {user.username} "
                "was made."
            )
        try:
            validate_password(password, user)
        except ValidationError as error:
            raise CommandError(
                f"{' '.join(error.messages)} No account {user.username} was made."
            ) from None
        return password

    def typed_password(self, user):
        password = getpass(f"Password for {user.username}: ")
        if not password:
            return password
        # A mistyped password would lock its owner out at once: typed twice.
        if getpass("The same password again: ") != password:
            raise CommandError(
                f"The two passwords differ; no account {user.username} was made."
            )
        return password

from django.core.exceptions import PermissionDenied
from django.core.management.base import CommandError

from actions.steps import acting_user
from catalogue.models import Document
from formats import topic_page
from formats.problems import ImportRefused
from imports import progress
from imports.commands import FileCommand
from imports.topic_page import import_topic_text


class Command(FileCommand):
    help = (
        "Import a topic page in the existing record's format: the preface, the "
        "topic line, the count line and the table. All or nothing."
    )

    path_help = "The topic page's text, a UTF-8 file."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help="Import only into a record that holds no documents (demo content).",
        )
        parser.add_argument(
            "--user",
            help="The account the audit trail names; without it, it says import_index.",
        )

    def handle(self, *args, path, if_empty, user, **options):
        user = acting_user(user)
        if if_empty and Document.objects.exists():
            self.stdout.write("The record already holds documents; nothing imported.")
            return
        try:
            data = path.read_bytes()
        except OSError as error:
            raise CommandError(
                f"{path}: cannot read the page: {error.strerror}."
            ) from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data.count(b"\n", 0, error.start) + 1
            raise CommandError(
                f"{path}: line {line}: not UTF-8 (byte {data[error.start]:#04x} "
                f"at offset {error.start}); nothing imported."
            ) from None
        try:
            with progress.bar("Importing the page", unit="rows"):
                report = import_topic_text(
                    topic_page.parse(text), source=path.name, user=user
                )
        except ImportRefused as error:
            raise CommandError(
                f"{path}: the page was not imported; nothing was written.\n{error}"
            ) from None
        except PermissionDenied as error:
            raise CommandError(
                f"{path}: the page was not imported; nothing was written: {error}"
            ) from None
        self.stdout.write(f"{path}:\n{report}")

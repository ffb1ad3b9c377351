from django.core.management.base import BaseCommand, CommandError

from jobs import runner
from sources import jobs
from sources.checks import SERVICES, check_sources


def services(text):
    named = [name.strip().lower() for name in text.split(",") if name.strip()]
    unknown = sorted(set(named) - set(SERVICES))
    if unknown or not named:
        raise CommandError(
            f"--only takes {', '.join(SERVICES)} (comma-separated), not "
            f"{', '.join(unknown) or 'nothing'}."
        )
    return [name for name in SERVICES if name in named]


class Command(BaseCommand):
    help = (
        "Check every public document's sources: arXiv's newest version and "
        "withdrawals, Crossref's retractions and corrections, whether its DOI "
        "resolves, and the links of summaries and decision records. What is "
        "found is proposed as a correction for the editors, never edited in; a "
        "finding already proposed or declined is not proposed again."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--only",
            type=services,
            help=f"The checks to run, of {','.join(SERVICES)} (all by default).",
        )
        parser.add_argument(
            "--limit",
            type=int,
            help="Only the first N public documents (and decision records).",
        )
        parser.add_argument(
            "--enqueue",
            action="store_true",
            help="Run it as a background job on a worker and say which.",
        )

    def handle(self, *args, only, limit, enqueue, **options):
        if limit is not None and limit < 1:
            raise CommandError("--limit takes a number of documents, 1 or more.")
        if enqueue:
            try:
                job = jobs.enqueue(only=only, limit=limit)
            except (runner.QueueUnavailable, runner.AlreadyRunning) as error:
                raise CommandError(str(error)) from None
            self.stdout.write(f"{job.title}: job {job.pk}, {job.get_state_display()}.")
            if job.summary:
                self.stdout.write(job.summary)
            return
        report = check_sources(only=only, limit=limit)
        for line in report.lines(only or SERVICES):
            self.stdout.write(line)

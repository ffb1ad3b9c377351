"""Run the scheduled changes whose time has come, once or every few seconds."""

import time

from django.core.management.base import BaseCommand

from actions import schedules
from catalogue.models import Schedule


class Command(BaseCommand):
    help = (
        "Run the scheduled publications, withdrawals and reinstatements whose "
        "time has come, each as its publisher (the audit trail names the "
        "schedule), and say what each did. The job workers do this between "
        "jobs; this is for cron, or for a site without workers. Safe beside "
        "them and beside another run: each schedule is run once."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--every",
            type=float,
            default=0,
            metavar="SECONDS",
            help="Keep running, looking for due schedules every SECONDS.",
        )

    def handle(self, *args, every, **options):
        while True:
            self.run_once()
            if every <= 0:
                return
            time.sleep(every)

    def run_once(self):
        due = list(Schedule.objects.due().values_list("pk", flat=True))
        for pk in due:
            ran = schedules.run(pk)
            if ran is None:
                continue
            if ran.state == Schedule.State.FAILED:
                self.stderr.write(f"Schedule {pk} failed: {ran.outcome}")
            else:
                self.stdout.write(f"Schedule {pk}: {ran.outcome}")

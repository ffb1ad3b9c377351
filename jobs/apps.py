from django.apps import AppConfig
from django.core.signals import request_finished


class JobsConfig(AppConfig):
    """Long work in the background, on a queue."""

    name = "jobs"
    verbose_name = "Background jobs"

    def ready(self):
        from jobs import runner

        # Work a request asked for in this process starts once it is answered.
        request_finished.connect(
            runner.start_after_response, dispatch_uid="jobs-after-response"
        )

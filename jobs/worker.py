"""The worker that runs jobs: RQ's, vouching for a running job every
``JOBS_HEARTBEAT_SECONDS``.

While a job runs, its worker renews the job's entry in the queue's register
of started jobs; once three heartbeats are missed (its machine went down, it
was killed) the entry lapses, and the queue moves the job to its failed jobs
the next time anyone (a worker, or the job's page, ``runner.refresh``) cleans
the register, whichever host the worker ran on. RQ's own margin is fixed at
a minute; this one follows the heartbeat, three of which make RQ's ninety
seconds by default.
"""

from django.conf import settings
from rq import Worker as RQWorker


class Worker(RQWorker):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("job_monitoring_interval", settings.JOBS_HEARTBEAT_SECONDS)
        super().__init__(*args, **kwargs)

    def get_heartbeat_ttl(self, job, working_time=0.0):
        interval = self.job_monitoring_interval
        if job.timeout and job.timeout > 0:
            interval = min(job.timeout - working_time, interval)
        return int(interval) + 2 * self.job_monitoring_interval

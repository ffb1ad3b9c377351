"""Starting a job from a view: the answer leads to the job's page."""

from django.contrib import messages
from django.shortcuts import redirect

from jobs import runner


def start_job(request, *, back_to, **job):
    """Queue ``job`` (``runner.enqueue``'s arguments) for the signed-in user
    and lead to its page; or, when the queue cannot be reached, back to
    ``back_to`` saying so, as when the user's share of jobs or uploads is
    reached, or a job of its lock is unfinished."""
    try:
        started = runner.enqueue(user=request.user, **job)
    except (runner.QueueUnavailable, runner.QuotaReached) as error:
        messages.error(request, str(error))
        return redirect(back_to)
    except runner.AlreadyRunning as error:
        messages.warning(request, str(error))
        return redirect(back_to)
    return redirect(started.page)

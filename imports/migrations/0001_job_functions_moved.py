"""Jobs started before the imports left the ``exchange`` app name its
functions and resources by their old dotted paths: they name the new ones."""

from django.db import migrations

MOVED = {
    "exchange.jobs.": "imports.job_functions.",
    "exchange.resources.": "imports.resources.",
}


def _moved(path, moves):
    for old, new in moves.items():
        if path.startswith(old):
            return new + path.removeprefix(old)
    return path


def rename(apps, moves, prefix="exchange."):
    Job = apps.get_model("jobs", "Job")
    for job in Job.objects.filter(function__startswith=prefix):
        job.function = _moved(job.function, moves)
        resource = job.arguments.get("resource")
        if resource:
            job.arguments["resource"] = _moved(resource, moves)
        job.save(update_fields=["function", "arguments"])


def forwards(apps, schema_editor):
    rename(apps, MOVED)


def backwards(apps, schema_editor):
    rename(apps, {new: old for old, new in MOVED.items()}, prefix="imports.")


class Migration(migrations.Migration):
    dependencies = [("jobs", "0001_initial")]

    operations = [migrations.RunPython(forwards, backwards)]

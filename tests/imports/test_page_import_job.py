"""A topic page uploaded through the admin is imported in a background job, as
import_index imports it; a page with wrong lines is refused by line."""

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from catalogue.models import Document, Preface, Registry, Topic
from jobs import runner
from jobs.models import Job
from tests.factories import UserFactory

# The jobs these tests start go through the test queue, which RQ keeps in Redis.
pytestmark = [pytest.mark.django_db, pytest.mark.redis]


def upload(client, name, content):
    return client.post(
        reverse("admin:catalogue_topic_import_page"),
        {"page": SimpleUploadedFile(name, content, content_type="text/plain")},
        follow=True,
    )


def test_a_topic_page_is_imported_by_a_job_with_its_report(
    admin_client, seed_path, seed_rows
):
    response = upload(admin_client, "seed.txt", seed_path.read_bytes())

    job = Job.objects.get()
    assert response.redirect_chain == [(job.page, 302)]
    assert job.summary == "Imported seed.txt."
    assert runner.progress_of(job) == (len(seed_rows), len(seed_rows))
    assert Document.objects.count() == len(seed_rows)
    page = response.content.decode()
    assert "Imported seed.txt." in page
    assert "Documents: " in page
    assert Topic.objects.count() == 1


def test_a_wrong_page_is_refused_by_line_and_writes_nothing(admin_client, seed_text):
    broken = seed_text.replace("| # | Title | Summary | Status |", "| # | Title |")

    response = upload(admin_client, "broken.txt", broken.encode())

    job = Job.objects.get()
    assert job.state == Job.State.FAILED
    assert job.summary == (
        "broken.txt: the page was not imported; nothing was written.\n"
        "line 4: expected the table header '| # | Title | Summary | Status |' and "
        "divider '|---|---|---|---|', found '| # | Title |'"
    )
    assert "the page was not imported" in response.content.decode()
    assert Document.objects.count() == 0


def test_a_page_bringing_what_its_importer_may_not_add_is_refused_by_line(
    client, seed_path
):
    # May import pages (publish documents, add and change topics), but not
    # add the registries the seed page brings: the right the registry add
    # page asks for.
    publisher = UserFactory(publisher=True)
    publisher.user_permissions.add(
        *Permission.objects.filter(codename__in=["add_topic", "change_topic"]),
        *Permission.objects.filter(codename__in=["add_preface", "change_preface"]),
    )
    client.force_login(publisher)

    upload(client, "seed.txt", seed_path.read_bytes())

    job = Job.objects.get()
    assert job.state == Job.State.FAILED
    assert job.summary == (
        "seed.txt: the page was not imported; nothing was written.\n"
        f"line 3: {publisher.username} may not add registries."
    )
    assert not Registry.objects.exists()
    assert not Preface.objects.exists()
    assert not Document.objects.exists()


def test_a_page_that_is_not_utf8_is_refused_at_upload(admin_client):
    response = upload(admin_client, "latin.txt", "Topics - caf\xe9".encode("latin-1"))

    assert response.context["form"].errors["page"] == [
        "Line 1 is not UTF-8 text (byte 0xe9); save the page as UTF-8."
    ]
    assert Job.objects.count() == 0


def test_an_editor_may_not_import_a_page(client, editorial_groups):
    client.force_login(UserFactory(editor=True))

    response = client.get(reverse("admin:catalogue_topic_import_page"))

    assert response.status_code == 403


def test_the_topic_list_offers_the_page_import(admin_client):
    page = admin_client.get(reverse("admin:catalogue_topic_changelist"))

    assert reverse("admin:catalogue_topic_import_page") in page.content.decode()

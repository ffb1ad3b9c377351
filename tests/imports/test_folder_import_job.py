"""A decision folder uploaded through the admin as a .zip archive is imported
in a background job, as import_decisions imports a folder: the same records
and the same report; a folder with problems is refused by file and line, and
an archive that is not a safe zip of one decision folder is refused saying
what and where. Nothing is written from a refused upload."""

import io
import zipfile

import pytest
from auditlog.models import LogEntry
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import transaction
from django.urls import reverse

from actions.decisions import publish_decision, save_decision
from catalogue.models import (
    DecisionImage,
    DecisionRecord,
    DecisionRelation,
    DecisionRevision,
)
from editorial.admin.folder_import import FOLDER_JOB
from jobs import runner
from jobs.models import Job
from tests.browser.test_decision_folder import FOLDER
from tests.factories import UserFactory, png_bytes
from tests.imports.test_madr_import import ADR_TOOLS, LOG4BRAINS, MADR_4
from tests.imports.zips import lying_about_size, symlink, with_entries, zipped

# The jobs these tests start go through the test queue, which RQ keeps in Redis.
pytestmark = [pytest.mark.django_db, pytest.mark.redis]

UPLOAD = reverse("admin:catalogue_decisionrecord_import_folder")


def upload(client, name, data):
    return client.post(
        UPLOAD,
        {"archive": SimpleUploadedFile(name, data, content_type="application/zip")},
        follow=True,
    )


def team_folder():
    """The browser test's folder of a team: MADR 4 and adr-tools side by
    side, a table, a sibling link and an image in img/."""
    return {**FOLDER, "img/cache.png": png_bytes(width=40, height=20)}


def command_report(folder):
    """What ``import_decisions`` prints for ``folder``, on a record left as it
    was."""
    out = io.StringIO()
    with transaction.atomic():
        call_command("import_decisions", str(folder), stdout=out)
        transaction.set_rollback(True)
    return out.getvalue().rstrip("\n")


def write(folder, files):
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return folder


def test_a_zipped_folder_is_imported_by_a_job_with_the_commands_report(
    admin_client, tmp_path
):
    files = {**ADR_TOOLS, "img/cache.png": png_bytes()}
    files["0003-tune-the-cache.md"] += "\n![The keys, drawn](img/cache.png)\n"
    expected = command_report(write(tmp_path / "adr", files))
    # GitHub's "Download ZIP": the repository's name, then docs/adr/.
    archive = zipped(
        {
            "README.md": "# The project\n",
            **{f"docs/adr/{n}": c for n, c in files.items()},
        },
        prefix="project-main/",
    )

    response = upload(admin_client, "project-main.zip", archive)

    job = Job.objects.get()
    assert response.redirect_chain == [(job.page, 302)]
    assert job.title == (
        "Import of the decision folder project-main.zip (project-main/docs/adr/)"
    )
    assert job.state == Job.State.FINISHED
    assert job.summary == (
        "Imported project-main.zip (project-main/docs/adr/). "
        "Decision records: 4 created, 0 updated, 0 unchanged."
    )
    # The command's report, its totals said once, in the summary above it.
    totals, *details = expected.splitlines()
    assert totals == "Decision records: 4 created, 0 updated, 0 unchanged."
    assert runner.result_of(job) == "\n".join(details).strip("\n")
    assert runner.progress_of(job) == (4, 4)
    page = response.content.decode()
    assert page.count("4 created, 0 updated, 0 unchanged.") == 1
    # Another folder may be uploaded from the job's page.
    assert f'action="{UPLOAD}"' in page
    assert sorted(DecisionRecord.objects.values_list("number", flat=True)) == [
        1,
        2,
        3,
        4,
    ]
    assert all(decision.is_public for decision in DecisionRecord.objects.all())
    assert sorted(
        (r.source.number, r.kind, r.target.number)
        for r in DecisionRelation.objects.select_related("source", "target")
    ) == [(3, "amends", 2), (4, "supersedes", 2)]
    image = DecisionImage.objects.get()
    assert (image.decision.number, image.name, bytes(image.data)) == (
        3,
        "img/cache.png",
        png_bytes(),
    )


def test_the_imported_records_show_their_images_publicly(admin_client, client):
    upload(admin_client, "adr.zip", zipped(team_folder(), prefix="adr/"))

    page = client.get("/decisions/ADR-001/").content.decode()
    image = client.get("/decisions/ADR-001/images/img/cache.png")

    assert 'alt="The cache in front of the database"' in page
    assert image["Content-Type"] == "image/png"
    assert b"".join(image) == png_bytes(width=40, height=20)


def test_a_file_an_editor_changed_since_comes_back_as_a_pending_revision(
    admin_client, publisher
):
    upload(admin_client, "madr.zip", zipped(MADR_4, prefix="decisions/"))
    postgres = DecisionRecord.objects.get(number=1)
    postgres.title = "Use PostgreSQL (our reading)"
    save_decision(decision=postgres, user=publisher, supersedes=[])
    # The editor's edit is held, then published: the record reads as they left it.
    publish_decision(decision=postgres, user=publisher)
    changed = dict(MADR_4)
    changed["0001-use-postgresql.md"] = changed["0001-use-postgresql.md"].replace(
        "Which database?", "Which database, for ten years?"
    )

    upload(admin_client, "madr.zip", zipped(changed, prefix="decisions/"))

    job = Job.objects.order_by("-created_at").first()
    report = runner.result_of(job)
    assert job.summary == (
        "Imported madr.zip (decisions/). Decision records: 0 created, 0 updated, "
        "3 unchanged, 1 held as pending revisions."
    )
    assert (
        "0001-use-postgresql.md: ADR-001 was changed by an editor since it "
        "was last imported: kept as they left it; the file's change is held as its "
        "pending revision, for a publisher to publish or discard"
    ) in report
    postgres.refresh_from_db()
    assert postgres.title == "Use PostgreSQL (our reading)"
    held = postgres.pending_revision()
    assert (held.title, held.body) == (
        "Use PostgreSQL",
        "## Context and Problem Statement\n\nWhich database, for ten years?\n",
    )
    assert "Which database?" in postgres.body


def test_a_folder_of_unreadable_parts_imports_noting_each_by_file_and_line(
    admin_client,
):
    files = {
        **ADR_TOOLS,
        "0005-broken-front-matter.md": "---\nstatus: [accepted\n---\n# Five\n",
        "0006-no-title.md": "Just text.\n",
        "0007-latin-1.md": "# Sept\n\nCafé\n".encode("latin-1"),
    }

    upload(admin_client, "adr.zip", zipped(files, prefix="doc/adr/"))

    job = Job.objects.get()
    assert job.summary == (
        "Imported adr.zip (doc/adr/). Decision records: 7 created, 0 updated, "
        "0 unchanged."
    )
    report = runner.result_of(job)
    for note in [
        "0005-broken-front-matter.md, line 2: the front matter is not YAML: "
        "expected ',' or ']', but got '<stream end>'",
        "0006-no-title.md, line 1: no title line (# Title): titled 'No title'",
        "0007-latin-1.md, line 3: is not UTF-8 (byte 0xe9); read as Windows-1252",
    ]:
        assert note in report
    assert DecisionRecord.objects.get(number=7).body == "Café\n"


def test_log4brains_files_are_numbered_in_date_order_from_an_archive(admin_client):
    upload(admin_client, "kb.zip", zipped(LOG4BRAINS, prefix="kb-main/docs/adr/"))

    assert list(DecisionRecord.objects.values_list("number", "source_name")) == [
        (1, "20200925-use-log4brains-to-manage-the-adrs.md"),
        (2, "20201002-use-eslint.md"),
        (3, "20201002-use-prettier.md"),
    ]


def test_the_folder_holding_every_decision_is_imported(admin_client):
    files = {
        **{f"docs/adr/{name}": text for name, text in MADR_4.items()},
        "docs/adr/archive/0001-an-old-choice.md": "# An old choice\n",
    }

    upload(admin_client, "repo.zip", zipped(files, directories=False))

    job = Job.objects.get()
    assert job.title == "Import of the decision folder repo.zip (docs/adr/)"
    # The sub-folder's record is read too: a record of its own beside 0001.
    assert "Decision records: 5 created" in job.summary
    assert DecisionRecord.objects.get(source_name="archive/0001-an-old-choice.md")


def test_windows_backslashes_are_read_as_folders(admin_client):
    archive = zipped({"adr\\0001-use-postgresql.md": MADR_4["0001-use-postgresql.md"]})

    upload(admin_client, "adr.zip", archive)

    assert Job.objects.get().title == "Import of the decision folder adr.zip (adr/)"
    assert DecisionRecord.objects.get().title == "Use PostgreSQL"


def test_the_import_names_its_user_and_the_archive_in_the_audit_trail(
    admin_client, admin_user
):
    upload(admin_client, "madr.zip", zipped(MADR_4, prefix="decisions/"))

    entries = LogEntry.objects.get_for_model(DecisionRecord)
    assert {(entry.actor, str(entry.additional_data)) for entry in entries} == {
        (admin_user, str({"via": "the admin's import of madr.zip (decisions/)"}))
    }


def refusal(client, name, data):
    response = client.post(
        UPLOAD,
        {"archive": SimpleUploadedFile(name, data, content_type="application/zip")},
    )
    assert response.status_code == 200
    assert not Job.objects.exists()
    assert not DecisionRecord.objects.exists()
    return response.context["form"].errors["archive"]


def adr_zip(**extra):
    return zipped({**ADR_TOOLS, **extra}, prefix="adr/")


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        (
            "0001-a.md",
            ADR_TOOLS["0001-record-architecture-decisions.md"].encode(),
            "0001-a.md is not a .zip archive: zip the folder (or download it with "
            "GitHub’s “Download ZIP”) and upload the .zip file.",
        ),
        (
            "cut.zip",
            adr_zip()[:-30],
            "cut.zip is not a .zip archive: zip the folder (or download it with "
            "GitHub’s “Download ZIP”) and upload the .zip file.",
        ),
        (
            "up.zip",
            with_entries(adr_zip(), [("adr/../../../etc/cron.d/0001-x.md", b"# X\n")]),
            "up.zip: the entry “adr/../../../etc/cron.d/0001-x.md” is refused: it "
            "leads out of its folder (..). Nothing in an archive may lead outside it.",
        ),
        (
            "root.zip",
            with_entries(adr_zip(), [("/etc/0001-x.md", b"# X\n")]),
            "root.zip: the entry “/etc/0001-x.md” is refused: it is an absolute path. "
            "Nothing in an archive may lead outside it.",
        ),
        (
            "drive.zip",
            with_entries(adr_zip(), [("C:/adr/0001-x.md", b"# X\n")]),
            "drive.zip: the entry “C:/adr/0001-x.md” is refused: it is an absolute "
            "path. Nothing in an archive may lead outside it.",
        ),
        (
            "link.zip",
            with_entries(adr_zip(), [symlink("adr/0009-secrets.md", "/etc/shadow")]),
            "link.zip: the entry “adr/0009-secrets.md” is a symbolic link; a "
            "decision folder's entries must be files.",
        ),
        (
            "pictures.zip",
            zipped({"img/a.png": "not really", "notes.txt": "Text.\n"}),
            "pictures.zip holds no decision files: no .md file in it (NNNN-title.md "
            "(0001-use-markdown.md), adr-NNN.md or ADR-NNN-title.md "
            "(adr-001-use-adrs.md), YYYYMMDD-title.md (20200925-use-prettier.md), "
            "or any name, for a file with a status or a Context or Decision "
            "section).",
        ),
    ],
)
def test_an_archive_that_is_not_a_safe_decision_folder_is_refused_at_upload(
    admin_client, name, data, message
):
    assert refusal(admin_client, name, data) == [message]


def test_a_folder_kept_in_sub_folders_imports_whole(admin_client):
    upload(
        admin_client,
        "repo.zip",
        zipped(
            {
                "docs/adr/2019/0001-a.md": "# 1. A\n\n## Status\n\nAccepted\n",
                "docs/adr/2020/0002-b.md": "# 2. B\n\n## Status\n\nProposed\n",
                "docs/adr/README.md": "# Our decisions\n",
            }
        ),
    )

    job = Job.objects.get()
    assert job.summary == (
        "Imported repo.zip (docs/adr/). Decision records: 2 created, 0 updated, "
        "0 unchanged."
    )
    assert {d.source_name: d.status for d in DecisionRecord.objects.all()} == {
        "2019/0001-a.md": "accepted",
        "2020/0002-b.md": "proposed",
    }


def test_an_archive_of_too_many_entries_is_refused(admin_client, settings):
    settings.IMPORT_MAX_FILES = 5
    archive = adr_zip()  # Four decisions, a README, a template and adr/.

    assert refusal(admin_client, "adr.zip", archive) == [
        "adr.zip holds 7 entries; the import takes archives of up to 5. Zip the "
        "decision folder alone."
    ]


def test_a_folder_larger_unpacked_than_the_limit_is_refused(admin_client, settings):
    settings.IMPORT_MAX_UNPACKED_BYTES = 1024 * 1024
    # A megabyte and more of nothing, a few kilobytes zipped: a small bomb.
    archive = adr_zip(**{"img/zeros.png": bytes(1024 * 1024 + 1)})
    assert len(archive) < 10_000

    assert refusal(admin_client, "bomb.zip", archive) == [
        "bomb.zip: the folder adr/ is 1.0\xa0MB unpacked; the import takes up to "
        "1.0\xa0MB."
    ]


def test_an_upload_over_the_size_limit_is_refused(admin_client, settings):
    settings.IMPORT_MAX_BYTES = 1024
    archive = adr_zip()

    assert refusal(admin_client, "adr.zip", archive) == [
        f"adr.zip is {len(archive) / 1024:.1f}\xa0KB; the import takes files of up "
        "to 1.0\xa0KB."
    ]


def test_an_entry_whose_headers_lie_about_its_size_stops_the_job(admin_client):
    # Its headers say 40 bytes; it unpacks to a megabyte.
    archive = lying_about_size(
        adr_zip(**{"img/zeros.png": bytes(1024 * 1024)}), "adr/img/zeros.png", 40
    )

    upload(admin_client, "bomb.zip", archive)

    job = Job.objects.get()
    assert job.state == Job.State.FAILED
    assert job.summary == (
        "bomb.zip: the entry “adr/img/zeros.png” is damaged (Bad CRC-32 for file "
        "'adr/img/zeros.png'); zip the folder again. Nothing was written."
    )
    assert not DecisionRecord.objects.exists()


def test_a_damaged_entry_stops_the_job_naming_it(admin_client):
    archive = bytearray(adr_zip())
    info = zipfile.ZipFile(io.BytesIO(bytes(archive))).getinfo(
        "adr/0004-use-memcached-instead.md"
    )
    # A byte of the entry's compressed data, flipped.
    start = info.header_offset + 30 + len(info.filename) + len(info.extra) + 10
    archive[start] ^= 0xFF

    upload(admin_client, "adr.zip", bytes(archive))

    job = Job.objects.get()
    assert job.state == Job.State.FAILED
    assert job.summary.startswith(
        "adr.zip: the entry “adr/0004-use-memcached-instead.md” is damaged ("
    )
    assert job.summary.endswith("); zip the folder again. Nothing was written.")
    assert not DecisionRecord.objects.exists()


def damaged(compression):
    """The ADR folder zipped with ``compression``, a byte in the middle of one
    entry's compressed data flipped."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, text in ADR_TOOLS.items():
            archive.writestr(f"adr/{name}", text * 40)
    data = bytearray(buffer.getvalue())
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo(
        "adr/0004-use-memcached-instead.md"
    )
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    for offset in range(info.compress_size // 3, info.compress_size // 3 + 8):
        data[start + offset] ^= 0xFF
    return bytes(data)


@pytest.mark.parametrize(
    "compression",
    [zipfile.ZIP_DEFLATED, zipfile.ZIP_LZMA, zipfile.ZIP_BZIP2],
    ids=["deflate", "LZMA", "bzip2"],
)
def test_a_damaged_entry_is_refused_alike_in_every_compression(
    admin_client, compression
):
    upload(admin_client, "adr.zip", damaged(compression))

    job = Job.objects.get()
    assert job.state == Job.State.FAILED
    assert job.summary.startswith(
        "adr.zip: the entry “adr/0004-use-memcached-instead.md” is damaged ("
    )
    assert job.summary.endswith("); zip the folder again. Nothing was written.")
    assert not DecisionRecord.objects.exists()


def test_an_editor_may_not_import_a_folder_nor_is_offered_it(client, editorial_groups):
    client.force_login(UserFactory(editor=True))

    listed = client.get(reverse("admin:catalogue_decisionrecord_changelist"))

    assert client.get(UPLOAD).status_code == 403
    assert UPLOAD not in listed.content.decode()


def test_a_publisher_imports_a_folder(client, editorial_groups):
    publisher = UserFactory(publisher=True)
    client.force_login(publisher)

    listed = client.get(reverse("admin:catalogue_decisionrecord_changelist"))
    upload(client, "madr.zip", zipped(MADR_4))

    assert UPLOAD in listed.content.decode()
    job = Job.objects.get(function=FOLDER_JOB)
    assert (job.created_by, job.state) == (publisher, Job.State.FINISHED)
    assert DecisionRecord.objects.count() == 4


def test_someone_elses_folder_job_is_refused(client, admin_client, editorial_groups):
    upload(admin_client, "madr.zip", zipped(MADR_4))
    client.force_login(UserFactory(publisher=True))

    assert client.get(Job.objects.get().page).status_code == 403


def test_a_revision_held_for_a_record_is_left_as_its_editor_left_it(
    admin_client, publisher
):
    upload(admin_client, "madr.zip", zipped(MADR_4))
    DecisionRevision.objects.create(
        decision=DecisionRecord.objects.get(number=1), title="An editor's own"
    )
    DecisionRecord.objects.filter(number=1).update(title="Edited in place")
    changed = {
        **MADR_4,
        "0001-use-postgresql.md": MADR_4["0001-use-postgresql.md"] + "More.\n",
    }

    upload(admin_client, "madr.zip", zipped(changed))

    assert (
        "1 kept as an editor changed them."
        in Job.objects.order_by("-created_at").first().summary
    )
    assert DecisionRevision.objects.get().title == "An editor's own"

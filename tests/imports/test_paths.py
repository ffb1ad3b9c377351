"""Paths come from the archive, never from its contents.

What a folder says names other paths: ``decision-logs.json`` each log's
folder, a record's Markdown its images, a link a file beside it. Each is read
only when it resolves inside the folder: an absolute path, a ``../`` chain, a
link inside the folder pointing out, a Windows drive, all are refused, and
the refusal names the entry and its field as the folder wrote them, never
where anything is on the server (a missing folder is refused in the same
words as one that exists). A bad entry of the list is left out with a note;
the others are imported. Every join of a path in the importers is read by
``ast`` and must go through the one checked helper, ``formats.folders.within``.
"""

import ast
import io
import json
import os
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from catalogue.models import DecisionImage, DecisionLog, DecisionRecord, Registry
from formats.folders import OutsideFolder, within
from formats.problems import ImportRefused
from imports.decision_folders import export_decisions, import_decisions
from jobs.models import Job
from tests.factories import png_bytes
from tests.imports.test_madr_import import ADR_TOOLS, write_folder
from tests.imports.zips import symlink, with_entries, zipped

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
# The code that reads a folder an editor or a team sent.
IMPORTERS = ["formats", "imports", "sources"]

DECOY = "# 1. A decoy\n\n## Status\n\nAccepted\n\n## Context\n\nNothing here.\n"
SECRET = "# 1. Host only\n\n## Status\n\nAccepted\n\n## Context\n\nThe host's secret.\n"


# -- Every join of a path ---------------------------------------------------

# Each place the importers make a path that is not ``within``'s, and why it
# takes nothing a folder's contents say.
OWN_PATHS = {
    ("formats/folders.py", "within", "Path(root)"): "the checked helper's root",
    ("formats/folders.py", "within", "root.joinpath(*parts)"): "the checked join",
    ("formats/archives.py", "unpack", "Path(target)"): "the job's own temporary folder",
    ("formats/madr.py", "parse_folder", "Path(folder)"): "the folder the caller names",
    ("imports/decision_folders.py", "import_decisions", "Path(folder)"): "the "
    "folder the command or the job names",
    ("imports/decision_folders.py", "export_decisions", "Path(folder)"): "the "
    "folder the operator names",
    (
        "imports/backups.py",
        "_save",
        "posixpath.join(directory, f'.{base}.{uuid.uuid4().hex}.partial')",
    ): "a backup's storage name, made from the backup's own name",
}
JOINING_CALLS = {"Path", "PurePath", "PosixPath", "joinpath", "join", "with_name"}


def _is_number(node):
    return isinstance(node, ast.Constant) and isinstance(node.value, int | float)


def join_sites():
    """``{(module, function, source)}``: every place the importers join or
    make a path (``a / b`` of anything but numbers, ``Path(...)``,
    ``.joinpath``, ``os.path.join``, ``posixpath.join``)."""
    sites = set()
    for package in IMPORTERS:
        for module in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(module.read_text(encoding="utf-8"))
            name = module.relative_to(ROOT).as_posix()
            for function in ast.walk(tree):
                if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                for node in ast.walk(function):
                    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
                        if _is_number(node.left) or _is_number(node.right):
                            continue
                    elif isinstance(node, ast.Call):
                        called = node.func
                        called = getattr(called, "attr", getattr(called, "id", ""))
                        if called not in JOINING_CALLS:
                            continue
                        if called == "join" and not ast.unparse(node.func).endswith(
                            "path.join"
                        ):
                            continue  # str.join
                    else:
                        continue
                    sites.add((name, function.name, ast.unparse(node)))
    return sites


def test_every_join_of_a_path_in_the_importers_is_the_checked_one():
    sites = join_sites()
    # Nested functions are walked twice, once inside their outer one: a site
    # is named by its innermost function.
    innermost = {
        site
        for site in sites
        if not any(
            other[0] == site[0] and other[2] == site[2] and other != site
            for other in sites
        )
        or site in OWN_PATHS
    }
    assert innermost == set(OWN_PATHS)


def test_the_join_sites_are_found_where_they_are():
    """The walk reads joins: the helper's own is among them."""
    assert ("formats/folders.py", "within", "root.joinpath(*parts)") in join_sites()


@pytest.mark.parametrize(
    ("names", "why"),
    [
        (["/etc"], "it is an absolute path"),
        (["C:/Windows"], "it is an absolute path"),
        (["c:\\Windows"], "it is an absolute path"),
        (["../../../../../../etc"], "it leads outside the folder"),
        (["adr/../../x"], "it leads outside the folder"),
        (["adr", "../../x.png"], "it leads outside the folder"),
        (["adr", "/x.png"], "it is an absolute path"),
        ([""], "it is empty"),
        (["a\x00b"], "it holds a NUL character"),
    ],
)
def test_within_refuses_what_leads_outside(tmp_path, names, why):
    with pytest.raises(OutsideFolder, match=f"^{why}$"):
        within(tmp_path, *names)


def test_within_follows_links_and_refuses_one_leading_out(tmp_path):
    (tmp_path / "inside").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "inside" / "out").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "inside" / "here").symlink_to(tmp_path / "inside")

    assert within(tmp_path / "inside", "here/x.md") == tmp_path / "inside" / "x.md"
    assert within(tmp_path / "inside", "a/../b.md") == tmp_path / "inside" / "b.md"
    with pytest.raises(OutsideFolder, match="leads outside"):
        within(tmp_path / "inside", "out/x.md")


# -- decision-logs.json -----------------------------------------------------


def run(folder, *options):
    out = io.StringIO()
    call_command("import_decisions", str(folder), *options, stdout=out)
    return out.getvalue()


def refused(folder):
    with pytest.raises(CommandError) as raised:
        run(folder)
    return str(raised.value).split("\n", 1)[1]


@pytest.fixture
def victim(tmp_path):
    """A folder of the host that no archive holds, with a decision in it."""
    return write_folder(tmp_path / "srv" / "victim", {"0001-host-only.md": SECRET})


def listing(folder, entries):
    write_folder(folder, {"0001-decoy.md": DECOY})
    (folder / "decision-logs.json").write_text(json.dumps(entries), encoding="utf-8")
    return folder


def leak(place):
    return [{"name": "Leaked server folder", "prefix": "LEAK", "format": "madr",
             "folder": place}]  # fmt: skip


def test_a_list_naming_a_host_folder_reads_nothing_of_it(tmp_path, victim):
    folder = listing(tmp_path / "upload", leak(str(victim)))

    message = refused(folder)

    assert message == (
        "decision-logs.json: entry 1 (“Leaked server folder”), folder: "
        f"“{victim}” is refused: it is an absolute path; the log is left out"
    )
    assert not DecisionRecord.objects.exists()
    assert not DecisionLog.objects.exists()


@pytest.mark.parametrize(
    ("place", "why"),
    [
        ("../../../../../../../../{victim}", "it leads outside the folder"),
        ("../srv/victim", "it leads outside the folder"),
        ("/", "it is an absolute path"),
        ("/nonexistent/dir", "it is an absolute path"),
        ("../../../../../nonexistent/dir", "it leads outside the folder"),
        ("C:/srv/victim", "it is an absolute path"),
        ("", "it is empty"),
    ],
)
def test_no_path_out_of_the_folder_is_read_and_none_is_told_apart(
    tmp_path, victim, place, why
):
    place = place.format(victim=str(victim).lstrip("/"))
    folder = listing(tmp_path / "upload", leak(place))

    message = refused(folder)

    # A folder that exists and one that does not are refused alike: the
    # message is the entry's own words and the rule, nothing of the host.
    assert message == (
        f"decision-logs.json: entry 1 (“Leaked server folder”), folder: “{place}” "
        f"is refused: {why}; the log is left out"
    )
    assert not DecisionRecord.objects.exists()


def test_a_link_in_the_folder_to_a_host_folder_is_not_followed(tmp_path, victim):
    folder = listing(tmp_path / "upload", leak("team"))
    (folder / "team").symlink_to(victim)

    message = refused(folder)

    assert message == (
        "decision-logs.json: entry 1 (“Leaked server folder”), folder: “team” is "
        "refused: it leads outside the folder; the log is left out"
    )


def test_a_listed_folder_the_archive_lacks_is_refused_by_entry(tmp_path):
    folder = listing(tmp_path / "upload", leak("gone"))

    assert refused(folder) == (
        "decision-logs.json: entry 1 (“Leaked server folder”), folder: “gone” is "
        "not a folder in it; the log is left out"
    )


def test_a_bad_entry_is_left_out_and_the_other_logs_are_imported(tmp_path, victim):
    folder = listing(
        tmp_path / "upload",
        [
            {"name": "The anthology", "prefix": "ADR", "format": "madr",
             "folder": "."},
            *leak(str(victim)),
            {"name": "Team", "prefix": "TEAM", "format": "adr-tools",
             "folder": "team"},
        ],
    )  # fmt: skip
    write_folder(folder / "team", ADR_TOOLS)

    report = run(folder)

    assert sorted(DecisionLog.objects.values_list("name", "prefix")) == [
        ("Team", "TEAM"),
        ("The anthology", "ADR"),
    ]
    assert DecisionRecord.objects.filter(title__contains="Host only").count() == 0
    # The decoy at the top, and the team's four decisions.
    assert DecisionRecord.objects.filter(log__is_own=True).count() == 1
    assert DecisionRecord.objects.filter(log__name="Team").count() == 4
    assert (
        "decision-logs.json: entry 2 (“Leaked server folder”), folder: "
        f"“{victim}” is refused: it is an absolute path; the log is left out"
    ) in report


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        (
            {"name": "Literature", "prefix": "LIT", "folder": "team"},
            "entry 1 (“Literature”), prefix: LIT is the prefix of the registry "
            "“Literature” (LIT-001 names one of its documents): give the log a "
            "prefix of its own.",
        ),
        (
            {"name": "Team", "prefix": "lit", "folder": "team"},
            "entry 1 (“Team”), prefix: A prefix is capital letters and digits, "
            "starting with a letter (LIT).",
        ),
        (
            {"name": "Team", "prefix": "A" * 21, "folder": "team"},
            "entry 1 (“Team”), prefix: Ensure this value has at most 20 characters "
            "(it has 21).",
        ),
        (
            {"name": "Team", "format": "word", "folder": "team"},
            "entry 1 (“Team”), format: Value 'word' is not a valid choice.",
        ),
        (
            {"name": "!!!", "folder": "team"},
            "entry 1 (“!!!”), name: “!!!” is not a name for a decision log: give "
            "it letters or digits.",
        ),
        (
            {"name": "Feed", "folder": "team"},
            "entry 1 (“Feed”), name: “Feed” would have the address "
            "/decisions/feed/, which is the record's own log's: give the log "
            "another name.",
        ),
        (
            {"name": "N" * 201, "folder": "team"},
            f"entry 1 (“{'N' * 201}”), name: Ensure this value has at most 200 "
            "characters (it has 201).",
        ),
        ({"name": "Team"}, "entry 1 (“Team”), folder: is missing"),
        ({"folder": "team"}, "entry 1, name: is missing"),
        ({"name": "Team", "folder": ["team"]}, "entry 1 (“Team”), folder: is not text"),
        (
            "team",
            "entry 1, entry: is not an object with name, prefix, format, folder",
        ),
    ],
)
def test_a_listed_logs_name_and_prefix_obey_the_rules_of_a_new_log(
    tmp_path, entry, problem
):
    Registry.objects.create(prefix="LIT", name="Literature")
    folder = listing(tmp_path / "upload", [entry])
    write_folder(folder / "team", ADR_TOOLS)

    assert refused(folder) == f"decision-logs.json: {problem}; the log is left out"
    assert not DecisionLog.objects.exists()


def test_the_command_holds_a_new_logs_prefix_to_the_same_rules(tmp_path):
    Registry.objects.create(prefix="LIT", name="Literature")
    folder = write_folder(tmp_path / "team", ADR_TOOLS)

    with pytest.raises(CommandError, match="LIT is the prefix of the registry"):
        run(folder, "--log", "Team", "--prefix", "LIT")
    assert not DecisionLog.objects.exists()


def test_two_entries_of_one_address_leave_the_second_out(tmp_path):
    folder = listing(
        tmp_path / "upload",
        [{"name": "CI", "folder": "a"}, {"name": "C.I", "folder": "b"}],
    )
    write_folder(folder / "a", ADR_TOOLS)
    write_folder(folder / "b", ADR_TOOLS)

    report = run(folder)

    assert list(DecisionLog.objects.values_list("name", flat=True)) == ["CI"]
    assert (
        "decision-logs.json: entry 2 (“C.I”), name: gives the address "
        "/decisions/ci/, another entry's; the log is left out"
    ) in report


def test_a_list_that_is_no_list_of_logs_is_refused_whole(tmp_path):
    folder = write_folder(tmp_path / "upload", {"0001-decoy.md": DECOY})
    (folder / "decision-logs.json").write_text('{"folder": "/"}', encoding="utf-8")

    assert refused(folder) == (
        "decision-logs.json: is not a list of decision logs: a JSON list of objects "
        "with name, prefix, format, folder"
    )


def test_a_link_named_as_the_list_of_logs_is_not_read(tmp_path, victim):
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps(leak(str(victim))), encoding="utf-8")
    folder = write_folder(tmp_path / "upload", {"0001-decoy.md": DECOY})
    (folder / "decision-logs.json").symlink_to(elsewhere)

    run(folder)

    assert list(DecisionRecord.objects.values_list("title", flat=True)) == ["A decoy"]


# -- Files and images a record names ----------------------------------------


def image_record(src):
    return (
        "# 1. Draw it\n\n## Status\n\nAccepted\n\n## Context\n\n"
        f"![The drawing]({src})\n"
    )


@pytest.mark.parametrize(
    "src",
    [
        "/{victim}/secret.png",
        "../../../../../../../{victim}/secret.png",
        "../victim/secret.png",
        "file:///{victim}/secret.png",
        "img/out/secret.png",
    ],
)
def test_an_image_outside_the_folder_is_not_read(tmp_path, victim, src):
    (victim / "secret.png").write_bytes(png_bytes())
    src = src.format(victim=str(victim).lstrip("/"))
    folder = write_folder(tmp_path / "srv" / "adr", {"0001-a.md": image_record(src)})
    (folder / "img").mkdir()
    (folder / "img" / "out").symlink_to(victim)

    run(folder)

    assert DecisionRecord.objects.count() == 1
    assert not DecisionImage.objects.exists()


def test_an_image_inside_the_folder_is_read_from_a_sub_folders_file(tmp_path):
    folder = write_folder(tmp_path / "adr", {})
    write_folder(folder / "2024", {"0001-draw-it.md": image_record("img/a.png")})
    (folder / "2024" / "img").mkdir()
    (folder / "2024" / "img" / "a.png").write_bytes(png_bytes())

    run(folder)

    assert list(DecisionImage.objects.values_list("name", flat=True)) == ["img/a.png"]


def test_a_markdown_link_to_a_host_file_is_left_out_with_a_note(tmp_path, victim):
    folder = write_folder(tmp_path / "adr", {"0001-decoy.md": DECOY})
    (folder / "0002-host-only.md").symlink_to(victim / "0001-host-only.md")

    report = run(folder)

    assert list(DecisionRecord.objects.values_list("title", flat=True)) == ["A decoy"]
    assert "0002-host-only.md: left out: a link to a file outside the folder" in (
        report
    )


def test_an_export_writes_nothing_outside_its_folder(tmp_path):
    run(write_folder(tmp_path / "adr", {"0001-decoy.md": DECOY}))
    # A restored record may name anything: a file kept at import and an image.
    DecisionRecord.objects.update(source_name="../../escaped.md")
    DecisionImage.objects.create(
        decision=DecisionRecord.objects.get(),
        name="../escaped.png",
        data=png_bytes(),
        content_type="image/png",
        digest="0" * 64,
    )
    out = tmp_path / "deep" / "out"

    written = export_decisions(out)

    assert written == ["0001-a-decoy.md"]
    assert sorted(
        path.relative_to(tmp_path).as_posix()
        for path in tmp_path.rglob("*")
        if path.is_file() and "adr" not in path.parts
    ) == ["deep/out/0001-a-decoy.md", "deep/out/decision-logs.json"]


# -- Through the admin's upload ---------------------------------------------


@pytest.mark.redis  # The import is a job, queued in Redis.
def test_the_uploaded_leak_publishes_nothing_and_names_no_server_path(
    admin_client, client, tmp_path, victim
):
    from tests.imports.test_folder_import_job import upload

    archive = zipped(
        {
            "0001-decoy.md": DECOY,
            "decision-logs.json": json.dumps(leak(str(victim))),
        }
    )

    upload(admin_client, "leak.zip", archive)

    job = Job.objects.get()
    assert job.state == Job.State.FAILED
    assert job.summary == (
        "leak.zip: the folder the archive's top was not imported; nothing was "
        "written.\ndecision-logs.json: entry 1 (“Leaked server folder”), folder: "
        f"“{victim}” is refused: it is an absolute path; the log is left out"
    )
    assert not DecisionRecord.objects.exists()
    assert client.get("/decisions/leaked-server-folder/").status_code == 404
    assert client.get("/api/decision-logs/leaked-server-folder/").status_code == 404


@pytest.mark.redis
def test_a_link_entry_beside_the_folder_is_not_unpacked_nor_followed(
    admin_client, tmp_path, victim
):
    from tests.imports.test_folder_import_job import upload

    archive = with_entries(
        zipped(
            {
                "project/docs/adr/0001-decoy.md": DECOY,
                "project/docs/adr/decision-logs.json": json.dumps(
                    [{"name": "Team", "folder": "../../victim"}]
                ),
            }
        ),
        [symlink("project/victim", str(victim))],
    )

    upload(admin_client, "link.zip", archive)

    job = Job.objects.get()
    assert job.summary.endswith(
        "decision-logs.json: entry 1 (“Team”), folder: “../../victim” is refused: "
        "it leads outside the folder; the log is left out"
    )
    assert not DecisionRecord.objects.exists()


@pytest.mark.redis
def test_a_folder_with_no_decision_names_no_server_path(admin_client):
    from tests.imports.test_folder_import_job import upload

    upload(admin_client, "notes.zip", zipped({"notes.md": "# Notes\n\nJust notes.\n"}))

    job = Job.objects.get()
    assert job.state == Job.State.FAILED
    assert "anthology-decisions-" not in job.summary
    assert os.sep + "tmp" not in job.summary
    assert "the archive's top: holds no decision file" in job.summary


@pytest.mark.redis
def test_the_upload_form_refuses_a_log_name_it_cannot_open(admin_client):
    from tests.imports.test_folder_import_job import UPLOAD

    response = admin_client.post(
        UPLOAD,
        {
            "log": "Feed",
            "archive": SimpleUploadedFile(
                "adr.zip", zipped(ADR_TOOLS), content_type="application/zip"
            ),
        },
    )

    assert response.context["form"].errors["log"] == [
        "“Feed” would have the address /decisions/feed/, which is the record's own "
        "log's: give the log another name."
    ]
    assert not Job.objects.exists()


def test_import_decisions_refuses_a_leak_before_writing(tmp_path, victim, admin_user):
    folder = listing(tmp_path / "upload", leak("../srv/victim"))

    with pytest.raises(ImportRefused, match="leads outside the folder"):
        import_decisions(folder, user=admin_user)

    assert not DecisionRecord.objects.exists()


def test_each_listed_folder_is_read_without_the_others_inside_it(tmp_path):
    folder = listing(
        tmp_path / "upload",
        [
            {"name": "The anthology", "folder": "./"},
            {"name": "Team", "folder": "team"},
            {"name": "Archive", "folder": "team/archive"},
        ],
    )
    write_folder(folder / "team", ADR_TOOLS)
    write_folder(folder / "team" / "archive", {"0001-decoy.md": DECOY})

    run(folder)

    assert sorted(DecisionRecord.objects.values_list("log__name", flat=True)) == [
        "Archive",
        "Team",
        "Team",
        "Team",
        "Team",
        "The anthology",
    ]

"""Decision folders made to hurt the importer: YAML alias bombs and deep
nesting in front matter, values Python cannot hold, damaged archives in every
compression. Each is refused with a message naming the file (and line), or
imported; none is an unhandled exception, a job "Failed: RecursionError", or
a worker growing without bound. The fuzz tests run a fixed number of
examples, derandomised, so CI runs the same ones each time."""

import io
import re
import zipfile

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catalogue.models import DecisionRecord
from formats import safe_yaml
from formats.archives import read_archive, unpack
from jobs import runner
from jobs.models import Job
from tests.imports.test_folder_import_job import upload
from tests.imports.test_madr_import import ADR_TOOLS, write_folder

pytestmark = pytest.mark.django_db

FUZZ = settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Nine lists of nine, each of the one before: 9**9 strings once expanded,
# from 234 bytes of YAML.
ALIAS_BOMB = "\n".join(
    [
        'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
        *(
            f"{name}: &{name} [{', '.join([f'*{before}'] * 9)}]"
            for before, name in zip("abcdefgh", "bcdefghi", strict=True)
        ),
    ]
)


def decision(front):
    return f"---\n{front}\n---\n# A decision\n\nText.\n"


@pytest.mark.parametrize(
    ("front", "problem"),
    [
        (
            ALIAS_BOMB,
            "0001-a.md, line 3: the front matter is not YAML: aliases (*a) are not "
            "read; write the value out",
        ),
        (
            "deciders: " + "[" * 5000,
            "0001-a.md, line 2: the front matter is not YAML: values nest deeper "
            "than 16 levels",
        ),
        (
            "deciders: " + "[" * 5000 + "]" * 5000,
            "0001-a.md, line 2: the front matter is not YAML: values nest deeper "
            "than 16 levels",
        ),
        (
            "deciders:\n  " + "- " * 5000 + "a",
            "0001-a.md, line 3: the front matter is not YAML: values nest deeper "
            "than 16 levels",
        ),
        (
            "number: " + "1" * 5000,
            "0001-a.md, line 2: the front matter is not YAML: a value cannot be "
            "read (Exceeds the limit (4300 digits) for integer string conversion: "
            "value has 5000 digits; use sys.set_int_max_str_digits() to increase "
            "the limit)",
        ),
        (
            "deciders: !!timestamp 'soon'",
            None,  # Read as the text it is, as an unreadable date is.
        ),
        (
            "deciders: x\n" * 7000,
            "0001-a.md, line 2: the front matter is not YAML: it is 84,000 "
            "characters long; we read up to 65,536",
        ),
    ],
    ids=[
        "alias bomb",
        "5000 open brackets",
        "5000 nested lists",
        "5000 nested block lists",
        "an integer of 5000 digits",
        "a timestamp tag on text",
        "front matter over the size limit",
    ],
)
def test_hostile_front_matter_is_kept_as_written_naming_the_file_and_line(
    tmp_path, front, problem
):
    folder = write_folder(tmp_path / "adr", {"0001-a.md": decision(front)})

    out = io.StringIO()
    call_command("import_decisions", str(folder), stdout=out)

    decision_ = DecisionRecord.objects.get()
    if problem is None:
        assert decision_.metadata == {"deciders": "soon"}
    else:
        assert problem in out.getvalue()
        # Nothing is expanded or read beyond its bounds: the text is kept.
        assert decision_.metadata["front-matter"] == front
        assert decision_.body == "Text.\n"


def test_yaml_anchors_without_aliases_are_read():
    assert safe_yaml.load("a: &x 1\nb: [2]") == {"a": 1, "b": [2]}


def test_yaml_merge_keys_are_aliases_and_refused():
    with pytest.raises(safe_yaml.YAMLRefused, match=r"aliases \(\*base\)"):
        safe_yaml.load("base: &base {a: 1}\nother:\n  <<: *base\n")


@pytest.mark.redis  # The import is a job, queued in Redis.
def test_an_uploaded_folder_with_an_alias_bomb_keeps_it_as_written(admin_client):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("adr/0001-a.md", decision(ALIAS_BOMB))
        archive.writestr("adr/0002-b.md", decision("deciders: " + "[" * 5000))

    upload(admin_client, "adr.zip", buffer.getvalue())

    job = Job.objects.get()
    assert job.state == Job.State.FINISHED
    report = runner.result_of(job)
    assert "0001-a.md, line 3: the front matter is not YAML: aliases" in report
    assert "0002-b.md, line 2: the front matter is not YAML: values nest" in report
    assert "RecursionError" not in report
    kept = {d.number: d.metadata["front-matter"] for d in DecisionRecord.objects.all()}
    assert kept == {1: ALIAS_BOMB, 2: "deciders: " + "[" * 5000}


FRONT_PIECES = st.sampled_from(
    [
        "status: accepted",
        "a: &a [x, y]",
        "b: [*a, *a]",
        "<<: *a",
        "c: !!binary aGk=",
        "d: !!set {x, y}",
        "e: !!omap [x: 1]",
        "f: !!python/object:os.system x",
        "g: !!float nope",
        "h: !!int 0x",
        'i: "\\0"',
        "j: " + "[" * 40,
        "k: " + "{a: " * 30,
        "l: " + "9" * 4400,
        "? [x]\n: y",
        "- listed",
        "date: 2025-13-01",
        "date: !!timestamp x",
        "deciders: [Ann, Bo]",
        "%YAML 1.1",
        "--- second",
        "m: |\n  text",
        "n: 'unclosed",
        "\t",
        "",
    ]
)


@FUZZ
@given(
    st.lists(
        st.one_of(
            FRONT_PIECES,
            st.text(alphabet="[]{}&*!:-,?'\"\\0|>%@ \nab#", max_size=60),
        ),
        max_size=8,
    )
)
def test_hostile_front_matter_imports_or_is_refused_by_file_and_line(tmp_path, pieces):
    folder = tmp_path / "adr"
    folder.mkdir(exist_ok=True)
    (folder / "0001-a.md").write_text(decision("\n".join(pieces)), encoding="utf-8")
    try:
        with transaction.atomic():
            call_command("import_decisions", str(folder), stdout=io.StringIO())
            transaction.set_rollback(True)
    except CommandError as error:
        problems = str(error).splitlines()[1:]
        assert problems
        # A line where one is known; a problem of the file as a whole names
        # the file alone.
        assert all(re.match(r"0001-a\.md(, line \d+)?: ", line) for line in problems)
    assert not DecisionRecord.objects.exists()


COMPRESSIONS = [
    zipfile.ZIP_STORED,
    zipfile.ZIP_DEFLATED,
    zipfile.ZIP_BZIP2,
    zipfile.ZIP_LZMA,
]


def folder_zip(compression):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, text in ADR_TOOLS.items():
            archive.writestr(f"adr/{name}", text * 5)
    return buffer.getvalue()


ZIPS = {compression: folder_zip(compression) for compression in COMPRESSIONS}


@FUZZ
@given(
    compression=st.sampled_from(COMPRESSIONS),
    damage=st.lists(
        st.tuples(st.floats(0, 1), st.integers(1, 255)), min_size=1, max_size=6
    ),
    cut=st.one_of(st.none(), st.floats(0.05, 1)),
)
def test_a_damaged_archive_unpacks_or_is_refused_naming_it(
    tmp_path_factory, compression, damage, cut
):
    data = bytearray(ZIPS[compression])
    for where, flip in damage:
        data[min(int(where * len(data)), len(data) - 1)] ^= flip
    if cut is not None:
        data = data[: int(cut * len(data))]
    target = tmp_path_factory.mktemp("unpacked")
    try:
        found = read_archive(bytes(data), name="adr.zip")
        unpack(bytes(data), found, target)
    except ValidationError as error:
        assert error.message.startswith("adr.zip")


def test_an_archive_needing_a_zip_version_python_cannot_read_is_refused_as_damaged():
    data = bytearray(ZIPS[zipfile.ZIP_STORED])
    # The "version needed to extract" of the central directory's first entry,
    # six bytes past its signature: 8.4, past what zipfile reads.
    data[data.find(b"PK\x01\x02") + 6] = 84

    with pytest.raises(ValidationError) as refused:
        read_archive(bytes(data), name="adr.zip")

    assert refused.value.code == "damaged"
    assert refused.value.message == (
        "adr.zip is a damaged .zip archive (zip file version 8.4); zip the folder "
        "again."
    )

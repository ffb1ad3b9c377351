"""The whole public record as files: a dump made by the command is listed on
/data/ and in /data/index.json, downloaded over HTTP, checked against the
SHA-256 listed and its SHA256SUMS (by ``sha256sum -c``), and read back by
the readers' tools: biber (BibTeX), rispy (RIS), citeproc-js (CSL-JSON) and
the API's own description (JSON Lines). Drafts and pending revisions are
never in a dump; old dumps go by DUMPS_KEEP; a dump without its manifest is
none."""

import gzip
import hashlib
import io
import json
import subprocess
from datetime import UTC, datetime, timedelta

import jsonschema
import pytest
import rispy
from django.core.management import call_command
from django.urls import reverse

import actions.documents
from catalogue.models import Document
from dumps import jobs, store, writers
from jobs.models import Job
from tests.clients import citeproc
from tests.factories import DocumentFactory, UserFactory
from tests.formats.test_citation_readers import biber_problems, bibtex_entries
from tests.tools import require_node_package, require_tool

pytestmark = pytest.mark.django_db

FILES = ["anthology.bib.gz", "anthology.ris.gz", "anthology.csl.json.gz"]
JSONL = "anthology.jsonl.gz"


def make_dump():
    out = io.StringIO()
    call_command("make_dumps", stdout=out)
    return out.getvalue()


def download(client, url):
    """The body of ``url`` (absolute or a path); a gzip file is asked for as
    a browser asks (accepting gzip) and is sent as it is kept."""
    headers = {} if url.endswith("SHA256SUMS") else {"Accept-Encoding": "gzip"}
    response = client.get(url, headers=headers)
    assert response.status_code == 200, url
    assert "Content-Encoding" not in response, url
    body = (
        b"".join(response.streaming_content)
        if response.streaming
        else (response.content)
    )
    return response, body


def listed(client):
    answer = client.get(reverse("dumps:index-json"))
    assert answer.status_code == 200
    return answer.json()


def cited_documents():
    """The public documents a citation file holds: withdrawn ones left out."""
    return list(
        Document.objects.public()
        .exclude(status=Document.Status.WITHDRAWN)
        .in_number_order()
    )


def texts(client, dump):
    """Each file of ``dump`` (as index.json lists it), downloaded and
    decompressed, by name."""
    return {
        file["name"]: gzip.decompress(download(client, file["url"])[1]).decode()
        for file in dump["files"]
    }


@pytest.fixture
def dumped(imported_seed, backup_dir, client):
    """The seed, one document withdrawn, dumped by the command; the dump as
    /data/index.json lists it."""
    publisher = UserFactory(publisher=True)
    withdrawn = Document.objects.public().in_number_order().last()
    actions.documents.withdraw(document=withdrawn, user=publisher, reason="Gone.")
    make_dump()
    (dump,) = listed(client)["dumps"]
    return dump


def test_the_data_page_lists_the_dump_with_its_counts_checksums_and_licence(
    client, dumped, settings
):
    page = client.get(reverse("dumps:index"))
    html = page.content.decode()

    assert page.status_code == 200
    cited = len(cited_documents())
    public = Document.objects.public().count()
    assert [(f["name"], f["documents"]) for f in dumped["files"]] == [
        ("anthology.bib.gz", cited),
        ("anthology.ris.gz", cited),
        ("anthology.csl.json.gz", cited),
        (JSONL, public),
    ]
    assert public == cited + 1 == 67  # The seed page lists 67.
    for file in dumped["files"]:
        assert f"/data/{dumped['name']}/{file['name']}" in html
        assert file["sha256"] in html
        assert f'<td class="count">{file["documents"]}</td>' in html
        assert f'<td class="count">{file["bytes"]}</td>' in html
    assert (
        (dumped["license"], dumped["license_url"])
        == (
            settings.DUMPS_LICENSE,
            settings.DUMPS_LICENSE_URL,
        )
        == ("CC-BY-4.0", "https://creativecommons.org/licenses/by/4.0/")
    )
    assert 'rel="license">CC-BY-4.0</a>' in html
    assert "/data/latest/anthology.bib.gz" in html


def test_each_file_matches_its_listed_checksum_and_sha256sum_checks_it(
    client, dumped, tmp_path
):
    folder = tmp_path / "downloaded"
    folder.mkdir()
    for file in dumped["files"]:
        response, body = download(client, file["url"])
        assert response["Content-Type"] == "application/gzip"
        assert response["Content-Disposition"] == (
            f'attachment; filename="{file["name"]}"'
        )
        assert response["Content-Length"] == str(len(body)) == str(file["bytes"])
        assert response["ETag"] == f'"{file["sha256"]}"'
        assert hashlib.sha256(body).hexdigest() == file["sha256"]
        assert len(gzip.decompress(body)) == file["uncompressed_bytes"]
        (folder / file["name"]).write_bytes(body)
    _, sums = download(client, dumped["sha256sums_url"])
    (folder / "SHA256SUMS").write_bytes(sums)

    checked = subprocess.run(
        [require_tool("sha256sum", "apt-get install coreutils"), "-c", "SHA256SUMS"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )

    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.splitlines() == [
        f"{file['name']}: OK" for file in dumped["files"]
    ]


@pytest.mark.biber
def test_biber_reads_the_bibtex_dump_without_a_warning(client, dumped, tmp_path):
    text = texts(client, dumped)["anthology.bib.gz"]

    assert biber_problems(tmp_path, text) == (0, [])
    assert list(bibtex_entries(text)) == [
        str(document.identifier) for document in cited_documents()
    ]


def test_rispy_reads_every_document_of_the_ris_dump(client, dumped):
    entries = rispy.loads(texts(client, dumped)["anthology.ris.gz"])

    assert [(entry["id"], entry["title"]) for entry in entries] == [
        (str(document.identifier), document.title) for document in cited_documents()
    ]


@pytest.mark.node
def test_citeproc_js_renders_every_document_of_the_csl_json_dump(client, dumped):
    items = json.loads(texts(client, dumped)["anthology.csl.json.gz"])

    rendered = citeproc.render(items, "ieee")

    documents = cited_documents()
    # IEEE numbers its bibliography in the order of citation.
    assert sorted(rendered["bibliography"]) == sorted(
        str(document.identifier) for document in documents
    )
    for document in documents:
        entry = rendered["bibliography"][str(document.identifier)]
        assert document.title.split(":")[0] in entry
        assert str(document.year) in entry


def openapi_to_json_schema(node):
    """An OpenAPI 3.0 schema as JSON Schema: ``nullable`` as a null type."""
    if isinstance(node, list):
        return [openapi_to_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: openapi_to_json_schema(value) for key, value in node.items()}
    if converted.pop("nullable", False):
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


def test_json_lines_are_the_apis_documents(client, dumped):
    lines = texts(client, dumped)[JSONL].splitlines()
    records = [json.loads(line) for line in lines]
    description = client.get(reverse("api:schema"), {"format": "json"}).json()
    components = openapi_to_json_schema(description["components"])
    shape = components["schemas"]["Document"]
    answered = client.get(reverse("api:document-list"), {"page_size": 200}).json()

    for record in records:
        jsonschema.validate(
            record, {"$ref": "#/components/schemas/Document", "components": components}
        )
        assert set(record) == set(shape["properties"])
    by_identifier = {record["identifier"]: record for record in answered["results"]}
    assert records == [by_identifier[record["identifier"]] for record in records]
    assert sorted(by_identifier) == sorted(record["identifier"] for record in records)
    assert [record["status"] for record in records].count("withdrawn") == 1


def test_a_dumps_files_are_the_sites_own_citation_downloads(client, dumped):
    """The citation files hold what a download of the same documents holds:
    the site's one writer of each format, byte for byte."""
    from formats.citations import render

    written = texts(client, dumped)
    documents = cited_documents()

    assert written["anthology.bib.gz"] == render(documents, "bib")
    assert written["anthology.ris.gz"] == render(documents, "ris")
    assert written["anthology.csl.json.gz"] == render(documents, "json")


def test_a_draft_and_a_pending_revision_are_never_in_a_dump(
    client, backup_dir, publisher
):
    public = DocumentFactory(published=True, number=5, title="Published words")
    DocumentFactory(draft=True, number=6, title="Zyxwvut secret draft")
    actions.documents.edit_document(
        document=public,
        user=publisher,
        changes={"title": "Qwertyuiop pending title", "summary": "Pending text."},
    )
    assert public.revisions.count() == 1

    make_dump()
    (dump,) = listed(client)["dumps"]
    written = texts(client, dump)

    assert [file["documents"] for file in dump["files"]] == [1, 1, 1, 1]
    for name, text in written.items():
        assert "Published words" in text, name
        assert "Zyxwvut" not in text and "LIT-006" not in text, name
        assert "Qwertyuiop" not in text and "Pending text" not in text, name


def test_the_latest_address_serves_the_newest_dump_and_answers_304_to_its_etag(
    client, imported_seed, backup_dir
):
    older = store.write_dump(now=datetime(2026, 1, 1, tzinfo=UTC))
    DocumentFactory(published=True, number=900, title="Added after the first dump")
    newer = store.write_dump(now=datetime(2026, 1, 2, tzinfo=UTC))
    url = reverse("dumps:latest", args=["anthology.ris.gz"])

    response, body = download(client, url)

    assert (
        older.file("anthology.ris.gz").sha256 != newer.file("anthology.ris.gz").sha256
    )
    assert hashlib.sha256(body).hexdigest() == newer.file("anthology.ris.gz").sha256
    assert response["Content-Disposition"] == 'attachment; filename="anthology.ris.gz"'
    etag = response["ETag"]
    held = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert (held.status_code, held["ETag"]) == (304, etag)
    assert client.get(url, HTTP_IF_NONE_MATCH=f"W/{etag}").status_code == 304
    _, sums = download(client, reverse("dumps:latest", args=["SHA256SUMS"]))
    assert sums.decode() == newer.sums
    assert [d["name"] for d in listed(client)["dumps"]] == [newer.name, older.name]


def test_old_dumps_are_deleted_beyond_dumps_keep(client, backup_dir, settings):
    settings.DUMPS_KEEP = 2
    made = [
        store.write_dump(now=datetime(2026, 1, day, tzinfo=UTC)) for day in (1, 2, 3)
    ]

    deleted = store.prune(now=datetime(2026, 1, 3, 1, tzinfo=UTC))

    assert deleted == [made[0].name]
    assert [dump.name for dump in store.finished_dumps()] == [
        made[2].name,
        made[1].name,
    ]
    assert not (backup_dir / "dumps" / made[0].name).exists()
    gone = reverse("dumps:file", args=[made[0].name, "anthology.bib.gz"])
    assert client.get(gone).status_code == 404


def test_a_dump_without_its_manifest_is_not_listed_nor_served(client, backup_dir):
    dump = store.write_dump(now=datetime(2026, 1, 1, tzinfo=UTC))
    (backup_dir / "dumps" / dump.name / "manifest.json").unlink()

    assert listed(client) == {"latest": {}, "dumps": []}
    url = reverse("dumps:file", args=[dump.name, "anthology.bib.gz"])
    assert client.get(url).status_code == 404
    assert client.get(reverse("dumps:latest", args=["SHA256SUMS"])).status_code == 404
    # Left by a writer that stopped: deleted once a day old.
    assert store.prune(now=datetime(2026, 1, 1, 12, tzinfo=UTC)) == []
    assert store.prune(now=datetime(2026, 1, 2, 1, tzinfo=UTC)) == [dump.name]


def test_a_file_no_dump_holds_is_404(client, backup_dir):
    dump = store.write_dump(now=datetime(2026, 1, 1, tzinfo=UTC))

    for url in [
        reverse("dumps:file", args=[dump.name, "manifest.json"]),
        reverse("dumps:file", args=[dump.name, "anthology.csv.gz"]),
        reverse("dumps:latest", args=["manifest.json"]),
        reverse("dumps:file", args=["2026-01-01-000001", "anthology.bib.gz"]),
    ]:
        assert client.get(url).status_code == 404, url


def test_the_data_page_reads_no_table(client, backup_dir, django_assert_num_queries):
    for day in (1, 2, 3):
        store.write_dump(now=datetime(2026, 1, day, tzinfo=UTC))

    with django_assert_num_queries(0):
        page = client.get(reverse("dumps:index"))
        listing = client.get(reverse("dumps:index-json"))

    assert page.status_code == listing.status_code == 200
    assert len(listing.json()["dumps"]) == 3


@pytest.mark.redis
def test_the_workers_chore_makes_a_dump_once_one_is_due(backup_dir, settings):
    settings.DUMPS_EVERY_HOURS = 24
    DocumentFactory(published=True, number=5)

    jobs.request_due()

    job = Job.objects.get(function=jobs.FUNCTION)
    assert job.state == Job.State.FINISHED
    (dump,) = store.finished_dumps()
    assert job.summary == jobs.summary(dump)
    jobs.request_due()  # The newest is recent: nothing to do.
    assert Job.objects.filter(function=jobs.FUNCTION).count() == 1
    assert store.finished_dumps() == [dump]


def test_the_chore_waits_for_the_schedule(backup_dir, settings):
    dump = store.write_dump(now=datetime(2026, 1, 1, tzinfo=UTC))
    settings.DUMPS_EVERY_HOURS = 24

    assert not jobs.is_due(dump.made_at + timedelta(hours=23))
    assert jobs.is_due(dump.made_at + timedelta(hours=24))
    settings.DUMPS_EVERY_HOURS = 0
    assert not jobs.is_due(dump.made_at + timedelta(days=30))


@pytest.mark.java
@pytest.mark.node
def test_the_current_nu_checker_finds_no_error_on_the_data_page(
    client, backup_dir, tmp_path
):
    vnu = require_node_package("vnu-jar") / "build" / "dist" / "vnu.jar"
    java = require_tool("java", "apt-get install default-jre-headless")
    (tmp_path / "empty.html").write_bytes(client.get(reverse("dumps:index")).content)
    DocumentFactory(published=True, number=5)
    for day in (1, 2):
        store.write_dump(now=datetime(2026, 1, day, 9, 30, tzinfo=UTC))
    (tmp_path / "listed.html").write_bytes(client.get(reverse("dumps:index")).content)

    result = subprocess.run(
        [
            *(java, "-jar", str(vnu), "--format", "json", "--errors-only"),
            *(str(tmp_path / name) for name in ("empty.html", "listed.html")),
        ],
        capture_output=True,
        text=True,
        check=False,
    )

    assert json.loads(result.stderr)["messages"] == []


@pytest.mark.parametrize(
    ("name", "prefetches"),
    [("anthology.bib.gz", 1), ("anthology.csl.json.gz", 1), (JSONL, 2)],
)
def test_a_file_is_written_from_a_query_read_in_chunks(
    name, prefetches, monkeypatch, django_assert_num_queries
):
    """Memory follows the chunk, not the record: one query read a chunk at a
    time, and each chunk's related rows read with it."""
    for number in range(1, 6):
        DocumentFactory(published=True, number=number)
    monkeypatch.setattr(writers, "CHUNK_SIZE", 2)

    with django_assert_num_queries(1 + 3 * prefetches):
        documents, _ = store._write_file(writers.BY_NAME[name], io.BytesIO())

    assert documents == 5


def test_the_command_prints_the_checksums_and_the_dumps_it_deleted(
    backup_dir, settings
):
    settings.DUMPS_KEEP = 1
    DocumentFactory(published=True, number=5)
    older = store.write_dump(now=datetime(2026, 1, 1, tzinfo=UTC))

    printed = make_dump().splitlines()

    (newest,) = store.finished_dumps()
    assert printed == [
        f"Wrote the dump {newest.name} (documents: 1 in anthology.bib.gz, "
        "1 in anthology.ris.gz, 1 in anthology.csl.json.gz, 1 in "
        "anthology.jsonl.gz).",
        *(f"{file.sha256}  {file.name}" for file in newest.files),
        f"Deleted the old dump {older.name}.",
    ]
    out = io.StringIO()
    call_command("make_dumps", "--prune-only", stdout=out)
    assert out.getvalue() == ""
    assert store.finished_dumps() == [newest]

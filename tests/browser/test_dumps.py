"""A reader takes the whole record as a file: from any page's footer to
/data/, a download of the newest BibTeX dump, whose bytes are the SHA-256
the page lists."""

import gzip
import hashlib
import io
import re

import pytest
from django.core.management import call_command

from catalogue.models import Document
from tests.browser import follow

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_reader_downloads_the_newest_bibtex_dump_and_its_checksum_holds(
    page, live_server, imported_seed, backup_dir
):
    call_command("make_dumps", stdout=io.StringIO())

    page.goto(f"{live_server.url}/")
    follow(page, page.get_by_role("link", name="The whole record as files"))
    listed = page.locator("table.dump tbody tr").filter(has_text="anthology.bib.gz")
    checksum = listed.locator("code.checksum").inner_text()
    with page.expect_download() as download:
        page.get_by_role("list").get_by_role("link", name="anthology.bib.gz").click()

    body = download.value.path().read_bytes()
    assert download.value.suggested_filename == "anthology.bib.gz"
    assert hashlib.sha256(body).hexdigest() == checksum
    entries = gzip.decompress(body).decode()
    # Every public document but the withdrawn, as every citation file of several.
    cited = Document.objects.public().exclude(status=Document.Status.WITHDRAWN)
    assert len(re.findall(r"^@\w+\{", entries, re.MULTILINE)) == cited.count() == 67

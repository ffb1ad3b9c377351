"""check_sources against fake arXiv, Crossref, doi.org and link targets in
their own formats: what each check proposes, what it never proposes twice,
the pace it keeps (counted through a virtual clock, never timed) and what
it refuses to ask."""

import datetime
import io
import math

import httpx
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test.utils import CaptureQueriesContext

import actions.link_checks
from catalogue.models import Correction, LinkCheck
from jobs.models import Job
from sources.checks import check_sources
from sources.checks.links import _follows, links_in, may_ask
from sources.checks.pacing import Pace, VirtualClock
from sources.transport import LookupFailed
from tests.factories import DecisionRecordFactory, DocumentFactory
from tests.sources.fake_checks import FakeChecks

pytestmark = pytest.mark.django_db

DAY = 24 * 3600
RETRACTED = "DOI:10.5555/retracted.2024.112"
CORRECTED = "DOI:10.5555/corrected.2023.048"


@pytest.fixture(scope="module")
def fake_checks():
    with FakeChecks() as server:
        yield server


@pytest.fixture
def sources(settings, fake_checks):
    """The checks ask the fakes, the link check may ask 127.0.0.1 (where
    they are), and nothing waits on a real clock."""
    settings.METADATA_ARXIV_URL = f"{fake_checks.url}/arxiv/api/query"
    settings.METADATA_CROSSREF_URL = f"{fake_checks.url}/crossref"
    settings.SOURCES_DOI_URL = f"{fake_checks.url}/doi/api/handles"
    settings.METADATA_MAILTO = "editors@example.org"
    settings.METADATA_TIMEOUT = 5
    settings.SOURCES_LINKS_PRIVATE = True
    for name in ["ARXIV", "CROSSREF", "DOI", "LINKS"]:
        setattr(settings, f"SOURCES_{name}_INTERVAL", 0)
    fake_checks.requests.clear()
    return fake_checks


def public(**fields):
    return DocumentFactory(published=True, **fields)


def run(*args):
    out = io.StringIO()
    call_command("check_sources", *args, stdout=out)
    return out.getvalue()


def findings():
    return sorted(
        Correction.objects.values_list("finding", "origin", "proposes", "changes")
    )


def test_a_newer_arxiv_version_and_a_crossref_retraction_are_proposed_once(sources):
    cites_v2 = public(number=26, source_identifier="ARXIV-2403.00026v2")
    retracted = public(number=27, source_identifier=RETRACTED)

    first = run()

    version = Correction.objects.get(document=cites_v2)
    assert (version.origin, version.proposes, version.status) == (
        Correction.Origin.ARXIV,
        Correction.Proposes.EDIT,
        Correction.Status.PENDING,
    )
    assert version.changes == {"source_identifier": "ARXIV-2403.00026v3"}
    assert version.current == {"source_identifier": "ARXIV-2403.00026v2"}
    assert version.note == "arXiv has v3 of LIT-026, the record cites v2."
    assert version.finding == "arxiv:2403.00026:v3"
    retraction = Correction.objects.get(document=retracted)
    assert (retraction.origin, retraction.proposes) == (
        Correction.Origin.CROSSREF,
        Correction.Proposes.WITHDRAWAL,
    )
    assert retraction.note == (
        "Crossref: retracted 2026-05-02 (the notice: DOI 10.5555/retraction.2026.031, "
        "“Retraction”, from publisher, retraction-watch)."
    )
    assert retraction.finding == (
        "crossref:10.5555/retracted.2024.112:retraction:10.5555/retraction.2026.031"
    )
    cites_v2.refresh_from_db()
    assert cites_v2.source_identifier == "ARXIV-2403.00026v2"  # never edited
    assert "LIT-026: arXiv has v3 of LIT-026, the record cites v2." in first
    assert first.splitlines()[-1] == (
        "2 documents and 0 decision records checked: 2 findings proposed, "
        "0 already proposed, 0 failures."
    )

    second = run()

    assert Correction.objects.count() == 2
    assert second.splitlines()[-1] == (
        "2 documents and 0 decision records checked: 0 findings proposed, "
        "2 already proposed, 0 failures."
    )
    assert "arXiv: 1 requests, 0 proposed, 1 already proposed, 0 failures." in second


def test_a_declined_finding_is_not_proposed_again(sources):
    public(number=26, source_identifier="ARXIV-2403.00026v2")
    run("--only", "arxiv")
    Correction.objects.update(status=Correction.Status.DECLINED)

    run("--only", "arxiv")

    assert Correction.objects.count() == 1


def test_arxiv_pace_one_batch_a_request_and_three_seconds_between(sources, settings):
    settings.SOURCES_ARXIV_INTERVAL = 3
    settings.SOURCES_ARXIV_BATCH = 10
    documents = [public() for _ in range(25)]
    clock = VirtualClock()

    report = check_sources(only=["arxiv"], clock=clock)

    asked = sources.asked("/arxiv/")
    assert report.requests["arxiv"] == len(asked) == math.ceil(25 / 10)
    assert clock.sleeps == [3, 3]
    ids = [
        query.split("id_list=")[1].split("&")[0].replace("%2C", ",").split(",")
        for _, query, _ in asked
    ]
    assert [len(batch) for batch in ids] == [10, 10, 5]
    assert sorted(i for batch in ids for i in batch) == sorted(
        d.arxiv_id for d in documents
    )
    assert all("max_results=" in query for _, query, _ in asked)


def test_the_pace_counts_the_time_a_request_took():
    clock = VirtualClock()
    pace = Pace(3, clock)
    pace.wait()
    clock.advance(1)  # the request itself took a second
    pace.wait()
    clock.advance(5)
    pace.wait()

    assert clock.sleeps == [2]


@pytest.mark.parametrize(
    ("identifier", "number"),
    [("ARXIV-2404.01234v1", 31), ("ARXIV-2406.07777v1", 32)],
)
def test_an_arxiv_withdrawal_is_proposed_with_its_comment(sources, identifier, number):
    document = public(number=number, source_identifier=identifier)

    run("--only", "arxiv")

    withdrawal = Correction.objects.get(document=document)
    assert withdrawal.proposes == Correction.Proposes.WITHDRAWAL
    assert withdrawal.changes == {}
    assert withdrawal.note.startswith("arXiv: ")
    assert "withdrawn by" in withdrawal.note
    assert withdrawal.finding.endswith(":withdrawn")


def test_a_comment_mentioning_a_withdrawn_draft_is_no_withdrawal(sources):
    public(source_identifier="ARXIV-2405.05555v1")

    report = check_sources(only=["arxiv"], clock=VirtualClock())

    assert findings() == []
    assert report.failures["arxiv"] == 0


def test_a_record_citing_no_version_cites_the_newest(sources):
    public(source_identifier="ARXIV-2403.00026")

    run("--only", "arxiv")

    assert findings() == []


def test_an_already_withdrawn_document_is_not_proposed_a_withdrawal(sources):
    DocumentFactory(source_identifier="ARXIV-2404.01234v1", withdrawn=True)

    run("--only", "arxiv")

    assert findings() == []


def test_arxiv_answers_that_fail_a_batch_leave_the_others_checked(sources, settings):
    settings.SOURCES_ARXIV_BATCH = 2
    # One batch a row (documents are asked in the order they were made):
    # omitted id; error feed naming one id; malformed feed. Every number is
    # given: the factory's next one could be one of these.
    public(number=1, source_identifier="ARXIV-9999.00001v1")
    public(number=26, source_identifier="ARXIV-2403.00026v2")
    public(number=2, source_identifier="ARXIV-cond-mat/0000000")
    public(number=41, source_identifier="ARXIV-2404.01234v1")
    public(number=3, source_identifier="ARXIV-1111.11111v1")
    public(number=42, source_identifier="ARXIV-2406.07777v1")

    report = check_sources(only=["arxiv"], clock=VirtualClock())

    # The error batch is asked again without the id arXiv refused.
    assert report.requests["arxiv"] == 4
    assert sorted(f for f, *_ in findings()) == [
        "arxiv:2403.00026:v3",
        "arxiv:2404.01234:withdrawn",
    ]
    assert report.failures["arxiv"] == 3
    lines = "\n".join(report.lines())
    assert "arXiv's answer omits 9999.00001 (cited by LIT-" in lines
    assert "arXiv refuses the id cond-mat/0000000: incorrect id format" in lines
    assert "could not be read (malformed XML" in lines


@pytest.mark.parametrize("stops", ["4444.44444", "5555.55555"])
def test_arxiv_limiting_us_stops_arxiv_not_the_other_checks(sources, settings, stops):
    settings.SOURCES_ARXIV_BATCH = 1
    public(source_identifier=f"ARXIV-{stops}v1")
    public(source_identifier="ARXIV-2403.00026v2")
    retracted = public(source_identifier=RETRACTED)

    report = check_sources(clock=VirtualClock())

    assert report.requests["arxiv"] == 1
    assert "arxiv" in report.stopped
    assert list(Correction.objects.values_list("document", flat=True)) == [retracted.pk]
    assert any("Not asked again in this run." in line for line in report.lines())


def test_a_crossref_correction_is_an_erratum_and_a_concern_a_note(sources):
    corrected = public(source_identifier=CORRECTED)
    concern = public(doi="10.5555/concern.2022.007", source_identifier="")

    run("--only", "crossref")

    erratum = Correction.objects.get(document=corrected)
    assert erratum.proposes == Correction.Proposes.ERRATUM
    assert erratum.note == (
        "Crossref: corrected 2025-11-20 (the notice: DOI "
        "10.5555/corrected.2023.048.erratum, “Correction”, from publisher)."
    )
    note = Correction.objects.get(document=concern)
    assert (note.proposes, note.changes) == (Correction.Proposes.EDIT, {})
    assert note.note.startswith("Crossref: expression of concern 2026-02-27 (")
    asked = sources.asked("/crossref/")
    assert all("mailto=editors%40example.org" in query for _, query, _ in asked)
    assert {agent for *_, agent in asked} == {
        "anthology/1.0 (metadata lookup; mailto:editors@example.org)"
    }


@pytest.mark.parametrize(
    ("stops", "why"),
    [
        ("10.5555/down", "Crossref answered 503."),
        (
            "10.5555/limited",
            "Crossref is limiting our requests (429 Too Many "
            "Requests); try again in 30 seconds.",
        ),
    ],
)
def test_a_doi_crossref_does_not_know_proposes_nothing_and_a_limit_stops(
    sources, stops, why
):
    public(source_identifier="DOI:10.5555/missing.1")
    public(source_identifier=f"DOI:{stops}")
    public(source_identifier=RETRACTED)

    report = check_sources(only=["crossref"], clock=VirtualClock())

    assert report.requests["crossref"] == 2
    assert report.stopped["crossref"] == why
    assert findings() == []
    assert report.failures["crossref"] == 1


def test_a_doi_that_does_not_resolve_is_proposed(sources):
    unresolved = public(source_identifier="DOI:10.5555/unresolved.7")
    public(source_identifier=RETRACTED)

    report = check_sources(only=["doi"], clock=VirtualClock())

    assert report.requests["doi"] == 2
    correction = Correction.objects.get()
    assert correction.document == unresolved
    assert correction.origin == Correction.Origin.DOI
    assert correction.note == (
        "The DOI 10.5555/unresolved.7 does not resolve (doi.org: handle not found)."
    )
    assert correction.finding == "doi:10.5555/unresolved.7:unresolved"


def link_text(url):
    paths = ["200/ok", "404/gone", "410/removed", "403/wall", "429/busy", "503/x"]
    return "See " + ", ".join(f"{url}/links/{path}" for path in paths) + "."


def test_a_link_is_dead_after_two_checks_a_day_apart(sources):
    document = public(summary=link_text(sources.url))
    clock = VirtualClock()

    check_sources(only=["links"], clock=clock)

    assert findings() == []
    paths = ["200/ok", "403/wall", "404/gone", "410/removed", "429/busy", "503/x"]
    assert sorted(LinkCheck.objects.values_list("url", "status_code")) == [
        (f"{sources.url}/links/{path}", int(path[:3])) for path in paths
    ]
    clock.advance(DAY)

    report = check_sources(only=["links"], clock=clock)

    assert sorted(Correction.objects.values_list("finding", flat=True)) == [
        f"link:{sources.url}/links/404/gone:dead",
        f"link:{sources.url}/links/410/removed:dead",
    ]
    dead = Correction.objects.get(finding__contains="404")
    assert (dead.document, dead.origin) == (document, Correction.Origin.LINKS)
    today = clock.wall().date()
    assert dead.note == (
        f"The link {sources.url}/links/404/gone is dead: it answered 404 on "
        f"{today - datetime.timedelta(days=1)} and again on {today}."
    )
    assert report.requests["links"] == 6


def test_a_link_failing_once_or_not_a_day_apart_is_not_yet_dead(sources):
    public(summary=f"Gone: {sources.url}/links/404/once")
    clock = VirtualClock()
    check_sources(only=["links"], clock=clock)
    clock.advance(DAY - 60)

    check_sources(only=["links"], clock=clock)

    assert findings() == []


def test_an_answer_that_says_nothing_neither_kills_nor_heals_a_link(sources, settings):
    clock = VirtualClock()
    url = f"{sources.url}/links/404/flaky"
    public(summary=f"Flaky: {url}")
    check_sources(only=["links"], clock=clock)
    clock.advance(DAY)
    actions.link_checks.record_link_checks(
        answers={url: 503}, checked_at=clock.wall(), via="test"
    )
    check = LinkCheck.objects.get()
    assert check.status_code == 404
    assert not actions.link_checks.is_dead(check)
    actions.link_checks.record_link_checks(
        answers={url: 200}, checked_at=clock.wall(), via="test"
    )
    assert LinkCheck.objects.get().failing_since is None


def test_a_redirect_to_a_dead_page_is_followed(sources):
    public(summary=f"Moved: {sources.url}/links/moved/404/away")
    clock = VirtualClock()
    check_sources(only=["links"], clock=clock)
    clock.advance(DAY)

    check_sources(only=["links"], clock=clock)

    assert [f for f, *_ in findings()] == [
        f"link:{sources.url}/links/moved/404/away:dead"
    ]


def test_a_dead_link_in_a_decision_record_is_proposed_on_it(sources):
    decision = DecisionRecordFactory(
        body=f"## Context\n\nSee [the notes]({sources.url}/links/410/notes#part).\n"
    )
    DecisionRecordFactory(body=f"A draft: {sources.url}/links/410/draft", draft=True)
    clock = VirtualClock()
    check_sources(only=["links"], clock=clock)
    clock.advance(2 * DAY)

    report = check_sources(only=["links"], clock=clock)

    correction = Correction.objects.get()
    assert correction.decision == decision
    assert correction.finding == f"link:{sources.url}/links/410/notes:dead"
    assert report.decisions == 1
    assert [path for path, *_ in sources.asked("/links/")] == [
        "/links/410/notes",
        "/links/410/notes",
    ]


def test_one_address_is_asked_once_a_run_whoever_names_it(sources):
    url = f"{sources.url}/links/200/shared"
    for _ in range(3):
        public(summary=f"Shared: {url} and {url}.")

    report = check_sources(only=["links"], clock=VirtualClock())

    assert report.requests["links"] == 1


def test_private_addresses_are_not_asked(sources, settings):
    settings.SOURCES_LINKS_PRIVATE = False
    port = sources.url.rsplit(":", 1)[1]
    public(
        summary=f"Inside: {sources.url}/links/404/a http://localhost:{port}/links/404/b"
        " http://169.254.169.254/latest/meta-data/ http://10.0.0.8/admin/"
    )

    report = check_sources(only=["links"], clock=VirtualClock())

    assert sources.asked("/") == []
    assert report.refused == 4
    assert not LinkCheck.objects.exists()


PRIVATE = ["127.0.0.1", "10.1.2.3", "192.168.0.1", "169.254.169.254", "::1", "fc00::1"]


@pytest.mark.parametrize("host", PRIVATE)
def test_a_private_host_is_neither_asked_nor_followed_to(settings, host):
    settings.SOURCES_LINKS_PRIVATE = False

    assert may_ask(host) is False
    with pytest.raises(LookupFailed) as refused:
        _follows(httpx.URL(f"http://{'[' + host + ']' if ':' in host else host}/"))
    assert refused.value.code == "redirect"


def test_a_global_address_may_be_asked(settings):
    settings.SOURCES_LINKS_PRIVATE = False

    assert may_ask("93.184.215.14") is True


def test_links_are_read_as_the_site_links_them():
    text = (
        "Code at https://github.com/org/repo_(v2)/tree/main#readme, docs at "
        "<http://docs.example.org/a>. Not example.com, ftp://x.org/y or "
        "mailto:a@b.org; https://github.com/org/repo_(v2)/tree/main again."
    )

    assert links_in(text) == [
        "https://github.com/org/repo_(v2)/tree/main",
        "http://docs.example.org/a",
    ]


def test_only_and_limit_choose_the_checks_and_the_documents(sources):
    first = public(source_identifier="DOI:10.5555/unresolved.1")
    public(source_identifier="DOI:10.5555/unresolved.2")

    out = run("--only", "doi", "--limit", "1")

    assert [c.document for c in Correction.objects.all()] == [first]
    assert [path for path, *_ in sources.requests] == [
        "/doi/api/handles/10.5555/unresolved.1"
    ]
    assert out.splitlines()[-2] == (
        "doi.org: 1 requests, 1 proposed, 0 already proposed, 0 failures."
    )
    assert "arXiv:" not in out


def test_only_refuses_a_check_it_does_not_know():
    with pytest.raises(CommandError, match="--only takes arxiv, crossref, doi, links"):
        call_command("check_sources", "--only", "arxiv,orcid")


def test_enqueue_runs_it_as_a_job(sources, settings):
    settings.JOBS_IN_PROCESS = True
    public(number=26, source_identifier="ARXIV-2403.00026v2")

    out = run("--enqueue", "--only", "arxiv")

    job = Job.objects.get()
    assert (job.function, job.lock, job.state) == (
        "sources.jobs.check",
        "check-sources",
        Job.State.FINISHED,
    )
    assert job.arguments == {"only": ["arxiv"], "limit": None}
    assert job.summary == (
        "1 documents and 0 decision records checked: 1 findings proposed, "
        "0 already proposed, 0 failures."
    )
    assert out.splitlines() == [
        f"Check the sources (arxiv): job {job.pk}, Finished.",
        job.summary,
    ]
    assert Correction.objects.get().finding == "arxiv:2403.00026:v3"


def test_the_queries_follow_the_chunks_not_the_documents(sources):
    def queries(count):
        for n in range(count):
            public(summary=f"Code at {sources.url}/links/200/{count}-{n}.")
            public(source_identifier=f"DOI:10.5555/plain.{count}.{n}")
        with CaptureQueriesContext(connection) as captured:
            report = check_sources(clock=VirtualClock())
        # Every document so far asked about: one link, one DOI each.
        asked = report.documents // 2
        assert report.requests["links"] == report.requests["doi"] == asked
        return len(captured)

    # Each measured run updates the link checks of the one before and adds its
    # own: a first run, with nothing to update, comes before.
    # The same statements for 3 documents as for 30: chunks of them, each
    # with its findings already proposed and its links' checks in one go.
    queries(1)
    assert queries(3) == queries(30) == 21

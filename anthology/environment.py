"""Every environment variable the anthology reads, declared once.

``settings.py`` reads each of them through :func:`read`, which refuses a name
not declared here, and the operators' reference (``docs/reference/settings.md``)
is generated from the same declaration by :func:`reference_markdown`, so the
two cannot drift. ``python -m anthology.environment`` prints the reference.

Only this module touches ``os.environ`` (``tests/project/test_environment.py``
holds every other module to it); the entry points (``manage.py``,
``anthology/wsgi.py``, ``anthology/asgi.py``) alone name the settings module
there, with Django's own ``os.environ.setdefault``.
"""

import os
from dataclasses import dataclass
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured


def boolean(text):
    """On for 1, true, yes or on (in any case, spaces around ignored); off for
    anything else, the empty string included."""
    return text.strip().lower() in {"1", "true", "yes", "on"}


def items(text):
    """A comma-separated list, each item stripped, empty items left out."""
    return [item.strip() for item in text.split(",") if item.strip()]


def numbers(text):
    return [float(item) for item in items(text)]


# How a value of each type is read from the text of the variable (or of its
# declared default).
TYPES = {
    "text": str,
    "secret": str,
    "boolean": boolean,
    "integer": int,
    "bytes": int,
    "seconds": int,
    "number": float,
    "list": items,
    "list of numbers": numbers,
    "URL": str,
    "path": Path,
    "email address": str,
    "rate": str,
    "Python path": str,
    "log level": str,
    "address": str,
    "domain name": str,
}


@dataclass(frozen=True)
class Variable:
    """An environment variable: its ``name``, the ``type`` of its value, its
    ``default`` as an operator would write it, what it ``means``, and the
    ``section`` of the reference it is listed in.

    A ``default`` of ``None`` is "unset": its reader gets ``None`` and does
    without. A ``derived`` default is a sentence ("twice IMPORT_MAX_BYTES")
    saying how the reader works it out from other settings; the reader passes
    that value to :func:`read`. Any other default is read as the variable's own
    value would be."""

    name: str
    type: str
    default: str | None
    meaning: str
    section: str
    derived: bool = False

    def __post_init__(self):
        if self.type not in TYPES:
            raise ValueError(f"{self.name}: no type {self.type!r} (see TYPES)")

    def parse(self, text):
        """The value ``text`` stands for, read as this variable's type."""
        try:
            return TYPES[self.type](text)
        except ValueError:
            raise ImproperlyConfigured(
                f"The environment variable {self.name}={text!r} cannot be read "
                f"as {self.type}."
            ) from None


SITE = "Site"
DATABASE = "Database"
CACHE = "Cache and pages"
SHARED = "Shared caches and CDNs"
JOBS = "Background jobs"
IMPORTS = "Imports, uploads and backups"
METADATA = "Metadata sources"
OAI = "OAI-PMH"
API = "API"
SECURITY = "Security and proxies"
LOGGING = "Logging"
ACCOUNTS = "Accounts"
MAKE = "make run and make serve"
CORRECTIONS = "Corrections and mail"

VARIABLES: list[Variable] = [
    # Site.
    Variable(
        "SECRET_KEY",
        "secret",
        "a development key",
        "Signs sessions, CSRF tokens and password resets. Set it in production "
        "to a long random value kept secret: `manage.py check --deploy` warns "
        "while the development key is in use.",
        SITE,
        derived=True,
    ),
    Variable(
        "DEBUG",
        "boolean",
        "off",
        "Django's debug mode: tracebacks in the browser, static files served "
        "from the apps. `make run` turns it on unless given (`make run DEBUG=0`); "
        "`make serve` always turns it off.",
        SITE,
    ),
    Variable(
        "ALLOWED_HOSTS",
        "list",
        "localhost,127.0.0.1,[::1]",
        "The host names the site answers to, comma-separated (Django's "
        "`ALLOWED_HOSTS`); a request naming another Host is refused with 400.",
        SITE,
    ),
    Variable(
        "SITE_URL",
        "URL",
        "http://127.0.0.1:8000",
        "The site's canonical origin: scheme, host and port, no path (a "
        "trailing `/` is dropped). Every absolute address the site writes "
        "(Atom ids and links, sitemaps, `robots.txt`, canonical links, "
        "`og:url`, JSON-LD, the CSV exports' `public_url`, OAI-PMH's `baseURL` "
        "and identifiers, the API's `url` fields) starts with it, whatever Host "
        "or scheme a request came with. Set it to the public address in "
        "production. `make run` passes `http://` and `HOST`, `make serve` "
        "`http://` and `SERVE_BIND`, unless it is given.",
        SITE,
    ),
    Variable(
        "STATIC_ROOT",
        "path",
        "`staticfiles/` in the checkout",
        "Where `manage.py collectstatic` (run by `make serve`, and by `make "
        "run DEBUG=0`) gathers the static files, each name with a hash of its "
        "contents, gzip-compressed; WhiteNoise serves them from there with "
        "`Cache-Control: max-age=315360000, public, immutable` (ten years).",
        SITE,
        derived=True,
    ),
    Variable(
        "DJANGO_SETTINGS_MODULE",
        "Python path",
        "anthology.settings",
        "The settings module, which Django reads; `manage.py`, "
        "`anthology/wsgi.py` and `anthology/asgi.py` name this one unless "
        "another is given.",
        SITE,
    ),
    # Database.
    Variable(
        "DATABASE_URL",
        "URL",
        "`sqlite:///<checkout>/db.sqlite3`",
        "The database, as a URL (dj-database-url), e.g. "
        "`postgres://postgres@127.0.0.1:5432/anthology`; an SQLite file in "
        "the checkout by default.",
        DATABASE,
        derived=True,
    ),
    Variable(
        "CONN_MAX_AGE",
        "seconds",
        "0",
        "How long a database connection is kept for the next request, checked "
        "before each reuse (`0`: one connection a request). `make serve` "
        "passes `60` unless it is given.",
        DATABASE,
    ),
    # Cache and pages.
    Variable(
        "REDIS_URL",
        "URL",
        "",
        "The shared cache, e.g. `redis://127.0.0.1:6379/0`: the cached pages "
        "and their generations, uploads waiting for their jobs, "
        "rate-limit counts. Empty, each process caches in its own memory, "
        "which is only safe with a single process.",
        CACHE,
    ),
    Variable(
        "CACHE_KEY_PREFIX",
        "text",
        "anthology",
        "The prefix of this site's keys in the shared cache.",
        CACHE,
    ),
    Variable(
        "PAGE_CACHE",
        "boolean",
        "on when `REDIS_URL` is set",
        "Cache public pages for readers without a session. Without `REDIS_URL` "
        "the cache is each process's own: turn it on then only with one "
        "process.",
        CACHE,
        derived=True,
    ),
    Variable(
        "PAGE_CACHE_SECONDS",
        "seconds",
        "86400",
        "How long an unread cached page is kept; a change to what it shows "
        "expires it at once, whatever this says.",
        CACHE,
    ),
    Variable(
        "REDIS_CONNECT_TIMEOUT",
        "number",
        "0.25",
        "Seconds any Redis connection (the cache and the jobs' queue) waits to "
        "connect, in one attempt.",
        CACHE,
    ),
    Variable(
        "REDIS_SOCKET_TIMEOUT",
        "number",
        "0.5",
        "Seconds any Redis connection waits for an answer: a Redis that accepts "
        "and never answers costs a request about this long, never a worker.",
        CACHE,
    ),
    Variable(
        "OUTBOX_RETRY_SECONDS",
        "seconds",
        "60",
        "How long an expiry in the page cache's outbox is left to the process "
        "that made it before a drain (a job worker's, or `manage.py "
        "drain_outbox`) tries it.",
        CACHE,
    ),
    # Shared caches and CDNs.
    Variable(
        "VARNISH_URL",
        "URL",
        None,
        "A Varnish in front (`deploy/varnish/`), purged by key, e.g. "
        "`http://127.0.0.1:6081`.",
        SHARED,
    ),
    Variable(
        "FASTLY_SERVICE_ID",
        "text",
        None,
        "A Fastly service in front, purged by surrogate key (with `FASTLY_API_TOKEN`).",
        SHARED,
    ),
    Variable(
        "FASTLY_API_TOKEN",
        "secret",
        "",
        "The API token the Fastly purges are sent with.",
        SHARED,
    ),
    Variable(
        "CLOUDFLARE_ZONE_ID",
        "text",
        None,
        "A Cloudflare zone in front, purged by cache tag (with "
        "`CLOUDFLARE_API_TOKEN`).",
        SHARED,
    ),
    Variable(
        "CLOUDFLARE_API_TOKEN",
        "secret",
        "",
        "The API token the Cloudflare purges are sent with.",
        SHARED,
    ),
    Variable(
        "CLOUDFRONT_DISTRIBUTION_ID",
        "text",
        None,
        "A CloudFront distribution in front, purged by path; the AWS "
        "credentials are read as boto3 reads them (`AWS_ACCESS_KEY_ID`, "
        "`AWS_SECRET_ACCESS_KEY`, a profile or a role).",
        SHARED,
    ),
    Variable(
        "SHARED_CACHE_SECONDS",
        "seconds",
        "86400",
        "How long the shared caches in front may keep a page (`s-maxage`), "
        "once one of them is configured; a change purges it at once.",
        SHARED,
    ),
    Variable(
        "STALE_IF_ERROR_SECONDS",
        "seconds",
        "86400",
        "How long they may go on serving a page while the site is down "
        "(`stale-if-error`).",
        SHARED,
    ),
    Variable(
        "PURGE_RETRY_PAUSES",
        "list of numbers",
        "0.5,2,10,30",
        "The seconds between the attempts of a failed purge, comma-separated; "
        "once they are spent the purge is logged as an error and left in the "
        "outbox for the job workers.",
        SHARED,
    ),
    # Background jobs.
    Variable(
        "JOBS_REDIS_URL",
        "URL",
        "`REDIS_URL`, else `redis://127.0.0.1:6379/0`",
        "The Redis of the background jobs' queue (empty counts as unset).",
        JOBS,
        derived=True,
    ),
    Variable(
        "JOBS_QUEUE",
        "text",
        "anthology",
        "The queue's name; the workers `make serve` and `make worker` start "
        "take jobs from it.",
        JOBS,
    ),
    Variable(
        "JOBS_RELATED_QUEUE",
        "text",
        "`JOBS_QUEUE` followed by `-related`",
        "The queue of related work and candidate topics, in the same Redis, "
        "with workers of its own, so no import or backup waits behind them.",
        JOBS,
        derived=True,
    ),
    Variable(
        "RELATED_MODEL_DIR",
        "path",
        "`var/related-model/` in the checkout",
        "Where the related-work model is kept between jobs, so that one "
        "change's recomputation reads only what changed: one file, rewritten "
        "by each recomputation; deleting it costs the next one a read of the "
        "whole record.",
        JOBS,
        derived=True,
    ),
    Variable(
        "JOBS_IN_PROCESS",
        "boolean",
        "on when `REDIS_URL` is unset",
        "Run background jobs in the web process that starts them, at once, "
        "rather than on the queue: without a shared cache no worker could read "
        "their uploads or hand back their results. Each process then also "
        "drains the page cache's outbox itself.",
        JOBS,
        derived=True,
    ),
    Variable(
        "RECORD_CHANGED",
        "Python path",
        "similarity.queueing.documents_changed",
        "The function told of the documents each change touched, once it "
        "commits: by default their related work is recomputed in a background "
        "job. Empty: nothing is told (related work is then recomputed only by "
        "`manage.py recompute_related`).",
        JOBS,
    ),
    Variable(
        "JOBS_HEARTBEAT_SECONDS",
        "seconds",
        "30",
        "How often a worker running a job says so; a job three heartbeats late "
        "is said to have stopped answering, and given up as failed once its "
        "work is seen to have ended.",
        JOBS,
    ),
    Variable(
        "JOBS_CHORE_SECONDS",
        "seconds",
        "5",
        "How often an idle worker does its chores, such as draining the page "
        "cache's outbox.",
        JOBS,
    ),
    Variable(
        "SCHEDULE_LATE_SECONDS",
        "seconds",
        "300",
        "How long a scheduled publication, withdrawal or reinstatement may wait "
        "past its time before it is late: the desk flags it and `/health/ready/` "
        "fails, as no runner (worker, `run_schedules`) took it.",
        JOBS,
    ),
    Variable(
        "PREVIEW_LINK_DAYS",
        "integer",
        "7",
        "How many days a preview link of a draft or a pending revision shows it "
        "to whoever holds it, unless revoked before.",
        JOBS,
    ),
    Variable(
        "JOBS_MAX_PER_USER",
        "integer",
        "3",
        "The jobs one person may have waiting or running at once.",
        JOBS,
    ),
    # Imports, uploads and backups.
    Variable(
        "IMPORT_MAX_BYTES",
        "bytes",
        "67108864",
        "The largest file the admin's imports take; a larger upload is refused "
        "before anything is read or kept.",
        IMPORTS,
    ),
    Variable(
        "IMPORT_MAX_FILES",
        "integer",
        "10000",
        "The most entries a decision folder's `.zip` may hold.",
        IMPORTS,
    ),
    Variable(
        "IMPORT_MAX_UNPACKED_BYTES",
        "bytes",
        "268435456",
        "The largest a decision folder may be once unpacked.",
        IMPORTS,
    ),
    Variable(
        "UPLOAD_KEEP_SECONDS",
        "seconds",
        "3600",
        "How long an upload waits in the shared cache for its job at most.",
        IMPORTS,
    ),
    Variable(
        "UPLOAD_MAX_BYTES_PER_USER",
        "bytes",
        "twice `IMPORT_MAX_BYTES`",
        "The bytes of uploads one person may have kept at once.",
        IMPORTS,
        derived=True,
    ),
    Variable(
        "BACKUP_DIR",
        "path",
        "`backups/` in the checkout",
        "Where backups started from the admin are kept: the same place for "
        "every worker and web process (a shared disk). They hold password "
        "hashes, and are readable by the site's account only.",
        IMPORTS,
        derived=True,
    ),
    Variable(
        "DUMPS_EVERY_HOURS",
        "integer",
        "24",
        "How often the workers' chores make the public dumps of the whole "
        "record (`/data/`): a new one once the newest is this many hours old. "
        "`0`: only the `make_dumps` command makes them.",
        IMPORTS,
    ),
    Variable(
        "DUMPS_KEEP",
        "integer",
        "7",
        "How many public dumps are kept: once a new one is whole, the older "
        "ones beyond this many are deleted (at least one is always kept).",
        IMPORTS,
    ),
    Variable(
        "DUMPS_LICENSE",
        "text",
        "CC-BY-4.0",
        "The licence the public dumps are offered under, as its SPDX "
        "identifier; `/data/` and each dump's manifest state it. Set it to "
        "the rights the record's owners grant.",
        IMPORTS,
    ),
    Variable(
        "DUMPS_LICENSE_URL",
        "URL",
        "https://creativecommons.org/licenses/by/4.0/",
        "The address of `DUMPS_LICENSE`'s text.",
        IMPORTS,
    ),
    # Metadata sources.
    Variable(
        "METADATA_ARXIV_URL",
        "URL",
        "https://export.arxiv.org/api/query",
        "The arXiv API's query address, for adding and enriching documents by "
        "identifier.",
        METADATA,
    ),
    Variable(
        "METADATA_CROSSREF_URL",
        "URL",
        "https://api.crossref.org",
        "Crossref's REST API, for DOIs.",
        METADATA,
    ),
    Variable(
        "METADATA_MAILTO",
        "email address",
        "editors@anthology.invalid",
        "The address arXiv and Crossref may write to about our requests, sent "
        'in the User-Agent (Crossref\'s "polite pool"): set it to the '
        "editors'.",
        METADATA,
    ),
    Variable(
        "METADATA_TIMEOUT",
        "number",
        "10",
        "Seconds a metadata lookup may take in all, redirects and the whole "
        "answer included.",
        METADATA,
    ),
    Variable(
        "METADATA_MAX_BYTES",
        "bytes",
        "5242880",
        "The largest answer a lookup reads.",
        METADATA,
    ),
    Variable(
        "METADATA_CACHE_SECONDS",
        "seconds",
        "86400",
        "How long a found work's metadata is kept.",
        METADATA,
    ),
    # The checks of the sources (check_sources).
    Variable(
        "SOURCES_ARXIV_INTERVAL",
        "number",
        "3",
        "Seconds `check_sources` waits between two requests to arXiv's API "
        "(arXiv asks for one every 3 seconds at most).",
        METADATA,
    ),
    Variable(
        "SOURCES_ARXIV_BATCH",
        "integer",
        "100",
        "arXiv ids `check_sources` asks about in one request (`id_list`).",
        METADATA,
    ),
    Variable(
        "SOURCES_CROSSREF_INTERVAL",
        "number",
        "0.2",
        "Seconds `check_sources` waits between two requests to Crossref (it "
        "asks one at a time).",
        METADATA,
    ),
    Variable(
        "SOURCES_DOI_URL",
        "URL",
        "https://doi.org/api/handles",
        "The DOI resolver's handle API, which `check_sources` asks whether a "
        "DOI still resolves.",
        METADATA,
    ),
    Variable(
        "SOURCES_DOI_INTERVAL",
        "number",
        "0.2",
        "Seconds `check_sources` waits between two requests to the DOI resolver.",
        METADATA,
    ),
    Variable(
        "SOURCES_LINKS_INTERVAL",
        "number",
        "1",
        "Seconds `check_sources` waits between two requests to one host when "
        "it checks the links of summaries and decision records.",
        METADATA,
    ),
    Variable(
        "SOURCES_LINKS_PRIVATE",
        "boolean",
        "off",
        "Whether the link check may ask hosts at private, loopback or "
        "link-local addresses (off: such links are never asked, so the check "
        "cannot probe the internal network).",
        METADATA,
    ),
    # OAI-PMH.
    Variable(
        "OAI_REPOSITORY_NAME",
        "text",
        "The anthology",
        "The repository's name harvesters show (`Identify`).",
        OAI,
    ),
    Variable(
        "OAI_REPOSITORY_IDENTIFIER",
        "domain name",
        "anthology.invalid",
        "The repository identifier of the record's OAI identifiers "
        "(`oai:<it>:LIT-004`), shown in `Identify`: a domain name the operator "
        "owns (`anthology.example.org`), letters, digits and hyphens in parts "
        "joined by dots, each part beginning with a letter (the "
        "oai-identifier guidelines). It names every record, so set it once: "
        "changing it renames every record for harvesters, and a change of "
        "`SITE_URL` does not. The default (`.invalid` is reserved) is only for "
        "development: `check --deploy` warns of it.",
        OAI,
    ),
    Variable(
        "OAI_ADMIN_EMAIL",
        "email address",
        "`anthology@` and `SITE_URL`'s host",
        "The address harvesters write to about the OAI-PMH endpoint "
        "(`Identify`): set it to one that is read.",
        OAI,
        derived=True,
    ),
    # Corrections and mail.
    Variable(
        "EMAIL_URL",
        "URL",
        "",
        "Where mail goes: `smtp://user:password@host:587/?tls=True`, "
        "`smtp+ssl://…:465`, `console:` or `dummy:` (dj-email-url's forms). "
        "Empty: Django's own `EMAIL_HOST` defaults (SMTP on localhost:25), "
        "or the console when `DEBUG` is on, as under `make run`. Set, it "
        "stands for every `EMAIL_*` variable below.",
        CORRECTIONS,
    ),
    Variable(
        "EMAIL_HOST",
        "text",
        None,
        "The SMTP server's host, when `EMAIL_URL` is empty: `localhost` when "
        "unset, or the console when `DEBUG` is on.",
        CORRECTIONS,
    ),
    Variable(
        "EMAIL_PORT",
        "integer",
        "25",
        "The SMTP server's port (587 for STARTTLS, 465 for SSL).",
        CORRECTIONS,
    ),
    Variable(
        "EMAIL_HOST_USER",
        "text",
        "",
        "The account mail is sent as; empty: no sign-in.",
        CORRECTIONS,
    ),
    Variable(
        "EMAIL_HOST_PASSWORD",
        "secret",
        "",
        "That account's password.",
        CORRECTIONS,
    ),
    Variable(
        "EMAIL_USE_TLS",
        "boolean",
        "off",
        "Whether to start TLS on the connection (STARTTLS, usually port 587).",
        CORRECTIONS,
    ),
    Variable(
        "EMAIL_USE_SSL",
        "boolean",
        "off",
        "Whether to connect over TLS from the start (usually port 465); not "
        "with `EMAIL_USE_TLS`.",
        CORRECTIONS,
    ),
    Variable(
        "EMAIL_TIMEOUT",
        "seconds",
        "10",
        "How long a mail server may take to answer before the mail is given "
        "up (logged; the outcome stands on the reader's private link).",
        CORRECTIONS,
    ),
    Variable(
        "DEFAULT_FROM_EMAIL",
        "email address",
        "anthology@ the host of SITE_URL",
        "The sender of the mails readers get about their corrections.",
        CORRECTIONS,
        derived=True,
    ),
    Variable(
        "CORRECTIONS_RATE",
        "rate",
        "10/hour",
        "The corrections one client address may propose (a `Retry-After` "
        "answers the next).",
        CORRECTIONS,
    ),
    Variable(
        "CORRECTIONS_TOTAL_RATE",
        "rate",
        "300/hour",
        "The corrections every reader together may propose: a flood from many "
        "addresses stops here.",
        CORRECTIONS,
    ),
    Variable(
        "CORRECTIONS_MAX_BYTES",
        "bytes",
        "65536",
        "The largest body the correction form takes (413 above it): a long "
        "author list and a note fill a tenth of it.",
        CORRECTIONS,
    ),
    # API.
    Variable(
        "API_TOKEN_RATE",
        "rate",
        "1200/minute",
        "The requests one staff member's API tokens may make, all of them, "
        "the API and the exports together: a count per `second`, `minute`, "
        "`hour` or `day`.",
        API,
    ),
    Variable(
        "API_ANONYMOUS_RATE",
        "rate",
        "120/minute",
        "The API requests one client address may make without a token.",
        API,
    ),
    Variable(
        "API_MAX_PAGE_SIZE",
        "integer",
        "200",
        "The most rows one page of an API list gives (`page_size`); a larger "
        "`page_size` is refused with 400. It bounds what one uncached page "
        "costs: at 200 rows about a fifth of a 1,000-row page's time and bytes "
        "(bench/results/api-pages.md).",
        API,
    ),
    Variable(
        "API_TOKEN_DAYS",
        "integer",
        "90",
        "How many days a new API token lasts unless its maker says.",
        API,
    ),
    Variable(
        "API_TOKEN_MAX_DAYS",
        "integer",
        "365",
        "The longest a new API token may last: an expiry further off is "
        "refused by the form.",
        API,
    ),
    Variable(
        "API_TOKEN_MAX_PER_USER",
        "integer",
        "10",
        "How many usable (neither revoked nor expired) API tokens one staff "
        "member may hold at once.",
        API,
    ),
    # Security and proxies.
    Variable(
        "HTTPS",
        "boolean",
        "off",
        "On where the site is served over HTTPS: plain HTTP is redirected "
        "(`/health/` excepted, for the probe in front), HSTS is sent for a "
        "year with subdomains and preload, and the session and CSRF cookies "
        "are marked secure.",
        SECURITY,
    ),
    Variable(
        "BEHIND_PROXY",
        "boolean",
        "off",
        "On when a proxy (Varnish, nginx) is in front: it says whether the "
        "request came over HTTPS (`X-Forwarded-Proto`) and who the client is "
        "(`X-Forwarded-For`), which the login lockout and the API's rate "
        "limits count by.",
        SECURITY,
    ),
    Variable(
        "PROXY_COUNT",
        "integer",
        "1",
        "How many proxies are in front, with `BEHIND_PROXY` (read only then): "
        "the client is the entry this many from the right of "
        "`X-Forwarded-For`.",
        SECURITY,
    ),
    Variable(
        "TRUSTED_PROXIES",
        "list",
        "127.0.0.1,::1",
        "The addresses or networks of the proxies in front, comma-separated: "
        "only a request from one of them may say who the client is or that it "
        "came over HTTPS; any other peer's `X-Forwarded-*` headers are "
        "dropped.",
        SECURITY,
    ),
    Variable(
        "BODY_MAX_BYTES",
        "bytes",
        "1048576",
        "The largest request body the site reads (a form, a search); a larger "
        "one is answered 413 before it is read.",
        SECURITY,
    ),
    Variable(
        "ADMIN_BODY_MAX_BYTES",
        "bytes",
        "`IMPORT_MAX_BYTES` and 1 MiB",
        "The same under `/admin/`, where imports upload: the file and the form "
        "around it.",
        SECURITY,
        derived=True,
    ),
    Variable(
        "READER_SEARCH_RATE",
        "rate",
        "60/minute",
        "The searches one client address may have run, signed out, that no "
        "cache answered (a `Retry-After` answers the next). A reader refining "
        "a search every ten seconds runs six a minute: this is ten times that, "
        "or ten such readers behind one address.",
        SECURITY,
    ),
    Variable(
        "READER_PAGE_RATE",
        "rate",
        "300/minute",
        "The same for every other public page (the admin, the API and "
        "`/health/` aside): a reader opening a page every two seconds opens "
        "thirty a minute, ten times fewer.",
        SECURITY,
    ),
    # Logging.
    Variable(
        "LOG_LEVEL",
        "log level",
        "INFO",
        "The level of the application's log on stderr, one JSON object a line "
        "(`DEBUG`, `INFO`, `WARNING`, `ERROR`, `CRITICAL`).",
        LOGGING,
    ),
    # Accounts.
    Variable(
        "ADD_EDITOR_PASSWORD",
        "secret",
        None,
        "The password `manage.py add_editor` gives a new account, where no "
        "terminal can ask for it; checked by Django's password validators like "
        "a typed one, and never printed. Unset, the command reads it from "
        "standard input when that is not a terminal, and asks twice on a "
        "terminal.",
        ACCOUNTS,
    ),
    # make run and make serve.
    Variable(
        "HOST",
        "address",
        "127.0.0.1:8000",
        "The address and port `make run` serves on, or a port alone (on "
        "127.0.0.1); `SITE_URL` is `http://` and it unless given. "
        "`0.0.0.0:8000` is reached from other machines, with `ALLOWED_HOSTS` "
        "and `SITE_URL` naming the address they use.",
        MAKE,
    ),
    Variable(
        "SERVE_BIND",
        "address",
        "127.0.0.1:8000",
        "The address gunicorn listens on under `make serve`: bind it where "
        "only the proxy in front reaches it. `SITE_URL` is `http://` and it "
        "unless given: give the public address behind a proxy.",
        MAKE,
    ),
    Variable(
        "HEALTH_BIND",
        "address",
        "127.0.0.1:8001",
        "The address of the health listener `make serve` starts beside the "
        "web workers: a gunicorn process of its own answering `/health/` "
        "alone, which the proxy's probe asks (deploy/varnish/backend.vcl), "
        "so no page being rendered ever delays the probe's answer.",
        MAKE,
    ),
    Variable(
        "WEB_CONCURRENCY",
        "integer",
        "2",
        "The gunicorn workers (web processes) `make serve` starts.",
        MAKE,
    ),
    Variable(
        "JOBS_WORKERS",
        "integer",
        "1",
        "The background-job workers `make serve` starts beside them for "
        "`JOBS_QUEUE` (restarted when one exits, stopped with it).",
        MAKE,
    ),
    Variable(
        "JOBS_RELATED_WORKERS",
        "integer",
        "1",
        "The workers `make serve` starts for `JOBS_RELATED_QUEUE` (related "
        "work, candidate topics), supervised as those of `JOBS_QUEUE`.",
        MAKE,
    ),
]

DECLARED = {variable.name: variable for variable in VARIABLES}

# What read() is given when its caller passes no default.
_DECLARED_DEFAULT = object()


def declared(name):
    """The declaration of ``name``; a name not declared here is refused."""
    try:
        return DECLARED[name]
    except KeyError:
        raise ImproperlyConfigured(
            f"The environment variable {name} is read but not declared in "
            "anthology/environment.py."
        ) from None


def read(name, default=_DECLARED_DEFAULT):
    """The value of the environment variable ``name``, read as its declared
    type: its declared default when it is unset (``None`` for an unset one),
    or, for a ``derived`` default, the ``default`` its caller worked out. A set
    variable is read as it is, the empty string included."""
    variable = declared(name)
    if variable.derived == (default is _DECLARED_DEFAULT):
        raise TypeError(
            f"{name}: a default is given by the caller for a derived default, "
            "and only then."
        )
    text = os.environ.get(name)
    if text is None:
        if variable.derived:
            return default
        if variable.default is None:
            return None
        text = variable.default
    return variable.parse(text)


def plain_default(variable):
    """The default as the reference shows it, in units where it has them."""
    if variable.default is None:
        return "unset"
    if variable.default == "":
        return "empty"
    if variable.derived or variable.type == "boolean":
        return variable.default
    shown = f"`{variable.default}`"
    value = variable.parse(variable.default)
    if variable.type == "bytes":
        for unit, size in [("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)]:
            if value and value % size == 0:
                return f"{shown} ({value // size} {unit})"
    if variable.type == "seconds":
        for unit, size in [("a day", 86400), ("an hour", 3600), ("a minute", 60)]:
            if value == size:
                return f"{shown} ({unit})"
    return shown


def cell(text):
    """``text`` as a table cell of Markdown: a ``|`` would end the cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def reference_markdown():
    """The settings reference, as MyST Markdown: one section a heading, one
    variable a row."""
    sections = {}
    for variable in VARIABLES:
        sections.setdefault(variable.section, []).append(variable)
    lines = [
        "# Settings",
        "",
        "Every environment variable the anthology reads, with its type, its "
        "default and what it does. The list is generated from "
        "`anthology/environment.py`, where each variable is declared once; "
        "the settings (`anthology/settings.py`) read them through it and "
        "nothing else. A boolean is on for `1`, `true`, `yes` or `on` (in any "
        "case) and off for anything else; a list is comma-separated. A "
        "variable set to the empty string is read as empty, not as unset, "
        "unless its meaning says otherwise.",
        "",
    ]
    for section, variables in sections.items():
        lines += [f"## {section}", "", "| Variable | Type | Default | Meaning |"]
        lines.append("|---|---|---|---|")
        lines += [
            f"| `{v.name}` | {v.type} | {cell(plain_default(v))} | {cell(v.meaning)} |"
            for v in variables
        ]
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    print(reference_markdown(), end="")

"""Settings for the anthology, one module driven by environment variables.

Every variable it reads is declared once, with its type, its default and what
it means, in ``anthology/environment.py``; the operators' reference
(``docs/reference/settings.md``) is generated from that declaration. Read a
variable only through ``env.read``, which parses it by its declared type and
refuses a name that is not declared.
"""

from datetime import timedelta
from pathlib import Path
from urllib.parse import unquote, urlsplit

import dj_database_url
import dj_email_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from redis.backoff import NoBackoff
from redis.retry import Retry

from anthology import environment as env

BASE_DIR = Path(__file__).resolve().parent.parent

SECRET_KEY = env.read(
    "SECRET_KEY",
    default="django-insecure-development-key-set-SECRET_KEY-in-production",
)
DEBUG = env.read("DEBUG")
ALLOWED_HOSTS = env.read("ALLOWED_HOSTS")
SITE_URL = env.read("SITE_URL").rstrip("/")
OAI_REPOSITORY_NAME = env.read("OAI_REPOSITORY_NAME")
OAI_REPOSITORY_IDENTIFIER = env.read("OAI_REPOSITORY_IDENTIFIER")
OAI_ADMIN_EMAIL = env.read(
    "OAI_ADMIN_EMAIL", default=f"anthology@{urlsplit(SITE_URL).hostname}"
)

INSTALLED_APPS = [
    # The editors' desk, then Django's admin as its site. No template, static
    # file, command or admin registration depends on this order: the
    # top-level templates/ and static/ win over every app's own (TEMPLATES'
    # DIRS, STATICFILES_DIRS), no two apps name the same command, and
    # editorial's admin imports taggit's and axes' admins before replacing them.
    "editorial",
    "editorial.apps.AnthologyAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.sitemaps",
    "django.contrib.staticfiles",
    "django.forms",
    "django_filters",
    "corsheaders",
    "import_export",
    "taggit",
    "auditlog",
    "axes",
    "csp",
    # One app per concern; the record (catalogue) is changed by actions
    # alone, which formats, imports, sources and the admin call; the public
    # site reads; pagecache and jobs know nothing of the others.
    "catalogue",
    "actions",
    "formats",
    "imports",
    "sources",
    "jobs",
    "public",
    "corrections",
    "similarity",
    "oai",
    "dumps",
    "pagecache",
    "django_rq",
    # The record for machines: Django REST framework and its OpenAPI
    # description (drf-spectacular), which the reference page at /api/docs/
    # is read from.
    "rest_framework",
    "drf_spectacular",
    "api",
]

MIDDLEWARE = [
    # Outermost: a HEAD answer carries no body, whoever wrote one.
    "anthology.http.HeadMiddleware",
    # What is public to read is readable from other origins (CORS_URLS_REGEX),
    # on every answer, a cached page's, a 304 and the API's problems too; a
    # preflight is answered here, before anything below reads the database.
    "anthology.http.ReadingCorsMiddleware",
    # Every client error under /api/ is a problem (RFC 9457),
    # whichever layer answered it.
    "api.problems.ProblemMiddleware",
    # Before anything reads a header a client may forge or a body: only the
    # trusted proxies say who the client is; bodies are bounded.
    "anthology.edge.TrustedProxyMiddleware",
    "anthology.edge.BodyLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Static files, hashed and compressed, before anything touches the session.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # A NUL in the path or the query string is refused before any lookup.
    "public.middleware.RejectNulMiddleware",
    # A reader's client already over its limit is refused here, before the
    # session or the page cache is read; the others are counted once their
    # view is known (its process_view), so what the page cache answers is not.
    "anthology.limits.ReaderLimitMiddleware",
    # API tokens are checked and requests counted against their rate limits
    # before a cached page can answer them.
    "api.middleware.TokenMiddleware",
    # Without workers, the web process does their chores (a scheduled change
    # whose time has come) before the page cache answers.
    "jobs.middleware.InProcessChoresMiddleware",
    # Cached public pages are answered here, with the headers the middleware
    # below gave them when they were rendered.
    "pagecache.middleware.PageCacheMiddleware",
    # Below the page cache, so a page is compressed once, when it is rendered,
    # and kept compressed for the readers who accept gzip.
    "anthology.compression.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A request with an API token is its user's, for the API and the exports.
    "api.middleware.TokenUserMiddleware",
    # Attributes every audited change to the signed-in user.
    "auditlog.middleware.AuditlogMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    # After authentication, as django-axes asks: it answers a locked-out login.
    "axes.middleware.AxesMiddleware",
]

# Cross-origin reading (django-cors-headers): the API, OAI-PMH, the feeds,
# the citation downloads, a document's link sets and JSON-LD, and the dumps
# under /data/, from any origin, never with credentials
# (anthology.http.ReadingCorsMiddleware also leaves out any request that
# carries a session or a token). Only reading methods, and only the headers
# a reader's script asks with: no Authorization, so a browser never sends a
# token across origins. The admin and every other page stay same-origin.
CORS_URLS_REGEX = (
    r"^/(?:api/|oai/$|(?:.*/)?feed/$|(?:.*/)?cite\.(?:bib|ris|json)$"
    r"|[^/]+/(?:linkset(?:\.json)?|metadata\.jsonld)$|data/.+)"
)
CORS_ALLOW_ALL_ORIGINS = True
CORS_ALLOW_CREDENTIALS = False
CORS_ALLOW_METHODS = ["GET", "HEAD", "OPTIONS"]
CORS_ALLOW_HEADERS = ["accept", "accept-language", "if-none-match", "if-modified-since"]
# Besides the headers every response shows scripts: the validators a
# script's conditional request needs, the API's pages (Link) and a rate
# limit's wait (Retry-After).
CORS_EXPOSE_HEADERS = ["ETag", "Link", "Retry-After"]
CORS_PREFLIGHT_MAX_AGE = 86400

AUTHENTICATION_BACKENDS = [
    # Counts failed logins and refuses a locked-out one before any password
    # is checked.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "anthology.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "public.context_processors.canonical_url",
            ],
        },
    },
]

# Forms find their widgets' templates as pages do (the top-level templates/
# first, then the apps', Django's own through django.forms), not through a
# search of the apps' folders alone.
FORM_RENDERER = "django.forms.renderers.TemplatesSetting"

WSGI_APPLICATION = "anthology.wsgi.application"

DATABASES = {
    "default": dj_database_url.parse(
        env.read("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=env.read("CONN_MAX_AGE"),
        conn_health_checks=True,
    )
}

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Tests on SQLite use a file rather than memory, so the browser tests' live
    # server threads get connections of their own instead of sharing one.
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / "test-db.sqlite3")}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {
        "NAME": "django.contrib.auth.password_validation."
        "UserAttributeSimilarityValidator"
    },
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# The record is written in British English ("synchronised", "neighbour").
LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_URL = "static/"
STATIC_ROOT = env.read("STATIC_ROOT", default=BASE_DIR / "staticfiles")
# `make serve` runs collectstatic: names carry a hash of the contents, so
# WhiteNoise serves them compressed and immutable for ten years
# (`max-age=315360000`, its WhiteNoise.FOREVER).
BACKUP_DIR = env.read("BACKUP_DIR", default=BASE_DIR / "backups")
# Where the related-work model is kept between jobs (similarity/store.py):
# one file per machine, read by every worker and web process on it.
RELATED_MODEL_DIR = env.read(
    "RELATED_MODEL_DIR", default=BASE_DIR / "var" / "related-model"
)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
    # Backups started from the admin, written by a worker, downloaded through
    # a web process: a directory both reach, or any Django storage they share
    # (an S3-compatible one through django-storages). They hold password
    # hashes: readable by this account only.
    "backups": {
        "BACKEND": "imports.backups.BackupFileSystemStorage",
        "OPTIONS": {
            "location": BACKUP_DIR,
            "file_permissions_mode": 0o600,
            "directory_permissions_mode": 0o700,
        },
    },
}

# The public dumps of the whole record (/data/) are kept in the backups
# storage under a prefix of their own, made by the workers' chores every
# DUMPS_EVERY_HOURS (0: by the make_dumps command alone), the newest
# DUMPS_KEEP kept, offered under DUMPS_LICENSE.
DUMPS_PREFIX = "dumps"
DUMPS_EVERY_HOURS = env.read("DUMPS_EVERY_HOURS")
DUMPS_KEEP = env.read("DUMPS_KEEP")
DUMPS_LICENSE = env.read("DUMPS_LICENSE")
DUMPS_LICENSE_URL = env.read("DUMPS_LICENSE_URL")

# One cache shared by every instance; each process's own memory when
# REDIS_URL is unset, which is only safe with a single process.
REDIS_URL = env.read("REDIS_URL")
# Every connection to Redis (the cache with its pages, generations and
# uploads, the jobs' queue) gives up after these many seconds: a Redis that
# accepts and never answers costs a request that long, not a worker.
REDIS_CONNECT_TIMEOUT = env.read("REDIS_CONNECT_TIMEOUT")
REDIS_SOCKET_TIMEOUT = env.read("REDIS_SOCKET_TIMEOUT")
if REDIS_URL:
    CACHES = {
        "default": {
            # Django's backend, reusing its Redis clients.
            "BACKEND": "pagecache.backends.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": env.read("CACHE_KEY_PREFIX"),
            # A stopped Redis must cost a request milliseconds, not seconds:
            # pages are then rendered from the database.
            "OPTIONS": {
                "socket_connect_timeout": REDIS_CONNECT_TIMEOUT,
                "socket_timeout": REDIS_SOCKET_TIMEOUT,
            },
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
PAGE_CACHE = env.read("PAGE_CACHE", default=bool(REDIS_URL))
PAGE_CACHE_SECONDS = env.read("PAGE_CACHE_SECONDS")
# Which pages are cached, and what each shows: the site's map, not the cache's.
PAGE_CACHE_SCOPES = "public.scopes.page_scopes"
# The query parameters each cached page reads; others are redirected away.
PAGE_CACHE_PARAMETERS = "public.scopes.page_parameters"
# The paths of a scope's pages, for frontends that purge by path.
PAGE_CACHE_SCOPE_PATHS = "public.scopes.scope_paths"
# What a change to the record makes stale, for the actions (``actions.pages``).
PAGE_CACHE_BEFORE_CHANGE = "public.scopes.before_change"
PAGE_CACHE_CHANGE_SCOPES = "public.scopes.change_scopes"
PAGE_CACHE_DOCUMENTS_SCOPES = "public.scopes.documents_scopes"
PAGE_CACHE_DECISIONS_SCOPES = "public.scopes.decisions_scopes"
PAGE_CACHE_OWN_PAGE_SCOPES = "public.scopes.own_page_scopes"
PAGE_CACHE_PEOPLE_SCOPES = "public.scopes.people_scopes"
# Builds the document tables' rows the actions store (``actions.rows``).
ROWS_BUILDER = "public.rows.built_rows"
# Told of the documents each change touched, once it commits: related work is
# recomputed in the background (empty: never on a change, only by command).
RECORD_CHANGED = env.read("RECORD_CHANGED")

# Shared caches in front, purged of the pages a change affects once it
# commits. A page gets a shared lifetime only when one is configured: nothing
# else would tell a shared cache that it changed.
PAGE_CACHE_FRONTENDS = {}
if env.read("VARNISH_URL"):
    PAGE_CACHE_FRONTENDS["varnish"] = {
        "BACKEND": "pagecache.frontends.Varnish",
        "LOCATION": env.read("VARNISH_URL"),
    }
if env.read("FASTLY_SERVICE_ID"):
    PAGE_CACHE_FRONTENDS["fastly"] = {
        "BACKEND": "pagecache.frontends.Fastly",
        "SERVICE_ID": env.read("FASTLY_SERVICE_ID"),
        "API_TOKEN": env.read("FASTLY_API_TOKEN"),
    }
if env.read("CLOUDFLARE_ZONE_ID"):
    PAGE_CACHE_FRONTENDS["cloudflare"] = {
        "BACKEND": "pagecache.frontends.Cloudflare",
        "ZONE_ID": env.read("CLOUDFLARE_ZONE_ID"),
        "API_TOKEN": env.read("CLOUDFLARE_API_TOKEN"),
    }
if env.read("CLOUDFRONT_DISTRIBUTION_ID"):
    PAGE_CACHE_FRONTENDS["cloudfront"] = {
        "BACKEND": "pagecache.frontends.CloudFront",
        "DISTRIBUTION_ID": env.read("CLOUDFRONT_DISTRIBUTION_ID"),
    }
PAGE_CACHE_SHARED_SECONDS = env.read("SHARED_CACHE_SECONDS")
PAGE_CACHE_STALE_IF_ERROR_SECONDS = env.read("STALE_IF_ERROR_SECONDS")
# Pauses between the attempts of a failed purge, in seconds.
PAGE_CACHE_PURGE_RETRY_PAUSES = env.read("PURGE_RETRY_PAUSES")
# An expiry is kept in the outbox until it lands; the process that made it
# applies it first, and a drain takes it once this long has passed since.
PAGE_CACHE_OUTBOX_RETRY_SECONDS = env.read("OUTBOX_RETRY_SECONDS")

TAGGIT_CASE_INSENSITIVE = True
# One tag a comma-separated entry, spaces and all, shown back without quotes.
TAGGIT_TAGS_FROM_STRING = "catalogue.tags.tags_from_string"
TAGGIT_STRING_FROM_TAGS = "catalogue.tags.string_from_tags"

# No page runs inline script or inline style, so the Content-Security-Policy
# allows only the site's own files; the admin runs under the same policy.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = True
if env.read("HTTPS"):
    SECURE_SSL_REDIRECT = True
    # The probe in front (deploy/varnish/backend.vcl) asks over plain HTTP.
    SECURE_REDIRECT_EXEMPT = [r"^health/$"]
    SECURE_HSTS_SECONDS = 60 * 60 * 24 * 365
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
BEHIND_PROXY = env.read("BEHIND_PROXY")
# The proxies whose X-Forwarded-For and X-Forwarded-Proto are believed; any
# other peer's are dropped (anthology.edge), so a client that reaches
# gunicorn directly cannot choose its address or claim HTTPS.
TRUSTED_PROXIES = env.read("TRUSTED_PROXIES")
if BEHIND_PROXY:
    # Behind a proxy that ends TLS, the proxy says the request came over HTTPS.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Password guessing on the admin's login (django-axes): five failures for one
# username from one address lock that pair out for an hour.
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = timedelta(hours=1)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
# Where a sign-in lands: the desk, whatever unsafe "next" it was given.
LOGIN_URL = "admin:login"
LOGIN_REDIRECT_URL = "admin:index"
# Behind proxies every request comes from the nearest one: the client is the
# address the outermost proxy put in X-Forwarded-For, so one client's failures
# never lock out everyone's. Every limit counts a client as the lockout does
# (anthology.edge.client_address: an IPv6 client by its /64, one spelling).
PROXY_COUNT = env.read("PROXY_COUNT") if BEHIND_PROXY else 0
AXES_CLIENT_IP_CALLABLE = "anthology.edge.client_address"

# The audit trail (django-auditlog): values as typed, never truncated.
AUDITLOG_STORE_JSON_CHANGES = True
AUDITLOG_CHANGE_DISPLAY_TRUNCATE_LENGTH = -1
AUDITLOG_DISABLE_REMOTE_ADDR = True

# Every log record goes to stderr as one JSON object a line: a server error
# with its request's method, path and status and the whole traceback, in
# production as in development (Django alone prints nothing once DEBUG is off).
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "{asctime}{levelname}{name}{message}{status_code}",
            "style": "{",
            "rename_fields": {"asctime": "time", "levelname": "level"},
            "static_fields": {"service": "anthology"},
        }
    },
    "handlers": {
        "stderr": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stderr",
            "formatter": "json",
        }
    },
    "root": {"handlers": ["stderr"], "level": env.read("LOG_LEVEL")},
    "loggers": {
        # Django's own console handler repeats records when DEBUG is on.
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        "django.server": {"handlers": [], "propagate": True},
        # django-axes notes every sign-in; its warnings are the lockouts.
        "axes": {"level": "WARNING"},
    },
}

# django-import-export: any model's admin import needs the model's add right,
# its export the view right (the import mixins also ask for the change right).
IMPORT_EXPORT_IMPORT_PERMISSION_CODE = "add"
IMPORT_EXPORT_EXPORT_PERMISSION_CODE = "view"

# Metadata by identifier (sources.metadata): arXiv's API (Atom) and
# Crossref's REST API (JSON). Tests point both at a local fake server.
METADATA_ARXIV_URL = env.read("METADATA_ARXIV_URL")
METADATA_CROSSREF_URL = env.read("METADATA_CROSSREF_URL")
METADATA_MAILTO = env.read("METADATA_MAILTO")
METADATA_TIMEOUT = env.read("METADATA_TIMEOUT")
METADATA_MAX_BYTES = env.read("METADATA_MAX_BYTES")
METADATA_CACHE_SECONDS = env.read("METADATA_CACHE_SECONDS")
# The checks of the sources (sources/checks.py): arXiv's pace, Crossref's and
# the DOI resolver's, the link check's per host; tests point them at fakes.
SOURCES_ARXIV_INTERVAL = env.read("SOURCES_ARXIV_INTERVAL")
SOURCES_ARXIV_BATCH = env.read("SOURCES_ARXIV_BATCH")
SOURCES_CROSSREF_INTERVAL = env.read("SOURCES_CROSSREF_INTERVAL")
SOURCES_DOI_URL = env.read("SOURCES_DOI_URL")
SOURCES_DOI_INTERVAL = env.read("SOURCES_DOI_INTERVAL")
SOURCES_LINKS_INTERVAL = env.read("SOURCES_LINKS_INTERVAL")
SOURCES_LINKS_PRIVATE = env.read("SOURCES_LINKS_PRIVATE")

# Background jobs (RQ, through django-rq) on two queues in one Redis, each
# with workers of its own (`make serve` starts them beside the web processes,
# and restarts one that exits): the jobs people start, and the record's
# reading of itself (related work, candidate topics), which no import or
# backup waits behind.
JOBS_QUEUE = env.read("JOBS_QUEUE")
JOBS_RELATED_QUEUE = env.read("JOBS_RELATED_QUEUE", default=f"{JOBS_QUEUE}-related")


def redis_server(url):
    """django-rq's settings for the Redis at ``url``, with the timeouts of
    every Redis connection and one attempt, as the cache's: redis-py's client
    otherwise tries a Redis that does not answer four times, with pauses
    between (a URL alone would give django-rq no such options)."""
    parts = urlsplit(url)
    return {
        "HOST": parts.hostname or "127.0.0.1",
        "PORT": parts.port or 6379,
        "DB": int(parts.path.strip("/") or 0),
        "USERNAME": unquote(parts.username) if parts.username else None,
        "PASSWORD": unquote(parts.password) if parts.password else None,
        "SSL": parts.scheme == "rediss",
        "REDIS_CLIENT_KWARGS": {
            "socket_connect_timeout": REDIS_CONNECT_TIMEOUT,
            "socket_timeout": REDIS_SOCKET_TIMEOUT,
            "retry": Retry(NoBackoff(), 0),
        },
    }


jobs_redis = {
    # The cache's Redis, unless one is given (an empty one is none).
    **redis_server(
        env.read("JOBS_REDIS_URL", default="")
        or REDIS_URL
        or "redis://127.0.0.1:6379/0"
    ),
    "DEFAULT_TIMEOUT": 3600,
}
RQ_QUEUES = {JOBS_QUEUE: jobs_redis, JOBS_RELATED_QUEUE: jobs_redis}
# Without a shared cache a worker could neither read an upload nor hand back
# its result, so jobs run in the web process that starts them (`make run`).
JOBS_IN_PROCESS = env.read("JOBS_IN_PROCESS", default=not REDIS_URL)
# A job is queued once the transaction that made its row commits, so a worker
# never looks for a job the database does not hold yet.
RQ = {"COMMIT_MODE": "on_db_commit", "WORKER_CLASS": "jobs.worker.Worker"}
# The modules a worker on each queue imports as it starts, before it forks a
# process for each job: related work's numeric libraries (NumPy, SciPy,
# scikit-learn), which no web process or command imports, and no job then
# imports again.
JOBS_WORKER_IMPORTS = {JOBS_RELATED_QUEUE: ["similarity.jobs"]}
# How often a worker running a job says so; three missed, and the job is given
# up as failed whatever host ran it (jobs/worker.py).
JOBS_HEARTBEAT_SECONDS = env.read("JOBS_HEARTBEAT_SECONDS")
# What each worker does between jobs, and every JOBS_CHORE_SECONDS while it
# waits for one: land the page expiries and purges a process left behind, and
# run the scheduled changes whose time has come, and queue the public dumps
# when they are due. Without workers (JOBS_CHORES_IN_PROCESS, below) the web
# process does them on a request, and then also runs, after that request's
# response, the coalesced jobs a command left waiting (related work).
JOBS_CHORES = [
    "pagecache.outbox.drain",
    "actions.schedules.run_due",
    "dumps.jobs.request_due",
    "jobs.runner.resume_waiting",
]
JOBS_CHORE_SECONDS = env.read("JOBS_CHORE_SECONDS")
# A scheduled change this long past its time without a run is late.
SCHEDULE_LATE_SECONDS = env.read("SCHEDULE_LATE_SECONDS")
# How long a preview link stays open.
PREVIEW_LINK_DAYS = env.read("PREVIEW_LINK_DAYS")
# What /health/ready/ checks besides the database, cache and queue: a name
# and the dotted path of a function answering "ok" or "failing: why".
READINESS_CHECKS = {"schedules": "actions.schedules.readiness"}
# What a job's own process does once the job's function has returned, before
# the job is marked finished or failed: a worker's work horse ends right
# after, stopping its threads, so the purges its change asked for go first.
JOBS_FINISHERS = ["pagecache.frontends.finish"]
# Without workers, each process drains the outbox of the page cache itself:
# its purge thread keeps trying, and takes the purges left when it starts.
PAGE_CACHE_DRAIN_IN_PROCESS = JOBS_IN_PROCESS
# Without workers, each process also does their chores (JOBS_CHORES: the
# scheduled changes whose time has come) before a request, at most every
# JOBS_CHORE_SECONDS (jobs.middleware).
JOBS_CHORES_IN_PROCESS = JOBS_IN_PROCESS
# django-rq's dashboard asks only for staff status, and deletes and requeues
# jobs: it is left out of the admin, which shows jobs through their own model
# (the `rqinfo` command shows the queue to operators).
RQ_SHOW_ADMIN_LINK = False
# The largest file the admin's imports take; a larger upload is refused
# before anything is read or kept.
IMPORT_MAX_BYTES = env.read("IMPORT_MAX_BYTES")
# A decision folder's archive is unpacked only within these bounds (a zip
# bomb stops at them): entries in the archive, bytes of its folder unpacked.
IMPORT_MAX_FILES = env.read("IMPORT_MAX_FILES")
IMPORT_MAX_UNPACKED_BYTES = env.read("IMPORT_MAX_UNPACKED_BYTES")
# The largest request body the site reads: the admin's uploads (an import's
# file with its form around it), and every other address (a form, a search).
# Larger ones are answered 413 before they are read (anthology.edge); the
# VCL and the README's nginx recipe hold the same limits in front.
ADMIN_BODY_MAX_BYTES = env.read(
    "ADMIN_BODY_MAX_BYTES", default=IMPORT_MAX_BYTES + 1024 * 1024
)
BODY_MAX_BYTES = env.read("BODY_MAX_BYTES")
# An upload waits for its job in the shared cache this long at most (its
# job removes it once done with it, or when it fails), and one person's
# uploads kept at once hold this many bytes at most; one person has this many
# jobs waiting or running at most. Past either, a new job is refused with a
# message saying which (jobs.runner).
JOBS_UPLOAD_SECONDS = env.read("UPLOAD_KEEP_SECONDS")
JOBS_MAX_UPLOAD_BYTES_PER_USER = env.read(
    "UPLOAD_MAX_BYTES_PER_USER", default=2 * IMPORT_MAX_BYTES
)
JOBS_MAX_UNFINISHED_PER_USER = env.read("JOBS_MAX_PER_USER")
# How long a finished job's result and progress are kept for its page.
JOBS_RESULT_SECONDS = 24 * 3600


# The API (api/): read-only, JSON, described by OpenAPI 3.1.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    # Compact JSON whatever Accept's parameters ask (``indent``): an answer is
    # cached for every client alike.
    "DEFAULT_RENDERER_CLASSES": ["api.renderers.RecordJSONRenderer"],
    "DEFAULT_PARSER_CLASSES": [],
    "DEFAULT_SCHEMA_CLASS": "api.schema.RecordAutoSchema",
    # Every client error is a problem (RFC 9457), naming the parameter refused.
    "EXCEPTION_HANDLER": "api.problems.exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # Bytes as stored: typographic quotes and dashes are not escaped.
    "UNICODE_JSON": True,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Anthology API",
    "DESCRIPTION": (
        "The record for machines: documents, topics, registries, tags, "
        "people, decision logs and decision records, read-only. Anonymous requests "
        "see what the public pages show; a staff member's API token "
        "(Authorization: Bearer) sees what its user may see in the admin. "
        "Every client error is a problem (RFC 9457, application/problem+json: "
        "type, title, status, detail); a query parameter refused (one the "
        "address does not take, empty, repeated, or out of its bounds) is a "
        "400 naming it in `parameter`, with each refused one in "
        "`invalid-params`. A query spelled otherwise than the API writes it "
        "(`page_size=050`, parameters out of order) is redirected (301) to "
        "its canonical spelling."
    ),
    "VERSION": "1",
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # A permanent identifier in a path, as catalogue.identifiers reads it.
    "PATH_CONVERTER_OVERRIDES": {
        "identifier": {"type": "string", "pattern": "^[A-Z][A-Z0-9]*-[0-9]{3,}$"},
    },
    "ENUM_NAME_OVERRIDES": {
        "DocumentStatusEnum": "catalogue.models.choices.DocumentStatus",
        "DecisionStatusEnum": "catalogue.models.choices.DecisionStatus",
        "PersonStateEnum": "catalogue.models.person.PersonState",
    },
}
# Where an API token is accepted: the API and the staff CSV exports.
API_TOKEN_PATHS = ["/api/", "/export/"]
# Where an Authorization header makes an answer its user's own: elsewhere the
# page cache serves it the page every reader gets.
PAGE_CACHE_CREDENTIAL_PATHS = API_TOKEN_PATHS
# Where anonymous requests are limited per client address.
API_ANONYMOUS_PATH = "/api/"
API_TOKEN_RATE = env.read("API_TOKEN_RATE")
API_ANONYMOUS_RATE = env.read("API_ANONYMOUS_RATE")
API_MAX_PAGE_SIZE = env.read("API_MAX_PAGE_SIZE")
API_TOKEN_DAYS = env.read("API_TOKEN_DAYS")
API_TOKEN_MAX_DAYS = env.read("API_TOKEN_MAX_DAYS")
API_TOKEN_MAX_PER_USER = env.read("API_TOKEN_MAX_PER_USER")

# Mail: the outcome of a reader's correction.
EMAIL_URL = env.read("EMAIL_URL")
if EMAIL_URL:
    # EMAIL_BACKEND, EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER, EMAIL_USE_TLS…
    # as the address spells them (dj-email-url's documented use); a timeout
    # it leaves unsaid is the variable's.
    email = dj_email_url.parse(EMAIL_URL)
    if email["EMAIL_TIMEOUT"] is None:
        email["EMAIL_TIMEOUT"] = env.read("EMAIL_TIMEOUT")
    vars().update(email)
else:
    # Or the usual EMAIL_* settings, each from its variable.
    EMAIL_HOST = env.read("EMAIL_HOST")
    if EMAIL_HOST is None and DEBUG:
        EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
    EMAIL_HOST = EMAIL_HOST or "localhost"
    EMAIL_PORT = env.read("EMAIL_PORT")
    EMAIL_HOST_USER = env.read("EMAIL_HOST_USER")
    EMAIL_HOST_PASSWORD = env.read("EMAIL_HOST_PASSWORD")
    EMAIL_USE_TLS = env.read("EMAIL_USE_TLS")
    EMAIL_USE_SSL = env.read("EMAIL_USE_SSL")
    EMAIL_TIMEOUT = env.read("EMAIL_TIMEOUT")
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured(
        "EMAIL_USE_TLS and EMAIL_USE_SSL are both on: a mail server is reached "
        "one way or the other (587 with TLS, 465 with SSL)."
    )
DEFAULT_FROM_EMAIL = env.read(
    "DEFAULT_FROM_EMAIL", default=f"anthology@{urlsplit(SITE_URL).hostname}"
)
# Readers' corrections: limited per client address and in total, bounded in
# size (corrections/limits.py).
CORRECTIONS_RATE = env.read("CORRECTIONS_RATE")
CORRECTIONS_TOTAL_RATE = env.read("CORRECTIONS_TOTAL_RATE")
CORRECTIONS_MAX_BYTES = env.read("CORRECTIONS_MAX_BYTES")
# Readers' pages no cache answered, per client address (anthology/limits.py):
# searches apart, as each new query is a page no cache holds. The admin, the
# API (limited on its own) and the health probes are not counted.
READER_SEARCH_RATE = env.read("READER_SEARCH_RATE")
READER_PAGE_RATE = env.read("READER_PAGE_RATE")
READER_LIMIT_EXEMPT_PATHS = ["/admin/", "/api/", "/health/", "/static/"]
# django-ratelimit counts them (django_ratelimit.core.get_usage) in the default
# cache, and is a library here, not an installed app: its system checks know
# cache backends by their dotted paths, so they would call the shared Redis
# cache (pagecache.backends.RedisCache, atomic INCR) unsupported and, without
# REDIS_URL, the one process's LocMemCache unshared (true, and harmless for
# `make run`), with nothing to silence either.

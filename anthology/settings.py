"""Settings for the anthology, one module driven by environment variables.

DATABASE_URL  database to use; defaults to an SQLite file in the checkout,
              e.g. postgres://postgres@127.0.0.1:5432/anthology
SECRET_KEY    required in production; a development key is used when unset
DEBUG         "1", "true" or "yes" to turn on debug mode (off by default)
ALLOWED_HOSTS comma-separated host names
SITE_URL      the site's canonical origin, e.g. https://anthology.example.org:
              every absolute address the site writes (feeds, sitemaps,
              canonical links, og:url, JSON-LD, exports) starts with it,
              whatever Host or scheme a request came with
CONN_MAX_AGE  seconds a database connection is kept (checked before reuse)
REDIS_URL     shared cache, e.g. redis://127.0.0.1:6379/0; local memory if unset
CACHE_KEY_PREFIX  prefix of this site's keys in the shared cache
PAGE_CACHE    cache public pages for anonymous readers; on when REDIS_URL is set
PAGE_CACHE_SECONDS  how long an unread cached page is kept (a change expires
              it at once whatever this says)
PAGE_CACHE_LOCAL_BYTES  how many bytes of pages each process keeps copies of
              (default 32 MiB; 0 for none)
BEHIND_PROXY  "1" when a proxy (Varnish, nginx) is in front: it says whether
              the request came over HTTPS and who the client is
PROXY_COUNT   how many proxies are in front, with BEHIND_PROXY (default 1)
TRUSTED_PROXIES  the addresses of the proxies in front (comma-separated
              addresses or networks, default 127.0.0.1,::1): only a request
              from one of them may say who the client is or that it came
              over HTTPS
UPLOAD_KEEP_SECONDS  how long an upload waits for its job at most (3600)
UPLOAD_MAX_BYTES_PER_USER  the bytes of uploads one person may have kept at
              once (default twice IMPORT_MAX_BYTES)
JOBS_MAX_PER_USER  the jobs one person may have waiting or running (3)
BODY_MAX_BYTES  the largest request body the site reads (default 1 MiB)
ADMIN_BODY_MAX_BYTES  the same for /admin/, where imports upload (default
              IMPORT_MAX_BYTES and 1 MiB for the form around the file)
REDIS_CONNECT_TIMEOUT, REDIS_SOCKET_TIMEOUT  seconds any Redis connection
              waits to connect (0.25) and for an answer (0.5)
LOG_LEVEL     the application's log level on stderr (default INFO)
METADATA_ARXIV_URL     the arXiv API's query address (metadata by identifier)
METADATA_CROSSREF_URL  Crossref's REST API
METADATA_MAILTO        the address arXiv and Crossref may write to about our
              requests, sent in the User-Agent (Crossref's "polite pool")
METADATA_TIMEOUT       seconds a metadata lookup may take in all, redirects
              and the whole answer included (10)
METADATA_MAX_BYTES     the largest answer a lookup reads (default 5 MiB)
METADATA_CACHE_SECONDS how long a found work's metadata is kept (one day)
VARNISH_URL   a Varnish in front (deploy/varnish/), purged by key, e.g.
              http://127.0.0.1:6081
FASTLY_SERVICE_ID, FASTLY_API_TOKEN  a Fastly service in front, purged by key
CLOUDFLARE_ZONE_ID, CLOUDFLARE_API_TOKEN  a Cloudflare zone, purged by tag
CLOUDFRONT_DISTRIBUTION_ID  a CloudFront distribution, purged by path (AWS
              credentials as boto3 reads them)
SHARED_CACHE_SECONDS  how long the shared caches in front may keep a page
              (default a day; a change purges it at once)
STALE_IF_ERROR_SECONDS  how long they may serve it while the site is down
JOBS_REDIS_URL  the Redis of the background jobs' queue (default REDIS_URL,
              else redis://127.0.0.1:6379/0)
JOBS_QUEUE    the queue's name (default "anthology")
RECORD_CHANGED  what is told of changed documents (default: recompute their
              related work in a background job; empty: nothing)
JOBS_IN_PROCESS  run background jobs in the web process that starts them, at
              once (default: on when REDIS_URL is unset)
OAI_REPOSITORY_NAME  the repository's name harvesters show (OAI-PMH Identify)
OAI_ADMIN_EMAIL  the address harvesters write to about the OAI-PMH endpoint
              (default anthology@ and SITE_URL's host)
IMPORT_MAX_BYTES  the largest file the admin's imports take (default 64 MiB)
IMPORT_MAX_FILES  the most entries a decision folder's .zip may hold (10000)
IMPORT_MAX_UNPACKED_BYTES  the largest a decision folder may be unpacked
              (default 256 MiB)
BACKUP_DIR    where backups started from the admin are kept (default
              backups/ in the checkout; the same place for every worker)
JOBS_HEARTBEAT_SECONDS  how often a worker running a job says so (default 30);
              a job three heartbeats late is given up as failed
JOBS_CHORE_SECONDS  how often an idle worker does its chores, such as draining
              the page cache's outbox (default 5)
OUTBOX_RETRY_SECONDS  how long an expiry in the page cache's outbox is left
              to the process applying it before a drain tries it (default 60)
API_TOKEN_RATE  the requests one API token may make (default 1200/minute;
              per second, minute, hour or day)
API_ANONYMOUS_RATE  the API requests one client address may make without a
              token (default 120/minute)
API_TOKEN_DAYS  how long a new API token lasts unless its maker says (90)
"""

import os
from datetime import timedelta
from pathlib import Path
from urllib.parse import unquote, urlsplit

import dj_database_url
from csp.constants import NONE, SELF
from redis.backoff import NoBackoff
from redis.retry import Retry

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name, default=False):
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name, default):
    value = os.environ.get(name, default)
    return [item.strip() for item in value.split(",") if item.strip()]


SECRET_KEY = os.environ.get(
    "SECRET_KEY", "django-insecure-development-key-set-SECRET_KEY-in-production"
)
DEBUG = env_bool("DEBUG")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
OAI_REPOSITORY_NAME = os.environ.get("OAI_REPOSITORY_NAME", "The anthology")
OAI_ADMIN_EMAIL = os.environ.get(
    "OAI_ADMIN_EMAIL", f"anthology@{urlsplit(SITE_URL).hostname}"
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
    "similarity",
    "oai",
    "pagecache",
    "django_rq",
    # The record for machines: Django REST framework, its OpenAPI description
    # (drf-spectacular) and the Swagger UI's files served from here.
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "api",
]

MIDDLEWARE = [
    # Before anything reads a header a client may forge or a body: only the
    # trusted proxies say who the client is; bodies are bounded.
    "anthology.edge.TrustedProxyMiddleware",
    "anthology.edge.BodyLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Static files, hashed and compressed, before anything touches the session.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # A NUL in the path or the query string is refused before any lookup.
    "public.middleware.RejectNulMiddleware",
    # API tokens are checked and requests counted against their rate limits
    # before a cached page can answer them.
    "api.middleware.TokenMiddleware",
    # Cached public pages are answered here, with the headers the middleware
    # below gave them when they were rendered.
    "pagecache.middleware.PageCacheMiddleware",
    # Below the page cache, so a page is compressed once, when it is rendered,
    # and kept compressed for the readers who accept gzip.
    "django.middleware.gzip.GZipMiddleware",
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
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "0")),
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
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
# `make serve` runs collectstatic: names carry a hash of the contents, so
# WhiteNoise serves them compressed with a year's cache lifetime.
BACKUP_DIR = Path(os.environ.get("BACKUP_DIR", BASE_DIR / "backups"))
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

# One cache shared by every instance; each process's own memory when
# REDIS_URL is unset, which is only safe with a single process.
REDIS_URL = os.environ.get("REDIS_URL", "")
# Every connection to Redis (the cache with its pages, generations and
# uploads, the jobs' queue) gives up after these many seconds: a Redis that
# accepts and never answers costs a request that long, not a worker.
REDIS_CONNECT_TIMEOUT = float(os.environ.get("REDIS_CONNECT_TIMEOUT", "0.25"))
REDIS_SOCKET_TIMEOUT = float(os.environ.get("REDIS_SOCKET_TIMEOUT", "0.5"))
if REDIS_URL:
    CACHES = {
        "default": {
            # Django's backend, reusing its Redis clients.
            "BACKEND": "pagecache.backends.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "anthology"),
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
PAGE_CACHE = env_bool("PAGE_CACHE", default=bool(REDIS_URL))
PAGE_CACHE_SECONDS = int(os.environ.get("PAGE_CACHE_SECONDS", str(24 * 3600)))
# Each process also keeps copies of the pages it served last, up to this many
# bytes; a copy is served only under the shared cache's current generations.
PAGE_CACHE_LOCAL_BYTES = int(
    os.environ.get("PAGE_CACHE_LOCAL_BYTES", str(32 * 1024 * 1024))
)
# Which pages are cached, and what each shows: the site's map, not the cache's.
PAGE_CACHE_SCOPES = "public.scopes.page_scopes"
# The query parameters each cached page reads; others are redirected away.
PAGE_CACHE_PARAMETERS = "public.scopes.page_parameters"
# The paths of a scope's pages, for frontends that purge by path.
PAGE_CACHE_SCOPE_PATHS = "public.scopes.scope_paths"
# What a change to the record makes stale, for the actions (``actions.pages``).
PAGE_CACHE_BEFORE_CHANGE = "public.scopes.before_change"
PAGE_CACHE_CHANGE_SCOPES = "public.scopes.change_scopes"
PAGE_CACHE_OWN_PAGE_SCOPES = "public.scopes.own_page_scopes"
# Told of the documents each change touched, once it commits: related work is
# recomputed in the background (empty: never on a change, only by command).
RECORD_CHANGED = os.environ.get("RECORD_CHANGED", "similarity.jobs.documents_changed")

# Shared caches in front, purged of the pages a change affects once it
# commits. A page gets a shared lifetime only when one is configured: nothing
# else would tell a shared cache that it changed.
PAGE_CACHE_FRONTENDS = {}
if os.environ.get("VARNISH_URL"):
    PAGE_CACHE_FRONTENDS["varnish"] = {
        "BACKEND": "pagecache.frontends.Varnish",
        "LOCATION": os.environ["VARNISH_URL"],
    }
if os.environ.get("FASTLY_SERVICE_ID"):
    PAGE_CACHE_FRONTENDS["fastly"] = {
        "BACKEND": "pagecache.frontends.Fastly",
        "SERVICE_ID": os.environ["FASTLY_SERVICE_ID"],
        "API_TOKEN": os.environ.get("FASTLY_API_TOKEN", ""),
    }
if os.environ.get("CLOUDFLARE_ZONE_ID"):
    PAGE_CACHE_FRONTENDS["cloudflare"] = {
        "BACKEND": "pagecache.frontends.Cloudflare",
        "ZONE_ID": os.environ["CLOUDFLARE_ZONE_ID"],
        "API_TOKEN": os.environ.get("CLOUDFLARE_API_TOKEN", ""),
    }
if os.environ.get("CLOUDFRONT_DISTRIBUTION_ID"):
    PAGE_CACHE_FRONTENDS["cloudfront"] = {
        "BACKEND": "pagecache.frontends.CloudFront",
        "DISTRIBUTION_ID": os.environ["CLOUDFRONT_DISTRIBUTION_ID"],
    }
PAGE_CACHE_SHARED_SECONDS = int(os.environ.get("SHARED_CACHE_SECONDS", "86400"))
PAGE_CACHE_STALE_IF_ERROR_SECONDS = int(
    os.environ.get("STALE_IF_ERROR_SECONDS", "86400")
)
# Pauses between the attempts of a failed purge, in seconds (PURGE_RETRY_PAUSES).
PAGE_CACHE_PURGE_RETRY_PAUSES = [
    float(pause) for pause in env_list("PURGE_RETRY_PAUSES", "0.5,2,10,30")
]
# An expiry is kept in the outbox until it lands; the process that made it
# applies it first, and a drain takes it once this long has passed since.
PAGE_CACHE_OUTBOX_RETRY_SECONDS = int(os.environ.get("OUTBOX_RETRY_SECONDS", "60"))

TAGGIT_CASE_INSENSITIVE = True

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
if env_bool("HTTPS"):
    SECURE_SSL_REDIRECT = True
    # The probe in front (deploy/varnish/backend.vcl) asks over plain HTTP.
    SECURE_REDIRECT_EXEMPT = [r"^health/$"]
    SECURE_HSTS_SECONDS = 60 * 60 * 24 * 365
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
BEHIND_PROXY = env_bool("BEHIND_PROXY")
# The proxies whose X-Forwarded-For and X-Forwarded-Proto are believed; any
# other peer's are dropped (anthology.edge), so a client that reaches
# gunicorn directly cannot choose its address or claim HTTPS.
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", "127.0.0.1,::1")
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
# never lock out everyone's.
PROXY_COUNT = int(os.environ.get("PROXY_COUNT", "1")) if BEHIND_PROXY else 0
AXES_CLIENT_IP_CALLABLE = "editorial.lockout.client_address"

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
    "root": {"handlers": ["stderr"], "level": os.environ.get("LOG_LEVEL", "INFO")},
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
METADATA_ARXIV_URL = os.environ.get(
    "METADATA_ARXIV_URL", "https://export.arxiv.org/api/query"
)
METADATA_CROSSREF_URL = os.environ.get(
    "METADATA_CROSSREF_URL", "https://api.crossref.org"
)
METADATA_MAILTO = os.environ.get("METADATA_MAILTO", "editors@anthology.invalid")
METADATA_TIMEOUT = float(os.environ.get("METADATA_TIMEOUT", "10"))
METADATA_MAX_BYTES = int(os.environ.get("METADATA_MAX_BYTES", str(5 * 1024 * 1024)))
METADATA_CACHE_SECONDS = int(os.environ.get("METADATA_CACHE_SECONDS", str(24 * 3600)))

# Background jobs (RQ, through django-rq) on one queue in Redis; `make serve`
# starts its worker beside the web processes.
JOBS_QUEUE = os.environ.get("JOBS_QUEUE", "anthology")


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


RQ_QUEUES = {
    JOBS_QUEUE: {
        **redis_server(
            os.environ.get("JOBS_REDIS_URL") or REDIS_URL or "redis://127.0.0.1:6379/0"
        ),
        "DEFAULT_TIMEOUT": 3600,
    }
}
# Without a shared cache a worker could neither read an upload nor hand back
# its result, so jobs run in the web process that starts them (`make run`).
JOBS_IN_PROCESS = env_bool("JOBS_IN_PROCESS", default=not REDIS_URL)
# A job is queued once the transaction that made its row commits, so a worker
# never looks for a job the database does not hold yet.
RQ = {"COMMIT_MODE": "on_db_commit", "WORKER_CLASS": "jobs.worker.Worker"}
# How often a worker running a job says so; three missed, and the job is given
# up as failed whatever host ran it (jobs/worker.py).
JOBS_HEARTBEAT_SECONDS = int(os.environ.get("JOBS_HEARTBEAT_SECONDS", "30"))
# What each worker does between jobs, and every JOBS_CHORE_SECONDS while it
# waits for one: land the page expiries and purges a process left behind.
JOBS_CHORES = ["pagecache.outbox.drain"]
JOBS_CHORE_SECONDS = int(os.environ.get("JOBS_CHORE_SECONDS", "5"))
# Without workers, each process drains the outbox of the page cache itself:
# its purge thread keeps trying, and takes the purges left when it starts.
PAGE_CACHE_DRAIN_IN_PROCESS = JOBS_IN_PROCESS
# django-rq's dashboard asks only for staff status, and deletes and requeues
# jobs: it is left out of the admin, which shows jobs through their own model
# (the `rqinfo` command shows the queue to operators).
RQ_SHOW_ADMIN_LINK = False
# The largest file the admin's imports take; a larger upload is refused
# before anything is read or kept.
IMPORT_MAX_BYTES = int(os.environ.get("IMPORT_MAX_BYTES", str(64 * 1024 * 1024)))
# A decision folder's archive is unpacked only within these bounds (a zip
# bomb stops at them): entries in the archive, bytes of its folder unpacked.
IMPORT_MAX_FILES = int(os.environ.get("IMPORT_MAX_FILES", "10000"))
IMPORT_MAX_UNPACKED_BYTES = int(
    os.environ.get("IMPORT_MAX_UNPACKED_BYTES", str(256 * 1024 * 1024))
)
# The largest request body the site reads: the admin's uploads (an import's
# file with its form around it), and every other address (a form, a search).
# Larger ones are answered 413 before they are read (anthology.edge); the
# VCL and the README's nginx recipe hold the same limits in front.
ADMIN_BODY_MAX_BYTES = int(
    os.environ.get("ADMIN_BODY_MAX_BYTES", str(IMPORT_MAX_BYTES + 1024 * 1024))
)
BODY_MAX_BYTES = int(os.environ.get("BODY_MAX_BYTES", str(1024 * 1024)))
# An upload waits for its job in the shared cache this long at most (its
# job removes it once done with it, or when it fails), and one person's
# uploads kept at once hold this many bytes at most; one person has this many
# jobs waiting or running at most. Past either, a new job is refused with a
# message saying which (jobs.runner).
JOBS_UPLOAD_SECONDS = int(os.environ.get("UPLOAD_KEEP_SECONDS", "3600"))
JOBS_MAX_UPLOAD_BYTES_PER_USER = int(
    os.environ.get("UPLOAD_MAX_BYTES_PER_USER", str(2 * IMPORT_MAX_BYTES))
)
JOBS_MAX_UNFINISHED_PER_USER = int(os.environ.get("JOBS_MAX_PER_USER", "3"))
# How long a finished job's result and progress are kept for its page.
JOBS_RESULT_SECONDS = 24 * 3600


# The API (api/): read-only, JSON, described by OpenAPI 3.1.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": [],
    "DEFAULT_SCHEMA_CLASS": "api.schema.RecordAutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # Bytes as stored: typographic quotes and dashes are not escaped.
    "UNICODE_JSON": True,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Anthology API",
    "DESCRIPTION": (
        "The record for machines: documents, topics, registries, tags, "
        "decision logs and decision records, read-only. Anonymous requests "
        "see what the public pages show; a staff member's API token "
        "(Authorization: Bearer) sees what its user may see in the admin."
    ),
    "VERSION": "1",
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # A permanent identifier in a path, as catalogue.identifiers reads it.
    "PATH_CONVERTER_OVERRIDES": {
        "identifier": {"type": "string", "pattern": "^[A-Z][A-Z0-9]*-[0-9]{3,}$"},
    },
    "ENUM_NAME_OVERRIDES": {
        "DocumentStatusEnum": "catalogue.models.choices.DocumentStatus",
        "DecisionStatusEnum": "catalogue.models.choices.DecisionStatus",
    },
}
# Where an API token is accepted: the API and the staff CSV exports.
API_TOKEN_PATHS = ["/api/", "/export/"]
# Where anonymous requests are limited per client address.
API_ANONYMOUS_PATH = "/api/"
API_TOKEN_RATE = os.environ.get("API_TOKEN_RATE", "1200/minute")
API_ANONYMOUS_RATE = os.environ.get("API_ANONYMOUS_RATE", "120/minute")
API_TOKEN_DAYS = int(os.environ.get("API_TOKEN_DAYS", "90"))

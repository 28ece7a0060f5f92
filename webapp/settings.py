"""Django settings, read from the environment (see README, "Configuration").

One module for every environment: nothing here differs between development,
tests and production except what the environment variables say.
"""

from __future__ import annotations

import ipaddress
import os
from datetime import timedelta
from decimal import Decimal, InvalidOperation
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from webapp.release import release_digest

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, default: bool) -> bool:
    """Read a boolean environment variable strictly (true/false, 1/0, yes/no, on/off)."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {raw!r}")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, not {raw!r}") from None


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DJANGO_DEBUG", False)

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is not true "
            "(for local use set DJANGO_DEBUG=true, as `make run` does)."
        )
    SECRET_KEY = "django-insecure-development-only-key"  # debug only

# Old keys still accepted for signatures (results permalinks, sessions) while rotating.
SECRET_KEY_FALLBACKS = env_list("DJANGO_SECRET_KEY_FALLBACKS", "")

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", "")
# A proxy in front (nginx, docs/nginx.conf) sets X-Forwarded-Proto and X-Forwarded-For,
# overwriting or appending to what the client sent; without one, those headers are the
# client's own claims and are ignored.
BEHIND_PROXY = env_bool("DJANGO_BEHIND_PROXY", False)
# The proxies' own addresses or networks (nginx on this machine by default): forwarded headers
# are believed only on connections from them (webapp.security.client_ip; gunicorn.conf.py
# passes the same list to uvicorn as forwarded_allow_ips).
PROXY_ADDRESSES = env_list("DJANGO_PROXY_ADDRESSES", "127.0.0.1,::1")
for _proxy in PROXY_ADDRESSES:
    try:
        ipaddress.ip_network(_proxy)
    except ValueError as _error:
        raise ImproperlyConfigured(f"DJANGO_PROXY_ADDRESSES: {_error}") from None

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "ninja",  # serves the API docs (swagger-ui) from local static files, not a CDN
    "webapp.catalog",
    "webapp.accounts",
    "webapp.scenarios",
    "webapp.planner",
    "webapp.advisor",
    "axes",  # counts failed sign-ins and locks out password guessing (django-axes)
    "django_tasks",  # Django's tasks framework (the backport of django.tasks): see TASKS
    "django_tasks_db",  # its database backend: the queue in the app's own database
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "webapp.security.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Pages only: WhiteNoise above answers static files with their precompressed copies.
    # Django pads gzipped bodies with random bytes against BREACH; CSRF tokens are masked.
    "django.middleware.gzip.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "webapp.api.middleware.ApiErrorShapeMiddleware",
    "webapp.busy.DatabaseBusyMiddleware",
    # Last, as django-axes asks: it turns a refused sign-in into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "webapp.urls"
WSGI_APPLICATION = "webapp.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "webapp" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Each request's synchronous code runs in a thread of its own under ASGI, so Django's
# documentation advises against persistent connections there (DATABASE_CONN_MAX_AGE=0,
# the default): a pooler such as PgBouncer keeps PostgreSQL's connections instead.
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite has one writer at a time. A writer waits up to DJANGO_SQLITE_TIMEOUT
    # seconds for the lock (the busy timeout) instead of failing at once; write
    # transactions take the lock when they begin (BEGIN IMMEDIATE), so a
    # transaction that read first never finds the lock gone when it comes to
    # write, which SQLite answers with an immediate "database is locked" that
    # no timeout helps; and in write-ahead-log mode readers never wait for a
    # writer, so pages keep being served while load_catalog writes. PostgreSQL
    # needs none of this.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": env_int("DJANGO_SQLITE_TIMEOUT", 20),
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
# Caches: "default" is each process's memory, for what a key fully determines (the names
# of catalog rows per catalog version). "versions" is the database, seen by every process
# and by management commands: it holds the catalog's version, the token that anything
# cached from catalog rows puts in its key (webapp.catalog.selectors.catalog_version),
# written in the same transaction as the rows it versions, so an admin edit or a
# load_catalog run is seen by every worker with its rows or not at all (a rolled-back change
# leaves no new token behind). "shared" holds the slow documents every worker serves
# (analysis JSON, the checked guide) and the password-reset counters: the database too on
# one host, Redis (Django's own RedisCache) when REDIS_URL is set, as on several hosts
# (docs/production.md, "Several hosts"). Its keys start with the release's digest
# (webapp/release.py), so a new release never serves what an older one computed. The
# database's table is created by the catalog's migrations.
REDIS_URL = os.environ.get("REDIS_URL", "").strip()
_DATABASE_CACHE = {
    # Django's DatabaseCache, whose writes on SQLite skip rather than wait for the lock.
    "BACKEND": "webapp.busy.SkipWhenLockedCache",
    "LOCATION": "django_cache",
    "KEY_PREFIX": release_digest(BASE_DIR),
}
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "versions": _DATABASE_CACHE,
    "shared": (
        {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": release_digest(BASE_DIR),
        }
        if REDIS_URL
        else _DATABASE_CACHE
    ),
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    # Not a rule: a changed password revokes the user's API tokens (webapp.accounts.services).
    {"NAME": "webapp.accounts.services.RevokeTokensOnPasswordChange"},
]

# Internationalisation: Simplified Chinese and English; the browser's
# Accept-Language picks the default, the language switcher overrides it.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("zh-hans", _("Simplified Chinese"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = os.environ.get("DJANGO_TIME_ZONE", "UTC")
USE_TZ = True

# Static files: served by WhiteNoise, also in production (no CDN, no nginx needed).
STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if env_bool("DJANGO_STATIC_MANIFEST", not DEBUG)
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}
# No uploads. Set anyway: with MEDIA_URL empty, Django's test live server treats every
# path as a media file and answers 500 for a permalink longer than the file system allows.
MEDIA_URL = "/media/"
MEDIA_ROOT = BASE_DIR / "media"
WHITENOISE_MAX_AGE = 31536000 if not DEBUG else 0

# Accounts (webapp/accounts): Django's sign-in pages; sign-up by a team admin's invitation
# link unless DJANGO_OPEN_SIGNUP=true lets anyone create an account.
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "planner:saved-list"
LOGOUT_REDIRECT_URL = "planner:home"
ACCOUNTS_OPEN_SIGNUP = env_bool("DJANGO_OPEN_SIGNUP", False)
ACCOUNTS_INVITATION_DAYS = env_int("DJANGO_INVITATION_DAYS", 7)

# Password guessing (django-axes): after DJANGO_LOGIN_FAILURE_LIMIT wrong passwords for one
# username from one address, that username is refused from that address, on the sign-in page
# and the admin's, for DJANGO_LOGIN_COOLOFF_MINUTES. By username *and* address: by username
# alone anyone could lock a colleague out; by address alone one guesser would lock out a whole
# office behind one NAT. A successful sign-in clears the count (docs/accounts.md).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out attempt
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("DJANGO_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("DJANGO_LOGIN_COOLOFF_MINUTES", 15))
if AXES_FAILURE_LIMIT < 1:
    raise ImproperlyConfigured("DJANGO_LOGIN_FAILURE_LIMIT must be at least 1")
if AXES_COOLOFF_TIME < timedelta(minutes=1):
    raise ImproperlyConfigured("DJANGO_LOGIN_COOLOFF_MINUTES must be at least 1")
# Password reset requests an address, and an account (by the email typed), may make per hour.
PASSWORD_RESET_PER_ADDRESS = env_int("DJANGO_RESET_PER_ADDRESS", 10)
PASSWORD_RESET_PER_ACCOUNT = env_int("DJANGO_RESET_PER_ACCOUNT", 3)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "webapp.accounts.views.locked_out"  # the site's page, 429
# The client's address: the connection's, unless BEHIND_PROXY and the connection comes from
# one of PROXY_ADDRESSES. Then it is the last X-Forwarded-For entry, the one the proxy
# appended ($proxy_add_x_forwarded_for); entries before it come from the client and are not
# believed (ipware, not strict, with no proxy counted inside the header, takes the last entry
# however many precede it).
AXES_CLIENT_IP_CALLABLE = "webapp.security.client_ip"
AXES_IPWARE_META_PRECEDENCE_ORDER = (
    ("HTTP_X_FORWARDED_FOR", "REMOTE_ADDR") if BEHIND_PROXY else ("REMOTE_ADDR",)
)
AXES_IPWARE_PROXY_COUNT = 0
IPWARE_STRICT = False

# Email (password reset): printed to the console unless an SMTP host is set. Pages hand
# each message to the task queue (webapp.planner.tasks.QueuedEmailBackend); the worker sends it
# through SENT_EMAIL_BACKEND, so a reset answers as fast for a known address as an unknown.
EMAIL_HOST = os.environ.get("DJANGO_EMAIL_HOST", "")
SENT_EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_BACKEND = "webapp.planner.tasks.QueuedEmailBackend"
EMAIL_PORT = env_int("DJANGO_EMAIL_PORT", 587)
EMAIL_HOST_USER = os.environ.get("DJANGO_EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("DJANGO_EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("DJANGO_EMAIL_USE_TLS", True)
DEFAULT_FROM_EMAIL = os.environ.get("DJANGO_DEFAULT_FROM_EMAIL", "webmaster@localhost")

# Security: HTTPS hardening is switched on together with DJANGO_HTTPS=true
# (production behind TLS); see README "Production".
HTTPS = env_bool("DJANGO_HTTPS", False)
SECURE_SSL_REDIRECT = HTTPS
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 31536000 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if BEHIND_PROXY else None
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
# The language switcher's cookie: sent over HTTPS only when the site is, and never
# on cross-site subrequests (Django's defaults are neither).
LANGUAGE_COOKIE_SECURE = HTTPS
LANGUAGE_COOKIE_SAMESITE = "Lax"

# The longest request line the deployment accepts [bytes]: what nginx's default
# large_client_header_buffers (8 KiB, docs/nginx.conf) holds with its line ending; uvicorn
# alone takes 16 KiB of request line and headers, runserver 65 536. A results permalink
# carries the whole scenario in its URL: the planner makes no link longer than this and
# saves a larger scenario instead.
MAX_REQUEST_LINE_BYTES = 8190

# Request bodies: the batch API takes up to 10 000 scenarios (see README).
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DJANGO_MAX_BODY_BYTES", 16 * 1024 * 1024)
# Heavy analyses (uncertainty, tornado, fleet, batches) one worker process runs at once;
# more are answered 503 with Retry-After (webapp.busy.heavy_request).
HEAVY_REQUESTS_PER_WORKER = env_int("DJANGO_HEAVY_REQUESTS_PER_WORKER", 2)

# Background work (webapp.planner.tasks) on Django's tasks framework. The default keeps the queue in
# the app's own database, run by `manage.py db_worker` (make run / make serve start one);
# DJANGO_TASKS_BACKEND=rq moves it to Redis (REDIS_URL), run by `manage.py rqworker`, for
# several app hosts (docs/production.md).
TASKS_BACKEND = os.environ.get("DJANGO_TASKS_BACKEND", "database").strip().lower()
if TASKS_BACKEND == "database":
    TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
elif TASKS_BACKEND == "rq":
    if not REDIS_URL:
        raise ImproperlyConfigured("DJANGO_TASKS_BACKEND=rq needs REDIS_URL (redis://host:6379/0)")
    INSTALLED_APPS.append("django_rq")
    RQ_QUEUES = {"default": {"URL": REDIS_URL, "DEFAULT_TIMEOUT": 3600}}
    TASKS = {"default": {"BACKEND": "django_tasks_rq.RQBackend", "QUEUES": ["default"]}}
else:
    raise ImproperlyConfigured(
        f"DJANGO_TASKS_BACKEND must be database or rq, not {TASKS_BACKEND!r}"
    )

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "one_line": {
            "()": "webapp.security.WithoutTraceback",
            "format": "%(levelname)s %(name)s: %(message)s",
        }
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler"},
        # A request for a host not in ALLOWED_HOSTS (scanners send them all day): one line,
        # the message only, without the traceback Django's security logger would add.
        "one_line": {"class": "logging.StreamHandler", "formatter": "one_line"},
    },
    "loggers": {
        "django.security.DisallowedHost": {
            "handlers": ["one_line"],
            "level": "ERROR",
            "propagate": False,
        },
    },
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "WARNING")},
}


def env_share(name: str, default: str) -> Decimal:
    """Read a share between 0 and 1 (``0.30`` for 30 %) from the environment, strictly."""
    raw = os.environ.get(name, default).strip()
    try:
        value = Decimal(raw)
    except InvalidOperation:
        value = Decimal("NaN")
    if not value.is_finite() or not Decimal(0) <= value <= Decimal(1):
        raise ImproperlyConfigured(f"{name} must be a share between 0 and 1, not {raw!r}")
    return value


# A catalog price that moves by more than this share from the price before it (or changes
# currency) waits in the admin until a staff user approves it (docs/catalog.md).
CATALOG_REVIEW_SHARE = env_share("CATALOG_REVIEW_SHARE", "0.30")

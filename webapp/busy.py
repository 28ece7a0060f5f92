"""SQLite's one writer at a time: a write that cannot wait is skipped, one that waited too
long is a 503 with ``Retry-After``, not a 500.

SQLite lets one writer in at a time; the others wait up to the busy timeout
(``DJANGO_SQLITE_TIMEOUT``, see settings). A request that only reads must not
wait for it because of what it caches on the way (:class:`SkipWhenLockedCache`).
Should a real write's wait run out, the request is answered "busy, try again"
rather than with an error page and a traceback in the log. PostgreSQL never
raises this error.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

from django.conf import settings
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.db import DatabaseCache
from django.db import OperationalError, connections, router
from django.db.backends.base.base import BaseDatabaseWrapper
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5
"""What a refused client is told to wait before trying again [s]."""


def is_database_busy(exc: BaseException) -> bool:
    """True for SQLite's "database is locked" (or "database table is locked")."""
    return isinstance(exc, OperationalError) and "is locked" in str(exc)


def busy_message() -> str:
    return _("The database is busy; please try again in a few seconds.")


def busy_response(request: HttpRequest) -> HttpResponse:
    """The 503 page; the API answers the same in its JSON shape (webapp.errors)."""
    logger.warning("database busy on %s %s: answered 503", request.method, request.path)
    response = render(request, "busy.html", {"message": busy_message()}, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class DatabaseBusyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        return busy_response(request) if is_database_busy(exc) else None


class SkipWhenLockedCache(DatabaseCache):
    """Django's database cache, whose writes never wait for SQLite's write lock.

    A page that only reads still writes the shared cache: the document it
    computed (a results page's analysis, the checked guide), and the expired
    entries a lookup deletes. While another process held the lock, such a
    request waited for the whole busy timeout. Here a cache operation that
    would wait is given up instead, as Django's cache gives up a write that
    fails: a write is skipped, a lookup is a miss, and the next request
    computes the document again. Inside a transaction (the catalog's version,
    written with the rows it versions) and on other databases the operations
    are Django's, unchanged. Only the cache's public methods are wrapped.
    """

    def get_many(self, keys: Any, version: int | None = None) -> dict[str, Any]:
        # A lookup deletes the expired entries it meets: a write, so it may wait.
        with self._unless_locked():
            return dict(super().get_many(keys, version=version))
        return {}

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> None:
        with self._unless_locked():
            super().set(key, value, timeout=timeout, version=version)

    def add(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> bool:
        with self._unless_locked():
            return bool(super().add(key, value, timeout=timeout, version=version))
        return False

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        with self._unless_locked():
            return bool(super().touch(key, timeout=timeout, version=version))
        return False

    def delete(self, key: Any, version: int | None = None) -> bool:
        with self._unless_locked():
            return bool(super().delete(key, version=version))
        return False  # an entry left behind expires, or is deleted by a later lookup

    def delete_many(self, keys: Any, version: int | None = None) -> None:
        with self._unless_locked():
            super().delete_many(keys, version=version)

    @contextlib.contextmanager
    def _unless_locked(self) -> Iterator[None]:
        """Run the block without waiting for the write lock; give it up if it would wait."""
        connection = connections[router.db_for_write(self.cache_model_class)]
        with _no_wait(connection) as waiting_would_block:
            try:
                yield
            except OperationalError as exc:
                if not (waiting_would_block and is_database_busy(exc)):
                    raise


@contextlib.contextmanager
def _no_wait(connection: BaseDatabaseWrapper) -> Iterator[bool]:
    """SQLite's busy timeout at 0 for the block, outside transactions only (True then)."""
    if connection.vendor != "sqlite" or connection.in_atomic_block:
        yield False
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA busy_timeout")
        (milliseconds,) = cursor.fetchone()
        cursor.execute("PRAGMA busy_timeout = 0")
    try:
        yield True
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA busy_timeout = {int(milliseconds)}")


class TooManyHeavyRequests(Exception):
    """This worker already runs as many heavy analyses as it may: answer 503, try later."""


@functools.cache
def _heavy_slots(limit: int) -> threading.BoundedSemaphore:
    """The slots of this worker for ``limit`` heavy analyses at once (one per limit, so a
    changed setting takes effect without a restart)."""
    return threading.BoundedSemaphore(limit)


@contextlib.contextmanager
def heavy_request() -> Iterator[None]:
    """A slot for one heavy analysis (an uncertainty, tornado or fleet analysis, a batch),
    or :class:`TooManyHeavyRequests` when this worker already runs
    ``HEAVY_REQUESTS_PER_WORKER`` of them.

    A worker computes one request at a time (numpy holds the interpreter), so a
    queue of heavy analyses makes every request behind it wait seconds; past the
    limit a client is told to come back instead (503 with ``Retry-After``).
    """
    slots = _heavy_slots(settings.HEAVY_REQUESTS_PER_WORKER)
    if not slots.acquire(blocking=False):
        raise TooManyHeavyRequests
    try:
        yield
    finally:
        slots.release()

"""Writes that concern the catalog as a whole (the rows themselves are saved by the admin,
``load_catalog`` and ``catalog_import``)."""

from __future__ import annotations

import uuid

from django.core.cache import caches

from webapp.catalog.selectors import VERSION_CACHE, VERSION_KEY, forget_catalog_version


def bump_catalog_version() -> str:
    """Give the catalog a new :func:`~webapp.catalog.selectors.catalog_version`; return it.

    Inside a transaction the new token is written with the rows (the version
    lives in the database cache), so other processes see both or neither. This
    process reads it back at its next lookup rather than remembering it: the
    transaction may still be rolled back.
    """
    version = uuid.uuid4().hex
    caches[VERSION_CACHE].set(VERSION_KEY, version, timeout=None)
    forget_catalog_version()
    return version

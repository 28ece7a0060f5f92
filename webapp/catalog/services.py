"""Writes of the catalog: recording a dated price (with review), approving held ones, and
the catalog's version.

Prices are append-only (:class:`~webapp.catalog.models.PricePoint`): the admin and
``catalog_import`` record a new row through :func:`record_price`, which holds it for
review when it moves too far from the price in effect.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.db import transaction
from django.utils import timezone

from webapp.catalog import selectors
from webapp.catalog.models import PricePoint
from webapp.catalog.selectors import VERSION_CACHE, VERSION_KEY, forget_catalog_version


def previous_price(row: PricePoint) -> PricePoint | None:
    """The row a new ``row`` is compared with: its item's live row in effect on its date (the
    price in effect, which the resolver would otherwise use).

    A correction is compared with that too, not with the row it corrects: a held row
    corrected "with the same figures" would otherwise move 0 % and go live. Only when no
    price is in effect on its date is a correction compared with the (live) row it corrects.
    """
    previous = selectors.previous_live_row(row)
    corrected = row.supersedes
    if previous is None and corrected is not None and not corrected.pending:
        return corrected
    return previous


def review_reasons(row: PricePoint, share: Decimal | None = None) -> list[str]:
    """Why ``row`` must wait for review; empty when it need not.

    A correction of a row that is itself held waits too. A row waits when its currency
    differs from the previous row's (:func:`previous_price`), or when one of its figures
    moves by more than ``share`` (default: ``settings.CATALOG_REVIEW_SHARE``) of the
    previous figure: ``|new − old| / old > share``. A first price has nothing to be
    compared with and goes live at once.
    """
    share = settings.CATALOG_REVIEW_SHARE if share is None else share
    reasons = []
    if row.supersedes is not None and row.supersedes.pending:
        reasons.append(f"corrects a row held for review ({row.supersedes})")
    previous = previous_price(row)
    if previous is None:
        return reasons
    if row.review_currency != previous.review_currency:
        reasons.append(f"currency {previous.review_currency} → {row.review_currency}")
    old_figures = previous.review_figures()
    for name, new in row.review_figures().items():
        old = old_figures.get(name)
        if old is None or new is None:
            continue
        old, new = Decimal(str(old)), Decimal(str(new))  # as typed (text) or as stored
        if old == new:
            continue
        if old == 0:
            reasons.append(f"{name} {old} → {new} (from zero)")
            continue
        move = (new - old) / old
        if abs(move) > share:
            reasons.append(f"{name} {old} → {new} ({move:+.0%})")
    return reasons


def record_price(row: PricePoint, user: Any = None) -> list[str]:
    """Save a new dated row recorded by ``user`` (``None``: a command); return why it is held.

    A correction (``row.supersedes`` set) gets the next revision of the row it corrects.
    The row is held as pending when :func:`review_reasons` gives any reason.
    """
    if row.pk is not None:
        raise ValueError("a recorded price is never changed: record a new row")
    if row.supersedes is not None:
        row.revision = row.supersedes.revision + 1
    reasons = review_reasons(row)
    row.pending = bool(reasons)
    row.recorded_at = timezone.now()
    row.recorded_by = user if getattr(user, "pk", None) is not None else None
    row.save()
    return reasons


def approve(rows: Iterable[PricePoint], user: Any) -> int:
    """Let pending ``rows`` go live, approved by ``user`` now; return how many were pending."""
    approved = 0
    with transaction.atomic():
        for row in rows:
            if not row.pending:
                continue
            row.pending = False
            row.approved_by = user
            row.approved_at = timezone.now()
            row.save(update_fields=["pending", "approved_by", "approved_at"])
            approved += 1
    return approved


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

"""Money in the selection's currency, at the FX rate in effect on the snapshot's day."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from django.utils.translation import gettext, gettext_noop

from webapp.catalog.resolver.provenance import Provenance, Unresolvable, decimal_text
from webapp.catalog.selectors import CatalogSnapshot


def convert(
    catalog: CatalogSnapshot, amount: Decimal, currency: str, target: str
) -> tuple[Decimal, str | None]:
    """``amount`` in ``target`` at the rate in effect on the snapshot's day, and the
    multiplier used (``None``: none needed).

    An amount in currency X becomes ``amount × rate`` with the rate of the pair
    X→Y, or ``amount / rate`` of the pair Y→X, whichever is newer.
    """
    if currency == target:
        return amount, None
    row = catalog.fx_rate(currency, target)
    if row is None:
        raise Unresolvable(
            "as_of",
            gettext("no FX rate %(base)s→%(quote)s on %(date)s")
            % {"base": currency, "quote": target, "date": catalog.day.isoformat()},
        )
    multiplier = row.multiplier(currency)
    return amount * multiplier, decimal_text(multiplier)


def fx_provenance(
    catalog: CatalogSnapshot, items: Iterable[Provenance], target: str
) -> list[Provenance]:
    """The FX rows behind every converted amount of ``items``, each once, by pair."""
    rows = {
        (row.base_currency, row.quote_currency): row
        for item in items
        if item.fx_rate is not None and item.currency is not None
        for row in [catalog.fx_rate(item.currency, target)]
        if row is not None
    }
    return [
        Provenance.of_price(
            gettext_noop("fx"), str(row), row, [], amount=row.rate, currency=quote, note=row.note
        )
        for (_base, quote), row in sorted(rows.items())
    ]

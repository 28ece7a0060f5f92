"""The cloud offerings a plan may rent: its currency's market, with their GPU memory.

A CNY plan rents in mainland China, a USD plan everywhere else the catalog
lists (the US regions and the global marketplaces): the same split the
resolver's default offering follows (a CNY plan's default is Alibaba Cloud's,
a USD plan's Azure's). An offering is in the market when it has an hourly rate
on the plan's day. Its GPU memory is its GPU model's (``vram_gb``) times its
GPUs: a run may be sharded across the GPUs of one instance, never across
instances (methodology version 4).
"""

from __future__ import annotations

from collections.abc import Iterable

from webapp.catalog.models import CloudOffering, FxRate
from webapp.catalog.selectors import CatalogSnapshot

CHINA = "China (mainland)"
"""The region of the CNY market."""


def in_market(offering: CloudOffering, currency: str) -> bool:
    """Whether a plan in ``currency`` rents ``offering`` (see the module's docstring)."""
    return (offering.region == CHINA) == (currency == "CNY")


def market_offerings(currency: str, catalog: CatalogSnapshot) -> list[CloudOffering]:
    """The offerings of ``currency``'s market with a rate on the snapshot's day, by slug."""
    return [
        offering
        for slug, offering in sorted(catalog.offerings.items())
        if in_market(offering, currency) and catalog.rate(offering) is not None
    ]


def every_market(currency: str, catalog: CatalogSnapshot) -> list[CloudOffering]:
    """The offerings of every market with a rate on the snapshot's day whose price converts
    into ``currency`` at an exchange rate in effect that day (the choice "every market, at the
    dated exchange rate"), by slug."""
    return [
        offering
        for slug, offering in sorted(catalog.offerings.items())
        if (rate := catalog.rate(offering)) is not None
        and (rate.currency == currency or catalog.fx_rate(rate.currency, currency) is not None)
    ]


def offered(currency: str, all_markets: bool, catalog: CatalogSnapshot) -> list[CloudOffering]:
    """What a plan may rent: its currency's market, or every market (``all_markets``)."""
    if all_markets:
        return every_market(currency, catalog)
    return market_offerings(currency, catalog)


def exchange_rates(
    currency: str, offerings: Iterable[CloudOffering], catalog: CatalogSnapshot
) -> list[FxRate]:
    """The exchange rates (rows in effect on the snapshot's day) that turn the prices of
    ``offerings`` into ``currency``, each once, by pair."""
    rows: dict[tuple[str, str], FxRate] = {}
    for offering in offerings:
        rate = catalog.rate(offering)
        if rate is None or rate.currency == currency:
            continue
        row = catalog.fx_rate(rate.currency, currency)
        if row is not None:
            rows[(row.base_currency, row.quote_currency)] = row
    return [rows[pair] for pair in sorted(rows)]


def gpu_memory_gb(offering: CloudOffering) -> float:
    """Memory of one GPU of the offering [GB] (its GPU model's)."""
    return float(offering.gpu_model.vram_gb)


def instance_memory_gb(offering: CloudOffering) -> float:
    """Memory of one instance, its GPUs added up [GB]."""
    return offering.gpu_count * gpu_memory_gb(offering)


def smallest_holding(offerings: Iterable[CloudOffering], needed_gb: float) -> CloudOffering | None:
    """The offering of least instance memory that holds ``needed_gb`` (ties: by slug)."""
    holding = [o for o in offerings if instance_memory_gb(o) >= needed_gb]
    return min(holding, key=lambda o: (instance_memory_gb(o), o.slug), default=None)

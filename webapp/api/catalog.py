"""Read-only catalog: every figure with its effective date, source and estimate flag.

Prices are the rows in effect on ``as_of`` (default today): for dated price
series (part prices, cloud rates, FX rates) the latest row on or before that
day. Amounts are decimal strings, exactly as stored; nothing is converted or
summed here (the resolver does that, for ``/resolve``).
"""

from __future__ import annotations

import datetime
import re
from decimal import Decimal
from typing import Annotated, Any, Literal

from django.http import HttpRequest
from ninja import Query, Router, Schema
from pydantic import BeforeValidator, Field

from webapp.api.schemas import ErrorsOut
from webapp.catalog import selectors
from webapp.catalog.models import FxRate

router = Router(tags=["catalog"])

CurrencyCode = Literal["CNY", "USD"]
Text = Annotated[str, Field(max_length=100, pattern=r"^[^\x00]*$")]


def _iso_date(value: object) -> object:
    if isinstance(value, str) and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise ValueError("must be a date written YYYY-MM-DD")
    return value


IsoDate = Annotated[datetime.date, BeforeValidator(_iso_date)]


class Filters(Schema):
    currency: CurrencyCode | None = Field(None, description="only figures in this currency")
    as_of: IsoDate | None = Field(None, description="prices in effect on this day (today)")


class ProviderFilters(Filters):
    provider: Text | None = Field(None, description="cloud provider, e.g. AWS (any case)")


class PriceOut(Schema):
    amount: str = Field(description="exact decimal amount")
    currency: str
    effective_date: datetime.date
    source: str
    estimate: bool


class ThroughputOut(Schema):
    benchmark: str
    benchmark_name_zh: str = Field(description="Chinese name of the benchmark; blank: English")
    relative_throughput: str = Field(description="one GPU, reference GPU = 1")
    source: str
    estimate: bool


class GpuOut(Schema):
    slug: str
    vendor: str
    name: str
    name_zh: str = Field(description="Chinese name; blank: use the English name")
    vram_gb: int
    board_power_watts: int
    idle_power_watts: int
    source: str
    throughputs: list[ThroughputOut]


class PresetPartOut(Schema):
    part: str
    name: str
    name_zh: str
    kind: str
    quantity: int
    price: PriceOut | None = Field(description="null when no price is in effect")


class PresetOut(Schema):
    slug: str
    name: str
    name_zh: str
    tier: str
    gpu_model: str
    gpu_count: int
    node_count: int
    scaling_efficiency: str = Field(description="inside one server")
    multi_node_scaling_efficiency: str = Field(description="across servers")
    maintenance_rate_per_year: str
    residual_value_retention_per_year: str
    useful_life_months: int | None
    parts: list[PresetPartOut]


class CloudOfferingOut(Schema):
    slug: str
    provider: str
    instance_type: str
    name_zh: str
    region: str
    gpu_model: str
    gpu_count: int
    pricing_mode: str
    scaling_efficiency: str
    rework_fraction: str | None = Field(description="spot: extra hours lost to interruptions")
    commitment_term_months: int | None = Field(description="commitments: 12 or 36")
    commitment_upfront_per_instance: str = Field(description="commitments: paid per term")
    on_demand_sibling: str | None = Field(description="commitments: overflow hours' offering")
    hourly_rate: PriceOut | None = Field(description="null when no rate is in effect")


class TariffPeriodOut(Schema):
    name: str
    hours_per_day: str
    price_per_kwh: str


class TariffOut(Schema):
    slug: str
    name: str
    name_zh: str
    region: str
    country: str
    kind: str
    price_per_kwh: PriceOut | None = Field(description="flat tariffs; null for time-of-use")
    periods: list[TariffPeriodOut]


class HostingOut(Schema):
    slug: str
    name: str
    name_zh: str
    kind: str
    region: str
    currency: str
    per_u_monthly: str
    per_kw_monthly: str
    pue: str
    power_metered_separately: bool
    effective_date: datetime.date
    source: str
    estimate: bool


class FxRateOut(Schema):
    base_currency: str
    quote_currency: str
    rate: str = Field(description="1 base = rate quote")
    effective_date: datetime.date
    source: str
    estimate: bool


def _decimal(value: Decimal) -> str:
    return format(value, "f")


def _price(amount: Decimal, row: Any) -> dict[str, Any]:
    return {
        "amount": _decimal(amount),
        "currency": row.currency,
        "effective_date": row.effective_date,
        "source": row.source,
        "estimate": row.estimate,
    }


def _latest(rows: Any, day: datetime.date) -> Any:
    """The row in effect on ``day`` of an already-fetched, date-ordered price series."""
    current = None
    for row in rows:
        if row.effective_date <= day:
            current = row
    return current


def _day(filters: Filters) -> datetime.date:
    return filters.as_of or datetime.date.today()


RESPONSES = {422: ErrorsOut}


@router.get("/catalog/gpus", response={200: list[GpuOut], **RESPONSES})
def list_gpus(request: HttpRequest) -> list[dict[str, Any]]:
    """GPU models with their relative training throughput on each benchmark."""
    gpus = selectors.gpus_with_throughputs()
    return [
        {
            "slug": g.slug,
            "vendor": g.vendor,
            "name": g.name,
            "name_zh": g.name_zh,
            "vram_gb": g.vram_gb,
            "board_power_watts": g.board_power_watts,
            "idle_power_watts": g.idle_power_watts,
            "source": g.source,
            "throughputs": [
                {
                    "benchmark": t.benchmark.slug,
                    "benchmark_name_zh": t.benchmark.name_zh,
                    "relative_throughput": _decimal(t.relative_throughput),
                    "source": t.source,
                    "estimate": t.estimate,
                }
                for t in g.throughputs.all()
            ],
        }
        for g in gpus
    ]


@router.get("/catalog/presets", response={200: list[PresetOut], **RESPONSES})
def list_presets(request: HttpRequest, filters: Query[Filters]) -> list[dict[str, Any]]:
    """Ready-made boxes with each part's unit price in effect (filter: price currency)."""
    day = _day(filters)
    presets = selectors.presets_with_parts_and_prices()
    out = []
    for preset in presets:
        parts = []
        for line in preset.lines.all():
            price = _latest(line.part.prices.all(), day)
            parts.append(
                {
                    "part": line.part.slug,
                    "name": line.part.name,
                    "name_zh": line.part.name_zh,
                    "kind": line.part.kind,
                    "quantity": line.quantity,
                    "price": _price(price.amount, price) if price else None,
                }
            )
        if filters.currency and any(
            p["price"] is None or p["price"]["currency"] != filters.currency for p in parts
        ):
            continue
        out.append(
            {
                "slug": preset.slug,
                "name": preset.name,
                "name_zh": preset.name_zh,
                "tier": preset.tier,
                "gpu_model": preset.gpu_model.slug,
                "gpu_count": preset.gpu_count,
                "node_count": preset.node_count,
                "scaling_efficiency": _decimal(preset.scaling_efficiency),
                "multi_node_scaling_efficiency": _decimal(preset.multi_node_scaling_efficiency),
                "useful_life_months": preset.useful_life_months,
                "maintenance_rate_per_year": _decimal(preset.maintenance_rate_per_year),
                "residual_value_retention_per_year": _decimal(
                    preset.residual_value_retention_per_year
                ),
                "parts": parts,
            }
        )
    return out


@router.get("/catalog/cloud-offerings", response={200: list[CloudOfferingOut], **RESPONSES})
def list_cloud_offerings(
    request: HttpRequest, filters: Query[ProviderFilters]
) -> list[dict[str, Any]]:
    """Rentable instances with the hourly rate in effect (filters: provider, rate currency)."""
    day = _day(filters)
    offerings = selectors.offerings_with_rates(filters.provider)
    out = []
    for o in offerings:
        rate = _latest(o.rates.all(), day)
        if filters.currency and (rate is None or rate.currency != filters.currency):
            continue
        out.append(
            {
                "slug": o.slug,
                "provider": o.provider,
                "instance_type": o.instance_type,
                "name_zh": o.name_zh,
                "region": o.region,
                "gpu_model": o.gpu_model.slug,
                "gpu_count": o.gpu_count,
                "pricing_mode": o.pricing_mode,
                "scaling_efficiency": _decimal(o.scaling_efficiency),
                "rework_fraction": (
                    None if o.rework_fraction is None else _decimal(o.rework_fraction)
                ),
                "commitment_term_months": o.commitment_term_months,
                "commitment_upfront_per_instance": _decimal(o.commitment_upfront_per_instance),
                "on_demand_sibling": o.on_demand_sibling.slug if o.on_demand_sibling else None,
                "hourly_rate": _price(rate.hourly_rate, rate) if rate else None,
            }
        )
    return out


@router.get("/catalog/tariffs", response={200: list[TariffOut], **RESPONSES})
def list_tariffs(request: HttpRequest, filters: Query[Filters]) -> list[dict[str, Any]]:
    """Electricity tariffs in effect on the day (filter: currency)."""
    tariffs = selectors.tariffs_in_effect(_day(filters), filters.currency)
    return [
        {
            "slug": t.slug,
            "name": t.name,
            "name_zh": t.name_zh,
            "region": t.region,
            "country": t.country,
            "kind": t.kind,
            "price_per_kwh": _price(t.price_per_kwh, t) if t.price_per_kwh is not None else None,
            "periods": [
                {
                    "name": p.name,
                    "hours_per_day": _decimal(p.hours_per_day),
                    "price_per_kwh": _decimal(p.price_per_kwh),
                }
                for p in t.periods.all()
            ],
        }
        for t in tariffs
    ]


@router.get("/catalog/hosting", response={200: list[HostingOut], **RESPONSES})
def list_hosting(request: HttpRequest, filters: Query[Filters]) -> list[dict[str, Any]]:
    """Where a box can run: office or colocation fees and PUE (filter: currency)."""
    options = selectors.hosting_in_effect(_day(filters), filters.currency)
    return [
        {
            "slug": h.slug,
            "name": h.name,
            "name_zh": h.name_zh,
            "kind": h.kind,
            "region": h.region,
            "currency": h.currency,
            "per_u_monthly": _decimal(h.per_u_monthly),
            "per_kw_monthly": _decimal(h.per_kw_monthly),
            "pue": _decimal(h.pue),
            "power_metered_separately": h.power_metered_separately,
            "effective_date": h.effective_date,
            "source": h.source,
            "estimate": h.estimate,
        }
        for h in options
    ]


@router.get("/catalog/fx-rates", response={200: list[FxRateOut], **RESPONSES})
def list_fx_rates(request: HttpRequest, filters: Query[Filters]) -> list[dict[str, Any]]:
    """The FX rate in effect for each currency pair (filter: either side of the pair)."""
    rates = selectors.fx_rates_until(_day(filters), filters.currency)
    latest: dict[tuple[str, str], FxRate] = {}
    for rate in rates:
        latest[(rate.base_currency, rate.quote_currency)] = rate
    return [
        {
            "base_currency": r.base_currency,
            "quote_currency": r.quote_currency,
            "rate": _decimal(r.rate),
            "effective_date": r.effective_date,
            "source": r.source,
            "estimate": r.estimate,
        }
        for _, r in sorted(latest.items())
    ]

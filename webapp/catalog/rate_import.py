"""What every cloud-rate import shares: comparing a published price with the one stored, and
planning the new dated rate (SkyPilot's ``vms.csv`` and the providers' own price files).

A price file states prices with more decimals than the catalog stores (AWS: ten, GCP:
nine); the catalog keeps :data:`RATE_PLACES`. A published price that differs from the stored
rate by less than one unit of that precision is the same price, *unchanged* — rounding
27.44705 to 27.4471 once and to 27.4470 the next time is no price change.

A new rate is recorded through :func:`webapp.catalog.services.record_price`, so a rate that
moves more than the review share from the one before it (or changes currency) waits for a
staff user's approval, like any other price. A rate already recorded for the same date —
live or still waiting for review — is not recorded again: a second import of the same file
records nothing.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from decimal import Decimal

from django.db import IntegrityError, transaction

from webapp.catalog import selectors, services
from webapp.catalog.models import CloudOffering, CloudRate

RATE_PLACES = 4
"""Decimal places of a stored hourly rate."""
RATE_UNIT = Decimal(1).scaleb(-RATE_PLACES)


def stored_amount(price: Decimal) -> Decimal:
    """``price`` rounded to the stored precision (half up, as the providers' pages round)."""
    return price.quantize(RATE_UNIT, rounding="ROUND_HALF_UP")


def same_at_precision(stored: Decimal, published: Decimal) -> bool:
    """Whether ``published`` is the ``stored`` rate: they differ by less than one unit of the
    stored precision (``27.4471`` stored, ``27.44705`` published: the same)."""
    return abs(Decimal(stored) - Decimal(published)) < RATE_UNIT


def percent(old: Decimal, new: Decimal) -> str:
    if old == 0:
        return "n/a"
    return f"{(new - old) / old * 100:+.1f} %"


@dataclass
class RateReport:
    """What an import adds, changes, leaves and skips; each line names the offering or rows."""

    new_offerings: list[str] = field(default_factory=list)
    new_rates: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    not_in_catalog: list[str] = field(default_factory=list)
    """Skipped because neither the catalog nor ``--region`` asks for them (usually most rows)."""
    accelerator_rows: int = 0
    """GCP accelerator rows read to price their hosts (SkyPilot)."""

    def lines(self, *, verbose: bool) -> list[str]:
        """The report as a command prints it, a line per row: ``<what> <row>`` (the rows no
        one asked for only when ``verbose``)."""
        sections = [
            ("new offering", self.new_offerings),
            ("new rate", self.new_rates),
            ("changed", self.changed),
            ("unchanged", self.unchanged),
            ("skipped", self.skipped),
        ]
        if verbose:
            sections.append(("skipped", self.not_in_catalog))
        return [f"{label} {line}" for label, rows in sections for line in rows]


@dataclass
class RatePlan:
    """What the import would do: rate points to add, offerings to create."""

    rates: list[CloudRate] = field(default_factory=list)
    offerings: list[tuple[CloudOffering, list[CloudRate]]] = field(default_factory=list)


def plan_rate(
    offering: CloudOffering,
    published: Decimal,
    *,
    currency: str,
    as_of: datetime.date,
    source: str,
    note: str,
    note_zh: str,
    where: str,
    plan: RatePlan,
    report: RateReport,
    errors: list[str],
) -> None:
    """Compare ``published`` (as the file states it) with the offering's rate and plan the
    new dated rate, or report it unchanged, or add an error when it would overwrite."""
    price = stored_amount(published)
    recorded = selectors.recorded_rate_on_date(offering, as_of)
    if recorded is not None:
        waiting = ", waiting for review" if recorded.pending else ""
        if recorded.currency == currency and same_at_precision(recorded.hourly_rate, published):
            report.unchanged.append(
                f"{offering.slug} {recorded.hourly_rate} {currency} "
                f"(already recorded {as_of}{waiting})"
            )
        else:
            errors.append(
                f"{where}: {offering.slug} already has {recorded.hourly_rate} "
                f"{recorded.currency} from {as_of.isoformat()}{waiting}; prices are never "
                "overwritten, use a new --as-of date"
            )
        return
    in_effect = selectors.rate_on(offering, as_of)
    if (
        in_effect is not None
        and in_effect.currency == currency
        and same_at_precision(in_effect.hourly_rate, published)
    ):
        report.unchanged.append(
            f"{offering.slug} {in_effect.hourly_rate} {currency} "
            f"(in effect since {in_effect.effective_date})"
        )
        return
    new_rate = CloudRate(
        offering=offering,
        hourly_rate=price,
        currency=currency,
        effective_date=as_of,
        source=source,
        note=note,
        note_zh=note_zh,
    )
    plan.rates.append(new_rate)
    held = services.review_reasons(new_rate) if offering.pk is not None else []
    review = f" (held for review: {'; '.join(held)})" if held else ""
    if in_effect is None:
        report.new_rates.append(f"{offering.slug} {price} {currency} from {as_of.isoformat()}")
    else:
        old = in_effect.hourly_rate
        change = percent(old, price) if in_effect.currency == currency else "other currency"
        report.changed.append(
            f"{offering.slug} {old} {in_effect.currency} → {price} {currency} ({change}) "
            f"from {as_of.isoformat()}{review}"
        )


def apply_plan(plan: RatePlan) -> None:
    """Write the plan, all or nothing; each rate through the review of
    :func:`~webapp.catalog.services.record_price`."""
    with transaction.atomic():
        for offering, rates in plan.offerings:
            offering.save()
            for new_rate in rates:
                new_rate.offering = offering
                services.record_price(new_rate)
        for new_rate in plan.rates:
            services.record_price(new_rate)


class RateImportError(ValueError):
    """The file cannot be imported; ``errors`` name the row, line or key of each problem."""

    def __init__(self, errors: list[str]) -> None:
        self.errors = errors
        super().__init__("; ".join(errors))


def write(plan: RatePlan) -> None:
    try:
        apply_plan(plan)
    except IntegrityError as exc:
        raise RateImportError([f"(database): {exc}"]) from None

"""Freshness as a number: the share of the catalog's current rows older than 180 days, and which
of those old rows matter most to a verdict.

The **current rows** on a day are the rows in effect then, one per priced item: each part's
price, each cloud offering's rate, each FX pair's rate, each tariff and each hosting option
(:class:`~webapp.catalog.selectors.CatalogSnapshot`). A row is **stale** when it took effect
more than :data:`~webapp.catalog.models.STALE_AFTER_DAYS` days before the day.

**How much a stale row moves a verdict.** Every preset is resolved on the day with the
resolver's defaults (its market's cloud offering, tariff and hosting; 50 % steady use for 36
months, in the currency of the row being weighed when it has one). For each resolution that
uses the row (its provenance names it), the row's figure is moved by ±
:data:`PRICE_SWING` and the engine's tornado (:func:`costmodel.operations.tornado`) measures
how far the savings move: the larger of ``|savings(high) − savings(low)|`` over the presets is
the row's **swing**, in the currency of that resolution. Rows are listed by swing, largest
first; a row no default resolution uses has a swing of 0 (it moves no default verdict).

**Sourced or flagged.** The second figure: a current row is *vouched for* when it carries the
figure of the public source it cites (a source is given and the row is not flagged: the audit
rule is that a row more than 10 % off its best public source is flagged) or when it is flagged
as an estimate *with its reason* (a note). Rows that are neither — no source and no flag, or a
flag without a reason — are listed by name.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

from costmodel import ScenarioError
from costmodel.operations import parse_tornado, tornado
from webapp.catalog import selectors
from webapp.catalog.models import STALE_AFTER_DAYS, Benchmark, BuildPreset, PricePoint
from webapp.catalog.resolver import resolve_data
from webapp.catalog.selectors import CatalogSnapshot

PRICE_SWING = 0.2
"""How far a stale figure is moved either way to weigh it (± 20 %)."""

_FIELD_OF_ROLE = {
    "catalog.partprice": "build.capex",
    "catalog.cloudrate": "rent.hourly_rate",
    "catalog.tariff": "build.electricity_price_per_kwh",
    "catalog.hostingoption": "build.hosting_monthly",
}


@dataclass
class StaleRow:
    """One current row older than the limit, with what it weighs."""

    model: str
    key: str
    effective_date: datetime.date
    age_days: int
    swing: float = 0.0
    currency: str = ""
    preset: str = ""

    def line(self) -> str:
        moved = (
            f"moves default savings by up to {self.swing:,.0f} {self.currency} "
            f"({self.preset}, ± {PRICE_SWING:.0%})"
            if self.swing
            else "used by no default resolution"
        )
        return (
            f"{self.model} {self.key} from {self.effective_date} "
            f"({self.age_days} days old): {moved}"
        )


@dataclass
class Freshness:
    day: datetime.date
    total: int = 0
    estimates: int = 0
    """Current rows flagged as estimates (no direct public source)."""
    sourced: int = 0
    """Current rows not flagged that cite the public source whose figure they carry."""
    unvouched: list[str] = field(default_factory=list)
    """Current rows neither sourced nor flagged with a reason, one line each."""
    stale: list[StaleRow] = field(default_factory=list)

    @property
    def fresh(self) -> int:
        return self.total - len(self.stale)

    @property
    def fresh_share(self) -> float:
        return self.fresh / self.total if self.total else 1.0

    @property
    def vouched(self) -> int:
        return self.total - len(self.unvouched)

    @property
    def vouched_share(self) -> float:
        return self.vouched / self.total if self.total else 1.0

    def sources_summary(self) -> str:
        return (
            f"sources: {self.vouched} of {self.total} current rows ({self.vouched_share:.0%}) "
            f"within 10 % of their cited public source or flagged as estimates: "
            f"{self.sourced} carry their source's figure, {self.estimates} flagged with the "
            f"reason; {len(self.unvouched)} neither"
        )

    def summary(self) -> str:
        return (
            f"freshness: {self.fresh} of {self.total} current rows "
            f"({self.fresh_share:.0%}) took effect within {STALE_AFTER_DAYS} days of "
            f"{self.day}; {len(self.stale)} older"
        )


def current_rows(day: datetime.date) -> list[PricePoint]:
    """One row per priced item: the one in effect on ``day``."""
    catalog = CatalogSnapshot(day)
    rows: list[PricePoint] = [
        *catalog.part_prices.values(),
        *catalog.cloud_rates.values(),
        *catalog.fx_rates.values(),
        *catalog.tariffs.values(),
        *catalog.hosting_options.values(),
    ]
    return rows


def catalog_date() -> datetime.date | None:
    """The fixtures' date: the newest effective date of any live price row."""
    return selectors.newest_price_date()


def _label(row: PricePoint) -> tuple[str, str]:
    meta = row._meta
    key = "/".join(str(part) for part in row.natural_key())  # type: ignore[attr-defined]
    return f"{meta.app_label}.{meta.model_name}", key


def freshness(day: datetime.date | None = None, *, weigh: bool = True) -> Freshness:
    """The freshness of the catalog on ``day`` (default: :func:`catalog_date`)."""
    day = day or catalog_date() or datetime.date.today()
    report = Freshness(day=day)
    rows = current_rows(day)
    report.total = len(rows)
    for row in rows:
        _vouch(report, row)
    for row in rows:
        age = (day - row.effective_date).days
        if age > STALE_AFTER_DAYS:
            model, key = _label(row)
            report.stale.append(StaleRow(model, key, row.effective_date, age))
    if weigh and report.stale:
        _weigh(report)
    report.stale.sort(key=lambda r: (-r.swing, r.model, r.key))
    return report


def _vouch(report: Freshness, row: PricePoint) -> None:
    """Count ``row`` as sourced or flagged, or list it as neither."""
    flagged = bool(getattr(row, "estimate", False))
    source = str(getattr(row, "source", "") or "").strip()
    reason = str(getattr(row, "note", "") or "").strip()
    if flagged:
        report.estimates += 1
        if reason:
            return
        why = "flagged as an estimate without a reason (note)"
    elif source:
        report.sourced += 1
        return
    else:
        why = "no source and not flagged as an estimate"
    model, key = _label(row)
    report.unvouched.append(f"{model} {key}: {why}")


def _default_selection(preset: str, currency: str, day: datetime.date) -> dict[str, Any]:
    return {
        "preset": preset,
        "benchmark": "bert-large-fp16",
        "workload": {"kind": "steady", "utilization": 0.5},
        "horizon_months": 36,
        "currency": currency,
        "as_of": day.isoformat(),
    }


def _weigh(report: Freshness) -> None:
    """Set each stale row's swing from the default resolutions of every preset."""
    by_key = {(r.model, r.key): r for r in report.stale}
    catalog = CatalogSnapshot(report.day)
    benchmarks = selectors.slugs(Benchmark)
    for preset in selectors.slugs(BuildPreset):
        for currency in ("CNY", "USD"):
            selection = _default_selection(preset, currency, report.day)
            if selection["benchmark"] not in benchmarks and benchmarks:
                selection["benchmark"] = benchmarks[0]
            try:
                resolution = resolve_data(selection, catalog)
            except ScenarioError:
                continue  # catalog_check reports presets that do not resolve
            scenario = resolution.scenario.model_dump(mode="json")
            for item in resolution.provenance:
                stale = by_key.get((item["model"], "/".join(item["natural_key"])))
                path = _FIELD_OF_ROLE.get(item["model"])
                if stale is None or path is None:
                    continue
                swing = _swing(scenario, path, item)
                if swing > stale.swing:
                    stale.swing, stale.currency, stale.preset = swing, currency, preset


def _swing(scenario: dict[str, Any], path: str, item: dict[str, Any]) -> float:
    """|savings(high) − savings(low)| with the row's part of ``path`` moved by ± PRICE_SWING."""
    section, name = path.split(".")
    base = float(scenario[section][name])
    if path == "build.capex":
        amount = item.get("converted_amount") or item.get("amount") or 0
        share = float(amount) * int(item.get("quantity") or 1)
    else:
        share = base
    delta = PRICE_SWING * share
    if delta <= 0:
        return 0.0
    request = parse_tornado(
        {
            "scenario": scenario,
            "drivers": {path: {"low": max(base - delta, 0.0), "high": base + delta}},
        }
    )
    (row,) = tornado(request)["drivers"]
    return abs(float(row["savings_high"]) - float(row["savings_low"]))

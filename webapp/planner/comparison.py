"""Several saved scenarios side by side, and the verdicts of a list of saved scenarios.

The engine runs in batches for the whole list, never once per scenario: one
:func:`costmodel.project` for the results, one :func:`costmodel.sensitivity.steady_savings`
for the savings at 0, 80 and 100 % steady use that :func:`costmodel.decision.decide` reads
to give each scenario its verdict (build or rent, break-even, late pay-back) as codes.
Nothing here computes a cost: figures are the engine's, picked, labelled and formatted.

**Currencies.** The compare page shows every amount in the currency of the first
scenario chosen. A scenario priced in another currency is converted *for display* by
:func:`display_amount`, at the catalog's exchange rate in effect on that scenario's
date (:func:`scenario_date`), and the page states each rate with its date and source.
When the catalog has no rate for a pair, nothing is converted and each currency gets
a chart of its own: amounts in two currencies never share one axis unconverted.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _

from costmodel import Scenario, project
from costmodel.decision import (
    REFERENCE_UTILIZATION,
    Decision,
    confidence_of,
    decide,
    on_present_value,
)
from costmodel.paths import get_path
from costmodel.sensitivity import average_utilization, steady_savings
from webapp import formatting
from webapp.catalog import selectors
from webapp.catalog.models import (
    Benchmark,
    BuildPreset,
    CloudOffering,
    FxRate,
    HostingOption,
    Part,
    Tariff,
)
from webapp.decided import observed_days
from webapp.planner.chosen import with_rows_used
from webapp.planner.fields import ALL_FIELDS, field_value
from webapp.planner.verdict import decided_on, rate_text
from webapp.scenarios.models import SavedScenario
from webapp.scenarios.services import stored_scenario

MIN_COMPARED = 2
MAX_COMPARED = 4

DECISION_UTILIZATIONS = (0.0, REFERENCE_UTILIZATION, 1.0)
"""Steady utilizations the decision reads: both ends and its "busy" example."""


def scenario_date(saved: SavedScenario) -> datetime.date:
    """The date a saved scenario's prices are of: its catalog selection's ``as_of``, or the day
    it was saved (a scenario typed in by hand)."""
    as_of = (saved.selection or {}).get("as_of")
    if isinstance(as_of, str):
        try:
            return datetime.date.fromisoformat(as_of)
        except ValueError:
            pass
    return saved.created_at.date()


def decisions(scenarios: Sequence[Scenario], summaries: Sequence[dict[str, Any]]) -> list[Decision]:
    """Each scenario's decision from its engine summary (or result) and one batch of savings
    at :data:`DECISION_UTILIZATIONS`."""
    sweeps = steady_savings(scenarios, DECISION_UTILIZATIONS)
    return [
        decide(scenario, summary, sweep)
        for scenario, summary, sweep in zip(scenarios, summaries, sweeps, strict=True)
    ]


def with_stored_uncertainty(decision: Decision, item: SavedScenario) -> Decision:
    """A saved scenario's decision from the batch, with what its stored decision adds: the
    share of the Monte Carlo's draws agreeing (stored when it was saved, by the one decision
    function, :mod:`webapp.decided`) and the days of measured usage behind it. The rules of
    :attr:`costmodel.decision.Decision.verdict` then give the stored verdict code."""
    probability = item.decision_probability_agreeing
    return replace(
        decision,
        probability_recommendation_holds=probability,
        confidence=None if probability is None else confidence_of(probability),
        observed_days=observed_days(item.provenance),
    )


def evaluate(saved: Sequence[SavedScenario]) -> list[dict[str, Any]]:
    """Each saved scenario with its engine result and decision, from one batch of each (the
    decision completed by the stored one's Monte Carlo: :func:`with_stored_uncertainty`)."""
    scenarios = [stored_scenario(s) for s in saved]
    projection = project(scenarios)
    results = projection.results()
    batch = decisions(scenarios, results)
    out = []
    for item, scenario, result, decision in zip(
        saved,
        scenarios,
        results,
        [with_stored_uncertainty(d, i) for d, i in zip(batch, saved, strict=True)],
        strict=True,
    ):
        out.append(
            {
                "saved": item,
                "scenario": scenario,
                "result": result,
                "decision": decision,
                "average_utilization": average_utilization(
                    scenario, result["work_reference_gpu_hours"]
                ),
                "provenance": item.provenance,
                "overrides": item.overrides,
                "saved_at": item.created_at.date(),
                "date": scenario_date(item),
                "sentence": formatting.break_even_headline(
                    result["break_even_month"], scenario.horizon_months
                ),
            }
        )
    return out


# --- showing amounts of one currency in another --------------------------------------------


@dataclass(frozen=True)
class DisplayRate:
    """How a scenario's amounts are shown in the page's currency."""

    currency: str
    """The scenario's currency."""
    target: str
    """The page's currency."""
    multiplier: Decimal
    """Units of ``target`` per unit of ``currency``."""
    row: FxRate
    """The catalog's rate used (base, quote, rate, effective date, source)."""
    day: datetime.date
    """The scenario's date: the rate is the one in effect then."""

    @property
    def source(self) -> str:
        """The rate's source as published (a citation: not translated)."""
        return str(self.row.source)


def display_rate(currency: str, target: str, day: datetime.date) -> DisplayRate | None:
    """The catalog's rate to show ``currency`` amounts in ``target`` as of ``day``
    (``None`` when the catalog has none on that day)."""
    row = selectors.fx_rate_on(currency, target, day)
    if row is None:
        return None
    return DisplayRate(currency, target, row.multiplier(currency), row, day)


def display_amount(amount: float | None, rate: DisplayRate | None) -> float | None:
    """An engine amount as the compare page shows it, in the page's currency.

    This converts a figure that is already computed, for display: ``amount × rate`` with
    the catalog's rate of the pair (1 base = rate quote) in effect on the scenario's date,
    or ``amount ÷ rate`` when the catalog quotes the pair the other way round (the
    resolver's rule for prices). No rate (same currency) leaves the amount as it is;
    ``None`` (a figure the engine leaves null) stays ``None``. Rounding happens later, once,
    when the amount is formatted.

    >>> display_amount(100.0, DisplayRate("USD", "CNY", Decimal("7.1"), row, day))  # doctest: +SKIP
    710.0
    """
    if amount is None or rate is None:
        return amount
    return amount * float(rate.multiplier)


SHOWN_FIGURES = (
    ("savings", "savings"),
    ("build_total_net", "build.total_net"),
    ("rent_total", "rent.total"),
    ("build_present_value", "build.present_value"),
    ("rent_present_value", "rent.present_value"),
    ("build_per_hour", "build.cost_per_reference_gpu_hour"),
    ("rent_per_hour", "rent.cost_per_reference_gpu_hour"),
    ("resale_value", "build.resale_value"),
)
"""The result figures the compare table shows, by the name the template uses."""


def _shown(result: dict[str, Any], rate: DisplayRate | None) -> dict[str, float | None]:
    return {name: display_amount(get_path(result, path), rate) for name, path in SHOWN_FIGURES}


def _series(entry: dict[str, Any], rate: DisplayRate | None) -> dict[str, Any]:
    result = entry["result"]
    return {
        "name": entry["saved"].name,
        "currency": rate.target if rate else entry["scenario"].currency,
        "converted_from": rate.currency if rate else None,
        "months": result["months"],
        "build": {"cumulative": [display_amount(v, rate) for v in result["build"]["cumulative"]]},
        "rent": {"cumulative": [display_amount(v, rate) for v in result["rent"]["cumulative"]]},
        "break_even_month": result["break_even_month"],
    }


def _charts(entries: list[dict[str, Any]], converted: bool) -> list[dict[str, Any]]:
    """One chart in the page's currency, or, when some amount cannot be converted, one chart
    per currency: amounts in two currencies never share an axis."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for e in entries:
        rate = e["rate"] if converted else None
        series = _series(e, rate)
        groups.setdefault(series["currency"], []).append(series)
    return [
        {
            "id": "chart-compare" if i == 0 else f"chart-compare-{i}",
            "currency": currency,
            "axis": _("Cumulative cost [%(currency)s]")
            % {"currency": formatting.currency_symbol(currency)},
            "series": series,
        }
        for i, (currency, series) in enumerate(groups.items())
    ]


# --- which inputs differ -------------------------------------------------------------------


def _same(values: list[Any]) -> bool:
    first = values[0]
    for v in values[1:]:
        if isinstance(first, float | int) and isinstance(v, float | int):
            if not math.isclose(first, v, rel_tol=1e-9, abs_tol=1e-12):
                return False
        elif v != first:
            return False
    return True


def _selection(entry: dict[str, Any]) -> dict[str, Any]:
    """The saved scenario's catalog selection, a choice it left to the catalog named by the
    row it used (:func:`webapp.planner.chosen.with_rows_used`)."""
    saved = entry["saved"]
    return with_rows_used(saved.selection, saved.provenance)


def _choice_names(entries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The catalog rows the scenarios' selections name, by model and slug (one query each)."""
    selections = [_selection(e) for e in entries]

    def slugs(key: str) -> set[str]:
        return {str(s[key]) for s in selections if s.get(key)}

    parts = {str(line["part"]) for s in selections for line in (s.get("parts") or [])}
    return {
        "preset": selectors.rows_by_slug(BuildPreset, slugs("preset")),
        "cloud_offering": selectors.rows_by_slug(CloudOffering, slugs("cloud_offering")),
        "tariff": selectors.rows_by_slug(Tariff, slugs("tariff")),
        "hosting": selectors.rows_by_slug(HostingOption, slugs("hosting")),
        "benchmark": selectors.rows_by_slug(Benchmark, slugs("benchmark")),
        "parts": selectors.rows_by_slug(Part, parts),
    }


def _choice_text(selection: dict[str, Any], key: str, names: dict[str, dict[str, Any]]) -> str:
    """A selection entry by the catalog row's name in the active language (its slug if the
    row is gone; a dash for a scenario typed in by hand)."""
    if key == "box":
        if selection.get("preset"):
            return _choice_text(selection, "preset", names)
        lines = selection.get("parts") or []
        if not lines:
            return "—"
        shown = []
        for line in lines:
            part = names["parts"].get(str(line["part"]))
            shown.append(f"{line['quantity']} × {part.localized_name() if part else line['part']}")
        return _("Own parts: %(parts)s") % {"parts": ", ".join(shown)}
    slug = selection.get(key)
    if not slug:
        return "—"
    row = names[key].get(str(slug))
    return row.localized_name() if row is not None else str(slug)


def input_rows(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per input of the compared scenarios: its value in each, and whether they differ.

    The catalog choices come first (by their names in the active language), then every
    field of the explicit scenarios that at least one of them has.
    """
    names = _choice_names(entries)
    labels = {
        "box": _("The box to build"),
        "cloud_offering": _("Cloud offering"),
        "tariff": _("Electricity tariff"),
        "hosting": _("Hosting"),
        "benchmark": _("Benchmark for throughput"),
    }
    rows = []
    for key, label in labels.items():
        texts = [_choice_text(_selection(e), key, names) for e in entries]
        rows.append({"key": key, "label": label, "values": texts, "differs": not _same(texts)})
    dates = [e["date"].isoformat() for e in entries]
    rows.append(
        {"key": "date", "label": _("Prices as of"), "values": dates, "differs": not _same(dates)}
    )
    data = [e["scenario"].model_dump(mode="json") for e in entries]
    currencies = [e["scenario"].currency for e in entries]
    for field in ALL_FIELDS:
        values = [get_path(d, field.path) for d in data]
        if all(v is None for v in values):
            continue
        # an amount in two currencies differs, unless it is nothing in every one of them
        in_other_currencies = field.unit.startswith("money") and not _same(currencies)
        differs = not _same(values) or (in_other_currencies and any(values))
        rows.append(
            {
                "key": field.path,
                "label": field.label,
                "values": [
                    field_value(field, v, c) for v, c in zip(values, currencies, strict=True)
                ],
                "differs": differs,
            }
        )
    return rows


# --- the page ------------------------------------------------------------------------------


def comparison_context(saved: Sequence[SavedScenario]) -> dict[str, Any]:
    """Everything the compare page shows: figures, verdicts, the inputs that differ, the
    exchange rates used and the chart data."""
    entries = evaluate(saved)
    target = entries[0]["scenario"].currency
    missing = []
    for e in entries:
        currency = e["scenario"].currency
        e["rate"] = None if currency == target else display_rate(currency, target, e["date"])
        if currency != target and e["rate"] is None:
            missing.append(e)
    converted = not missing
    for e in entries:
        rate = e["rate"] if converted else None
        e["shown"] = _shown(e["result"], rate)
        e["shown_currency"] = target if converted else e["scenario"].currency
    # The most savings from building (the least lost, when renting wins everywhere), by the
    # figure each verdict is decided on: present-value savings at the plan's own cost of
    # capital (the cash savings without one) — the ranking cannot contradict the verdicts.
    for e in entries:
        rate = e["rate"] if converted else None
        e["shown"]["decided_on"] = display_amount(decided_on(e["decision"]), rate)
        e["in_present_value"] = on_present_value(e["scenario"])
        e["cost_of_capital"] = rate_text(e["scenario"].discount_rate_per_year)
    best = max(entries, key=lambda e: e["shown"]["decided_on"]) if converted else None
    currencies = sorted({e["scenario"].currency for e in entries})
    return {
        "entries": entries,
        "target_currency": target,
        "mixed_currencies": len(currencies) > 1,
        "converted": converted and len(currencies) > 1,
        "missing_rates": missing,
        "rates": [e for e in entries if e["rate"] is not None and converted],
        "best": best,
        "inputs": input_rows(entries),
        "chart": {
            "charts": _charts(entries, converted),
            "labels": {
                "title": _("Cumulative cost, build (solid) vs rent (dashed)"),
                "month": _("Month"),
                "build": _("Build"),
                "rent": _("Rent"),
            },
        },
    }

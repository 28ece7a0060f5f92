"""The analyses behind a results page's charts, run once and served as one JSON document.

The results page itself renders only what the engine gives quickly (the
verdict, the headline figures, the inputs); its script then fetches
``/r/<code>/analysis.json`` (or ``/saved/<id>/analysis.json``), built here:
the cumulative and monthly series, the steady-utilization sweep, the
utilization × horizon grid, the Monte Carlo over the user's uncertainty
ranges (the defaults of :mod:`costmodel.ranges` where none were chosen), the
tornado and the fleet. How sure the verdict is depends on the Monte Carlo, so
its sentence comes in the document too, translated and formatted here.

Nothing is computed here: every number is the engine's; this module picks
the requests (which ranges, how many draws, how many boxes), labels and
formats.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from typing import Any

from django.core.cache import caches
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from costmodel import Scenario, ScenarioError
from costmodel.decision import Decision, on_present_value, verdict_measure
from costmodel.lines import LINES, SIDE_LABELS
from costmodel.operations import fleet, parse_fleet, parse_tornado, tornado
from costmodel.ranges import Range, drivers, fleet_size, with_spread
from costmodel.sensitivity import (
    average_utilization,
    default_horizons,
    utilization_horizon_grid,
    utilization_sweep,
)
from webapp import formatting
from webapp.decided import SEED, decided, draws_for, filled_share, observed_days, ranges_for
from webapp.planner.fields import BY_PATH, field_value, labels
from webapp.planner.permalink import Permalink
from webapp.planner.verdict import discounted, how_sure, verdict

__all__ = ["SEED", "Analyses", "analysis_document", "draws_for", "run_analyses"]
"""``SEED`` and ``draws_for`` are :mod:`webapp.decided`'s, named here for the files' readers."""

GRID_UTILIZATIONS = [i / 20 for i in range(21)]
"""Rows of the utilization × horizon grid: 0 %, 5 %, …, 100 % (a smooth zero contour)."""


CACHE_SECONDS = 24 * 3600
"""How long an analysis document stays in the cache [s]; it never goes stale (see
:func:`analysis_document`)."""
CACHE = "shared"
"""The cache of analysis documents: the database cache every worker reads, so a document
one worker computed (a Monte Carlo, a tornado, a fleet and a grid: the page's slowest
part) serves a visitor whose request reaches another."""


def ranges_of(link: Permalink) -> list[Range]:
    """The Monte Carlo's ranges: the user's, or the defaults when none were chosen; a range
    whose low equals its high is left out (:func:`webapp.decided.ranges_for`)."""
    return ranges_for(link.scenario, link.ranges, link.provenance)


def drivers_of(link: Permalink) -> list[Range]:
    """The tornado's drivers: the user's ranges plus the defaults of every other input, those
    whose low equals their high left out."""
    return with_spread(drivers(link.scenario, link.ranges))[0]


def fixed_inputs(link: Permalink) -> list[Range]:
    """The inputs left out of the ranges and the tornado: low and high are the same."""
    return with_spread(drivers(link.scenario, link.ranges))[1]


@dataclass(frozen=True)
class Analyses:
    """The engine's answers for one scenario; ``*_error`` holds why an analysis was refused."""

    result: dict[str, Any]
    sweep: dict[str, Any]
    grid: dict[str, Any]
    ranges: list[Range]
    draws: int
    uncertainty: dict[str, Any] | None
    uncertainty_error: str | None
    decision: Decision
    """The decision with the Monte Carlo's confidence (without, if it was refused)."""
    drivers: list[Range]
    tornado: dict[str, Any] | None
    tornado_error: str | None
    fleet: dict[str, Any] | None
    """None for a tidal workload, whose busy days cannot be shared among boxes."""
    fleet_error: str | None


def run_analyses(link: Permalink) -> Analyses:
    """Every analysis of the results page and the CSV, from the engine.

    Raises
    ------
    costmodel.ProjectionOverflowError
        If the scenario itself overflows (its page is refused the same way).
    """
    scenario = link.scenario
    data = scenario.model_dump(mode="json")
    # the Monte Carlo and the decision are the one decision's (webapp.decided): the page,
    # the files and the stored verdict state the same code; its projection of the plan,
    # monthly series too, is compare()'s (costmodel.sensitivity.result_and_sweep)
    one = decided(scenario, link.ranges, link.provenance, monthly=True)
    result = one.result
    sweep = utilization_sweep(scenario)
    grid = utilization_horizon_grid(scenario, GRID_UTILIZATIONS, default_horizons(scenario))
    chosen_drivers = drivers_of(link)
    swings, swings_error = None, None
    try:
        swings = tornado(
            parse_tornado(
                {
                    "scenario": data,
                    "drivers": {r.path: r.as_driver() for r in chosen_drivers},
                    "measure": verdict_measure(scenario),
                }
            )
        )
    except ScenarioError as exc:
        swings_error = str(exc)
    boxes = fleet_size(scenario)
    fleet_answer, fleet_error = None, None
    if boxes is not None:
        try:
            fleet_answer = fleet(parse_fleet({"scenario": data, "max_boxes": boxes}))
        except ScenarioError as exc:
            fleet_error = str(exc)
    return Analyses(
        result=result,
        sweep=sweep,
        grid=grid,
        ranges=one.ranges,
        draws=one.draws,
        uncertainty=one.uncertainty,
        uncertainty_error=one.uncertainty_error,
        decision=one.decision,
        drivers=chosen_drivers,
        tornado=swings,
        tornado_error=swings_error,
        fleet=fleet_answer,
        fleet_error=fleet_error,
    )


# --------------------------------------------------------------------------
# The document
# --------------------------------------------------------------------------


def field_label(path: str) -> str:
    month = re.fullmatch(r"workload\.monthly_utilization\.(\d+)", path)
    if month:  # a measured profile's month (webapp.decided.ranges_for)
        return _("Utilization, month %(n)s of the profile") % {"n": int(month.group(1)) + 1}
    return labels().get(path, path)


def range_value(path: str, value: float, currency: str) -> str:
    """A range end as the inputs table shows the field (e.g. ``40.0 %``, ``¥0.6400 per kWh``)."""
    field = BY_PATH.get(path)
    if path.startswith("workload.monthly_utilization."):
        return formatting.percent(value, 1)
    if field is None:
        return formatting.number(value, 4)
    return field_value(field, value, currency)


def ranges_table(ranges: list[Range], currency: str) -> list[dict[str, Any]]:
    """The ranges as rows of text, for the page and the document."""
    return [
        {
            "path": r.path,
            "label": field_label(r.path),
            "low": range_value(r.path, r.low, currency),
            "likely": range_value(r.path, r.mode, currency),
            "high": range_value(r.path, r.high, currency),
        }
        for r in ranges
    ]


def chart_labels(scenario: Scenario) -> dict[str, str]:
    """Translated titles, axis names and legend entries: the charts' only words."""
    symbol = formatting.currency_symbol(scenario.currency)
    horizon = formatting.months(scenario.horizon_months, 0)
    present_value = on_present_value(scenario)  # the tornado's and the fan's measure

    def money_axis(text: str) -> str:
        return _("%(what)s [%(currency)s]") % {"what": text, "currency": symbol}

    return {
        "month": _("Month"),
        **{side: _(label) for side, label in SIDE_LABELS.items()},
        "break_even": _("Break-even"),
        "this_scenario": _("This scenario"),
        "cumulative_title": _("Cumulative cost, and what the box would fetch if sold"),
        "cumulative_axis": money_axis(_("Cost so far")),
        "build_cash": _("Build, cash paid"),
        "rent_cash": _("Rent, cash paid"),
        "value_if_sold": _("Resale value if sold that month"),
        "build_total_net": _("Build at the end, net of resale"),
        "breakdown_title": _("Monthly cost by component (from month 1)"),
        "breakdown_axis": money_axis(_("Cost per month")),
        **{line.key: _(line.label) for line in LINES},
        "utilization_title": _("Savings and break-even month across steady utilization"),
        "utilization": _("Utilization"),
        "savings": _("Savings of building over %(horizon)s") % {"horizon": horizon},
        "savings_axis": money_axis(_("Savings")),
        "break_even_month": _("Break-even month"),
        "break_even_month_axis": _("Break-even [months]"),
        "break_even_utilization": _("Break-even utilization"),
        "grid_title": _("Savings by utilization and horizon"),
        "horizon": _("Horizon [months]"),
        "zero_boundary": _("Savings = 0"),
        "fan_axis": money_axis(
            _("Rent minus build so far, in present value")
            if present_value  # the uncertainty's measure (webapp.decided)
            else _("Rent minus build so far")
        ),
        "fan_p50": _("Median (P50)"),
        "fan_band": _("P10 to P90"),
        "fan_p10": _("P10"),
        "fan_p90": _("P90"),
        "fan_sold": _("At the end, the box sold"),
        "tornado_title": _("What swings the present-value savings most")
        if present_value
        else _("What swings the savings most"),
        "tornado_axis": money_axis(
            (
                _("Present-value savings of building over %(horizon)s")
                if present_value
                else _("Savings of building over %(horizon)s")
            )
            % {"horizon": horizon}
        ),
        "tornado_low": _("Input at its low value"),
        "tornado_high": _("Input at its high value"),
        "tornado_base": _("With the likely values"),
        "fleet_title": _("How many boxes to own, renting the rest"),
        "fleet_axis": money_axis(_("Present value of the cost")),
        "fleet_boxes": _("Boxes owned"),
        "fleet_build": _("Own the boxes, rent the rest"),
        "fleet_rent": _("Rent everything"),
        "fleet_best": _("Cheapest"),
    }


def _breakdown(result: dict[str, Any], labels: dict[str, str]) -> dict[str, Any]:
    """The cost lines of months 1..H (:mod:`costmodel.lines`): those always charted, and the
    others when they are not zero every month."""
    series = [
        {
            "side": line.side,
            "key": line.key,
            "name": f"{labels[line.side]} · {labels[line.key]}",
            "values": result[line.side][line.key][1:],
        }
        for line in LINES
        if line.always_charted or any(value != 0 for value in result[line.side][line.key][1:])
    ]
    return {"months": result["months"][1:], "series": series}


def _uncertainty_part(a: Analyses, scenario: Scenario) -> dict[str, Any]:
    part: dict[str, Any] = {
        "draws": a.draws,
        "seed": SEED,
        "ranges": ranges_table(a.ranges, scenario.currency),
    }
    if a.uncertainty is None:
        part["error"] = _("The uncertainty could not be computed with these ranges: %(why)s") % {
            "why": a.uncertainty_error
        }
        return part
    answer = a.uncertainty
    part.update(answer)
    # the band ends where the share is counted: at the horizon, the box sold (results.js)
    if discounted(a.decision):  # the draws are of present-value savings (webapp.decided)
        title = _(
            "Advantage of building in present value, the box sold at the end: building is "
            "cheaper in %(share)s of draws"
        )
    else:
        title = _(
            "Advantage of building, the box sold at the end: building is cheaper in %(share)s "
            "of draws"
        )
    part["title"] = title % {"share": formatting.share(answer["probability_build_cheaper"])}
    part["confidence"] = how_sure(a.decision, answer, a.draws, scenario.currency)
    return part


def _tornado_part(a: Analyses, scenario: Scenario) -> dict[str, Any]:
    if a.tornado is None:
        return {
            "error": _("The tornado could not be computed with these ranges: %(why)s")
            % {"why": a.tornado_error}
        }
    cur = scenario.currency
    return {
        "base_savings": a.tornado["base_savings"],
        "rows": [
            {
                **row,
                "label": _("%(input)s: %(low)s to %(high)s")
                % {
                    "input": field_label(row["path"]),
                    "low": range_value(row["path"], row["low"], cur),
                    "high": range_value(row["path"], row["high"], cur),
                },
            }
            for row in a.tornado["drivers"]
        ],
    }


def _fleet_part(a: Analyses) -> dict[str, Any] | None:
    if a.fleet_error is not None:
        return {"error": _("The fleet could not be computed: %(why)s") % {"why": a.fleet_error}}
    if a.fleet is None:
        return None
    best = a.fleet["best_boxes"]
    rows = a.fleet["rows"]
    best_row = next((row for row in rows if row["boxes"] == best), None)
    return {
        **a.fleet,
        "best_present_value": None if best_row is None else best_row["build_present_value"],
        "note": (
            _("Cheapest: renting everything.")
            if best_row is None
            else ngettext(
                "Cheapest: owning %(boxes)s box and renting the rest.",
                "Cheapest: owning %(boxes)s boxes and renting the rest.",
                best,
            )
            % {"boxes": formatting.number(best)}
        ),
    }


def _payback_limit(d: Decision) -> dict[str, Any]:
    """The useful life, or the three years a late pay-back is measured against, for the chart."""
    if d.useful_life_months is not None:
        label = _("Useful life")
    elif d.late_payback:
        label = _("%(months)s: GPUs' usual service") % {
            "months": formatting.months(d.payback_limit_months, 0)
        }
    else:
        return {"limit_months": None, "limit_label": None}
    return {"limit_months": d.payback_limit_months, "limit_label": label}


def build_document(link: Permalink, a: Analyses) -> dict[str, Any]:
    """The JSON document of a results page's charts, in the active language."""
    scenario = link.scenario
    result = a.result
    labels = chart_labels(scenario)
    scenario_utilization = average_utilization(scenario, result["work_reference_gpu_hours"])
    return {
        "currency": scenario.currency,
        "horizon_months": scenario.horizon_months,
        "labels": labels,
        "cumulative": {
            "months": result["months"],
            "build": result["build"]["cumulative"],
            "rent": result["rent"]["cumulative"],
            "value_if_sold": result["build"]["value_if_sold"],
            "break_even_month": result["break_even_month"],
            "build_total_net": result["build"]["total_net"],
            **_payback_limit(a.decision),
        },
        "breakdown": _breakdown(result, labels),
        "utilization": {
            **a.sweep,
            "scenario_utilization": scenario_utilization,
            "scenario_savings": result["savings"],
            "break_even_utilization": result["break_even_utilization"],
        },
        "grid": {
            **a.grid,
            "scenario_horizon": scenario.horizon_months,
            "scenario_utilization": scenario_utilization,
        },
        "verdict": verdict(a.decision, scenario).as_json(),
        "uncertainty": _uncertainty_part(a, scenario),
        "tornado": _tornado_part(a, scenario),
        "fleet": _fleet_part(a),
    }


def _cache_key(link: Permalink) -> str:
    """What determines the document: the scenario, the ranges and the language."""
    identity = json.dumps(
        [
            link.scenario.model_dump(mode="json"),
            [asdict(r) for r in link.ranges or []],
            [observed_days(link.provenance), filled_share(link.provenance)],  # measured usage
        ],
        sort_keys=True,
    )
    digest = hashlib.blake2b(identity.encode(), digest_size=16).hexdigest()
    return f"planner:analysis:v3:{get_language()}:{digest}"


def analysis_document(link: Permalink) -> dict[str, Any]:
    """:func:`build_document` of :func:`run_analyses`, cached.

    The document depends only on the scenario, the chosen ranges and the
    language (the engine is deterministic, the Monte Carlo seeded), so a
    cached copy never goes stale.
    """
    key, cache = _cache_key(link), caches[CACHE]
    document: dict[str, Any] | None = cache.get(key)
    if document is None:
        document = build_document(link, run_analyses(link))
        cache.set(key, document, CACHE_SECONDS)
    return document

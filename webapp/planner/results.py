"""Everything the results page shows, computed from one explicit scenario.

:func:`results_context` calls the engine once for the scenario and once per
sensitivity sweep, and lays the numbers out for the template and the charts.
No cost is computed here: figures come from :mod:`costmodel`, this module only
picks, labels and formats them.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.core.cache import cache
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from costmodel import Scenario, TidalWorkload, compare
from costmodel.paths import get_path
from costmodel.sensitivity import (
    average_utilization,
    tidal_sweep,
    utilization_horizon_grid,
    utilization_sweep,
)
from webapp.planner import formatting
from webapp.planner.fields import ALL_FIELDS, WORKLOAD_KIND_LABELS, ScenarioField, fed_fields
from webapp.planner.permalink import Permalink, encode
from webapp.planner.sources import provenance_table


def chart_labels(currency: str) -> dict[str, str]:
    """Translated titles, axis names and legend entries: the charts' only words."""
    symbol = formatting.currency_symbol(currency)
    money_axis = _("Amount [%(currency)s]") % {"currency": symbol}
    return {
        "cumulative_title": _("Cumulative cost"),
        "month": _("Month"),
        "money_axis": money_axis,
        "build": _("Build"),
        "rent": _("Rent"),
        "break_even": _("Break-even"),
        "breakdown_title": _("Monthly cost by component"),
        "energy": _("Energy"),
        "hosting": _("Hosting"),
        "maintenance": _("Maintenance"),
        "ops": _("Operations"),
        "compute": _("Cloud compute"),
        "fixed": _("Fixed fees"),
        "utilization_title": _("Savings across steady utilization"),
        "utilization": _("Utilization"),
        "savings": _("Savings of building over the horizon"),
        "savings_axis": _("Savings [%(currency)s]") % {"currency": symbol},
        "break_even_month": _("Break-even month"),
        "break_even_utilization": _("Break-even utilization"),
        "this_scenario": _("This scenario"),
        "tidal_title": _("Tidal vs steady use of the same monthly hours"),
        "active_days": _("Active days per month"),
        "tidal": _("Tidal"),
        "steady": _("Steady, same monthly hours"),
        "grid_title": _("Savings by utilization and horizon"),
        "horizon": _("Horizon [months]"),
    }


def _chart_data(scenario: Scenario, result: dict[str, Any]) -> dict[str, Any]:
    utilization = utilization_sweep(scenario)
    tidal = tidal_sweep(scenario)
    grid = utilization_horizon_grid(scenario)
    workload = scenario.workload
    scenario_days = workload.active_days_per_month if isinstance(workload, TidalWorkload) else None
    return {
        "currency": scenario.currency,
        "months": result["months"],
        "build": {"cumulative": result["build"]["cumulative"]},
        "rent": {"cumulative": result["rent"]["cumulative"]},
        "break_even_month": result["break_even_month"],
        "breakdown": {
            "months": result["months"][1:],
            "build": {
                k: result["build"][k][1:] for k in ("energy", "hosting", "maintenance", "ops")
            },
            "rent": {k: result["rent"][k][1:] for k in ("compute", "fixed")},
        },
        "utilization": {
            **utilization,
            "scenario_utilization": average_utilization(
                scenario, result["work_reference_gpu_hours"]
            ),
            "scenario_savings": result["savings"],
            "break_even_utilization": result["break_even_utilization"],
        },
        "tidal": {**tidal, "scenario_days": scenario_days, "scenario_savings": result["savings"]},
        "grid": grid,
        "labels": chart_labels(scenario.currency),
    }


def _format_value(field: ScenarioField, value: Any, currency: str) -> str:
    if value is None:
        return "—"
    unit = field.unit
    if unit == "money":
        return formatting.money(value, currency)
    if unit.startswith("money/"):
        per = {"kWh": _("per kWh"), "h": _("per hour"), "month": _("per month")}[unit[6:]]
        decimals = 4 if unit == "money/kWh" else None
        return f"{formatting.money(value, currency, decimals)} {per}"
    if unit in ("fraction", "signed_fraction"):
        return formatting.percent(value, 1)
    if unit == "profile":
        return ", ".join(formatting.percent(v) for v in value)
    if unit == "months":
        return formatting.months(value, 0)
    if unit == "W":
        return f"{formatting.number(value)} W"
    if unit == "h":
        return f"{formatting.number(value, 1)} h"
    if unit == "days":
        return formatting.number(value, 1)
    if unit == "ratio":
        return formatting.number(value, 2)
    if field.path == "workload.kind":
        return str(WORKLOAD_KIND_LABELS.get(value, value))
    return str(value)


def input_rows(
    scenario: Scenario, provenance: list[dict[str, Any]], overrides: list[str]
) -> list[dict[str, Any]]:
    """One row per scenario field: label, formatted value, override flag, catalog sources."""
    data = scenario.model_dump(mode="json")
    sources: dict[str, list[dict[str, Any]]] = {}
    for item in provenance:
        for path in fed_fields(item):
            sources.setdefault(path, []).append(item)
    overridden = set(overrides)
    rows = []
    for field in ALL_FIELDS:
        value = get_path(data, field.path)
        if value is None:
            continue
        rows.append(
            {
                "path": field.path,
                "label": field.label,
                "value": _format_value(field, value, scenario.currency),
                "override": field.path in overridden,
                "sources": [] if field.path in overridden else sources.get(field.path, []),
            }
        )
    return rows


def sentence(scenario: Scenario, result: dict[str, Any]) -> str:
    """The break-even month in words: the page's heading and title."""
    return formatting.break_even_headline(result["break_even_month"], scenario.horizon_months)


def results_context(link: Permalink, code: str | None = None) -> dict[str, Any]:
    """Template context of the results page for a decoded permalink (and its code, if known)."""
    scenario = link.scenario
    result = compare(scenario)
    return {
        "scenario": scenario,
        "result": result,
        "sentence": sentence(scenario, result),
        "charts": _chart_data(scenario, result),
        "inputs": input_rows(scenario, link.provenance, link.overrides),
        "provenance": link.provenance,
        "provenance_table": provenance_table(link.provenance),
        "overrides": link.overrides,
        "permalink": code or encode(scenario, link.provenance, link.overrides, link.selection),
    }


CACHE_SECONDS = 24 * 3600
"""How long rendered figures of one permalink stay in the cache [s].

A permalink's code determines every figure on its page (that is the point of
the permalink), so the rendered fragments for a code and a language never go
stale; the timeout only bounds memory.
"""


def _cache_key(scenario_key: str) -> str:
    digest = hashlib.blake2b(scenario_key.encode(), digest_size=16).hexdigest()
    return f"planner:results:v1:{get_language()}:{digest}"


def results_fragments(request: HttpRequest, link: Permalink, scenario_key: str) -> dict[str, str]:
    """The rendered headline and charts/inputs fragments of a results page, cached.

    ``scenario_key`` identifies everything the fragments show (the permalink
    code, or a saved scenario's id). Neither fragment holds a form, a CSRF
    token or anything else of the visitor's, so one rendering serves every
    visitor in that language. The page around them (forms, tokens, messages)
    is rendered for each request: nothing per visitor is ever cached.
    """
    key = _cache_key(scenario_key)
    fragments: dict[str, str] | None = cache.get(key)
    if fragments is None:
        context = results_context(link)
        fragments = {
            "summary": SafeString(render_to_string("planner/results_summary.html", context)),
            "details": SafeString(render_to_string("planner/results_details.html", context)),
            "title": str(context["sentence"]),  # plain text: escaped when shown
        }
        cache.set(key, fragments, CACHE_SECONDS)
    return fragments


def results_page(request: HttpRequest, link: Permalink, code: str) -> dict[str, Any]:
    """Context of the results page shell: cached fragments plus what varies per visitor."""
    fragments = results_fragments(request, link, "code:" + code)
    return {
        "fragments": fragments,
        "title": fragments["title"],
        "scenario": link.scenario,
        "permalink": code,
    }

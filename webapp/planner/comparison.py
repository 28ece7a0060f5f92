"""Several saved scenarios side by side: one engine batch, a headline table, one chart."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext as _

from costmodel import project
from costmodel.sensitivity import average_utilization
from webapp.planner import formatting
from webapp.scenarios.models import SavedScenario
from webapp.scenarios.services import stored_scenario

MIN_COMPARED = 2
MAX_COMPARED = 4


def evaluate(saved: Sequence[SavedScenario]) -> list[dict[str, Any]]:
    """Each saved scenario with its engine result, from one :func:`costmodel.project` call."""
    scenarios = [stored_scenario(s) for s in saved]
    projection = project(scenarios)
    out = []
    for i, (item, scenario) in enumerate(zip(saved, scenarios, strict=True)):
        result = projection.result(i)
        out.append(
            {
                "saved": item,
                "scenario": scenario,
                "result": result,
                "average_utilization": average_utilization(
                    scenario, result["work_reference_gpu_hours"]
                ),
                "provenance": item.provenance,
                "overrides": item.overrides,
                "saved_at": item.created_at.date(),
                "sentence": formatting.break_even_headline(
                    result["break_even_month"], scenario.horizon_months
                ),
            }
        )
    return out


def comparison_context(saved: Sequence[SavedScenario]) -> dict[str, Any]:
    entries = evaluate(saved)
    chart = {
        "series": [
            {
                "name": e["saved"].name,
                "currency": e["scenario"].currency,
                "months": e["result"]["months"],
                "build": {"cumulative": e["result"]["build"]["cumulative"]},
                "rent": {"cumulative": e["result"]["rent"]["cumulative"]},
                "break_even_month": e["result"]["break_even_month"],
            }
            for e in entries
        ],
        "labels": {
            "title": _("Cumulative cost, build (solid) vs rent (dashed)"),
            "month": _("Month"),
            "amount": _("Amount"),
            "build": _("Build"),
            "rent": _("Rent"),
        },
    }
    currencies = {e["scenario"].currency for e in entries}
    return {"entries": entries, "chart": chart, "mixed_currencies": len(currencies) > 1}

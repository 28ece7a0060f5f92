"""What the results page shows itself: the verdict, the headline figures and the inputs.

The page is rendered from what the engine gives quickly: the scenario's
result and a six-point utilization sweep (for the verdict's conditions, see
:func:`costmodel.decision.decide`). The heavy analyses behind the charts and
the "how sure" sentence (Monte Carlo, tornado, fleet, grid, sweeps) are served
as JSON by :mod:`webapp.planner.analysis`, which the page's script fetches.
No cost is computed here: figures come from :mod:`costmodel`, this module
only picks, labels and formats them.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from typing import Any

from django.core.cache import cache
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from costmodel import compare
from costmodel.decision import decide
from costmodel.paths import get_path
from costmodel.ranges import fleet_size
from costmodel.scenario import Scenario
from costmodel.sensitivity import utilization_sweep
from webapp.planner import formatting
from webapp.planner.analysis import ranges_of, ranges_table
from webapp.planner.compared import compared
from webapp.planner.fields import ALL_FIELDS, fed_fields
from webapp.planner.permalink import Permalink, encode
from webapp.planner.sources import provenance_table
from webapp.planner.verdict import verdict, what_is_compared

VERDICT_SWEEP_STEPS = 6
"""Points of the sweep the verdict reads: 0, 20, …, 100 % (the 80 % example among them)."""


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
                "value": formatting.field_value(field, value, scenario.currency),
                "override": field.path in overridden,
                "sources": [] if field.path in overridden else sources.get(field.path, []),
            }
        )
    return rows


def results_context(link: Permalink, code: str | None = None) -> dict[str, Any]:
    """Template context of the results page for a decoded permalink (and its code, if known)."""
    scenario = link.scenario
    result = compare(scenario)
    decision = decide(scenario, result, utilization_sweep(scenario, VERDICT_SWEEP_STEPS))
    said = verdict(decision, scenario)
    return {
        "scenario": scenario,
        "result": result,
        "decision": decision,
        "verdict": said,
        "sentence": said.headline,
        "compared": what_is_compared(scenario, decision, compared(link.provenance)),
        "fleet_chart": fleet_size(scenario) is not None,
        "ranges": ranges_table(ranges_of(link), scenario.currency),
        "ranges_chosen": bool(link.ranges),
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


def _cache_key(scenario_key: str, link: Permalink) -> str:
    ranges = json.dumps([asdict(r) for r in link.ranges or []])
    digest = hashlib.blake2b((scenario_key + ranges).encode(), digest_size=16).hexdigest()
    return f"planner:results:v2:{get_language()}:{digest}"


def results_fragments(request: HttpRequest, link: Permalink, scenario_key: str) -> dict[str, str]:
    """The rendered headline and charts/inputs fragments of a results page, cached.

    ``scenario_key`` (the permalink code, or a saved scenario's id) and the
    link's uncertainty ranges identify everything the fragments show. Neither
    fragment holds a form, a CSRF token or anything else of the visitor's, so
    one rendering serves every visitor in that language. The page around them
    (forms, tokens, messages) is rendered for each request: nothing per
    visitor is ever cached.
    """
    key = _cache_key(scenario_key, link)
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

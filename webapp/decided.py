"""The one decision of a plan: the verdict code every page, file and API answer states.

:func:`decided` is the only place a plan's verdict is made. It reads the
engine's figures of the scenario (headline figures and a six-point
utilization sweep, :func:`costmodel.sensitivity.summary_and_sweep`), runs the
Monte Carlo over the plan's uncertainty ranges (the user's, or the defaults of
:mod:`costmodel.ranges`; a range whose low equals its high left out) and
hands both to :func:`costmodel.decision.decide`, so "uncertain" is a verdict
like the others, decided once. The results page, the analysis document behind
its charts, the CSV and finance zip, the workbook and the decision a saved
scenario stores (:mod:`webapp.scenarios.decisions`) all call it; the saved
list and the compare page show what was stored.

Measured usage adds one rule: a plan whose workload rests on fewer than
:data:`costmodel.decision.MIN_OBSERVED_DAYS` days of measurement is at best uncertain
(:func:`observed_days` reads them from the plan's provenance).

The Monte Carlo is seeded (:data:`SEED`), so the same plan always gets the
same draws; its answer is kept in the worker's cache, so a page and its
analysis document run it once when one worker answers both. A document asked
of another worker runs it again: kept in the shared cache instead, every new
page would write it to the database, and a warm worker's page makes no
database query (tests/webapp/planner/test_sources.py).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from django.core.cache import caches

from costmodel import Scenario, ScenarioError
from costmodel.decision import Decision, decide, verdict_measure
from costmodel.operations import parse_uncertainty, uncertainty
from costmodel.ranges import Range, default_ranges, measured_ranges, with_spread
from costmodel.sensitivity import result_and_sweep, summary_and_sweep

SWEEP_STEPS = 6
"""Points of the utilization sweep the decision reads: 0, 20, …, 100 % (80 % among them)."""

DRAW_MONTHS = 610_000
"""Draws × months the Monte Carlo evaluates at most: 10 000 draws of a 60-month scenario
(about 0.1 s of engine time on one core)."""
MAX_DRAWS = 10_000
MIN_DRAWS = 2_000
"""Fewest draws, for the longest horizons: P10/P90 and a probability to about ±1 point."""
SEED = 0
"""The Monte Carlo's seed: the same plan always shows the same probabilities."""

CACHE = "default"
"""The worker's own cache: a page and its analysis document share one Monte Carlo."""
CACHE_SECONDS = 3600


@dataclass(frozen=True)
class Decided:
    """The decision of one plan with the engine's answers it was made from."""

    result: dict[str, Any]
    """Headline figures (:func:`costmodel.sensitivity.summary_and_sweep`); with the monthly
    series when asked for (:func:`costmodel.sensitivity.result_and_sweep`)."""
    sweep: dict[str, Any]
    ranges: list[Range]
    """The Monte Carlo's ranges (the user's or the defaults, each with a spread)."""
    draws: int
    uncertainty: dict[str, Any] | None
    """The Monte Carlo's answer (:func:`monte_carlo`); its ``bands`` may be None when
    asked ``with_bands=False``."""
    uncertainty_error: str | None
    decision: Decision


def draws_for(scenario: Scenario) -> int:
    """Draws of the Monte Carlo for a scenario: :data:`DRAW_MONTHS` ÷ (H + 1), within bounds."""
    return max(MIN_DRAWS, min(MAX_DRAWS, DRAW_MONTHS // (scenario.horizon_months + 1)))


def ranges_for(
    scenario: Scenario,
    chosen: Sequence[Range] | None = None,
    provenance: Sequence[Mapping[str, Any]] = (),
) -> list[Range]:
    """The Monte Carlo's ranges: ``chosen``, or the defaults when none were chosen — for a
    measured profile, with each month's utilization range widened by the share of months
    filled by repetition (:func:`costmodel.ranges.measured_ranges`); a range whose low
    equals its high is left out (:func:`costmodel.ranges.with_spread`)."""
    ranges = list(chosen or default_ranges(scenario))
    share = filled_share(provenance)
    if share is not None and not chosen:
        ranges += measured_ranges(scenario, share)
    return with_spread(ranges)[0]


def _measured(provenance: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The provenance item of a measured-usage workload that says how much was measured."""
    for item in provenance:
        if item.get("role") == "measured usage" and item.get("observed_days") is not None:
            return item
    return None


def observed_days(provenance: Sequence[Mapping[str, Any]]) -> float | None:
    """Days of measurement behind a measured-usage plan's workload (None: not measured)."""
    item = _measured(provenance)
    return None if item is None else float(item["observed_days"])


def filled_share(provenance: Sequence[Mapping[str, Any]]) -> float | None:
    """Share of a measured profile's months filled by repetition (None: not measured)."""
    item = _measured(provenance)
    if item is None or not item.get("profile_months"):
        return None
    return float(item.get("filled_months") or 0) / float(item["profile_months"])


def _cache_key(scenario: Scenario, ranges: Sequence[Range], draws: int) -> str:
    identity = json.dumps(
        [scenario.model_dump(mode="json"), [asdict(r) for r in ranges], draws, SEED],
        sort_keys=True,
    )
    digest = hashlib.blake2b(identity.encode(), digest_size=16).hexdigest()
    return f"decided:uncertainty:v2:{digest}"


def monte_carlo(
    scenario: Scenario, ranges: Sequence[Range], draws: int, *, with_bands: bool = True
) -> tuple[dict[str, Any] | None, str | None]:
    """The engine's uncertainty answer over ``ranges`` (or why it was refused), cached.

    ``with_bands=False``: an answer whose ``bands`` may be None
    (:func:`costmodel.operations.uncertainty`), for a caller that reads only the shares and
    savings of the draws (a decision stored with a saved scenario): the cached answer with
    bands when there is one, else one run without them, never cached, so the cache only ever
    holds answers a page can draw its fan chart from.
    """
    if not ranges:
        return None, None
    key, cache = _cache_key(scenario, ranges, draws), caches[CACHE]
    cached: tuple[dict[str, Any] | None, str | None] | None = cache.get(key)
    if cached is not None:
        return cached
    answer: dict[str, Any] | None = None
    error: str | None = None
    try:
        answer = uncertainty(
            parse_uncertainty(
                {
                    "scenario": scenario.model_dump(mode="json"),
                    "distributions": {r.path: r.as_triangular() for r in ranges},
                    "draws": draws,
                    "seed": SEED,
                    # the verdict's measure (costmodel.decision): present-value savings
                    "measure": "present_value_savings",
                }
            ),
            with_bands=with_bands,
        )
    except ScenarioError as exc:
        error = str(exc)
    if with_bands:
        cache.set(key, (answer, error), CACHE_SECONDS)
    return answer, error


def decided(
    scenario: Scenario,
    ranges: Sequence[Range] | None = None,
    provenance: Sequence[Mapping[str, Any]] = (),
    *,
    monthly: bool = False,
    with_bands: bool = True,
) -> Decided:
    """The one decision of a plan: its scenario, its chosen ranges (None: the defaults) and
    its provenance (for measured usage). ``monthly``: :attr:`Decided.result` is the whole
    result, monthly series too (:func:`costmodel.sensitivity.result_and_sweep`), from the
    same projection, for a page that shows the months (the results page's books).
    ``with_bands=False``: the same decision, its Monte Carlo perhaps without the fan chart's
    bands (:func:`monte_carlo`), for one that is stored, not drawn (the re-pricing).

    Raises
    ------
    costmodel.ProjectionOverflowError
        If the scenario itself overflows.
    """
    figures = result_and_sweep if monthly else summary_and_sweep
    # the conditions (break-even utilization, the savings at 80 % busy) in the verdict's
    # measure: present value at the plan's cost of capital; cash, as ever, without one
    result, sweep = figures(scenario, SWEEP_STEPS, verdict_measure(scenario))
    used = ranges_for(scenario, ranges, provenance)
    draws = draws_for(scenario)
    answer, error = monte_carlo(scenario, used, draws, with_bands=with_bands)
    decision = decide(scenario, result, sweep, answer)
    days = observed_days(provenance)
    if days is not None:
        decision = measured(decision, days)
    return Decided(result, sweep, used, draws, answer, error, decision)


def measured(decision: Decision, days: float) -> Decision:
    """``decision`` resting on ``days`` of measured usage: with fewer than
    :data:`costmodel.decision.MIN_OBSERVED_DAYS`, at best uncertain (a close call stays one;
    :attr:`costmodel.decision.Decision.verdict`)."""
    return replace(decision, observed_days=days)

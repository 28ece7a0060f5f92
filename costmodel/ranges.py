"""Default ranges of the uncertain inputs of one scenario: for the tornado and the Monte Carlo.

A results page shows how the decision moves when the guesses behind it move.
:func:`default_ranges` proposes, for the inputs a team guesses most, a
low / likely / high range around the scenario's own value; the planner shows
them and lets the user change them. Every range stays within the field's
bounds and contains the scenario's value as its most likely point.

Rules (named constants below):

- **Utilization** (steady work, or a tidal workload's active days): from
  half of the planned figure to a quarter more. Plans overstate how busy a
  box will be more often than they understate it.
- **Cloud price trend** (``rent.annual_price_change``): −30 % to +10 % a
  year. Public GPU rental prices have fallen by a third in a year (AWS's
  P4/P5 cut of June 2025) and risen again after shortages.
- **Electricity price**: −20 % to +30 % of today's tariff.
- **Resale** (``build.residual_value_retention_per_year``): 15 points lower to
  10 points higher than planned: used-GPU prices swing with each generation.
- **Cloud hourly rate** and **capex** (tornado only): ±20 % and ±15 %, the
  spread between providers and between quotes for the same box; with a
  commitment, the **committed hourly rate** ±20 % too (the price the
  commitment locks in is as much a quote as the on-demand one).

Every range is centred on the scenario's own value (its mode) and spread in
proportion to it or in points of a fraction, so it is in the scenario's
currency and follows its utilization and offering: nothing here is a fixed
amount of money.

:func:`drivers` merges the ranges a user chose with these defaults for the
tornado, and :func:`fleet_size` proposes how many boxes the fleet analysis
tries.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from costmodel.errors import FieldError, ScenarioError
from costmodel.operations import MAX_BOXES, parse_uncertainty
from costmodel.scenario import (
    HOURS_PER_MONTH,
    MAX_DEMAND_MULTIPLE,
    JobsWorkload,
    ProfileWorkload,
    Scenario,
    SteadyWorkload,
    TidalWorkload,
)

UTILIZATION_LOW_FACTOR = 0.5
UTILIZATION_HIGH_FACTOR = 1.25
PRICE_TREND_LOW = -0.30
PRICE_TREND_HIGH = 0.10
ELECTRICITY_LOW_FACTOR = 0.8
ELECTRICITY_HIGH_FACTOR = 1.3
RETENTION_LOW_POINTS = 0.15
RETENTION_HIGH_POINTS = 0.10
HOURLY_RATE_FACTOR = 0.2
CAPEX_FACTOR = 0.15
FLEET_MIN_BOXES = 4
"""The fleet analysis tries at least this many boxes [boxes]."""
FLEET_SPARE_BOXES = 2
"""…and this many beyond the boxes the busiest month fills [boxes]."""


@dataclass(frozen=True)
class Range:
    """A low / most likely / high value of one input, in the input's own unit."""

    path: str
    low: float
    mode: float
    high: float

    def as_triangular(self) -> dict[str, float | str]:
        """The range as an uncertainty request's distribution."""
        return {"kind": "triangular", "low": self.low, "mode": self.mode, "high": self.high}

    def as_driver(self) -> dict[str, float]:
        """The range as a tornado request's driver."""
        return {"low": self.low, "high": self.high}


def _around(
    path: str, value: float, low: float, high: float, floor: float, ceiling: float
) -> Range:
    """A range clipped to the field's bounds that keeps ``value`` as its most likely point."""
    return Range(
        path,
        max(floor, min(low, value)),
        value,
        min(ceiling, max(high, value)),
    )


def utilization_range(scenario: Scenario) -> Range | None:
    """The range of how busy the box will be; None for a monthly profile (no single figure)."""
    w = scenario.workload
    if isinstance(w, SteadyWorkload):
        u = w.utilization
        return _around(
            "workload.utilization",
            u,
            u * UTILIZATION_LOW_FACTOR,
            u * UTILIZATION_HIGH_FACTOR,
            0.0,
            MAX_DEMAND_MULTIPLE,
        )
    if isinstance(w, TidalWorkload):
        d = w.active_days_per_month
        return _around(
            "workload.active_days_per_month",
            d,
            d * UTILIZATION_LOW_FACTOR,
            d * UTILIZATION_HIGH_FACTOR,
            0.0,
            31.0,
        )
    return None


def default_ranges(scenario: Scenario) -> list[Range]:
    """Utilization, cloud price trend, electricity price and resale: the Monte Carlo's inputs."""
    b, r = scenario.build, scenario.rent
    ranges = [
        utilization_range(scenario),
        _around(
            "rent.annual_price_change",
            r.annual_price_change,
            PRICE_TREND_LOW,
            PRICE_TREND_HIGH,
            -0.9,
            1.0,
        ),
        _around(
            "build.electricity_price_per_kwh",
            b.electricity_price_per_kwh,
            b.electricity_price_per_kwh * ELECTRICITY_LOW_FACTOR,
            b.electricity_price_per_kwh * ELECTRICITY_HIGH_FACTOR,
            0.0,
            float("inf"),
        ),
        _around(
            "build.residual_value_retention_per_year",
            b.residual_value_retention_per_year,
            b.residual_value_retention_per_year - RETENTION_LOW_POINTS,
            b.residual_value_retention_per_year + RETENTION_HIGH_POINTS,
            0.0,
            1.0,
        ),
    ]
    return [r for r in ranges if r is not None]


def default_drivers(scenario: Scenario) -> list[Range]:
    """The tornado's drivers: the Monte Carlo's inputs plus the cloud rate and the capex
    (and the committed rate, when the scenario commits to instances)."""
    b, r = scenario.build, scenario.rent
    committed = []
    if r.committed_instances > 0 and r.committed_hourly_rate > 0:
        committed.append(
            _around(
                "rent.committed_hourly_rate",
                r.committed_hourly_rate,
                r.committed_hourly_rate * (1 - HOURLY_RATE_FACTOR),
                r.committed_hourly_rate * (1 + HOURLY_RATE_FACTOR),
                0.0,
                float("inf"),
            )
        )
    return [
        *default_ranges(scenario),
        _around(
            "rent.hourly_rate",
            r.hourly_rate,
            r.hourly_rate * (1 - HOURLY_RATE_FACTOR),
            r.hourly_rate * (1 + HOURLY_RATE_FACTOR),
            0.0,
            float("inf"),
        ),
        _around(
            "build.capex",
            b.capex,
            b.capex * (1 - CAPEX_FACTOR),
            b.capex * (1 + CAPEX_FACTOR),
            0.0,
            float("inf"),
        ),
        *committed,
    ]


def drivers(scenario: Scenario, chosen: Sequence[Range] | None = None) -> list[Range]:
    """The tornado's drivers: the ranges a user chose, then the defaults for every other input.

    A chosen range replaces the default of the same path (in the default's
    place); chosen ranges of other inputs come after the defaults.
    """
    by_path = {r.path: r for r in chosen or ()}
    defaults = default_drivers(scenario)
    default_paths = {d.path for d in defaults}
    return [by_path.get(d.path, d) for d in defaults] + [
        r for r in by_path.values() if r.path not in default_paths
    ]


def fleet_size(scenario: Scenario) -> int | None:
    """How many boxes the fleet analysis tries; None when the work cannot be shared out.

    At least :data:`FLEET_MIN_BOXES`, and :data:`FLEET_SPARE_BOXES` more than
    the busiest month needs (``⌈u_max⌉``, u_max the largest steady or monthly
    utilization, or a jobs workload's busiest month in box-hours ÷ 730), at
    most :data:`costmodel.operations.MAX_BOXES`. A tidal
    workload is bursts of whole days: it has no share per box (None).
    """
    w = scenario.workload
    if isinstance(w, SteadyWorkload):
        peak = w.utilization
    elif isinstance(w, ProfileWorkload):
        peak = max(w.monthly_utilization)
    elif isinstance(w, JobsWorkload):
        box = scenario.build.gpu_count * scenario.build.gpu_throughput  # [reference GPUs]
        work = w.reference_gpu_hours(scenario.horizon_months + 1)  # [reference GPU-h]
        peak = float(work.max()) / box / HOURS_PER_MONTH
    else:
        return None
    return min(MAX_BOXES, max(FLEET_MIN_BOXES, math.ceil(peak) + FLEET_SPARE_BOXES))


# --------------------------------------------------------------------------
# Ranges a user chose: only those that differ from the defaults are kept
# --------------------------------------------------------------------------


def _same(a: Range, b: Range) -> bool:
    return a.path == b.path and all(
        math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)
        for x, y in ((a.low, b.low), (a.mode, b.mode), (a.high, b.high))
    )


def customized(scenario: Scenario, ranges: Sequence[Range]) -> list[Range]:
    """The ranges of ``ranges`` that are not the scenario's default for their input.

    A range equal to its default (within float rounding) follows the scenario:
    it is dropped, so a stored or linked choice holds only what the user changed.

    >>> customized(scenario, default_ranges(scenario))  # doctest: +SKIP
    []
    """
    defaults = {r.path: r for r in default_drivers(scenario)}
    return [r for r in ranges if r.path not in defaults or not _same(r, defaults[r.path])]


def with_defaults(scenario: Scenario, custom: Sequence[Range]) -> list[Range] | None:
    """The Monte Carlo's full list: :func:`default_ranges` with each ``custom`` range in place.

    Custom ranges of the tornado-only inputs (cloud rate, capex) follow the
    defaults. ``None`` when nothing is custom: "the defaults".
    """
    if not custom:
        return None
    chosen = {r.path: r for r in custom}
    ranges = [chosen.pop(r.path, r) for r in default_ranges(scenario)]
    return ranges + list(chosen.values())


def check_ranges(scenario: Scenario, ranges: Sequence[Range]) -> None:
    """Refuse ranges that are not this scenario's, out of order or outside their field's bounds.

    Every path must be one of :func:`default_drivers` for ``scenario`` (the
    inputs the planner lets a user range over), each at most once; the values
    are checked as an uncertainty request's triangular distributions
    (:func:`costmodel.operations.parse_uncertainty`): ``low ≤ mode ≤ high``,
    each within the field's bounds.

    Raises
    ------
    ScenarioError
        Naming ``ranges.<path>`` for an unknown or repeated path, and
        ``distributions.<path>.low`` (``.mode``, ``.high``) for a bad value.
    """
    allowed = [r.path for r in default_drivers(scenario)]
    errors: list[FieldError] = []
    seen: set[str] = set()
    for r in ranges:
        if r.path not in allowed:
            errors.append(
                FieldError(
                    f"ranges.{r.path}",
                    "is not an uncertain input of this scenario (one of "
                    + ", ".join(allowed)
                    + ")",
                    "not_an_uncertain_input",
                    {"allowed": ", ".join(allowed)},
                )
            )
        elif r.path in seen:
            errors.append(FieldError(f"ranges.{r.path}", "is given twice", "given_twice"))
        seen.add(r.path)
    if errors:
        raise ScenarioError(errors)
    if ranges:
        parse_uncertainty(
            {
                "scenario": scenario.model_dump(mode="json"),
                "distributions": {r.path: r.as_triangular() for r in ranges},
            }
        )


def with_spread(ranges: Sequence[Range]) -> tuple[list[Range], list[Range]]:
    """The ranges that can move an answer, and those that cannot (low equal to high).

    A range whose low and high are the same value (within float rounding) is
    a fixed input: the electricity price of a box whose hosting fee includes
    power is 0 at every end. It swings nothing in a tornado and draws one
    value in a Monte Carlo, so a page leaves it out and says why.

    >>> with_spread([Range("a", 0.0, 0.0, 0.0), Range("b", 1.0, 2.0, 3.0)])[1]
    [Range(path='a', low=0.0, mode=0.0, high=0.0)]
    """
    kept: list[Range] = []
    fixed: list[Range] = []
    for r in ranges:
        same = math.isclose(r.low, r.high, rel_tol=1e-12, abs_tol=1e-12)
        (fixed if same else kept).append(r)
    return kept, fixed


FILLED_HIGH_FACTOR = 2.0
"""With every month of a measured profile filled by repetition, a month's utilization may
be up to twice the repeated figure (and down to none): nothing of that month was seen."""


def measured_utilization_factors(filled_share: float) -> tuple[float, float]:
    """Low and high factors of a measured profile month's utilization range.

    Parameters
    ----------
    filled_share : float
        Share of the profile's months filled by repeating the measured average,
        not measured [fraction, 0..1].

    Returns
    -------
    low, high : float
        The range of a month planned at ``u`` is ``low × u`` to ``high × u``.

    Notes
    -----
    ``low = UTILIZATION_LOW_FACTOR × (1 − s)`` and
    ``high = UTILIZATION_HIGH_FACTOR + (FILLED_HIGH_FACTOR − UTILIZATION_HIGH_FACTOR) × s``:
    with every month measured (``s = 0``) the usual half to a quarter more; with
    every month filled (``s = 1``) from none to twice the repeated figure;
    linear in between.

    >>> measured_utilization_factors(0.0)
    (0.5, 1.25)
    >>> measured_utilization_factors(1.0)
    (0.0, 2.0)
    """
    s = min(1.0, max(0.0, filled_share))
    low = UTILIZATION_LOW_FACTOR * (1.0 - s)
    high = UTILIZATION_HIGH_FACTOR + (FILLED_HIGH_FACTOR - UTILIZATION_HIGH_FACTOR) * s
    return low, high


def measured_ranges(scenario: Scenario, filled_share: float) -> list[Range]:
    """The utilization range of each month of a measured profile workload, widened with the
    share of months filled by repetition (:func:`measured_utilization_factors`); none for
    another workload. Each month is drawn on its own."""
    w = scenario.workload
    if not isinstance(w, ProfileWorkload):
        return []
    low, high = measured_utilization_factors(filled_share)
    return [
        _around(f"workload.monthly_utilization.{i}", u, u * low, u * high, 0.0, MAX_DEMAND_MULTIPLE)
        for i, u in enumerate(w.monthly_utilization)
    ]

"""The decision a results page states: build or rent, under which conditions, how sure.

:func:`decide` reads the engine's figures of one scenario (its result, the
savings of the same scenario across steady utilization, and optionally the
uncertainty answer) and returns a :class:`Decision` of codes and numbers.
It computes no cost: every number in it is a figure of the engine, picked
or compared. The words live in the web app's templates and translations.

Rules (named constants below):

- **The measure** (methodology version 4): present-value savings,
  ``rent.present_value − build.present_value`` at the scenario's
  ``discount_rate_per_year`` (resale credited at the horizon). Money spent
  later weighs less than money spent now, so a box bought at month 0 must
  save more than its cash total says. With a discount rate of 0 the measure
  is the cash savings and every rule below is version 3's. Cash figures
  (:attr:`Decision.savings`, :attr:`Decision.cash_savings`, the break-even
  month) are kept beside it, labelled as cash.
- **Recommendation**: build when present-value savings are positive, else
  rent. Present-value savings within :data:`CLOSE_CALL_SHARE` of the larger
  present value make it a close call (``close_call``): either choice costs
  about the same, and a small change of an input flips it.
- **Conditions**: the break-even utilization (build if the box is busy more,
  or less, than it — whichever side savings are positive on) and the cash
  break-even month (keep the box at least that long). The break-even
  utilization and the savings at :data:`REFERENCE_UTILIZATION` are of the
  sweep's measure: given a present-value sweep (``measure`` of
  :func:`costmodel.sensitivity.utilization_sweep`), of the verdict's measure,
  so that they cannot contradict it; given a cash sweep, of cash (version 3's).
- **Cash and resale**: when cash alone says rent but the resale value tips
  the (present-value) total to build, the decision says so (``resale_decides``).
- **Late pay-back**: a cash break-even later than the hardware's useful life
  — or than :data:`PAYBACK_WARNING_MONTHS` when no life is given — is a
  warning, not a success.
- **How sure**: with an uncertainty answer of the same measure (asked with
  ``"measure": "present_value_savings"``), the share of draws in which the
  recommendation holds, in bands (:data:`CONFIDENCE_BANDS`).
- **What is compared**: the work over the horizon in box-hours, the
  instance-hours the cloud needs for the same work, and how busy the plan
  keeps the box on average.

**One verdict.** :attr:`Decision.verdict` is the one code a page states,
the first of these that applies (:data:`VERDICT_CODES`):

1. ``close_call``: ``|present-value savings|`` within :data:`CLOSE_CALL_SHARE` of the
   larger present value;
2. ``uncertain``: the uncertainty analysis holds the recommended side in fewer
   than :data:`UNCERTAIN_BELOW` of its draws — neither side is recommended;
3. ``resale_decides``: building wins only through the resale value (cash
   never catches up within the horizon);
4. ``late_payback``: building wins but its cash break-even comes after the
   useful life (or :data:`PAYBACK_WARNING_MONTHS` without one);
5. else ``build`` or ``rent``.

With an uncertainty answer the decision also carries the median (P50) of the
draws' present-value savings beside the point figure (:attr:`Decision.savings_p50`).

:meth:`Decision.as_stored` is what a saved scenario keeps of it: the code, both
savings and the share of draws agreeing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from costmodel.scenario import Scenario
from costmodel.sensitivity import SweepMeasure, average_utilization

PAYBACK_WARNING_MONTHS = 36
"""Without a useful life, a cash pay-back later than this many months is a warning [months].

Three years is the short end of the useful life hyperscalers book for servers
(five to six years) and of the support life of consumer GPUs.
"""

CONFIDENCE_BANDS: tuple[tuple[float, str], ...] = (
    (0.9, "very_likely"),
    (0.7, "likely"),
    (0.5, "uncertain"),
    (0.0, "unlikely"),
)
"""Share of draws in which the recommendation holds → confidence code (first band reached)."""

CLOSE_CALL_SHARE = 0.01
"""Savings smaller than this share of the larger total over the horizon make a close call.

One percent is below the precision of the inputs themselves: catalog prices
move by more than that between quotes, and resale prices by far more.
"""

REFERENCE_UTILIZATION = 0.8
"""The "busy" example of the verdict: savings at 80 % steady use, the guides' high frequency."""

UNCERTAIN_BELOW = 0.5
"""The recommended side holding in fewer than this share of the draws makes it uncertain."""

MIN_OBSERVED_DAYS = 14
"""A workload measured over fewer days than this makes the verdict at best uncertain [days].

Two weeks see a working fortnight once: fewer days are a sample of one team's habits, not
a pattern to extrapolate over years."""

Recommendation = Literal["build", "rent"]
Verdict = Literal["close_call", "uncertain", "resale_decides", "late_payback", "build", "rent"]
VERDICT_CODES: tuple[Verdict, ...] = (
    "close_call",
    "uncertain",
    "resale_decides",
    "late_payback",
    "build",
    "rent",
)
"""Every verdict code, in the order the rules are tried (see the module's docstring)."""


@dataclass(frozen=True)
class Decision:
    """Codes and engine figures behind the sentence at the top of a results page."""

    recommendation: Recommendation
    """``build`` when :attr:`present_value_savings` are positive, else ``rent``."""
    savings: float
    """Cash savings of building over the horizon, resale credited [currency]."""
    horizon_months: int
    close_call: bool
    """``|present_value_savings|`` is at most :data:`CLOSE_CALL_SHARE` of the larger of
    ``build.present_value`` and ``rent.present_value``: about the same cost either way."""
    cash_savings: float
    """``rent.total − build.total``: the same, without the resale value [currency]."""
    resale_value: float
    resale_decides: bool
    """Cash alone favours renting, the box's resale value tips the total to building."""
    break_even_month: float | None
    """Cash break-even [months]; None: does not pay back within the horizon."""
    break_even_utilization: float | None
    """Steady utilization with zero savings [fraction]; None: none between 0 and 1."""
    build_when_busier: bool | None
    """True: building wins above ``break_even_utilization``; False: below; None: no threshold."""
    useful_life_months: int | None
    payback_limit_months: int
    """The useful life, or :data:`PAYBACK_WARNING_MONTHS` when none is given [months]."""
    late_payback: bool
    """The cash break-even comes after ``payback_limit_months``: a warning."""
    reference_utilization: float
    reference_savings: float | None
    """Savings at :data:`REFERENCE_UTILIZATION` steady use [currency], from the sweep."""
    probability_recommendation_holds: float | None
    """Share of uncertainty draws in which the recommendation holds; None: not run."""
    confidence: str | None
    """A code of :data:`CONFIDENCE_BANDS`; None without an uncertainty answer."""
    average_utilization: float
    """How busy the plan keeps the box on average: busy hours ÷ hours of the horizon [fraction];
    above 1 when work beyond one box is rented (hybrid)."""
    box_hours: float
    """The work wanted over the horizon, in hours of the box working flat out [box-h]."""
    instance_hours: float
    """Cloud instance-hours that do the same work, spot rework included [instance-h]."""
    savings_p50: float | None = None
    """Median of the uncertainty draws' present-value savings [currency]; None: not run."""
    present_value_savings: float | None = None
    """``rent.present_value − build.present_value`` [currency]: the measure the verdict is
    decided on (equal to :attr:`savings` without a discount rate)."""
    observed_days: float | None = None
    """Days of measurement behind a measured workload; None: not measured usage."""
    in_present_value: bool = False
    """The verdict is decided on present-value savings (:func:`on_present_value`): the page
    says "in present value" wherever it states the measure."""
    discount_rate_per_year: float = 0.0
    """The scenario's cost of capital [1/year]."""
    decided_on: float | None = None
    """The figure the verdict is decided on: :attr:`savings` without a discount rate,
    :attr:`present_value_savings` with one [currency]; None: a decision made before it was
    kept."""
    conditions_in_present_value: bool = False
    """:attr:`break_even_utilization`, :attr:`build_when_busier` and
    :attr:`reference_savings` are of present-value savings (the sweep was asked for
    them, :func:`costmodel.sensitivity.utilization_sweep`'s ``measure``); False: of cash
    savings, resale credited."""

    @property
    def too_little_measured(self) -> bool:
        """The workload rests on fewer than :data:`MIN_OBSERVED_DAYS` days of measurement."""
        return self.observed_days is not None and self.observed_days < MIN_OBSERVED_DAYS

    def as_stored(self) -> dict[str, Any]:
        """What a saved scenario keeps of this decision: a plain JSON-able dict.

        ``{"code": verdict, "present_value_savings", "savings", "probability_agreeing"}``
        (the last None when no uncertainty analysis ran).
        """
        probability = self.probability_recommendation_holds
        return {
            "code": str(self.verdict),
            "present_value_savings": (
                None if self.present_value_savings is None else float(self.present_value_savings)
            ),
            "savings": float(self.savings),
            "probability_agreeing": None if probability is None else float(probability),
        }

    @property
    def verdict(self) -> Verdict:
        """The one code a page states (:func:`verdict_of` of this decision's flags); with too
        little measured (:attr:`too_little_measured`) at best ``uncertain``."""
        code = verdict_of(
            self.recommendation,
            close_call=self.close_call,
            probability_recommendation_holds=self.probability_recommendation_holds,
            resale_decides=self.resale_decides,
            late_payback=self.late_payback,
        )
        if self.too_little_measured and code != "close_call":
            return "uncertain"
        return code


def verdicts(
    savings: npt.ArrayLike, build_total_net: npt.ArrayLike, rent_total: npt.ArrayLike
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """The verdict of N scenarios at once: whether building is recommended, and whether it
    is a close call.

    Parameters
    ----------
    savings : array_like
        The measure of each scenario [currency]: present-value savings
        ``rent.present_value − build.present_value`` (what :func:`decide` passes),
        or cash savings ``rent.total − build.total_net``.
    build_total_net, rent_total : array_like
        The two sides' figures of the same measure [currency]: their present
        values, or ``build.total_net`` and ``rent.total``.

    Returns
    -------
    build, close_call : ndarray of bool

    Notes
    -----
    ``build = savings > 0``;
    ``close_call = |savings| ≤ CLOSE_CALL_SHARE · max(|build side|, |rent side|)``.
    """
    savings = np.asarray(savings, dtype=float)
    larger_total = np.maximum(
        np.abs(np.asarray(build_total_net, dtype=float)),
        np.abs(np.asarray(rent_total, dtype=float)),
    )
    return savings > 0, np.abs(savings) <= CLOSE_CALL_SHARE * larger_total


def confidence_of(probability: float) -> str:
    """The confidence code of a probability (see :data:`CONFIDENCE_BANDS`)."""
    for threshold, code in CONFIDENCE_BANDS:
        if probability >= threshold:
            return code
    return CONFIDENCE_BANDS[-1][1]


def decide(
    scenario: Scenario,
    result: Mapping[str, Any],
    sweep: Mapping[str, Any],
    uncertainty: Mapping[str, Any] | None = None,
) -> Decision:
    """The decision for one scenario from the engine's figures.

    Parameters
    ----------
    scenario : Scenario
    result : mapping
        The scenario's result (:func:`costmodel.compare`) or its summary, the
        headline figures alone (:func:`costmodel.sensitivity.summary_and_sweep`).
    sweep : mapping
        :func:`costmodel.sensitivity.utilization_sweep` of the scenario:
        ``utilization`` and ``savings`` lists, 0 and 1 included; asked with
        ``measure="present_value_savings"`` (for a scenario with a cost of capital), its
        ``break_even_utilization`` replaces the result's cash one in the conditions.
    uncertainty : mapping, optional
        The answer of :func:`costmodel.operations.uncertainty` for the scenario,
        asked with ``"measure": "present_value_savings"`` (the verdict's measure;
        with no discount rate both measures are the same).
    """
    savings = float(result["savings"])
    build, rent = result["build"], result["rent"]
    present_value_savings = present_value_savings_of(result)
    in_present_value = on_present_value(scenario)
    if not in_present_value:  # the same measure, to the last bit: version 3's
        measure, sides = savings, (build["total_net"], rent["total"])
    else:
        measure, sides = present_value_savings, (build["present_value"], rent["present_value"])
    builds, close_calls = verdicts(measure, *sides)
    recommendation: Recommendation = "build" if builds else "rent"
    cash_savings = float(rent["total"]) - float(build["total"])
    break_even = result["break_even_month"]
    life = scenario.build.useful_life_months
    limit = life if life is not None else PAYBACK_WARNING_MONTHS
    utilizations, sweep_savings = list(sweep["utilization"]), list(sweep["savings"])
    conditions_in_present_value = sweep.get("measure") == "present_value_savings"
    if conditions_in_present_value:  # the conditions in the verdict's measure
        threshold = sweep["break_even_utilization"]
    else:
        threshold = result["break_even_utilization"]
    build_when_busier = None if threshold is None else sweep_savings[-1] > sweep_savings[0]
    probability = None
    savings_p50 = None
    if uncertainty is not None:
        share_build = float(uncertainty["probability_build_cheaper"])
        probability = share_build if recommendation == "build" else 1.0 - share_build
        savings_p50 = float(uncertainty["savings"]["p50"])
    close_call = bool(close_calls)
    resale_decides = cash_savings <= 0 < measure
    late_payback = break_even is not None and break_even > limit
    return Decision(
        recommendation=recommendation,
        savings=savings,
        horizon_months=scenario.horizon_months,
        close_call=close_call,
        cash_savings=cash_savings,
        resale_value=float(build["resale_value"]),
        resale_decides=resale_decides,
        break_even_month=break_even,
        break_even_utilization=threshold,
        build_when_busier=build_when_busier,
        useful_life_months=life,
        payback_limit_months=limit,
        late_payback=late_payback,
        reference_utilization=REFERENCE_UTILIZATION,
        reference_savings=_at(utilizations, sweep_savings, REFERENCE_UTILIZATION),
        probability_recommendation_holds=probability,
        confidence=None if probability is None else confidence_of(probability),
        average_utilization=average_utilization(scenario, result["work_reference_gpu_hours"]),
        **same_work(scenario, float(result["work_reference_gpu_hours"])),
        savings_p50=savings_p50,
        present_value_savings=present_value_savings,
        in_present_value=in_present_value,
        discount_rate_per_year=scenario.discount_rate_per_year,
        decided_on=float(measure),
        conditions_in_present_value=conditions_in_present_value,
    )


def on_present_value(scenario: Scenario) -> bool:
    """Whether the verdict is decided on present-value savings: a cost of capital above 0.
    Without one the two measures are the same, and the savings themselves decide (version 3's
    figures to the last bit)."""
    return scenario.discount_rate_per_year != 0


def verdict_measure(scenario: Scenario) -> SweepMeasure:
    """The measure the verdict is decided on, as the sweeps and the tornado name it:
    ``present_value_savings`` with a cost of capital, else ``savings``
    (:func:`on_present_value`)."""
    return "present_value_savings" if on_present_value(scenario) else "savings"


def present_value_savings_of(result: Mapping[str, Any]) -> float:
    """A result's (or summary's) present-value savings [currency]: its
    ``present_value_savings``, or ``rent.present_value − build.present_value`` for one
    computed before version 4 of the methodology."""
    if result.get("present_value_savings") is not None:
        return float(result["present_value_savings"])
    return float(result["rent"]["present_value"]) - float(result["build"]["present_value"])


def verdict_of(
    recommendation: Recommendation,
    *,
    close_call: bool,
    probability_recommendation_holds: float | None,
    resale_decides: bool,
    late_payback: bool,
) -> Verdict:
    """The one verdict code: the first rule of :data:`VERDICT_CODES` that applies.

    A late pay-back is a verdict only when building is recommended (renting
    has nothing to pay back).

    >>> verdict_of("build", close_call=False, probability_recommendation_holds=0.3,
    ...            resale_decides=False, late_payback=False)
    'uncertain'
    """
    if close_call:
        return "close_call"
    if probability_recommendation_holds is not None and (
        probability_recommendation_holds < UNCERTAIN_BELOW
    ):
        return "uncertain"
    if recommendation == "build" and resale_decides:
        return "resale_decides"
    if recommendation == "build" and late_payback:
        return "late_payback"
    return recommendation


def same_work(scenario: Scenario, work_reference_gpu_hours: float) -> dict[str, float]:
    """The horizon's work in box-hours, and the cloud instance-hours that do the same work.

    Parameters
    ----------
    scenario : Scenario
    work_reference_gpu_hours : float
        The result's ``work_reference_gpu_hours`` [reference GPU-h].

    Returns
    -------
    dict
        ``box_hours`` [box-h] and ``instance_hours`` [instance-h].

    Notes
    -----
    ``box_hours = work ÷ (n₁ × t₁)`` (the demand summed over months 1..H) and
    ``instance_hours = box_hours × (n₁ × t₁) ÷ (n₂ × t₂) × (1 + w)``
    ``= work ÷ (n₂ × t₂) × (1 + w)``: the methodology's instance-hours needed,
    summed over the horizon, committed hours included (work beyond one box,
    rented as burst by the build side, is work too).

    Examples
    --------
    Four 24-hour days a month for 24 months on a box of one GPU at 0.22 of the
    reference, against one reference GPU: 96 × 24 = 2 304 box-hours and
    2 304 × 0.22 = 506.88 instance-hours.
    """
    b, r = scenario.build, scenario.rent
    return {
        "box_hours": work_reference_gpu_hours / (b.gpu_count * b.gpu_throughput),
        "instance_hours": work_reference_gpu_hours
        / (r.gpu_count * r.gpu_throughput)
        * (1.0 + r.rework_fraction),
    }


def _at(points: Sequence[float], values: Sequence[float], x: float) -> float | None:
    """The value of the sweep at the point ``x``, if the sweep has it (within rounding)."""
    for point, value in zip(points, values, strict=True):
        if abs(point - x) < 1e-9:
            return float(value)
    return None

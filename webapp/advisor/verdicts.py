"""How "the guide, checked" turns figures into verdicts: holds, partly, does not hold.

Each rule is a small frozen dataclass with its thresholds as fields (defaults
are the named constants below) and a ``code`` that the page's templates put
into words. A rule judges one case from :class:`Evidence`: the engine's
figures of the case's scenario and the :mod:`costmodel.decision` codes made
from them. The only arithmetic here is comparing those figures with the
claim's numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from costmodel.decision import Decision
from costmodel.scenario import Scenario

Verdict = Literal["holds", "partly", "does_not_hold", "not_checkable"]
VERDICTS: tuple[Verdict, ...] = ("holds", "partly", "does_not_hold", "not_checkable")

ABOUT_TOLERANCE = 0.05
"""The guides say "about": a figure within 5 % of the claimed range still holds."""

PRICE_RANGE_TOLERANCE = 0.20
"""A price within 20 % of the claimed range's nearer end partly holds."""

THROUGHPUT_TOLERANCE = 0.20
"""A throughput within 20 % of the claimed range's nearer end partly holds."""

ABOUT_FACTOR = 1.5
""""About N months" holds for a break-even month in ``[N / 1.5, N × 1.5]``."""


@dataclass(frozen=True)
class Evidence:
    """What a rule may read about one case."""

    scenario: Scenario
    summary: Mapping[str, Any]
    """The engine's headline figures (:class:`costmodel.results.Summary` names)."""
    decision: Decision
    on_demand: Mapping[str, Any] | None = None
    """The same case's figures against the offering's on-demand sibling, if the rule asks."""
    measured_throughput: float | None = None
    """The catalog's measured figure the rule names (:meth:`Rule.measured_gpu`)."""


def combine(verdicts: Sequence[Verdict]) -> Verdict:
    """Overall verdict of several: all hold → holds; none holds at all → does not hold."""
    checkable = [v for v in verdicts if v != "not_checkable"]
    if not checkable:
        return "not_checkable"
    if all(v == "holds" for v in checkable):
        return "holds"
    if all(v == "does_not_hold" for v in checkable):
        return "does_not_hold"
    return "partly"


def range_verdict(
    value: float, low: float, high: float, tolerance: float, about: float = ABOUT_TOLERANCE
) -> Verdict:
    """'About low – high': within ``about`` of the range holds; within ``tolerance`` partly."""
    if low * (1 - about) <= value <= high * (1 + about):
        return "holds"
    if low * (1 - tolerance) <= value <= high * (1 + tolerance):
        return "partly"
    return "does_not_hold"


@dataclass(frozen=True)
class Rule:
    """A verdict rule; subclasses set ``code`` and implement :meth:`judge`."""

    code: ClassVar[str] = ""
    against_on_demand: ClassVar[bool] = False
    """Each case is also run against its offering's on-demand sibling (same batch)."""

    def measured_gpu(self) -> str | None:
        """The GPU (slug) whose measured benchmark figure the rule judges instead of a case."""
        return None

    def judge(self, evidence: Evidence) -> Verdict:
        """The verdict of one computed case."""
        raise NotImplementedError

    def judge_figure(self, value: float) -> Verdict:
        """The verdict of the catalog figure named by :meth:`measured_gpu`."""
        raise NotImplementedError


@dataclass(frozen=True)
class PriceWithin(Rule):
    """ "Costs about low – high": the preset's capex from today's catalog prices [currency]."""

    low: float
    high: float
    tolerance: float = PRICE_RANGE_TOLERANCE
    code: ClassVar[str] = "price_within"

    def judge(self, evidence: Evidence) -> Verdict:
        return range_verdict(evidence.scenario.build.capex, self.low, self.high, self.tolerance)


@dataclass(frozen=True)
class BuyingBeatsRentingBeyond(Rule):
    """ "Buying beats renting when training runs for more than N months".

    Holds when the decision is to build and the cash break-even comes within
    ``months``: every run longer than that favours the box. Partly when
    building wins later (or only once the box is resold); does not hold when
    the decision over the horizon is to rent.
    """

    months: float = 12
    code: ClassVar[str] = "buying_beats_renting_beyond"

    def judge(self, evidence: Evidence) -> Verdict:
        decision = evidence.decision
        if decision.recommendation == "rent":
            return "does_not_hold"
        if decision.break_even_month is not None and decision.break_even_month <= self.months:
            return "holds"
        return "partly"


@dataclass(frozen=True)
class PaysBackAfterAbout(Rule):
    """ "Pays for itself after about N months": a cash break-even within a factor of N."""

    months: float
    factor: float = ABOUT_FACTOR
    code: ClassVar[str] = "pays_back_after_about"

    def judge(self, evidence: Evidence) -> Verdict:
        break_even = evidence.decision.break_even_month
        if break_even is None:
            return "does_not_hold"
        if self.months / self.factor <= break_even <= self.months * self.factor:
            return "holds"
        return "partly"


@dataclass(frozen=True)
class RentingCheaper(Rule):
    """ "Cheaper to rent": in cash (no break-even within the horizon) and net of resale.

    Both → holds; one of the two → partly; neither → does not hold.
    """

    code: ClassVar[str] = "renting_cheaper"

    def judge(self, evidence: Evidence) -> Verdict:
        decision = evidence.decision
        cash = decision.break_even_month is None or decision.break_even_month > (
            decision.horizon_months
        )
        net = decision.recommendation == "rent"
        if cash and net:
            return "holds"
        if not cash and not net:
            return "does_not_hold"
        return "partly"


@dataclass(frozen=True)
class HourlyBeatsReservation(Rule):
    """ "Suits hourly billing": renting on demand costs less than the reservation.

    Compares the rent totals over the horizon of the same workload on a
    commitment offering and on its on-demand sibling (both engine figures).
    """

    code: ClassVar[str] = "hourly_beats_reservation"
    against_on_demand: ClassVar[bool] = True

    def judge(self, evidence: Evidence) -> Verdict:
        if evidence.on_demand is None:
            return "not_checkable"
        hourly = evidence.on_demand["rent"]["total"]
        reserved = evidence.summary["rent"]["total"]
        return "holds" if hourly < reserved else "does_not_hold"


@dataclass(frozen=True)
class ThroughputWithin(Rule):
    """ "Trains at about low – high units/s": the catalog's measured figure of a GPU."""

    gpu: str
    low: float
    high: float
    tolerance: float = THROUGHPUT_TOLERANCE
    code: ClassVar[str] = "throughput_within"

    def measured_gpu(self) -> str | None:
        return self.gpu

    def judge(self, evidence: Evidence) -> Verdict:
        if evidence.measured_throughput is None:
            return "not_checkable"
        return self.judge_figure(evidence.measured_throughput)

    def judge_figure(self, value: float) -> Verdict:
        return range_verdict(value, self.low, self.high, self.tolerance)


@dataclass(frozen=True)
class NotFromCostData(Rule):
    """A claim about speed-ups the catalog has no figures for: always not checkable."""

    code: ClassVar[str] = "not_from_cost_data"

    def judge(self, evidence: Evidence) -> Verdict:
        return "not_checkable"

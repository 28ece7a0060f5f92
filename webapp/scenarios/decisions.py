"""The decision a saved scenario stores: the results page's verdict, kept with the row.

A list of thousands of saved scenarios cannot run the engine once per row, so each
row keeps the decision its results page states (:func:`decision_of`, the one
function that page calls) when it is saved, when its analyses have run (which adds
the share of the uncertainty draws that agree), and, for one resolved from the
catalog, at today's prices after the catalog changes (``webapp.planner.tasks``).

What is stored is :func:`stored` of a :class:`costmodel.decision.Decision`:
``code`` (the verdict code), ``present_value_savings``, ``savings`` and
``probability_agreeing``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from django.utils import timezone
from django.utils.translation import gettext as _

from costmodel.decision import Decision
from costmodel.ranges import Range
from costmodel.scenario import Scenario
from webapp.decided import SWEEP_STEPS, decided

VERDICT_SWEEP_STEPS = SWEEP_STEPS
"""Points of the utilization sweep behind the verdict (0, 20, …, 100 %)."""


class StoredDecision(TypedDict):
    """A decision as a saved scenario keeps it."""

    code: str
    present_value_savings: float | None
    savings: float
    probability_agreeing: float | None


def summary_and_decision(
    scenario: Scenario,
    ranges: Sequence[Range] | None = None,
    provenance: Sequence[Mapping[str, Any]] = (),
    *,
    with_bands: bool = True,
) -> tuple[dict[str, Any], Decision]:
    """The headline figures of ``scenario`` and the decision its results page states, the
    Monte Carlo over ``ranges`` (None: the defaults) included: :func:`webapp.decided.decided`,
    the one function behind every verdict. ``with_bands=False``: its Monte Carlo without the
    fan chart's bands when no page has run it (the same decision, sooner)."""
    answer = decided(scenario, ranges, provenance, with_bands=with_bands)
    return answer.result, answer.decision


def decision_of(
    scenario: Scenario,
    ranges: Sequence[Range] | None = None,
    provenance: Sequence[Mapping[str, Any]] = (),
    *,
    with_bands: bool = True,
) -> Decision:
    """The decision the results page states for ``scenario`` (:func:`summary_and_decision`)."""
    return summary_and_decision(scenario, ranges, provenance, with_bands=with_bands)[1]


Today = tuple[StoredDecision | None, str]
"""A saved scenario's decision at today's prices, or why there is none (in words)."""


def decide_today(scenario: Scenario) -> Today:
    """The decision the results page states for ``scenario`` (:func:`decision_of`), as the
    re-pricing stores it, or why it has none. Only stored, never drawn: its Monte Carlo leaves
    out the fan chart's bands. The code it runs is :data:`webapp.release.DECIDING`'s."""
    try:
        return stored(decision_of(scenario, with_bands=False)), ""
    except ArithmeticError:  # ProjectionOverflowError: today's figures do not fit in a float
        return None, _("can no longer be priced: its figures at today's prices are too large")


def stored(decision: Decision) -> StoredDecision:
    """What a saved scenario keeps of ``decision``: the engine's :meth:`Decision.as_stored`."""
    data = decision.as_stored()
    return StoredDecision(
        code=data["code"],
        present_value_savings=data["present_value_savings"],
        savings=data["savings"],
        probability_agreeing=data["probability_agreeing"],
    )


def saved_fields(decision: StoredDecision) -> dict[str, Any]:
    """The saved scenario's decision columns for ``decision``, computed now."""
    return {
        "decision_code": decision["code"],
        "decision_present_value_savings": decision["present_value_savings"],
        "decision_savings": decision["savings"],
        "decision_probability_agreeing": decision["probability_agreeing"],
        "decision_computed_at": timezone.now(),
    }


def side(code: str, savings: float | None, present_value_savings: float | None) -> str:
    """What a change of decision is judged by: ``close_call``, or the side the savings fall
    on (``build`` or ``rent``; the present value where the decision has one)."""
    if code == "close_call":
        return "close_call"
    figure = present_value_savings if present_value_savings is not None else savings
    return "build" if figure is not None and figure > 0 else "rent"

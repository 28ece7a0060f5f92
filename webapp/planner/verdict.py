"""The verdict at the top of a results page: the engine's decision in words.

:func:`costmodel.decision.decide` gives codes and figures (build or rent, the
break-even utilization and month, cash against resale, late pay-back, how
sure); this module picks the sentence for each case and formats the figures
in the active language. It computes nothing: every number shown is one of the
decision's or the scenario's, formatted (a shortfall is shown as the size of a
negative saving, without its sign).

Sentences, in the order the page shows them:

- **headline**: the decision's one verdict code (:attr:`costmodel.decision.Decision.verdict`)
  in words: build or rent and what it saves over the horizon, in the measure the verdict is
  decided on (present value at the plan's cost of capital, said so; the savings themselves
  without one: cash figures are labelled as cash elsewhere); a close call
  (savings within about 1 % of either total); too uncertain to call (the
  recommended side holds in fewer than half of the Monte Carlo's draws: both
  the point figure and that share are named, neither side recommended); or
  building only through the resale value. With the Monte Carlo, the median of
  the draws' savings is said beside the point figure (**median**);
- **conditions**: the break-even utilization (and this plan's), how long to
  keep the box (the cash break-even month), and the savings at 80 % busy; the
  threshold and the 80 % figure in the verdict's measure (present value at the
  plan's cost of capital, said so, when the decision's sweep was of it);
- **cash and resale**: cash alone against the total with the box sold at the
  end, reconciled in one sentence where the two disagree;
- **warning**: a cash break-even later than the box's useful life (or three
  years when none is given);
- **how sure** (:func:`how_sure`, from the Monte Carlo: delivered with the
  page's analysis JSON);
- **what is compared** (:func:`what_is_compared`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

from costmodel.decision import CLOSE_CALL_SHARE, MIN_OBSERVED_DAYS, Decision
from costmodel.scenario import Scenario, SteadyWorkload
from webapp import formatting
from webapp.planner.compared import Compared

Tone = Literal["good", "warn", "bad", "neutral"]

CONFIDENCE_TONES: dict[str, Tone] = {
    "very_likely": "good",
    "likely": "good",
    "uncertain": "warn",
    "unlikely": "bad",
}
"""Badge colour of each confidence code (always shown with its words)."""


def confidence_label(code: str) -> str:
    labels = {
        "very_likely": pgettext("confidence", "Very likely"),
        "likely": pgettext("confidence", "Likely"),
        "uncertain": pgettext("confidence", "Uncertain"),
        "unlikely": pgettext("confidence", "Unlikely"),
    }
    return labels.get(code, code)


@dataclass(frozen=True)
class Verdict:
    """The sentences at the top of a results page, and how to colour them."""

    code: str
    """The decision's verdict code: ``close_call``, ``uncertain``, ``resale_decides``,
    ``late_payback``, ``build`` or ``rent``."""
    recommendation: str
    label: str
    tone: Tone
    headline: str
    conditions: list[str]
    cash_and_resale: str | None
    warning: str | None
    median: str | None = None
    """The median of the Monte Carlo's draws beside the point figure (None: not run)."""

    def as_json(self) -> dict[str, Any]:
        """What the results page's script puts in place once the Monte Carlo has run."""
        return {
            "code": self.code,
            "label": self.label,
            "tone": self.tone,
            "headline": self.headline,
            "median": self.median,
            "warning": self.warning,
        }


def _horizon(scenario: Scenario) -> str:
    return formatting.months(scenario.horizon_months, 0)


def discounted(d: Decision) -> bool:
    """Whether the verdict is decided on present value (a cost of capital above 0): the page
    then says "in present value" wherever it states that measure."""
    return d.in_present_value


def decided_on(d: Decision) -> float:
    """The figure the verdict is decided on (:attr:`Decision.decided_on`; the cash savings for a
    decision made before it was kept, which was decided on them)."""
    return d.savings if d.decided_on is None else d.decided_on


HEADLINES: dict[tuple[str, str, bool], Promise] = {
    # (case, recommendation, in present value)
    ("close_call", "build", False): gettext_lazy(
        "A close call: building saves only %(amount)s over %(horizon)s, less than %(share)s of "
        "what either costs."
    ),
    ("close_call", "build", True): gettext_lazy(
        "A close call: in present value at %(rate)s a year, building saves only %(amount)s over "
        "%(horizon)s, less than %(share)s of what either costs."
    ),
    ("close_call", "rent", False): gettext_lazy(
        "A close call: renting is cheaper by only %(amount)s over %(horizon)s, less than "
        "%(share)s of what either costs."
    ),
    ("close_call", "rent", True): gettext_lazy(
        "A close call: in present value at %(rate)s a year, renting is cheaper by only "
        "%(amount)s over %(horizon)s, less than %(share)s of what either costs."
    ),
    ("measured", "build", False): gettext_lazy(
        "Too uncertain to call: on these figures building saves %(amount)s over %(horizon)s, "
        "but they rest on %(days)s days of measured usage, fewer than the %(minimum)s a pattern "
        "needs."
    ),
    ("measured", "build", True): gettext_lazy(
        "Too uncertain to call: on these figures building saves %(amount)s in present value "
        "(at %(rate)s a year) over %(horizon)s, but they rest on %(days)s days of measured "
        "usage, fewer than the %(minimum)s a pattern needs."
    ),
    ("measured", "rent", False): gettext_lazy(
        "Too uncertain to call: on these figures renting is cheaper by %(amount)s over "
        "%(horizon)s, but they rest on %(days)s days of measured usage, fewer than the "
        "%(minimum)s a pattern needs."
    ),
    ("measured", "rent", True): gettext_lazy(
        "Too uncertain to call: on these figures renting is cheaper by %(amount)s in present "
        "value (at %(rate)s a year) over %(horizon)s, but they rest on %(days)s days of "
        "measured usage, fewer than the %(minimum)s a pattern needs."
    ),
    ("uncertain", "build", False): gettext_lazy(
        "Too uncertain to call: on these figures building saves %(amount)s over %(horizon)s, "
        "but it comes out cheaper in only %(share)s of the draws of the uncertain inputs."
    ),
    ("uncertain", "build", True): gettext_lazy(
        "Too uncertain to call: on these figures building saves %(amount)s in present value "
        "(at %(rate)s a year) over %(horizon)s, but it comes out cheaper in only %(share)s of "
        "the draws of the uncertain inputs."
    ),
    ("uncertain", "rent", False): gettext_lazy(
        "Too uncertain to call: on these figures renting is cheaper by %(amount)s over "
        "%(horizon)s, but it comes out cheaper in only %(share)s of the draws of the uncertain "
        "inputs."
    ),
    ("uncertain", "rent", True): gettext_lazy(
        "Too uncertain to call: on these figures renting is cheaper by %(amount)s in present "
        "value (at %(rate)s a year) over %(horizon)s, but it comes out cheaper in only "
        "%(share)s of the draws of the uncertain inputs."
    ),
    ("resale_decides", "build", False): gettext_lazy(
        "Build only if you will sell the box: it saves %(amount)s over %(horizon)s through its "
        "resale value of %(resale)s; in cash building never catches up."
    ),
    ("resale_decides", "build", True): gettext_lazy(
        "Build only if you will sell the box: it saves %(amount)s in present value (at "
        "%(rate)s a year) over %(horizon)s through its resale value of %(resale)s; in cash "
        "building never catches up."
    ),
    ("plain", "build", False): gettext_lazy("Build: it saves %(amount)s over %(horizon)s."),
    ("plain", "build", True): gettext_lazy(
        "Build: it saves %(amount)s in present value over %(horizon)s, at a cost of capital of "
        "%(rate)s a year."
    ),
    ("plain", "rent", False): gettext_lazy(
        "Rent: building would cost %(amount)s more over %(horizon)s."
    ),
    ("plain", "rent", True): gettext_lazy(
        "Rent: building would cost %(amount)s more in present value over %(horizon)s, at a cost "
        "of capital of %(rate)s a year."
    ),
}
"""The headline of each case, in the measure the verdict is decided on: savings as they are
without a discount rate, present value (and its rate) with one."""


def headline(d: Decision, currency: str) -> str:
    """The verdict in one sentence: build or rent and what it saves over the horizon, or a
    close call, in the measure the verdict is decided on (present value at the plan's cost of
    capital; the savings themselves without one). The one wording of it: the results page, the
    saved list and the compare page all show this sentence."""
    amount = decided_on(d)
    if d.close_call:
        case = "close_call"
    elif d.verdict == "uncertain":
        case = "measured" if d.too_little_measured else "uncertain"
    elif d.verdict == "resale_decides":
        case = "resale_decides"
    else:
        case = "plain"
    values = {
        "amount": formatting.amount(abs(amount), currency),
        "horizon": formatting.months(d.horizon_months, 0),
        # a close call's share of the totals; an uncertain verdict's share of the draws
        "share": formatting.percent(CLOSE_CALL_SHARE)
        if case == "close_call"
        else formatting.share(d.probability_recommendation_holds),
        "days": formatting.number(d.observed_days or 0.0, 1),
        "minimum": formatting.number(MIN_OBSERVED_DAYS),
        "resale": formatting.amount(d.resale_value, currency),
        "rate": rate_text(d.discount_rate_per_year),
    }
    return str(HEADLINES[(case, d.recommendation, discounted(d))]) % values


def rate_text(rate: float) -> str:
    """A cost of capital as a percentage with the decimals it has, up to two (``8 %``,
    ``7.5 %``)."""
    percent = rate * 100
    decimals = next((n for n in range(2) if round(percent, n) == round(percent, 9)), 2)
    return formatting.percent(rate, decimals)


def median(d: Decision, currency: str) -> str | None:
    """The median (P50) of the Monte Carlo's draws of the measure the verdict is decided on,
    said beside the point figure."""
    if d.savings_p50 is None:
        return None
    amount = formatting.amount(abs(d.savings_p50), currency)
    if discounted(d):
        if d.savings_p50 >= 0:
            return _("Median of the draws: building saves %(amount)s in present value.") % {
                "amount": amount
            }
        return _("Median of the draws: renting is cheaper by %(amount)s in present value.") % {
            "amount": amount
        }
    if d.savings_p50 >= 0:
        return _("Median of the draws: building saves %(amount)s.") % {"amount": amount}
    return _("Median of the draws: renting is cheaper by %(amount)s.") % {"amount": amount}


VERDICT_LABELS: dict[str, Promise] = {
    "close_call": gettext_lazy("A close call"),
    "uncertain": gettext_lazy("Too uncertain to call"),
    "resale_decides": gettext_lazy("Build, if you sell the box"),
    "late_payback": gettext_lazy("Build, with a late pay-back"),
    "build": gettext_lazy("Build"),
    "rent": gettext_lazy("Rent"),
}
"""The short label of each verdict code."""

VERDICT_TONES: dict[str, Tone] = {
    "close_call": "warn",
    "uncertain": "warn",
    "resale_decides": "warn",
    "late_payback": "warn",
    "build": "good",
    "rent": "neutral",
}
"""The colour of each verdict code (always shown with its words)."""


def _keep_months(d: Decision) -> float | None:
    """The cash break-even as "keep it at least …", when building is the advice and it comes."""
    if d.recommendation != "build" or d.break_even_month is None or d.break_even_month <= 0:
        return None
    return d.break_even_month


CONDITIONS: dict[tuple[str, str, bool], Promise] = {
    # (recommendation, building wins when the box is busier / less busy / at any use, keep)
    ("build", "more", True): gettext_lazy(
        "Build if the box is busy more than %(threshold)s of the time (this plan: %(plan)s) "
        "and you keep it at least %(months)s."
    ),
    ("build", "more", False): gettext_lazy(
        "Build if the box is busy more than %(threshold)s of the time (this plan: %(plan)s)."
    ),
    ("build", "less", True): gettext_lazy(
        "Build if the box is busy less than %(threshold)s of the time (this plan: %(plan)s) "
        "and you keep it at least %(months)s."
    ),
    ("build", "less", False): gettext_lazy(
        "Build if the box is busy less than %(threshold)s of the time (this plan: %(plan)s)."
    ),
    ("rent", "more", False): gettext_lazy(
        "Rent unless the box would be busy more than %(threshold)s of the time "
        "(this plan: %(plan)s)."
    ),
    ("rent", "less", False): gettext_lazy(
        "Rent unless the box would be busy less than %(threshold)s of the time "
        "(this plan: %(plan)s)."
    ),
    ("rent", "any", False): gettext_lazy("Renting is cheaper at any utilization from 0 to 100 %%."),
}
"""The condition sentence of each case; "keep" is the cash break-even month, for a build.
Building cheaper at every utilization is :data:`USED_OR_NOT`'s."""

PRESENT_VALUE_CONDITIONS: dict[tuple[str, str, bool], Promise] = {
    # the same cases, the threshold of present-value savings (the verdict's measure)
    ("build", "more", True): gettext_lazy(
        "In present value at %(rate)s a year, build if the box is busy more than %(threshold)s "
        "of the time (this plan: %(plan)s); in cash, keep it at least %(months)s."
    ),
    ("build", "more", False): gettext_lazy(
        "In present value at %(rate)s a year, build if the box is busy more than %(threshold)s "
        "of the time (this plan: %(plan)s)."
    ),
    ("build", "less", True): gettext_lazy(
        "In present value at %(rate)s a year, build if the box is busy less than %(threshold)s "
        "of the time (this plan: %(plan)s); in cash, keep it at least %(months)s."
    ),
    ("build", "less", False): gettext_lazy(
        "In present value at %(rate)s a year, build if the box is busy less than %(threshold)s "
        "of the time (this plan: %(plan)s)."
    ),
    ("rent", "more", False): gettext_lazy(
        "In present value at %(rate)s a year, rent unless the box would be busy more than "
        "%(threshold)s of the time (this plan: %(plan)s)."
    ),
    ("rent", "less", False): gettext_lazy(
        "In present value at %(rate)s a year, rent unless the box would be busy less than "
        "%(threshold)s of the time (this plan: %(plan)s)."
    ),
    ("rent", "any", False): gettext_lazy(
        "In present value at %(rate)s a year, renting is cheaper at any utilization from 0 to "
        "100 %%."
    ),
}
""":data:`CONDITIONS` when the decision's conditions are of present-value savings
(:attr:`costmodel.decision.Decision.conditions_in_present_value`): said so, with the rate."""

USED_OR_NOT: dict[tuple[bool, bool], Promise] = {
    # (the rent plan commits to instances, keep)
    (True, True): gettext_lazy(
        "Building is cheaper however little or much the box is used: the rent plan's "
        "commitment is paid whether it is used or not, and it alone costs more than building. "
        "Keep the box at least %(months)s."
    ),
    (True, False): gettext_lazy(
        "Building is cheaper however little or much the box is used: the rent plan's "
        "commitment is paid whether it is used or not, and it alone costs more than building."
    ),
    (False, True): gettext_lazy(
        "Building is cheaper however little or much the box is used: the rent plan's fixed "
        "fees are paid whether the cloud is used or not, and they alone cost more than "
        "building. Keep the box at least %(months)s."
    ),
    (False, False): gettext_lazy(
        "Building is cheaper however little or much the box is used: the rent plan's fixed "
        "fees are paid whether the cloud is used or not, and they alone cost more than building."
    ),
}
"""Building cheaper at every utilization, from 0 to 100 %, said for what it is: the rent plan
costs something that does not depend on use (a commitment, fixed fees), and that alone costs
more than the box. Not a claim that an idle box pays for itself."""


def _commits(scenario: Scenario) -> bool:
    rent = scenario.rent
    return rent.committed_instances > 0 and rent.committed_hourly_rate > 0


def _utilization_condition(d: Decision, scenario: Scenario) -> str:
    keep = _keep_months(d)
    direction = {None: "any", True: "more", False: "less"}[d.build_when_busier]
    if d.recommendation == "build" and direction == "any":
        sentence = USED_OR_NOT[(_commits(scenario), keep is not None)]
    elif d.conditions_in_present_value:
        sentence = PRESENT_VALUE_CONDITIONS[(d.recommendation, direction, keep is not None)]
    else:
        sentence = CONDITIONS[(d.recommendation, direction, keep is not None)]
    threshold, plan = formatting.shares(d.break_even_utilization, d.average_utilization)
    return str(sentence) % {
        "threshold": threshold,
        "plan": plan,
        "months": formatting.months(keep),
        "rate": rate_text(d.discount_rate_per_year),
    }


def _reference_sentence(d: Decision, scenario: Scenario) -> str | None:
    """The savings at 80 % busy, unless that is this scenario's own figure."""
    w = scenario.workload
    if d.reference_savings is None or (
        isinstance(w, SteadyWorkload) and w.utilization == d.reference_utilization
    ):
        return None
    values = {
        "reference": formatting.share(d.reference_utilization),
        "amount": formatting.amount(abs(d.reference_savings), scenario.currency),
        "horizon": _horizon(scenario),
    }
    if d.conditions_in_present_value:
        values["rate"] = rate_text(d.discount_rate_per_year)
        if d.reference_savings > 0:
            return (
                _(
                    "At %(reference)s busy, building saves %(amount)s in present value at "
                    "%(rate)s a year over %(horizon)s."
                )
                % values
            )
        return (
            _(
                "At %(reference)s busy, renting is still cheaper by %(amount)s in present value "
                "at %(rate)s a year over %(horizon)s."
            )
            % values
        )
    if d.reference_savings > 0:
        return _("At %(reference)s busy, building saves %(amount)s over %(horizon)s.") % values
    return (
        _("At %(reference)s busy, renting is still cheaper by %(amount)s over %(horizon)s.")
        % values
    )


def _cash_and_resale(d: Decision, scenario: Scenario) -> str | None:
    """Cash alone against the total with the box sold at the end: one sentence."""
    cur = scenario.currency
    values = {
        "horizon": _horizon(scenario),
        "cash": formatting.amount(abs(d.cash_savings), cur),
        "resale": formatting.amount(d.resale_value, cur),
        "savings": formatting.amount(abs(d.savings), cur),
        "months": formatting.months(d.break_even_month),
    }
    if d.recommendation == "build":
        if d.break_even_month is None:  # the resale value decides
            return (
                _(
                    "In cash alone building never catches up: after %(horizon)s it has cost "
                    "%(cash)s more than renting, but selling the box then for its resale value "
                    "of %(resale)s makes building %(savings)s cheaper overall."
                )
                % values
            )
        if d.cash_savings <= 0:  # caught up, fell behind again (replacement, loan balance)
            return (
                _(
                    "Building catches up in cash after %(months)s but falls behind again: after "
                    "%(horizon)s it has cost %(cash)s more than renting, and selling the box then "
                    "for %(resale)s makes building %(savings)s cheaper overall."
                )
                % values
            )
        if d.break_even_month == 0:
            return (
                _(
                    "In cash alone building costs no more than renting from the first month and "
                    "is %(cash)s ahead after %(horizon)s; selling the box then for %(resale)s "
                    "comes on top."
                )
                % values
            )
        return (
            _(
                "In cash alone building pays for itself after %(months)s and is %(cash)s ahead "
                "after %(horizon)s; selling the box then for %(resale)s comes on top."
            )
            % values
        )
    if d.break_even_month is not None:
        return (
            _(
                "Building catches up in cash after %(months)s but falls behind again: after "
                "%(horizon)s it has cost %(cash)s more than renting, and even selling the box "
                "then for %(resale)s leaves it %(savings)s behind."
            )
            % values
        )
    return (
        _(
            "In cash alone building never catches up: after %(horizon)s it has cost %(cash)s "
            "more than renting, and even selling the box then for %(resale)s leaves it "
            "%(savings)s behind."
        )
        % values
    )


def warning(d: Decision) -> str | None:
    """The late pay-back warning (None when the cash break-even comes in time)."""
    if not d.late_payback or d.break_even_month is None:
        return None
    values = {
        "months": formatting.months(d.break_even_month),
        "limit": formatting.months(d.payback_limit_months, 0),
    }
    if d.useful_life_months is not None:
        return (
            _(
                "Late pay-back: building pays for itself in cash only after %(months)s, later "
                "than the box's useful life of %(limit)s. Count on these savings only if the "
                "box lasts that long."
            )
            % values
        )
    return (
        _(
            "Late pay-back: building pays for itself in cash only after %(months)s, beyond "
            "the %(limit)s GPUs commonly stay in service (no useful life was given). Count on "
            "these savings only if the box lasts that long."
        )
        % values
    )


def verdict(decision: Decision, scenario: Scenario) -> Verdict:
    """The verdict's sentences for a scenario's decision (:func:`costmodel.decision.decide`;
    with the Monte Carlo's answer, the verdict may be ``uncertain`` and says the median)."""
    code = decision.verdict
    conditions = [_utilization_condition(decision, scenario)]
    reference = _reference_sentence(decision, scenario)
    if reference is not None:
        conditions.append(reference)
    return Verdict(
        code=code,
        recommendation=decision.recommendation,
        label=str(VERDICT_LABELS[code]),
        tone=VERDICT_TONES[code],
        headline=headline(decision, scenario.currency),
        conditions=conditions,
        cash_and_resale=_cash_and_resale(decision, scenario),
        warning=warning(decision),
        median=median(decision, scenario.currency),
    )


def how_sure(
    decision: Decision, answer: Mapping[str, Any], draws: int, currency: str
) -> dict[str, str]:
    """How sure the recommendation is, from the Monte Carlo answer the decision was made with.

    Returns ``code``, ``label`` and ``tone`` of the confidence band and a
    ``sentence``: the share of draws in which the recommendation holds, and
    the savings between P10 and P90.
    """
    code = decision.confidence or "uncertain"
    values = {
        "share": formatting.share(decision.probability_recommendation_holds),
        "draws": formatting.number(draws),
        "p10": formatting.amount(answer["savings"]["p10"], currency),
        "p90": formatting.amount(answer["savings"]["p90"], currency),
    }
    if decision.recommendation == "build":
        first = _("Building is cheaper in %(share)s of %(draws)s draws of the uncertain inputs.")
    else:
        first = _("Renting is cheaper in %(share)s of %(draws)s draws of the uncertain inputs.")
    if discounted(decision):
        spread = _(
            "In 8 draws out of 10 the present-value savings of building lie between %(p10)s "
            "and %(p90)s."
        )
    else:
        spread = _("In 8 draws out of 10 the savings of building lie between %(p10)s and %(p90)s.")
    parts = [first % values, spread % values]
    if code == "uncertain":
        parts.append(_("It could go either way: the tornado chart shows which guesses swing it."))
    elif code == "unlikely":
        parts.append(
            _(
                "With these ranges the other choice is more often the cheaper one: check the "
                "guesses the tornado chart shows at the top."
            )
        )
    return {
        "code": code,
        "label": confidence_label(code),
        "tone": CONFIDENCE_TONES.get(code, "neutral"),
        "sentence": " ".join(parts),
    }


def what_is_compared(scenario: Scenario, decision: Decision, facts: Compared) -> list[str]:
    """What is compared: the two sides, their speed on the benchmark, the same work in hours,
    and their memory when it differs."""
    b, r = scenario.build, scenario.rent
    sentences = []
    if facts.build.name and facts.rent.name:
        sentences.append(
            _("Compared: %(box)s against %(instance)s.")
            % {"box": facts.build.name, "instance": facts.rent.name}
        )
    speed = {
        "box_gpus": formatting.number(b.gpu_count),
        "box_gpu": facts.build.gpu or _("GPU"),
        "box_speed": formatting.number(b.gpu_throughput, 2),
        "cloud_gpus": formatting.number(r.gpu_count),
        "cloud_gpu": facts.rent.gpu or _("GPU"),
        "cloud_speed": formatting.number(r.gpu_throughput, 2),
        "benchmark": facts.benchmark or "",
        "reference": facts.reference_gpu or _("the reference GPU"),
    }
    if facts.benchmark:
        sentences.append(
            _(
                "Speed on the benchmark %(benchmark)s, with %(reference)s = 1.00: the box has "
                "%(box_gpus)s × %(box_gpu)s at %(box_speed)s each, the cloud instance "
                "%(cloud_gpus)s × %(cloud_gpu)s at %(cloud_speed)s each."
            )
            % speed
        )
    else:
        sentences.append(
            _(
                "Speed with %(reference)s = 1.00: the box has %(box_gpus)s × %(box_gpu)s at "
                "%(box_speed)s each, the cloud instance %(cloud_gpus)s × %(cloud_gpu)s at "
                "%(cloud_speed)s each."
            )
            % speed
        )
    sentences.append(
        _(
            "The same work is %(box_hours)s box-hours over %(horizon)s, or %(instance_hours)s "
            "instance-hours rented."
        )
        % {
            "box_hours": formatting.number(decision.box_hours),
            "instance_hours": formatting.number(decision.instance_hours),
            "horizon": _horizon(scenario),
        }
    )
    if (
        facts.build.vram_gb is not None
        and facts.rent.vram_gb is not None
        and facts.build.vram_gb != facts.rent.vram_gb
    ):
        sentences.append(
            _(
                "Memory differs: %(box_vram)s GB per GPU in the box, %(cloud_vram)s GB in the "
                "cloud's. Check that your model fits in the smaller one."
            )
            % {"box_vram": facts.build.vram_gb, "cloud_vram": facts.rent.vram_gb}
        )
    return sentences

"""What the results page shows itself: the verdict, the headline figures and the inputs.

The page is rendered from what the engine gives quickly: the scenario's
headline figures and a six-point utilization sweep, from one projection
(for the verdict's conditions, see :func:`costmodel.decision.decide`). The
heavy analyses behind the charts and the "how sure" sentence (Monte Carlo,
tornado, fleet, grid, sweeps) are served as JSON by
:mod:`webapp.planner.analysis`, which the page's script fetches.
No cost is computed here: figures come from :mod:`costmodel`, this module
only picks, labels and formats them.
"""

from __future__ import annotations

import datetime
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from costmodel import ScenarioError
from costmodel.commitment import MAX_COMMITTED_INSTANCES, commitment_table, peak_committed_need
from costmodel.decision import MIN_OBSERVED_DAYS
from costmodel.paths import get_path
from costmodel.projection import job_times
from costmodel.ranges import fleet_size
from costmodel.scenario import JobsWorkload, Scenario
from webapp import formatting
from webapp.catalog.models import STALE_AFTER_DAYS
from webapp.decided import decided, filled_share, observed_days
from webapp.planner.analysis import field_label, fixed_inputs, range_value, ranges_of, ranges_table
from webapp.planner.chosen import chosen_for_you
from webapp.planner.compared import compared
from webapp.planner.fields import ALL_FIELDS, field_value, labels
from webapp.planner.finance import finance_context
from webapp.planner.jobs import job_memory_of, placed_jobs, runs_text
from webapp.planner.permalink import Permalink, encode_link, fits_in_link
from webapp.planner.ranking import ranking_part
from webapp.planner.sources import Sources, catalog_sources, old_prices
from webapp.planner.verdict import discounted, how_sure, rate_text, verdict, what_is_compared
from webapp.scenarios import decisions

VERDICT_SWEEP_STEPS = decisions.VERDICT_SWEEP_STEPS
"""Points of the sweep the verdict reads: 0, 20, …, 100 % (the 80 % example among them)."""


def input_rows(scenario: Scenario, sources: Sources, overrides: list[str]) -> list[dict[str, Any]]:
    """One row per scenario field: label, formatted value, override flag, and the rendered
    catalog sources (empty for an override or an input not from the catalog)."""
    data = scenario.model_dump(mode="json")
    overridden = set(overrides)
    label = labels()
    rows = []
    for field in ALL_FIELDS:
        value = get_path(data, field.path)
        if value is None:
            continue
        override = field.path in overridden
        rows.append(
            {
                "path": field.path,
                "label": label[field.path],
                "value": field_value(field, value, scenario.currency),
                "override": override,
                "sources": "" if override else sources.cells.get(field.path, ""),
            }
        )
    return rows


OLD_PRICES_NAMED = 5
"""Old prices a results page names one by one; the others are counted."""


def _day(link: Permalink) -> datetime.date | None:
    """The day of a catalog plan's prices (its selection's ``as_of``); None: today."""
    day = (link.selection or {}).get("as_of")
    return datetime.date.fromisoformat(day) if isinstance(day, str) and day else None


def price_age_part(link: Permalink) -> dict[str, Any] | None:
    """Which of the prices a catalog plan used were stale on the plan's date (the selection's
    ``as_of``), in one sentence: a finance reader checks those against a current quote before
    signing. None for an explicit scenario, or when every price was recent."""
    day = _day(link)
    if not link.provenance or day is None:
        return None
    old = old_prices(link.provenance, day)
    if not old:
        return None
    named = [
        _("%(row)s (%(date)s, %(months)s months old)")
        % {"row": price.label, "date": price.effective_date.isoformat(), "months": price.months}
        for price in old[:OLD_PRICES_NAMED]
    ]
    if len(old) > OLD_PRICES_NAMED:
        rest = len(old) - OLD_PRICES_NAMED
        named.append(ngettext("%(count)s more", "%(count)s more", rest) % {"count": rest})
    sentence = ngettext(
        "%(count)s price behind these figures was more than %(days)s days old on the plan's "
        "date, %(date)s: %(list)s. Check it against a current quote before signing off.",
        "%(count)s prices behind these figures were more than %(days)s days old on the plan's "
        "date, %(date)s: %(list)s. Check them against current quotes before signing off.",
        len(old),
    )
    return {
        "sentence": sentence
        % {
            "count": len(old),
            "days": STALE_AFTER_DAYS,
            "date": day.isoformat(),
            "list": _("; ").join(named),
        },
        "count": len(old),
    }


def commitment_part(link: Permalink) -> dict[str, Any] | None:
    """The commitment table of a scenario with a commitment (None without one): the rent
    side with 0…K committed instances from the engine's commitment operation, the count this
    scenario uses and the cheapest marked, and which count was used and why (``table``: the
    engine's answer, which "Chosen for you" reads too)."""
    scenario = link.scenario
    rent = scenario.rent
    if rent.committed_hourly_rate <= 0:
        return None
    chosen = rent.committed_instances
    top = min(MAX_COMMITTED_INSTANCES, max(peak_committed_need(scenario), chosen))
    try:
        table = commitment_table(scenario, top)
    except ScenarioError:  # a count whose results overflow: no table rather than no page
        return None
    best = table["best_committed_instances"]
    cur = scenario.currency
    rows = [
        {
            "count": row["committed_instances"],
            "rent_total": formatting.money(row["rent_total"], cur),
            "rent_present_value": formatting.money(row["rent_present_value"], cur),
            "savings": formatting.money(row["savings"], cur),
            "break_even": formatting.months(row["break_even_month"]),
            "chosen": row["committed_instances"] == chosen,
            "cheapest": row["committed_instances"] == best,
        }
        for row in table["rows"]
    ]
    return {"rows": rows, "note": _commitment_note(link, chosen, best), "table": table}


def _commitment_note(link: Permalink, chosen: int, best: int) -> str:
    """Which count the scenario uses, why, and whether it is the cheapest."""
    values = {"count": formatting.number(chosen), "best": formatting.number(best)}
    if link.selection is None:
        why = ngettext(
            "This scenario commits to %(count)s instance, as it was typed in.",
            "This scenario commits to %(count)s instances, as they were typed in.",
            chosen,
        )
    elif link.selection.get("committed_instances") is not None:
        why = ngettext(
            "This scenario commits to %(count)s instance: the count you chose.",
            "This scenario commits to %(count)s instances: the count you chose.",
            chosen,
        )
    else:
        why = ngettext(
            "This scenario commits to %(count)s instance: the catalog's default for these choices.",
            "This scenario commits to %(count)s instances: the catalog's default for these "
            "choices.",
            chosen,
        )
    cheapest = (
        _("That is the cheapest count in present value.")
        if chosen == best
        else _("The cheapest count in present value is %(best)s.")
    )
    held = _(
        "The uncertainty analysis keeps the count fixed: it is bought before the future is known."
    )
    return " ".join([why % values, cheapest % values, held])


def jobs_part(scenario: Scenario, provenance: list[dict[str, Any]]) -> list[dict[str, str]] | None:
    """Per job of a jobs workload, the time to result: wall hours of one run on the box and
    instance-hours of one run rented (the engine's ``jobs`` output block), and for a
    transformer job the GPU memory it needs of the box's (checked when planned); None for
    another workload."""
    if not isinstance(scenario.workload, JobsWorkload):
        return None
    memory = job_memory_of(provenance)
    return [
        {
            "name": row["name"],
            "runs": runs_text(job.runs_per_month),
            "build_hours": (
                "—"  # rented by the build plan: the box cannot hold it (methodology version 4)
                if row["build_hours_per_run"] is None
                else formatting.number(row["build_hours_per_run"], 1)
            ),
            "rent_hours": formatting.number(row["rent_instance_hours_per_run"], 1),
            "memory": _memory_text(memory.get(i)),
            "placement": row.get("placement", "box"),
            "placement_label": _("rented") if row.get("placement") == "rent" else _("the box"),
        }
        for i, (job, row) in enumerate(
            zip(scenario.workload.jobs, job_times(scenario), strict=True)
        )
    ]


def rented_jobs_part(scenario: Scenario, provenance: list[dict[str, Any]]) -> list[str]:
    """Each job the build plan rents because the box cannot hold it, in words: "the 7B full
    fine-tune is rented: it needs 159.5 GB; this box has 96 GB" (the engine's placement,
    the advisor's memory figures)."""
    if not isinstance(scenario.workload, JobsWorkload):
        return []
    return [
        _("“%(job)s” is rented: it needs %(needed)s GB of GPU memory; this box has %(box)s GB.")
        % {
            "job": row["name"],
            "needed": formatting.number(row["needed"], 0 if row["needed"].is_integer() else 1),
            "box": formatting.number(row["box"]),
        }
        for row in placed_jobs(scenario, provenance)
    ]


def _memory_text(memory: tuple[float, float] | None) -> str:
    if memory is None:
        return ""
    return _("about %(needed)s GB of %(capacity)s GB") % {
        "needed": formatting.number(memory[0], 0 if memory[0].is_integer() else 1),
        "capacity": formatting.number(memory[1]),
    }


def measured_part(link: Permalink) -> dict[str, Any] | None:
    """How little a measured-usage plan knows, in one sentence: the days measured and the
    months of the profile filled by repeating their average (None for another plan)."""
    days = observed_days(link.provenance)
    share = filled_share(link.provenance)
    if days is None or share is None:
        return None
    item = next(i for i in link.provenance if i.get("role") == "measured usage")
    months, filled = int(item["profile_months"]), int(item.get("filled_months") or 0)
    values = {
        "days": formatting.number(days, 1),
        "filled": formatting.number(filled),
        "months": formatting.number(months),
    }
    sentence = (
        _(
            "Measured usage: %(days)s days observed; %(filled)s of the profile's %(months)s months "
            "are filled by repeating the measured average, and their uncertainty ranges are "
            "widened accordingly."
        )
        % values
    )
    if days < MIN_OBSERVED_DAYS:
        sentence += " " + _(
            "With fewer than %(minimum)s days measured, the verdict is at best “too uncertain "
            "to call”."
        ) % {"minimum": MIN_OBSERVED_DAYS}
    return {"sentence": sentence, "days": days, "filled": filled, "months": months}


def fixed_part(link: Permalink) -> dict[str, Any] | None:
    """The inputs left out of the ranges and the tornado because their low and high are the
    same (the electricity price when the hosting fee includes power), in one note; None when
    every range has a spread."""
    fixed = fixed_inputs(link)
    if not fixed:
        return None
    cur = link.scenario.currency
    named = [
        _("%(input)s (%(value)s at both ends)")
        % {"input": field_label(r.path), "value": range_value(r.path, r.low, cur)}
        for r in fixed
    ]
    sentence = ngettext(
        "Left out of the ranges and the tornado: %(list)s. Its low and high are the same, so "
        "it cannot move the answer.",
        "Left out of the ranges and the tornado: %(list)s. Their lows and highs are the same, "
        "so they cannot move the answer.",
        len(fixed),
    ) % {"list": _("; ").join(named)}
    return {"sentence": sentence, "paths": " ".join(r.path for r in fixed)}


def results_context(link: Permalink, code: str | None = None) -> dict[str, Any]:
    """Template context of the results page for a decoded permalink (and its code, if known)."""
    scenario = link.scenario
    sources = catalog_sources(link.provenance)
    # the one function behind every verdict (webapp.decided): the saved lists, the compare
    # page, the files and the API show what it decided; its projection of the plan, monthly
    # series too, is the page's only one (the books read it)
    one = decided(scenario, link.ranges, link.provenance, monthly=True)
    result, decision = one.result, one.decision
    said = verdict(decision, scenario)
    commitment = commitment_part(link)
    return {
        "scenario": scenario,
        "result": result,
        "decision": decision,
        "verdict": said,
        # "how sure", from the Monte Carlo the verdict was decided with: in the page itself,
        # not waiting for the analysis document and the charts' scripts
        "how_sure": None
        if one.uncertainty is None
        else how_sure(decision, one.uncertainty, one.draws, scenario.currency),
        "verdict_in_present_value": discounted(decision),
        "discount_rate": rate_text(scenario.discount_rate_per_year),
        "sentence": said.headline,
        "savings_label": ngettext(
            "Savings of building over %(months)s month",
            "Savings of building over %(months)s months",
            scenario.horizon_months,
        )
        % {"months": scenario.horizon_months}
        + " "
        + _("(cash, resale credited)"),
        "compared": what_is_compared(scenario, decision, compared(link.provenance, _day(link))),
        "fleet_chart": fleet_size(scenario) is not None,
        "commitment": commitment,
        "chosen": chosen_for_you(link, None if commitment is None else commitment["table"]),
        "price_age": price_age_part(link),
        "jobs": jobs_part(scenario, link.provenance),
        "rented_jobs": rented_jobs_part(scenario, link.provenance),
        "ranges": ranges_table(ranges_of(link), scenario.currency),
        "ranges_chosen": bool(link.ranges),
        "fixed": fixed_part(link),
        "measured": measured_part(link),
        "inputs": input_rows(scenario, sources, link.overrides),
        "from_catalog": bool(link.provenance),
        "provenance": link.provenance,
        "sources": sources,
        "overrides": link.overrides,
        "permalink": code or encode_link(link),
    }


def ranking_section(link: Permalink, code: str, saved: str | None = None) -> dict[str, Any] | None:
    """ "Every way to do this work" (:func:`webapp.planner.ranking.ranking_part`): each row
    opens its own results page through ``planner:results-option``, naming the plan by its
    permalink code, or by the saved scenario's id (``saved``) for one too large for a link."""
    plan = urlencode({"saved": saved} if saved is not None else {"from": code})
    base = f"{reverse('planner:results-option')}?{plan}"  # the long code quoted once

    def link_for(preset: str | None, offering: str | None) -> str:
        return f"{base}&{urlencode({'preset': preset or '', 'offering': offering or ''})}"

    return ranking_part(link, link_for)


def results_fragments(
    link: Permalink, code: str | None = None, saved: str | None = None
) -> dict[str, str]:
    """The rendered headline and details fragments of a results page, and its title.

    Rendered for every request: permalinks are many and each is visited
    rarely, so a cache of pages would mostly miss (and one per worker, as
    Django's local-memory cache is, even more so). Neither fragment holds a
    form, a token or anything else of the visitor's.
    """
    return _fragments(link, results_context(link, code), saved)


def _fragments(link: Permalink, context: dict[str, Any], saved: str | None) -> dict[str, str]:
    context["ranking"] = ranking_section(link, context["permalink"], saved)

    def fragment(name: str) -> SafeString:
        return SafeString(render_to_string(f"planner/{name}.html", context))

    return {
        "summary": fragment("results_summary"),
        "details": fragment("results_details"),
        "title": str(context["sentence"]),  # plain text: escaped when shown
    }


def results_page(
    request: HttpRequest, link: Permalink, code: str, saved: str | None = None
) -> dict[str, Any]:
    """Context of the results page shell: the fragments plus what varies per visitor (the
    view adds ``saved`` and ``can_modify`` for a saved scenario's page, whose id is
    ``saved``: its ranking rows name it when the plan is too large for a link). The plan is
    projected once: the books read the projection the verdict was made from."""
    context = results_context(link, code)
    fragments = _fragments(link, context, None if saved is None or fits_in_link(code) else saved)
    return {
        "fragments": fragments,
        "title": fragments["title"],
        "scenario": link.scenario,
        "permalink": code,
        "linkable": fits_in_link(code),
        "saved": None,
        "can_modify": False,
        "finance": finance_context(link.scenario, request.GET, context["result"]),
        "language_next": request.path,  # the language switcher returns here, without a query
    }

"""Saved scenarios in bulk, as a 200-team organisation would have after a year of use: for
the scale benchmark (`make bench-scale`) and the worker tests.

Each row is what a save makes — a scenario resolved from the shipped catalog, its
selection, the values its user typed in (``overrides``) and provenance, and the decision
its results page states — written in batches (``bulk_create``: no signal, no task).
Owners are spread over ``teams`` teams of five people each; every row is shared with its
owner's team.

The plans are many and different, drawn with a fixed seed as a year of saves goes:

- each team plans in one currency (one in four in CNY) and rents in that currency's market
  (:mod:`webapp.planner.market`: the four mainland-China offerings for CNY, the 61 others for
  USD), some offerings far more often than others (the n-th most popular is picked about
  1/n as often as the first);
- every preset of the catalog, each team mostly between two of them; the ResNet-50 or BERT
  benchmark; steady use at 20–100 % or tidal use (10–22 days a month, 6–12 hours a day);
  a horizon of 12 to 60 months; a tariff picked by hand for some;
- about one in six with a value typed in (a quoted box price, an electricity price, a
  negotiated hourly rate, a monthly ops cost);
- and honest repetition: two saves in five are a plan the team saved before, saved
  again (a teammate's copy, the same plan after a meeting).

Each distinct plan is resolved and decided once (its Monte Carlo included, as a save
does); :func:`populate` says how many distinct plans there are and how long deciding them
took. With ``priced`` the rows also carry the decision the worker stores at today's prices
(:mod:`webapp.scenarios.services`, the same function), as after the worker's last run: the
state a catalog change finds.

    DATABASE_URL=... .venv/bin/python -m benchmarks.scale_data --count 10000 --teams 200
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only")
os.environ.setdefault("DJANGO_STATIC_MANIFEST", "false")

MEMBERS_PER_TEAM = 5
SEED = 37
CNY_TEAMS = 0.25
"""The share of teams that plan in CNY (and rent in mainland China)."""
FAVOURITE_PRESETS = 2
FAVOURITE_SHARE = 0.8
"""How often a team's new plan uses one of its favourite presets."""
SAVED_AGAIN = 0.4
"""How often a save is a plan its team saved before."""
TYPED_IN = 1 / 6
"""How often a plan carries a value its user typed in."""
STEADY_UTILIZATIONS = (0.2, 0.35, 0.5, 0.65, 0.8, 1.0)
TIDAL_DAYS = (10, 15, 20, 22)
TIDAL_HOURS = (6, 8, 10, 12)
HORIZONS = (12, 24, 36, 48, 60)
HORIZON_WEIGHTS = (1, 3, 5, 2, 2)
BENCHMARKS = ("resnet50-fp16", "bert-large-fp16")


@dataclass
class Plan:
    """One distinct plan: what its rows store."""

    selection: dict[str, Any]
    overrides: list[str]
    scenario: dict[str, Any]
    provenance: list[dict[str, Any]]
    decision: Any  # webapp.scenarios.decisions.StoredDecision
    inputs: str  # webapp.scenarios.services.inputs_digest of its scenario


@dataclass
class Made:
    """What :func:`populate` wrote."""

    rows: int
    distinct_plans: int
    distinct_scenarios: int
    decide_cpu_s: float
    decide_wall_s: float
    offerings: dict[str, int] = field(default_factory=dict)
    """Rows per cloud offering, most used first."""
    presets: int = 0
    """How many of the catalog's presets the rows use."""
    currencies: dict[str, int] = field(default_factory=dict)
    """Rows per currency."""

    def as_report(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "distinct_plans": self.distinct_plans,
            "distinct_scenarios": self.distinct_scenarios,
            "decide_cpu_s": round(self.decide_cpu_s, 1),
            "decide_wall_s": round(self.decide_wall_s, 1),
            "offerings_used": len(self.offerings),
            "presets_used": self.presets,
            "currencies": self.currencies,
        }


class Planner:
    """Draws the plans of a year of saves and resolves and decides each distinct one once."""

    def __init__(self, seed: int = SEED) -> None:
        import datetime

        from webapp.catalog.models import BuildPreset, Tariff
        from webapp.catalog.selectors import CatalogSnapshot
        from webapp.planner.market import market_offerings

        self.rng = random.Random(seed)
        self.catalog = CatalogSnapshot(datetime.date.today())
        self.presets = sorted(BuildPreset.objects.values_list("slug", flat=True))
        tariffs = sorted(set(Tariff.objects.values_list("slug", flat=True)))
        self.tariffs = {
            "USD": [t for t in tariffs if not t.startswith("cn-")],
            "CNY": [t for t in tariffs if t.startswith("cn-")],
        }
        self.offerings: dict[str, list[str]] = {}
        self.weights: dict[str, list[float]] = {}
        for currency in ("USD", "CNY"):
            slugs = [offering.slug for offering in market_offerings(currency, self.catalog)]
            self.rng.shuffle(slugs)  # popularity: the n-th is picked about 1/n as often
            self.offerings[currency] = slugs
            self.weights[currency] = [1 / (rank + 1) for rank in range(len(slugs))]
        self.plans: dict[str, Plan] = {}
        self.refused = 0
        self.decide_cpu = 0.0
        self.decide_wall = 0.0

    def team(self) -> tuple[str, list[str]]:
        """A new team's currency and favourite presets."""
        currency = "CNY" if self.rng.random() < CNY_TEAMS else "USD"
        return currency, self.rng.sample(self.presets, FAVOURITE_PRESETS)

    def draw(self, currency: str, favourites: list[str]) -> tuple[dict[str, Any], str | None]:
        """A new plan's selection and the field its user types a value in (or None)."""
        rng = self.rng
        if rng.random() < FAVOURITE_SHARE:
            preset = rng.choice(favourites)
        else:
            preset = rng.choice(self.presets)
        workload: dict[str, Any]
        if rng.random() < 0.7:
            workload = {"kind": "steady", "utilization": rng.choice(STEADY_UTILIZATIONS)}
        else:
            workload = {
                "kind": "tidal",
                "active_days_per_month": rng.choice(TIDAL_DAYS),
                "hours_per_active_day": rng.choice(TIDAL_HOURS),
            }
        selection: dict[str, Any] = {
            "preset": preset,
            "cloud_offering": rng.choices(self.offerings[currency], self.weights[currency])[0],
            "benchmark": rng.choices(BENCHMARKS, (7, 3))[0],
            "workload": workload,
            "horizon_months": rng.choices(HORIZONS, HORIZON_WEIGHTS)[0],
            "currency": currency,
        }
        if rng.random() < 0.3:
            selection["tariff"] = rng.choice(self.tariffs[currency])
        typed = None
        if rng.random() < TYPED_IN:
            typed = rng.choice(
                (
                    "build.capex",
                    "build.electricity_price_per_kwh",
                    "rent.hourly_rate",
                    "build.ops_monthly",
                )
            )
        return selection, typed

    def typed_value(self, path: str, scenario: Any, currency: str) -> float:
        """A value a user would type in ``path``: a quote, a negotiated rate, a cost."""
        rng = self.rng
        if path == "build.capex":
            return float(round(scenario.build.capex * rng.uniform(0.85, 1.05), -1))
        if path == "build.electricity_price_per_kwh":
            return round(scenario.build.electricity_price_per_kwh * rng.uniform(0.8, 1.2), 3)
        if path == "rent.hourly_rate":
            return round(scenario.rent.hourly_rate * rng.choice((0.7, 0.8, 0.9)), 4)
        return float(rng.choice((100, 250, 500)) * (7 if currency == "CNY" else 1))

    def new_plan(self, currency: str, favourites: list[str]) -> str:
        """Draw a plan that resolves and decides; return its key (an earlier one if the same)."""
        from costmodel import ScenarioError
        from costmodel.errors import with_fields
        from webapp.catalog.resolver import resolve_data
        from webapp.scenarios.decisions import decide_today
        from webapp.scenarios.services import inputs_digest, repricing_key

        while True:
            selection, typed = self.draw(currency, favourites)
            try:
                resolution = resolve_data(selection, self.catalog)
            except ScenarioError:  # this tariff or offering does not go with this box
                self.refused += 1
                continue
            scenario = resolution.scenario
            kept: dict[str, Any] = {}
            if typed is not None:
                kept = {typed: self.typed_value(typed, scenario, currency)}
                scenario = with_fields(scenario, kept)
            data = scenario.model_dump(mode="json")
            key = repricing_key(_Keyed(selection, data, sorted(kept)))
            if key in self.plans:
                return key
            cpu, wall = time.process_time(), time.perf_counter()
            decision, _problem = decide_today(scenario)  # a save's decision: the results page's
            self.decide_cpu += time.process_time() - cpu
            self.decide_wall += time.perf_counter() - wall
            if decision is None:  # too large to price: a save would refuse it
                self.refused += 1
                continue
            self.plans[key] = Plan(
                selection=selection,
                overrides=sorted(kept),
                scenario=data,
                provenance=resolution.provenance,
                decision=decision,
                inputs=inputs_digest(scenario),
            )
            return key


@dataclass
class _Keyed:
    """What :func:`webapp.scenarios.services.repricing_key` reads of a saved scenario."""

    selection: dict[str, Any]
    scenario: dict[str, Any]
    overrides: list[str]


def plan_name(plan: Plan, number: int) -> str:
    selection = plan.selection
    workload = selection["workload"]
    if workload["kind"] == "steady":
        use = f"{workload['utilization']:.0%}"
    else:
        use = f"{workload['active_days_per_month']}d×{workload['hours_per_active_day']}h"
    return (
        f"{selection['preset']} vs {selection['cloud_offering']}, {use}, "
        f"{selection['horizon_months']} mo #{number}"
    )


def populate(count: int, teams: int, *, priced: bool = False, batch: int = 1000) -> Made:
    """Write ``count`` saved scenarios over ``teams`` teams (see the module's docstring).

    ``priced``: the rows also store their decision at today's prices, at the current
    catalog version, as the worker's last run left them."""
    from django.contrib.auth.models import Group, User
    from django.utils import timezone

    from webapp.accounts.models import Team
    from webapp.catalog.selectors import catalog_version, forget_catalog_version
    from webapp.scenarios.decisions import saved_fields
    from webapp.scenarios.models import SavedScenario

    planner = Planner()
    if not planner.presets or not planner.offerings["USD"]:
        raise SystemExit("no catalog to plan from: run load_catalog first")
    start = User.objects.count()
    User.objects.bulk_create(
        User(username=f"scale-user-{start + i}", email=f"user{start + i}@example.com")
        for i in range(teams * MEMBERS_PER_TEAM)
    )
    users = list(User.objects.filter(username__startswith="scale-user-").order_by("pk"))[
        -teams * MEMBERS_PER_TEAM :
    ]
    Group.objects.bulk_create(Group(name=f"scale-team-{start + i}") for i in range(teams))
    groups = list(Group.objects.filter(name__startswith="scale-team-").order_by("pk"))[-teams:]
    Team.objects.bulk_create(Team(group=group) for group in groups)
    team_rows = list(Team.objects.filter(group__in=groups).order_by("group_id"))
    Membership = User.groups.through
    Membership.objects.bulk_create(
        Membership(user_id=user.pk, group_id=groups[i // MEMBERS_PER_TEAM].pk)
        for i, user in enumerate(users)
    )
    tastes = [planner.team() for _ in range(teams)]
    saved: list[list[str]] = [[] for _ in range(teams)]  # each team's plans so far
    forget_catalog_version()
    version = catalog_version()
    offerings: dict[str, int] = {}
    currencies: dict[str, int] = {}
    pending = []
    for i in range(count):
        owner = i % len(users)
        t = owner // MEMBERS_PER_TEAM
        if saved[t] and planner.rng.random() < SAVED_AGAIN:
            key = planner.rng.choice(saved[t])
        else:
            key = planner.new_plan(*tastes[t])
        saved[t].append(key)
        plan = planner.plans[key]
        slug = plan.selection["cloud_offering"]
        offerings[slug] = offerings.get(slug, 0) + 1
        currencies[plan.selection["currency"]] = currencies.get(plan.selection["currency"], 0) + 1
        today: dict[str, Any] = {}
        if priced:
            today = {
                "today_inputs": plan.inputs,
                "today_code": plan.decision["code"],
                "today_savings": plan.decision["savings"],
                "today_present_value_savings": plan.decision["present_value_savings"],
                "today_problem": "",
                "today_catalog_version": version,
                "today_computed_at": timezone.now(),
                "changed_today": False,
            }
        pending.append(
            SavedScenario(
                name=plan_name(plan, i),
                scenario=plan.scenario,
                provenance=plan.provenance,
                selection=plan.selection,
                overrides=plan.overrides,
                owner=users[owner],
                team=team_rows[t],
                **saved_fields(plan.decision),
                **today,
            )
        )
        if len(pending) >= batch:
            SavedScenario.objects.bulk_create(pending)
            pending = []
    SavedScenario.objects.bulk_create(pending)
    return Made(
        rows=count,
        distinct_plans=len(planner.plans),
        distinct_scenarios=len(
            {json.dumps(p.scenario, sort_keys=True) for p in planner.plans.values()}
        ),
        decide_cpu_s=planner.decide_cpu,
        decide_wall_s=planner.decide_wall,
        offerings=dict(sorted(offerings.items(), key=lambda item: -item[1])),
        presets=len({p.selection["preset"] for p in planner.plans.values()}),
        currencies=currencies,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--teams", type=int, default=200)
    parser.add_argument(
        "--priced", action="store_true", help="store today's decision too, as the worker would"
    )
    args = parser.parse_args()
    import django

    django.setup()
    start = time.perf_counter()
    made = populate(args.count, args.teams, priced=args.priced)
    report = made.as_report()
    report["populate_wall_s"] = round(time.perf_counter() - start, 1)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

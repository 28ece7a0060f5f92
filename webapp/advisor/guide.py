"""The guide, checked: run the claims of :mod:`webapp.advisor.claims` against today's catalog.

:func:`check_guide` builds every case of every claim from the catalog (one
selection per offering found, resolved by :func:`webapp.catalog.resolver.resolve`
from one snapshot of the catalog, never by hand), evaluates all of them in ONE
:func:`costmodel.project` batch, makes each case's :func:`costmodel.decision.decide`
codes from the same batch, and lets each check's rule judge its cases. The result
holds codes, engine figures and results permalinks; the templates put them into
words. When the catalog lacks something a case needs, that case says so and the
rest of the page still renders.

:func:`cached_check_guide` keeps the result in the database cache every worker
reads (``CACHES["shared"]``), under the catalog's version
(:func:`webapp.catalog.selectors.catalog_version`), the day and the language.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import caches
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from costmodel import ScenarioError, SteadyWorkload, project
from costmodel.decision import REFERENCE_UTILIZATION, Decision, decide, verdict_measure
from costmodel.projection import ProjectionOverflowError
from costmodel.scenario import Scenario
from costmodel.sensitivity import in_measure
from webapp.advisor.claims import (
    BENCHMARK,
    CLAIMS,
    CLUSTER_BENCHMARK,
    CURRENCY,
    HORIZON_MONTHS,
    Check,
    Claim,
    Offerings,
)
from webapp.advisor.verdicts import VERDICTS, Evidence, Verdict, combine
from webapp.catalog import selectors
from webapp.catalog.models import Benchmark, CloudOffering
from webapp.catalog.resolver import Selection, resolve
from webapp.catalog.selectors import CatalogSnapshot
from webapp.planner.permalink import encode

CACHE_SECONDS = 24 * 3600
"""Longest time a checked guide is kept [s]. It never goes stale: a catalog change gives a
new version, in every worker at once, and the key holds the day; the timeout bounds memory."""

DECISION_UTILIZATIONS = (0.0, REFERENCE_UTILIZATION, 1.0)
"""Steady utilizations each case is also run at, for its decision (same batch) [fraction]."""

GEFORCE_40_PATTERN = "RTX ?40[5-9]0"
"""GeForce RTX 40-series names: none of these cards has NVLink."""


@dataclass
class Case:
    """One scenario behind a verdict: its selection, the engine's figures and a permalink."""

    label: str
    offering: str
    """The cloud offering's name in the active language."""
    selection: Selection
    scenario: Scenario | None = None
    provenance: list[dict[str, Any]] = field(default_factory=list)
    problem: str | None = None
    """Why the catalog cannot supply this case (the resolver's message)."""
    summary: dict[str, Any] | None = None
    """Headline figures (:class:`costmodel.results.Summary` names)."""
    decision: Decision | None = None
    url: str | None = None
    on_demand: Case | None = None
    """The same case against the offering's on-demand sibling, when the rule compares them."""
    verdict: Verdict = "not_checkable"


@dataclass
class CheckResult:
    """A check of a claim with its cases and verdict."""

    spec: Check
    cases: list[Case]
    preset_name: str = ""
    verdict: Verdict = "not_checkable"
    measured: dict[str, Any] | None = None
    """The catalog's measured benchmark figure a throughput rule reads (value, unit, source)."""

    @property
    def checked(self) -> int:
        return sum(1 for case in self.cases if case.summary is not None)

    @property
    def counts(self) -> dict[str, int]:
        return {v: sum(1 for case in self.cases if case.verdict == v) for v in VERDICTS}

    @property
    def problem(self) -> str | None:
        """The first case's problem when no case could be computed."""
        if self.checked:
            return None
        return next((case.problem for case in self.cases if case.problem), None)


@dataclass
class ClaimResult:
    spec: Claim
    checks: list[CheckResult]

    @property
    def verdict(self) -> Verdict:
        return combine([check.verdict for check in self.checks])


@dataclass
class CheckedGuide:
    """Every claim's verdict, and what the page says around them."""

    claims: list[ClaimResult]
    currency: str
    horizon_months: int
    benchmark: str
    """The boxes' benchmark, by its name in the active language."""
    cluster_benchmark: str
    geforce_40_with_nvlink: list[str]
    """GeForce RTX 40-series models the catalog marks with NVLink (a wrong row)."""


# --- building the cases -----------------------------------------------------------------------


def offerings_for(queries: Iterable[Offerings]) -> list[CloudOffering]:
    """Every offering the queries find, in query order, each once."""
    found: dict[str, CloudOffering] = {}
    for q in queries:
        for offering in selectors.cloud_offerings(q.gpu, q.vram_gb, q.modes, q.gpu_count):
            found.setdefault(offering.slug, offering)
    return list(found.values())


def selection_for(check: Check, offering: CloudOffering, as_of: datetime.date | None) -> Selection:
    assert check.setup is not None
    committed = check.committed_instances if offering.is_commitment else None
    return Selection.model_validate(
        {
            "preset": check.setup.preset,
            "cloud_offering": offering.slug,
            "committed_instances": committed,
            "tariff": check.setup.tariff,
            "hosting": check.setup.hosting,
            "benchmark": check.setup.benchmark,
            "workload": dict(check.workload or {}),
            "horizon_months": check.horizon_months,
            "currency": CURRENCY,
            "as_of": as_of,
        },
        strict=False,
    )


def cases_for(check: Check, as_of: datetime.date | None) -> list[Case]:
    """One case per offering of the check (with its on-demand twin if the rule compares them)."""
    if check.setup is None:
        return []
    offerings = offerings_for(check.offerings)
    if check.first_offering_only:
        offerings = offerings[:1]
    cases = []
    for offering in offerings:
        case = _case(check, offering, as_of)
        sibling = offering.on_demand_sibling
        if check.rule.against_on_demand and sibling is not None:
            case.on_demand = _case(check, sibling, as_of)
        cases.append(case)
    return cases


def _case(check: Check, offering: CloudOffering, as_of: datetime.date | None) -> Case:
    name = offering.localized_name()
    return Case(
        label=f"{check.scenario} — {name}",
        offering=name,
        selection=selection_for(check, offering, as_of),
    )


# --- resolving and running them ---------------------------------------------------------------


def resolve_cases(cases: Iterable[Case], catalog: CatalogSnapshot) -> None:
    """Resolve each case from one snapshot of the catalog; a case the catalog cannot supply
    says why."""
    for case in cases:
        try:
            resolution = resolve(case.selection, catalog)
        except ScenarioError as exc:
            case.problem = "; ".join(str(error) for error in exc.errors)
            continue
        case.scenario = resolution.scenario.model_copy(update={"name": case.label[:200]})
        case.provenance = resolution.provenance


def decision_variants(scenario: Scenario) -> list[Scenario]:
    """The scenario at each of :data:`DECISION_UTILIZATIONS`, steady, all else unchanged."""
    return [
        scenario.model_copy(update={"workload": SteadyWorkload(kind="steady", utilization=u)})
        for u in DECISION_UTILIZATIONS
    ]


def run_in_one_batch(cases: Sequence[Case]) -> None:
    """One engine batch for every resolved case and its decision variants.

    Attaches the figures, the decision and the results permalink to each case.
    """
    ready = [case for case in cases if case.scenario is not None]
    if not ready:
        return
    width = 1 + len(DECISION_UTILIZATIONS)
    batch: list[Scenario] = []
    for case in ready:
        assert case.scenario is not None
        batch += [case.scenario, *decision_variants(case.scenario)]
    try:
        projection = project(batch, with_present_value_break_even=True)
    except ProjectionOverflowError:
        for case in ready:
            case.scenario = None
            case.problem = _("the catalog's figures are too large to compute")
        return
    for i, case in enumerate(ready):
        assert case.scenario is not None
        row = i * width
        case.summary = projection.summary(row)
        variants = slice(row + 1, row + width)
        cash = {
            "utilization": list(DECISION_UTILIZATIONS),
            "savings": projection.savings[variants].tolist(),
        }
        # the conditions in the verdict's own measure, as the results page states them
        sweep = in_measure(cash, projection, variants, row, verdict_measure(case.scenario))
        case.decision = decide(case.scenario, case.summary, sweep)
        case.url = _permalink(case)


def _permalink(case: Case) -> str:
    assert case.scenario is not None
    # The selection travels with the link so "change the inputs" reopens the planner on it.
    code = encode(case.scenario, case.provenance, None, case.selection.model_dump(mode="json"))
    return reverse("planner:results", args=[code])


# --- judging ----------------------------------------------------------------------------------


def judge(check: CheckResult, catalog: CatalogSnapshot) -> None:
    """Each computed case's verdict by the check's rule; the check's verdict from them.

    A rule that judges a catalog figure (a measured throughput, read from the same snapshot of
    the catalog as the cases) gives the check that figure's verdict, whether or not its case
    could be computed.
    """
    rule = check.spec.rule
    measured = _measured(check, catalog)
    for case in check.cases:
        if case.scenario is None or case.summary is None or case.decision is None:
            continue
        evidence = Evidence(
            scenario=case.scenario,
            summary=case.summary,
            decision=case.decision,
            on_demand=case.on_demand.summary if case.on_demand is not None else None,
            measured_throughput=None if measured is None else measured["value"],
        )
        case.verdict = rule.judge(evidence)
    if rule.measured_gpu() is None:
        check.verdict = combine([case.verdict for case in check.cases])
    elif measured is not None:
        check.verdict = rule.judge_figure(measured["value"])


def _measured(check: CheckResult, catalog: CatalogSnapshot) -> dict[str, Any] | None:
    slug = check.spec.rule.measured_gpu()
    if slug is None or check.spec.setup is None:
        return None
    gpu = catalog.gpu_models.get(slug)
    benchmark = catalog.benchmarks.get(check.spec.setup.benchmark)
    row = None if gpu is None or benchmark is None else catalog.throughput(gpu, benchmark)
    if row is None or row.measured_value is None:
        return None
    check.measured = {
        "value": float(row.measured_value),
        "unit": row.benchmark.unit,
        "source": row.source,
        "relative": float(row.relative_throughput),
        "gpu": row.gpu_model.localized_name(),
    }
    return check.measured


# --- the whole guide --------------------------------------------------------------------------


def check_guide(
    claims: Sequence[Claim] = CLAIMS, as_of: datetime.date | None = None
) -> CheckedGuide:
    """Every claim with its verdict, from the catalog in effect on ``as_of`` (default today)."""
    checks = {
        (claim.key, spec.key): CheckResult(spec=spec, cases=cases_for(spec, as_of))
        for claim in claims
        for spec in claim.checks
    }
    cases = [case for check in checks.values() for case in _with_twins(check.cases)]
    catalog = CatalogSnapshot(as_of or datetime.date.today())
    resolve_cases(cases, catalog)
    run_in_one_batch(cases)
    setups = [check.spec.setup for check in checks.values() if check.spec.setup is not None]
    presets = selectors.presets_by_slug(setup.preset for setup in setups)
    for check in checks.values():
        judge(check, catalog)
        preset = presets.get(check.spec.setup.preset) if check.spec.setup else None
        check.preset_name = preset.localized_name() if preset is not None else ""
    return CheckedGuide(
        claims=[
            ClaimResult(spec=claim, checks=[checks[(claim.key, spec.key)] for spec in claim.checks])
            for claim in claims
        ],
        currency=CURRENCY,
        horizon_months=HORIZON_MONTHS,
        benchmark=_benchmark_name(BENCHMARK),
        cluster_benchmark=_benchmark_name(CLUSTER_BENCHMARK),
        geforce_40_with_nvlink=[
            gpu.localized_name()
            for gpu in selectors.gpu_models_named(GEFORCE_40_PATTERN)
            if gpu.supports_nvlink
        ],
    )


def cached_check_guide() -> CheckedGuide:
    """:func:`check_guide` for today, cached per catalog version and language."""
    key = ":".join(
        (
            "advisor.guide",
            selectors.catalog_version(),
            datetime.date.today().isoformat(),
            get_language() or "",
        )
    )
    cache = caches["shared"]
    guide: CheckedGuide | None = cache.get(key)
    if guide is None:
        guide = check_guide()
        cache.set(key, guide, CACHE_SECONDS)
    return guide


def _with_twins(cases: Iterable[Case]) -> list[Case]:
    return [c for case in cases for c in (case, case.on_demand) if c is not None]


def _benchmark_name(slug: str) -> str:
    row = selectors.by_slug(Benchmark, slug)
    return row.localized_name() if row is not None else slug

"""The guide, checked: each cost claim of the sizing guides against the current catalog.

For every claim in ``SIZING_RULES.md`` this module builds the scenarios that
test it from the catalog (through the resolver, never by hand), runs them
through the engine in ONE :func:`costmodel.project` batch, and states a
verdict with the engine's figures and a results permalink for each scenario.
Verdict thresholds are named constants below and explained in
``docs/advisor.md``. When the catalog lacks something a claim needs, that
claim's verdict is "not checkable" with the resolver's message; the page
never fails because of it.

The only arithmetic here is comparing engine (or catalog) figures with the
claim's numbers.
"""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from django.core.cache import cache
from django.db import models
from django.db.models import Count, F, Max, Min, Sum
from django.db.models.functions import Cast
from django.urls import reverse
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from costmodel import ScenarioError, project
from costmodel.projection import ProjectionOverflowError
from costmodel.scenario import Scenario
from costmodel.sizing import is_geforce_40_series
from webapp.catalog import models as catalog_models
from webapp.catalog.models import CloudOffering, GpuModel, GpuThroughput, PricingMode
from webapp.catalog.resolver import Resolution, Selection, resolve
from webapp.planner.formatting import money, months, number, percent
from webapp.planner.permalink import encode

Verdict = Literal["holds", "partly", "does_not_hold", "not_checkable"]

VERDICT_LABELS = {
    "holds": gettext_lazy("holds"),
    "partly": gettext_lazy("partly holds"),
    "does_not_hold": gettext_lazy("does not hold"),
    "not_checkable": gettext_lazy("not checkable from cost data"),
}

CURRENCY = "CNY"
"""The guides quote CNY; every scenario here is priced in CNY."""

BENCHMARK = "resnet50-fp16"
"""Throughput normalisation for every scenario (the guides' example workload)."""

HORIZON_MONTHS = 36
"""Horizon of the buy-vs-rent scenarios: three years, within the 5–6 years of useful life."""

HIGH_UTILIZATION = 0.8
"""'High frequency' / the guide's "training runs at high frequency": 80 % of every month."""

CONTINUOUS_UTILIZATION = 1.0
"""'Continuous use': the box trains around the clock."""

TIDAL_ACTIVE_DAYS = 4
"""'A few days a month': 4 active days of 24 h."""

SHORT_PROJECT_MONTHS = 3
"""A short project: 3 months at high utilization."""

FLUCTUATING_PROFILE = (0.9, 0.1, 0.6, 0.0, 0.3, 0.8, 0.0, 0.2, 0.5, 0.1, 0.0, 0.4)
"""Fluctuating demand over one year (mean 32.5 %), horizon 12 months."""

ABOUT_TOLERANCE = 0.05
"""The guides say "about": a figure within 5 % of the claimed range still holds."""

PRICE_RANGE_TOLERANCE = 0.20
"""A price within 20 % of the claimed range's nearer end 'partly' holds."""

ABOUT_FACTOR = 1.5
"""'About N months' holds for a break-even month in ``[N / 1.5, N × 1.5]``."""

THROUGHPUT_TOLERANCE = 0.20
"""A throughput within 20 % of the claimed range's nearer end 'partly' holds."""

SERVER_TARIFF = "cn-industrial-average"
SERVER_HOSTING = "cn-colo-metered"
DESK_TARIFF = "cn-business-average"
DESK_HOSTING = "office-deskside"
MULTI_PRESET = "multi-4x-rtx4090"
BUDGET_PRESET = "budget-rtx4060ti"
ENTRY_PRESET = "entry-rtx4090"
"""The catalog rows each claim is checked with (slugs; see docs/advisor.md)."""


@dataclass
class Case:
    """One scenario behind a verdict, with the engine's figures for it."""

    label: str
    selection: Selection | None = None
    resolution: Resolution | None = None
    result: dict[str, Any] | None = None
    verdict: Verdict = "not_checkable"
    summary: str = ""
    url: str | None = None

    @property
    def verdict_label(self) -> str:
        return str(VERDICT_LABELS[self.verdict])


@dataclass
class Check:
    """One testable part of a claim: a question, a verdict, the cases behind it."""

    question: str
    verdict: Verdict = "not_checkable"
    finding: str = ""
    cases: list[Case] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)

    @property
    def verdict_label(self) -> str:
        return str(VERDICT_LABELS[self.verdict])


@dataclass
class Claim:
    """A claim of the guide, in its words, with the checks that test it.

    ``title`` names the claim in a few words for the page's summary of verdicts.
    """

    key: str
    text: str
    checks: list[Check]
    verdict: Verdict = "not_checkable"
    title: str = ""

    @property
    def verdict_label(self) -> str:
        return str(VERDICT_LABELS[self.verdict])


# --- verdict rules ------------------------------------------------------------------------


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


def range_verdict(value: float, low: float, high: float, tolerance: float) -> Verdict:
    """'About low – high': within 5 % of the range holds; within ``tolerance`` partly holds."""
    if low * (1 - ABOUT_TOLERANCE) <= value <= high * (1 + ABOUT_TOLERANCE):
        return "holds"
    if low * (1 - tolerance) <= value <= high * (1 + tolerance):
        return "partly"
    return "does_not_hold"


def payback_within_a_year_verdict(break_even_month: float | None, horizon: int) -> Verdict:
    """'Buying beats renting beyond a year': cash break-even ≤ 12 holds; later partly; never not."""
    if break_even_month is None:
        return "does_not_hold"
    if break_even_month <= 12:
        return "holds"
    return "partly" if break_even_month <= horizon else "does_not_hold"


def about_months_verdict(break_even_month: float | None, claimed: float) -> Verdict:
    """'Pays back after about N months': within a factor 1.5 holds; any payback partly."""
    if break_even_month is None:
        return "does_not_hold"
    if claimed / ABOUT_FACTOR <= break_even_month <= claimed * ABOUT_FACTOR:
        return "holds"
    return "partly"


def renting_cheaper_verdict(
    savings: float, break_even_month: float | None, horizon: int
) -> Verdict:
    """'Renting is cheaper': on both cash (no payback in the horizon) and net-of-resale savings."""
    cash_rent_cheaper = break_even_month is None or break_even_month > horizon
    net_rent_cheaper = savings < 0
    if cash_rent_cheaper and net_rent_cheaper:
        return "holds"
    if not cash_rent_cheaper and not net_rent_cheaper:
        return "does_not_hold"
    return "partly"


# --- catalog queries ------------------------------------------------------------------------


def _a100_80gb_offerings() -> list[CloudOffering]:
    return list(
        CloudOffering.objects.filter(gpu_model__name__icontains="A100", gpu_model__vram_gb=80)
        .select_related("gpu_model")
        .order_by("provider", "slug")
    )


def _geforce_offerings() -> list[CloudOffering]:
    """Rentals of GeForce cards (RTX 3090 / 4090 class): 'cloud capacity of the same class'."""
    offerings = CloudOffering.objects.filter(gpu_model__name__iregex=r"RTX ?[0-9]{4}")
    return list(offerings.select_related("gpu_model").order_by("provider", "slug"))


def _on_demand(offerings: list[CloudOffering]) -> list[CloudOffering]:
    return [o for o in offerings if o.pricing_mode == PricingMode.ON_DEMAND]


def _offering_label(o: CloudOffering) -> str:
    return f"{o.provider} {o.instance_type} ({o.get_pricing_mode_display()})"


# --- building and running the scenarios -----------------------------------------------------


def _workload(kind: str, **values: Any) -> dict[str, Any]:
    return {"kind": kind, **values}


def _case(
    label: str,
    *,
    preset: str,
    offering: str,
    tariff: str,
    hosting: str,
    workload: dict[str, Any],
    horizon_months: int,
    as_of: datetime.date | None,
) -> Case:
    selection = Selection.model_validate(
        {
            "preset": preset,
            "cloud_offering": offering,
            "tariff": tariff,
            "hosting": hosting,
            "benchmark": BENCHMARK,
            "workload": workload,
            "horizon_months": horizon_months,
            "currency": CURRENCY,
            "as_of": as_of,
        },
        strict=False,
    )
    return Case(label=label, selection=selection)


def _resolve_all(cases: list[Case]) -> None:
    """Resolve each case; a case the catalog cannot supply says why."""
    for case in cases:
        assert case.selection is not None
        try:
            case.resolution = resolve(case.selection)
        except ScenarioError as exc:
            case.summary = _("Not checkable: the catalog lacks what this needs (%(problem)s).") % {
                "problem": "; ".join(str(e) for e in exc.errors)
            }


def _run_all(cases: list[Case]) -> None:
    """One engine batch for every resolved case; results and permalinks attached."""
    ready = [c for c in cases if c.resolution is not None]
    if not ready:
        return
    scenarios: list[Scenario] = []
    for case in ready:
        assert case.resolution is not None
        scenarios.append(case.resolution.scenario.model_copy(update={"name": case.label[:200]}))
    try:
        projection = project(scenarios)
    except ProjectionOverflowError:
        for case in ready:
            case.resolution = None
            case.summary = _("Not checkable: the catalog's figures are too large to compute.")
        return
    for i, case in enumerate(ready):
        assert case.resolution is not None
        case.result = projection.result(i)
        assert case.selection is not None
        # The selection travels with the link so "change the inputs" reopens the planner on it.
        selection = case.selection.model_dump(mode="json")
        code = encode(scenarios[i], case.resolution.provenance, None, selection)
        case.url = reverse("planner:results", args=[code])


def _figures(case: Case) -> dict[str, Any]:
    r = case.result or {}
    return {
        "savings": r.get("savings"),
        "break_even_month": r.get("break_even_month"),
        "break_even_utilization": r.get("break_even_utilization"),
        "capex": r.get("scenario", {}).get("build", {}).get("capex"),
        "build_total_net": r.get("build", {}).get("total_net"),
        "rent_total": r.get("rent", {}).get("total"),
    }


def _break_even_words(bem: float | None, horizon: int) -> str:
    if bem is None:
        return _("does not pay back within %(horizon)s") % {"horizon": months(horizon, 0)}
    return _("pays back after %(months)s") % {"months": months(bem)}


def _judge(cases: list[Case], judge: Callable[[dict[str, Any], int], Verdict]) -> None:
    for case in cases:
        if case.result is None:
            continue
        horizon = case.result["scenario"]["horizon_months"]
        f = _figures(case)
        case.verdict = judge(f, horizon)
        case.summary = _(
            "%(payback)s; savings of building over %(horizon)s: %(savings)s "
            "(build %(build)s net of resale, rent %(rent)s); break-even utilization %(beu)s."
        ) % {
            "payback": _break_even_words(f["break_even_month"], horizon),
            "horizon": months(horizon, 0),
            "savings": money(f["savings"], CURRENCY),
            "build": money(f["build_total_net"], CURRENCY),
            "rent": money(f["rent_total"], CURRENCY),
            "beu": percent(f["break_even_utilization"])
            if f["break_even_utilization"] is not None
            else "—",
        }


def _cases_check(question: str, cases: list[Case], empty_reason: str) -> Check:
    check = Check(question=question, cases=cases)
    if not cases:
        check.finding = empty_reason
        return check
    check.verdict = combine([c.verdict for c in cases if c.result is not None])
    counts = {v: sum(1 for c in cases if c.verdict == v) for v in VERDICT_LABELS}
    checked = sum(1 for c in cases if c.result is not None)
    check.figures = {"cases": checked, **counts}
    if checked == 0:
        check.finding = empty_reason
    else:
        check.finding = _(
            "Against %(n)s cloud offerings from the catalog: holds for %(holds)s, partly for "
            "%(partly)s, does not hold for %(no)s."
        ) % {
            "n": checked,
            "holds": counts["holds"],
            "partly": counts["partly"],
            "no": counts["does_not_hold"],
        }
    return check


def _price_check(question: str, case: Case | None, low: float, high: float) -> Check:
    check = Check(question=question, cases=[case] if case else [])
    if case is None or case.result is None:
        check.finding = case.summary if case else _("Not checkable: the catalog lacks the preset.")
        return check
    capex = case.result["scenario"]["build"]["capex"]
    check.verdict = range_verdict(capex, low, high, PRICE_RANGE_TOLERANCE)
    check.figures = {"capex": capex, "low": low, "high": high}
    check.finding = _(
        "From today's catalog prices the preset costs %(capex)s (claimed %(low)s – %(high)s)."
    ) % {
        "capex": money(capex, CURRENCY, 0),
        "low": money(low, CURRENCY, 0),
        "high": money(high, CURRENCY, 0),
    }
    case.verdict = check.verdict
    case.summary = check.finding
    return check


# --- the claims -----------------------------------------------------------------------------

CACHE_SECONDS = 600
"""Longest time a cached check is shown (edits to text fields show within 10 minutes)."""

_FINGERPRINT_MODELS = (
    "BuildPreset",
    "PresetPart",
    "Part",
    "PartPrice",
    "GpuModel",
    "GpuThroughput",
    "CloudOffering",
    "CloudRate",
    "FxRate",
    "Tariff",
    "TariffPeriod",
    "HostingOption",
)

_SUMMED_FIELDS = (
    models.DecimalField,
    models.IntegerField,
    models.FloatField,
    models.BooleanField,
    models.ForeignKey,
)


def catalog_fingerprint() -> tuple[tuple[Any, ...], ...]:
    """One aggregate row per catalog table: count, highest id, sums of its figures, dates.

    Adding or removing a row, or editing a figure, a date or a link between rows
    in place, changes it (short of edits that cancel out exactly).
    """
    rows = []
    for name in _FINGERPRINT_MODELS:
        model = getattr(catalog_models, name)
        aggregates: dict[str, Any] = {"n": Count("pk"), "top": Max("pk")}
        for f in model._meta.concrete_fields:
            if f.primary_key:
                continue
            if isinstance(f, models.DateField):
                aggregates[f"max_{f.attname}"] = Max(f.attname)
                aggregates[f"min_{f.attname}"] = Min(f.attname)
            elif isinstance(f, _SUMMED_FIELDS):
                column = (
                    Cast(f.attname, models.IntegerField())
                    if isinstance(f, models.BooleanField)
                    else F(f.attname)
                )
                aggregates[f"sum_{f.attname}"] = Sum(column)
        values = model.objects.aggregate(**aggregates)
        rows.append(tuple(str(values[k]) for k in sorted(values)))
    return tuple(rows)


def benchmark_name() -> str:
    """The catalog's name of :data:`BENCHMARK` (the slug itself when the catalog lacks it)."""
    name = (
        catalog_models.Benchmark.objects.filter(slug=BENCHMARK)
        .values_list("name", flat=True)
        .first()
    )
    return name or BENCHMARK


def cached_check_guide() -> list[Claim]:
    """:func:`check_guide` for today, cached per language and catalog fingerprint.

    Resolving the ~60 scenarios takes a second or more; the page need not
    redo it for every visitor.
    """
    state = repr((datetime.date.today().isoformat(), get_language(), catalog_fingerprint()))
    key = "planner.guide:" + hashlib.sha256(state.encode()).hexdigest()
    claims: list[Claim] | None = cache.get(key)
    if claims is None:
        claims = check_guide()
        cache.set(key, claims, CACHE_SECONDS)
    return claims


def check_guide(as_of: datetime.date | None = None) -> list[Claim]:
    """Every claim of the guides with its verdict, from the catalog in effect on ``as_of``."""
    a100 = _a100_80gb_offerings()
    geforce = _geforce_offerings()
    rentals = a100 + [o for o in geforce if is_geforce_40_series(o.gpu_model.name)]

    def cases_for(offerings: list[CloudOffering], label: str, **kwargs: Any) -> list[Case]:
        return [
            _case(f"{label} — {_offering_label(o)}", offering=o.slug, as_of=as_of, **kwargs)
            for o in offerings
        ]

    server = dict(preset=MULTI_PRESET, tariff=SERVER_TARIFF, hosting=SERVER_HOSTING)
    budget = dict(preset=BUDGET_PRESET, tariff=DESK_TARIFF, hosting=DESK_HOSTING)
    entry = dict(preset=ENTRY_PRESET, tariff=DESK_TARIFF, hosting=DESK_HOSTING)
    high = _workload("steady", utilization=HIGH_UTILIZATION)
    continuous = _workload("steady", utilization=CONTINUOUS_UTILIZATION)
    tidal = _workload("tidal", active_days_per_month=TIDAL_ACTIVE_DAYS, hours_per_active_day=24)
    fluctuating = _workload("profile", monthly_utilization=list(FLUCTUATING_PROFILE))

    reference = a100[0].slug if a100 else (rentals[0].slug if rentals else "")
    server_price = _case(
        _("4 × RTX 4090 server, purchase price"),
        workload=high,
        horizon_months=HORIZON_MONTHS,
        offering=reference,
        as_of=as_of,
        **server,
    )
    server_cases = cases_for(
        rentals,
        _("4 × RTX 4090 server in colocation, 80 % busy"),
        workload=high,
        horizon_months=HORIZON_MONTHS,
        **server,
    )
    budget_price = _case(
        _("RTX 4060 Ti box, purchase price"),
        workload=continuous,
        horizon_months=HORIZON_MONTHS,
        offering=geforce[0].slug if geforce else reference,
        as_of=as_of,
        **budget,
    )
    budget_cases = cases_for(
        geforce,
        _("RTX 4060 Ti desk-side box, continuous use"),
        workload=continuous,
        horizon_months=HORIZON_MONTHS,
        **budget,
    )
    tidal_cases = cases_for(
        rentals,
        _("RTX 4090 desk-side box, 4 busy days a month"),
        workload=tidal,
        horizon_months=HORIZON_MONTHS,
        **entry,
    )
    short_cases = cases_for(
        _on_demand(rentals),
        _("RTX 4090 desk-side box, 3-month project at 80 %"),
        workload=high,
        horizon_months=SHORT_PROJECT_MONTHS,
        **entry,
    )
    fluctuating_cases = cases_for(
        _on_demand(rentals),
        _("RTX 4090 desk-side box, fluctuating demand for a year"),
        workload=fluctuating,
        horizon_months=len(FLUCTUATING_PROFILE),
        **entry,
    )
    throughput_case = _case(
        _("RTX 4090 desk-side box, 80 % busy, where the throughput figure is used"),
        workload=high,
        horizon_months=HORIZON_MONTHS,
        offering=reference,
        as_of=as_of,
        **entry,
    )
    everything = [
        server_price,
        throughput_case,
        *server_cases,
        budget_price,
        *budget_cases,
        *tidal_cases,
        *short_cases,
        *fluctuating_cases,
    ]
    _resolve_all(everything)
    _run_all(everything)

    _judge(server_cases, lambda f, h: payback_within_a_year_verdict(f["break_even_month"], h))
    _judge(budget_cases, lambda f, h: about_months_verdict(f["break_even_month"], 6))

    def renting_cheaper(f: dict[str, Any], h: int) -> Verdict:
        return renting_cheaper_verdict(f["savings"], f["break_even_month"], h)

    _judge(tidal_cases, renting_cheaper)
    _judge(short_cases, renting_cheaper)
    _judge(fluctuating_cases, renting_cheaper)

    no_rentals = _("Not checkable: the catalog lacks cloud offerings of this class.")
    claims = [
        Claim(
            key="server-4x4090",
            title=_("4 × RTX 4090 server: price, and payback within a year"),
            text=_(
                "A dual-Xeon server with 4 × RTX 4090 costs about 150 000 – 200 000 CNY. Buying "
                "beats renting when training runs for more than a year at high frequency; owners "
                "must also pay colocation, electricity, maintenance and failed-part replacement."
            ),
            checks=[
                _price_check(
                    _("Does the server cost 150 000 – 200 000 CNY?"), server_price, 150_000, 200_000
                ),
                _cases_check(
                    _(
                        # xgettext:no-python-format (the % is literal, never formatted)
                        "At 80 % utilization in metered colocation, with maintenance, does "
                        "building pay back within a year (and so beat renting for longer runs)?"
                    ),
                    server_cases,
                    no_rentals,
                ),
            ],
        ),
        Claim(
            key="server-4060ti",
            title=_("RTX 4060 Ti box: price, and payback in about six months"),
            text=_(
                "A self-built RTX 4060 Ti server costs about 6 000 – 8 000 CNY and pays for itself "
                "after about six months of continuous use against cloud capacity of the same class."
            ),
            checks=[
                _price_check(_("Does the box cost 6 000 – 8 000 CNY?"), budget_price, 6_000, 8_000),
                _cases_check(
                    _(
                        "Running around the clock, does it pay back after about six months "
                        "(4 – 9) against GeForce-class rentals?"
                    ),
                    budget_cases,
                    no_rentals,
                ),
            ],
        ),
        Claim(
            key="tidal",
            title=_("A few busy days a month: renting is cheaper"),
            text=_("Tidal workloads (training only a few days a month) are cheaper to rent."),
            checks=[
                _cases_check(
                    _(
                        "With 4 busy days a month over three years, is renting cheaper than an "
                        "RTX 4090 desk-side box, in cash and net of resale?"
                    ),
                    tidal_cases,
                    no_rentals,
                )
            ],
        ),
        Claim(
            key="short-projects",
            title=_("Short projects and fluctuating demand: renting is cheaper"),
            text=_("Short projects and fluctuating demand suit hourly cloud billing."),
            checks=[
                _cases_check(
                    _(
                        "For a 3-month project at 80 %, is on-demand renting cheaper than buying "
                        "an RTX 4090 box, in cash and net of resale?"
                    ),
                    short_cases,
                    no_rentals,
                ),
                _cases_check(
                    _(
                        # xgettext:no-python-format (the % is literal, never formatted)
                        "For a year of fluctuating demand (32.5 % on average), is on-demand "
                        "renting cheaper, in cash and net of resale?"
                    ),
                    fluctuating_cases,
                    no_rentals,
                ),
            ],
        ),
        Claim(
            key="resnet50-throughput",
            title=_("RTX 4090 trains ResNet-50 at 300 – 500 images/s"),
            text=_(
                "Entry tier (RTX 4090, batch 32): ResNet-50 trains at about 300 – 500 images/s "
                "on an ImageNet subset."
            ),
            checks=[_throughput_check(throughput_case)],
        ),
        Claim(
            key="speedups",
            title=_("Mixed precision, pipeline tuning and TFRecord speed-ups"),
            text=_(
                "Mixed precision gives 1.5 – 3× on V100-and-newer GPUs; pipeline tuning gives "
                "+30 – 50 % throughput; TFRecord loading is 3 – 5× faster than reading raw image "
                "files."
            ),
            checks=[
                Check(
                    question=_("Can cost data check these speed-ups?"),
                    finding=_(
                        "Not checkable from cost data: the catalog holds one FP16 throughput per "
                        "GPU and benchmark, no FP32 figures and nothing about input pipelines or "
                        "file formats. Plausible, and worth measuring on your own pipeline."
                    ),
                )
            ],
        ),
    ]
    for claim in claims:
        claim.verdict = combine([c.verdict for c in claim.checks])
    return claims


def _throughput_check(entry_case: Case) -> Check:
    question = _("Does the catalog's RTX 4090 ResNet-50 figure fall in 300 – 500 images/s?")
    check = Check(question=question, cases=[entry_case] if entry_case.url else [])
    row = (
        GpuThroughput.objects.filter(
            gpu_model__slug="rtx-4090", benchmark__slug=BENCHMARK, measured_value__isnull=False
        )
        .select_related("benchmark")
        .first()
    )
    if row is None:
        check.finding = _(
            "Not checkable: the catalog lacks a measured RTX 4090 ResNet-50 FP16 throughput."
        )
        return check
    measured = float(row.measured_value)
    check.verdict = range_verdict(measured, 300, 500, THROUGHPUT_TOLERANCE)
    check.figures = {"measured": measured, "relative": float(row.relative_throughput)}
    check.finding = _(
        "The catalog has %(measured)s %(unit)s at FP16 (%(source)s), %(low)s – %(high)s× the "
        "claim; relative to the reference A100 that is %(relative)s, the figure the scenarios "
        "use. 300 – 500 images/s is what a 4090 reaches at FP32 or when the input pipeline, not "
        "the GPU, is the bottleneck: tune the pipeline before buying more GPU."
    ) % {
        "measured": number(measured),
        "unit": row.benchmark.unit,
        "source": row.source or _("no source"),
        "low": number(measured / 500, 1),
        "high": number(measured / 300, 1),
        "relative": number(float(row.relative_throughput), 2),
    }
    entry_case.verdict = check.verdict
    if entry_case.result is not None:
        entry_case.summary = _(
            "In this scenario the box's GPU throughput is %(throughput)s × the reference A100's."
        ) % {"throughput": number(entry_case.result["scenario"]["build"]["gpu_throughput"], 2)}
    return check


@dataclass
class KnownError:
    text: str
    correction: str


def known_errors() -> list[KnownError]:
    """The guides' factual errors the advisor corrects, with what the catalog says."""
    nvlink = GpuModel.objects.filter(name__iregex=r"RTX ?40[5-9]0").values_list(
        "name", "supports_nvlink"
    )
    with_nvlink = [name for name, supports in nvlink if supports]
    catalog_note = (
        _("The catalog marks %(names)s with NVLink: that row is wrong.")
        % {"names": ", ".join(with_nvlink)}
        if with_nvlink
        else _("The catalog agrees: no GeForce RTX 40-series model in it supports NVLink.")
    )
    return [
        KnownError(
            text=_("8 × RTX 4090 (needs an NVLink bridge)."),
            correction=_(
                "The RTX 4090 has no NVLink; multi-4090 boxes communicate over PCIe only. %(note)s"
            )
            % {"note": catalog_note},
        ),
        KnownError(
            text=_("TensorFlow 2.10 and later no longer support the GPU on Linux by default."),
            correction=_(
                "Native Windows GPU support ended after 2.10; Linux GPU support continues "
                "(pip install tensorflow[and-cuda] from 2.14)."
            ),
        ),
    ]

"""Hypothesis strategies for valid explicit scenarios (as JSON-like dicts).

Magnitudes span what a real catalog holds (and a little more); exact zeros and
the bounds themselves are drawn often, since that is where edge cases live.
Every numeric field of the scenario is drawn by :func:`every_scenario`
(``test_strategies.py`` holds it to that); each fixed monthly fee is drawn from
its declaration in :mod:`costmodel.lines`, so a new fee is drawn without a line
here. :func:`nonzero_scenarios` draws every input away from zero, for the
tests that must see each cost line at work (the workbook recalculated).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from costmodel.lines import SideName, fees_of

FEE_MAX = 20_000.0
"""Largest fixed monthly fee drawn for a fee without a magnitude of its own [currency/month]."""


def often(
    special: list[float], general: st.SearchStrategy[float], one_in: int = 8
) -> st.SearchStrategy[float]:
    """``general``, but one draw in ``one_in`` is one of the ``special`` values."""
    return st.integers(1, one_in).flatmap(lambda k: st.sampled_from(special) if k == 1 else general)


def amounts(max_value: float) -> st.SearchStrategy[float]:
    """Finite non-negative floats up to ``max_value``, 0 drawn often."""
    return often([0.0], st.floats(0, max_value, allow_subnormal=False))


def fractions() -> st.SearchStrategy[float]:
    return often([0.0, 1.0], st.floats(0, 1, allow_subnormal=False))


def throughputs() -> st.SearchStrategy[float]:
    return st.floats(0.01, 20, allow_nan=False)


def steady_workloads() -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(lambda u: {"kind": "steady", "utilization": u}, fractions())


def tidal_workloads() -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda d, h: {"kind": "tidal", "active_days_per_month": d, "hours_per_active_day": h},
        often([0.0, 31.0], st.floats(0, 31, allow_subnormal=False)),
        often([24.0], st.floats(0.1, 24), one_in=3),
    )


def profile_workloads() -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda values: {"kind": "profile", "monthly_utilization": values},
        st.lists(fractions(), min_size=1, max_size=30),
    )


def workloads() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(steady_workloads(), tidal_workloads(), profile_workloads())


@st.composite
def builds(draw: st.DrawFn) -> dict[str, Any]:
    load = draw(amounts(5000))
    idle_share = draw(often([0.0, 1.0], st.floats(0, 1)))
    return {
        "gpu_count": draw(st.integers(1, 16)),
        "gpu_throughput": draw(throughputs()),
        "capex": draw(amounts(2_000_000)),
        "power_load_watts": load,
        "power_idle_watts": min(idle_share * load, load),
        "pue": draw(often([1.0, 3.0], st.floats(1, 3), one_in=3)),
        "electricity_price_per_kwh": draw(amounts(5)),
        "hosting_monthly": draw(amounts(20_000)),
        "maintenance_rate_per_year": draw(fractions()),
        "ops_monthly": draw(amounts(50_000)),
        "residual_value_retention_per_year": draw(fractions()),
    }


def rents() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "gpu_count": st.integers(1, 16),
            "gpu_throughput": throughputs(),
            "hourly_rate": amounts(1000),
            "fixed_monthly": amounts(10_000),
            "annual_price_change": often(
                [0.0, -0.9, 1.0], st.floats(-0.9, 1, allow_subnormal=False), one_in=4
            ),
        }
    )


def scenarios(
    workload: st.SearchStrategy[dict[str, Any]] | None = None,
    horizon: st.SearchStrategy[int] | None = None,
) -> st.SearchStrategy[dict[str, Any]]:
    """Valid explicit scenarios of all three workload kinds, horizons 1..240."""
    return st.fixed_dictionaries(
        {
            "currency": st.sampled_from(["CNY", "USD"]),
            "horizon_months": (st.integers(1, 240) | st.sampled_from([1, 240]))
            if horizon is None
            else horizon,
            "discount_rate_per_year": fractions(),
            "workload": workloads() if workload is None else workload,
            "build": builds(),
            "rent": rents(),
        }
    )


# --- version 2: every optional field, often at its default ---------------------------------


def demands() -> st.SearchStrategy[float]:
    """Steady or profile utilization up to 8 boxes' worth of work, bounds drawn often."""
    return often([0.0, 1.0, 8.0], st.floats(0, 8, allow_subnormal=False), one_in=5)


def v2_workloads() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.builds(lambda u: {"kind": "steady", "utilization": u}, demands()),
        tidal_workloads(),
        st.builds(
            lambda values: {"kind": "profile", "monthly_utilization": values},
            st.lists(demands(), min_size=1, max_size=30),
        ),
    )


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``None`` (the field left out) in one draw of three."""
    return st.one_of(st.none(), strategy, strategy)


def other_fees(
    draw: st.DrawFn, side: SideName, drawn: dict[str, Any], fee: st.SearchStrategy[float]
) -> dict[str, Any]:
    """Each fixed monthly fee of ``side`` (:func:`costmodel.lines.fees_of`) not already
    ``drawn``, by ``fee`` (``None``: left out)."""
    fees = {
        line.fee.field: draw(fee)
        for line in fees_of(side)
        if line.fee is not None and line.fee.field not in drawn
    }
    return {field: value for field, value in fees.items() if value is not None}


def gpu_memories() -> st.SearchStrategy[float]:
    """GPU memory of one GPU [GB] (version 4): 8 GB cards to the largest, bounds drawn often."""
    return often([8.0, 24.0, 80.0], st.floats(1, 200, allow_subnormal=False), one_in=3)


@st.composite
def v2_builds(draw: st.DrawFn) -> dict[str, Any]:
    build = draw(builds())
    build |= other_fees(draw, "build", build, maybe(amounts(FEE_MAX)))
    extras = {
        "gpu_memory_gb": draw(maybe(gpu_memories())),
        "useful_life_months": draw(maybe(often([1, 12, 36], st.integers(1, 240)))),
        "capex_annual_price_change": draw(
            maybe(often([-0.9, 0.0, 1.0], st.floats(-0.9, 1, allow_subnormal=False)))
        ),
        "running_cost_annual_change": draw(
            maybe(often([-0.5, 0.0, 1.0], st.floats(-0.5, 1, allow_subnormal=False)))
        ),
        "financing": draw(
            maybe(
                st.fixed_dictionaries(
                    {
                        "down_payment_fraction": fractions(),
                        "annual_interest_rate": often([0.0], fractions()),
                        "term_months": often([1, 120], st.integers(1, 120)),
                    }
                )
            )
        ),
    }
    return {**build, **{k: v for k, v in extras.items() if v is not None}}


@st.composite
def v2_rents(draw: st.DrawFn) -> dict[str, Any]:
    rent = draw(rents())
    rent |= other_fees(draw, "rent", rent, maybe(amounts(FEE_MAX)))
    extras = {
        "gpu_memory_gb": draw(maybe(gpu_memories())),
        "rework_fraction": draw(maybe(fractions())),
        "committed_instances": draw(maybe(often([0, 1], st.integers(0, 20)))),
        "committed_hourly_rate": draw(maybe(amounts(1000))),
        "commitment_term_months": draw(maybe(often([1, 12, 36, 120], st.integers(1, 120)))),
        "commitment_upfront_per_instance": draw(maybe(amounts(100_000))),
    }
    return {**rent, **{k: v for k, v in extras.items() if v is not None}}


def v2_scenarios(
    workload: st.SearchStrategy[dict[str, Any]] | None = None,
    horizon: st.SearchStrategy[int] | None = None,
) -> st.SearchStrategy[dict[str, Any]]:
    """Valid scenarios using any version-2 field, horizons 1..240."""
    return st.fixed_dictionaries(
        {
            "currency": st.sampled_from(["CNY", "USD"]),
            "horizon_months": (st.integers(1, 240) | st.sampled_from([1, 12, 240]))
            if horizon is None
            else horizon,
            "discount_rate_per_year": fractions(),
            "workload": v2_workloads() if workload is None else workload,
            "build": v2_builds(),
            "rent": v2_rents(),
        }
    )


def jobs_workloads(memory: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    """Jobs workloads: 1..5 jobs, runs as one number or a repeating monthly list; with
    ``memory``, a run's GPU memory (version 4) given or left out, so that some jobs are
    rented by the build plan and some refused."""
    runs = often([0.0], st.floats(0, 20, allow_subnormal=False), one_in=5)
    memory_gb = {"memory_gb": st.floats(1, 2000, allow_subnormal=False)} if memory else {}
    job = st.fixed_dictionaries(
        {
            "name": st.text(min_size=1, max_size=20),
            "reference_gpu_hours": st.floats(0.01, 3000, allow_subnormal=False),
            "runs_per_month": runs | st.lists(runs, min_size=1, max_size=14),
        },
        optional=memory_gb,
    )
    return st.builds(
        lambda jobs: {"kind": "jobs", "jobs": jobs}, st.lists(job, min_size=1, max_size=5)
    )


def every_scenario() -> st.SearchStrategy[dict[str, Any]]:
    """Scenarios of every workload kind, jobs included, with any version-2 field."""
    return st.one_of(v2_scenarios(), v2_scenarios(workload=jobs_workloads(memory=True)))


# --- every input at work: no zero, every optional field given ------------------------------


def positive(low: float, high: float) -> st.SearchStrategy[float]:
    """Floats in ``[low, high]``, ``low > 0``: never the zero that switches a line off."""
    return st.floats(low, high, allow_nan=False, allow_infinity=False, allow_subnormal=False)


@st.composite
def nonzero_builds(draw: st.DrawFn, horizon: int) -> dict[str, Any]:
    load = draw(positive(100, 5000))
    build = {
        "gpu_count": draw(st.integers(1, 16)),
        "gpu_throughput": draw(positive(0.1, 10)),
        "gpu_memory_gb": draw(positive(8, 192)),
        "capex": draw(positive(1000, 2_000_000)),
        "power_load_watts": load,
        "power_idle_watts": draw(positive(0.05, 0.95)) * load,
        "pue": draw(positive(1.05, 3)),
        "electricity_price_per_kwh": draw(positive(0.01, 5)),
        "maintenance_rate_per_year": draw(positive(0.005, 0.5)),
        "residual_value_retention_per_year": draw(positive(0.05, 0.99)),
        # shorter than the horizon when it can be, so that a box is replaced
        "useful_life_months": draw(st.integers(1, max(1, horizon - 1))),
        "capex_annual_price_change": draw(positive(0.01, 0.5) | positive(-0.5, -0.01)),
        "running_cost_annual_change": draw(positive(0.01, 0.3) | positive(-0.3, -0.01)),
        "financing": {
            "down_payment_fraction": draw(positive(0.05, 0.95)),
            "annual_interest_rate": draw(positive(0.005, 0.3)),
            "term_months": draw(st.integers(1, 120)),
        },
    }
    return build | other_fees(draw, "build", build, positive(1, FEE_MAX))


@st.composite
def nonzero_rents(draw: st.DrawFn, horizon: int) -> dict[str, Any]:
    rent = {
        "gpu_count": draw(st.integers(1, 16)),
        "gpu_throughput": draw(positive(0.1, 10)),
        "gpu_memory_gb": draw(positive(8, 192)),
        "hourly_rate": draw(positive(0.1, 1000)),
        "annual_price_change": draw(positive(0.01, 0.5) | positive(-0.5, -0.01)),
        "rework_fraction": draw(positive(0.01, 0.5)),
        "committed_instances": draw(st.integers(1, 4)),
        "committed_hourly_rate": draw(positive(0.1, 1000)),
        # shorter than the horizon when it can be, so that a second term starts
        "commitment_term_months": draw(st.integers(1, max(1, min(120, horizon - 1)))),
        "commitment_upfront_per_instance": draw(positive(1, 100_000)),
    }
    return rent | other_fees(draw, "rent", rent, positive(1, FEE_MAX))


@st.composite
def nonzero_scenarios(draw: st.DrawFn, max_horizon: int = 36) -> dict[str, Any]:
    """Valid scenarios whose every input is given and not zero (horizons 2..``max_horizon``):
    every cost line at work, a replacement, a loan, commitments and their renewal, hybrid
    demand above one box."""
    horizon = draw(st.integers(2, max_horizon))
    workload = draw(
        st.one_of(
            st.builds(lambda u: {"kind": "steady", "utilization": u}, positive(0.05, 3)),
            st.builds(
                lambda d, h: {
                    "kind": "tidal",
                    "active_days_per_month": d,
                    "hours_per_active_day": h,
                },
                positive(1, 31),
                positive(0.5, 24),
            ),
            st.builds(
                lambda values: {"kind": "profile", "monthly_utilization": values},
                st.lists(positive(0.05, 3), min_size=1, max_size=14),
            ),
        )
    )
    return {
        "currency": draw(st.sampled_from(["CNY", "USD"])),
        "horizon_months": horizon,
        "discount_rate_per_year": draw(positive(0.01, 0.3)),
        "workload": workload,
        "build": draw(nonzero_builds(horizon)),
        "rent": draw(nonzero_rents(horizon)),
    }

"""Hypothesis strategies for valid explicit scenarios (as JSON-like dicts).

Magnitudes span what a real catalog holds (and a little more); exact zeros and
the bounds themselves are drawn often, since that is where edge cases live.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


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

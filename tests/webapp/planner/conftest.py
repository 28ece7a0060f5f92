import copy

import pytest

STEADY_4090 = {
    "name": "Single RTX 4090 box vs one cloud A100 80GB, steady 80 %",
    "currency": "CNY",
    "horizon_months": 36,
    "discount_rate_per_year": 0.08,
    "workload": {"kind": "steady", "utilization": 0.8},
    "build": {
        "gpu_count": 1,
        "gpu_throughput": 0.6,
        "capex": 25000.0,
        "power_load_watts": 650.0,
        "power_idle_watts": 110.0,
        "pue": 1.2,
        "electricity_price_per_kwh": 0.8,
        "hosting_monthly": 0.0,
        "maintenance_rate_per_year": 0.05,
        "ops_monthly": 0.0,
        "residual_value_retention_per_year": 0.7,
    },
    "rent": {
        "gpu_count": 1,
        "gpu_throughput": 1.0,
        "hourly_rate": 28.0,
        "fixed_monthly": 30.0,
        "annual_price_change": 0.0,
    },
}


@pytest.fixture
def scenario_data() -> dict:
    """The methodology's worked example (break-even 2.6717 months), as a fresh dict."""
    return copy.deepcopy(STEADY_4090)


@pytest.fixture
def shipped_catalog(db):
    """The price catalog as `make run` loads it from fixtures/ (rolled back after the test)."""
    from webapp.catalog.fixtures_io import load_catalog

    load_catalog()


@pytest.fixture
def scenario(scenario_data):
    from costmodel import parse_scenario

    return parse_scenario(scenario_data)


@pytest.fixture
def permalink(scenario):
    from webapp.planner.permalink import encode

    return encode(scenario)

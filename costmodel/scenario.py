"""The explicit scenario: every input of one build-vs-rent comparison.

Field names, defaults and bounds are those of the methodology
(``docs/methodology.md``); other tools read them, so they never change.
Validation is strict: numbers must be finite, a boolean is not a number, a
string is not a number, an integer field rejects ``2.0``, and unknown fields
are refused.

Version 2 of the methodology adds optional fields (hybrid demand above one
box, hardware life, price trends, financing, spot rework, commitments). Each
has a default that leaves a version-1 scenario's figures exactly as they were.
"""

from __future__ import annotations

from typing import Annotated, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

HOURS_PER_MONTH = 730.0
"""Hours in one month [h]: 8760 / 12."""

MAX_HORIZON_MONTHS = 240

MAX_DEMAND_MULTIPLE = 8.0
"""Largest steady or profile utilization: work wanted, as a multiple of what one box does."""


class _Strict(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        allow_inf_nan=False,
        frozen=True,
        validate_default=True,
    )


NonNegative = Annotated[float, Field(ge=0)]
Fraction = Annotated[float, Field(ge=0, le=1)]
Demand = Annotated[float, Field(ge=0, le=MAX_DEMAND_MULTIPLE)]
AnnualChange = Annotated[float, Field(ge=-0.9, le=1)]


class SteadyWorkload(_Strict):
    """The same work every month: ``demand = u × 730`` box-hours [h].

    ``u`` above 1 is work beyond what one box does (hybrid burst): the box is
    busy all month and the rest is rented on demand.
    """

    kind: Literal["steady"]
    utilization: Demand


class TidalWorkload(_Strict):
    """Bursts: ``busy = min(d × h, 730)`` [h] for ``d`` active days of ``h`` hours."""

    kind: Literal["tidal"]
    active_days_per_month: Annotated[float, Field(ge=0, le=31)]
    hours_per_active_day: Annotated[float, Field(gt=0, le=24)] = 24.0


class ProfileWorkload(_Strict):
    """A monthly profile, applied cyclically: ``demand[m] = u[(m-1) mod n] × 730`` [h]."""

    kind: Literal["profile"]
    monthly_utilization: Annotated[list[Demand], Field(min_length=1, max_length=MAX_HORIZON_MONTHS)]


Workload = Annotated[SteadyWorkload | TidalWorkload | ProfileWorkload, Field(discriminator="kind")]


class Financing(_Strict):
    """A loan for the box: a down payment at month 0, then level monthly payments."""

    down_payment_fraction: Fraction = 0.0
    annual_interest_rate: Fraction
    term_months: Annotated[int, Field(ge=1, le=120)]


class Build(_Strict):
    """The self-built box. Amounts in the scenario currency; power in watts at the wall."""

    gpu_count: Annotated[int, Field(ge=1)]
    gpu_throughput: Annotated[float, Field(gt=0)]
    capex: NonNegative
    power_load_watts: NonNegative
    power_idle_watts: NonNegative
    pue: Annotated[float, Field(ge=1, le=3)] = 1.0
    electricity_price_per_kwh: NonNegative
    hosting_monthly: NonNegative
    maintenance_rate_per_year: Fraction = 0.0
    ops_monthly: NonNegative = 0.0
    residual_value_retention_per_year: Fraction = 0.7
    useful_life_months: Annotated[int, Field(ge=1, le=MAX_HORIZON_MONTHS)] | None = None
    capex_annual_price_change: AnnualChange = 0.0
    running_cost_annual_change: Annotated[float, Field(ge=-0.5, le=1)] = 0.0
    financing: Financing | None = None

    @model_validator(mode="after")
    def _idle_not_above_load(self) -> Self:
        if self.power_idle_watts > self.power_load_watts:
            raise ValueError("power_idle_watts: must be less than or equal to power_load_watts")
        return self


class Rent(_Strict):
    """The cloud instance that would do the same work."""

    gpu_count: Annotated[int, Field(ge=1)]
    gpu_throughput: Annotated[float, Field(gt=0)]
    hourly_rate: NonNegative
    fixed_monthly: NonNegative = 0.0
    annual_price_change: AnnualChange = 0.0
    rework_fraction: Fraction = 0.0
    committed_instances: Annotated[int, Field(ge=0)] = 0
    committed_hourly_rate: NonNegative = 0.0
    commitment_term_months: Annotated[int, Field(ge=1, le=120)] = 12
    commitment_upfront_per_instance: NonNegative = 0.0


class Scenario(_Strict):
    """One explicit build-vs-rent scenario (the engine's only input)."""

    name: Annotated[str, Field(max_length=200)] | None = None
    currency: Annotated[str, Field(pattern=r"^[A-Z]{3}$")]
    horizon_months: Annotated[int, Field(ge=1, le=MAX_HORIZON_MONTHS)]
    discount_rate_per_year: Fraction = 0.0
    workload: Workload
    build: Build
    rent: Rent

"""The explicit scenario: every input of one build-vs-rent comparison.

Field names, defaults and bounds are those of the methodology
(``docs/methodology.md``); other tools read them, so they never change.
Validation is strict: numbers must be finite, a boolean is not a number, a
string is not a number, an integer field rejects ``2.0``, and unknown fields
are refused.
"""

from __future__ import annotations

from typing import Annotated, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

HOURS_PER_MONTH = 730.0
"""Hours in one month [h]: 8760 / 12."""

MAX_HORIZON_MONTHS = 240


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


class SteadyWorkload(_Strict):
    """The build is busy the same fraction of every month: ``busy = u × 730`` [h]."""

    kind: Literal["steady"]
    utilization: Fraction


class TidalWorkload(_Strict):
    """Bursts: ``busy = min(d × h, 730)`` [h] for ``d`` active days of ``h`` hours."""

    kind: Literal["tidal"]
    active_days_per_month: Annotated[float, Field(ge=0, le=31)]
    hours_per_active_day: Annotated[float, Field(gt=0, le=24)] = 24.0


class ProfileWorkload(_Strict):
    """A monthly utilization profile, applied cyclically: ``busy[m] = u[(m-1) mod n] × 730``."""

    kind: Literal["profile"]
    monthly_utilization: Annotated[
        list[Fraction], Field(min_length=1, max_length=MAX_HORIZON_MONTHS)
    ]


Workload = Annotated[SteadyWorkload | TidalWorkload | ProfileWorkload, Field(discriminator="kind")]


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
    annual_price_change: Annotated[float, Field(ge=-0.9, le=1)] = 0.0


class Scenario(_Strict):
    """One explicit build-vs-rent scenario (the engine's only input)."""

    name: Annotated[str, Field(max_length=200)] | None = None
    currency: Annotated[str, Field(pattern=r"^[A-Z]{3}$")]
    horizon_months: Annotated[int, Field(ge=1, le=MAX_HORIZON_MONTHS)]
    discount_rate_per_year: Fraction = 0.0
    workload: Workload
    build: Build
    rent: Rent

"""The explicit scenario: every input of one build-vs-rent comparison.

Field names, defaults and bounds are those of the methodology
(``docs/methodology.md``); other tools read them, so they never change.
Validation is strict: numbers must be finite, a boolean is not a number, a
string is not a number, an integer field rejects ``2.0``, and unknown fields
are refused.

Version 2 of the methodology adds optional fields (hybrid demand above one
box, hardware life, price trends, financing, spot rework, commitments). Each
has a default that leaves a version-1 scenario's figures exactly as they were.
Version 3 adds a fourth workload, training jobs (:class:`JobsWorkload`).
Version 4 adds memory: what one run of a job needs (``memory_gb``) and what one
GPU of the box and of the instance holds (``gpu_memory_gb``); a job is placed
on the box when the box holds it, else rented by the build plan
(:func:`placements`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Annotated, Any, Literal, Self

import numpy as np
import numpy.typing as npt
from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationInfo,
    model_validator,
)
from pydantic_core import PydanticCustomError

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


MAX_JOBS = 50
"""Most jobs a jobs workload may list."""

MAX_RUNS_MONTHS = 120
"""Longest list of runs per month a job may give (it repeats)."""


def _runs_kind(value: Any) -> str:
    return "list" if isinstance(value, list) else "number"


Runs = Annotated[
    Annotated[float, Field(ge=0), Tag("number")]
    | Annotated[
        list[Annotated[float, Field(ge=0)]],
        Field(min_length=1, max_length=MAX_RUNS_MONTHS),
        Tag("list"),
    ],
    Discriminator(_runs_kind),
]
"""Runs in a month: one number for every month, or a list of monthly numbers that repeats."""


class Job(_Strict):
    """One kind of training run: its work [reference GPU-hours per run] and how often it runs."""

    name: Annotated[str, Field(min_length=1, max_length=200)]
    reference_gpu_hours: Annotated[float, Field(gt=0)]
    runs_per_month: Runs
    memory_gb: Annotated[float, Field(gt=0)] | None = None
    """GPU memory one run needs: weights, gradients, optimizer state, activations [GB];
    null: it fits anywhere."""


class JobsWorkload(_Strict):
    """Work stated as jobs: ``Σ_j runs_j(m) × reference_gpu_hours_j`` reference GPU-hours a month.

    The box-hours this asks for depend on the box (its GPUs and their
    throughput), so :class:`Scenario` converts them (see
    :meth:`reference_gpu_hours`) and refuses a month above 8 boxes' work.
    """

    kind: Literal["jobs"]
    jobs: Annotated[list[Job], Field(min_length=1, max_length=MAX_JOBS)]

    def reference_gpu_hours(self, months: int) -> npt.NDArray[np.float64]:
        """Work wanted in months ``0..months − 1`` [reference GPU-h] (:func:`jobs_work`)."""
        work: npt.NDArray[np.float64] = jobs_work(self, 1, months)[0]
        return work


def jobs_work(
    workload: JobsWorkload,
    count: int,
    months: int,
    values: Mapping[str, npt.ArrayLike] | None = None,
) -> npt.NDArray[np.float64]:
    """Work wanted (count, months) [reference GPU-h] of every job, wherever it runs.

    See :func:`placed_work` for the arguments; this is its two parts summed.
    """
    on_box, rented = placed_work(workload, count, months, values)
    total: npt.NDArray[np.float64] = on_box + rented
    return total


def placed_work(
    workload: JobsWorkload,
    count: int,
    months: int,
    values: Mapping[str, npt.ArrayLike] | None = None,
    box_memory_gb: npt.ArrayLike | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Work wanted (count, months) [reference GPU-h] of copies of a jobs workload, 0 in month 0.

    ``values`` sets some of each job's fields per copy: arrays of shape (count,)
    under ``workload.jobs.<j>.reference_gpu_hours``, ``….runs_per_month`` (a
    number) or ``….runs_per_month.<i>`` (an entry of a list). ``box_memory_gb``
    (count,) is what each copy's box holds (``build.gpu_count ×
    build.gpu_memory_gb``; default: no limit).

    Returns
    -------
    on_box, rented : ndarray, shape (count, months)
        The work of the jobs the box holds (``memory_gb ≤ box_memory_gb``, or no
        memory given), and of the others, which the build plan rents.

    Notes
    -----
    ``work[m] = Σ_j runs_j(m) × reference_gpu_hours_j`` with ``runs_j(m)`` the
    job's number, or its list's entry ``(m − 1) mod n`` (a list repeats).
    """
    values = values or {}
    work = np.zeros((count, months))
    rented = np.zeros((count, months))
    box = np.broadcast_to(np.inf if box_memory_gb is None else box_memory_gb, (count,))
    for j, job in enumerate(workload.jobs):
        prefix = f"workload.jobs.{j}."
        hours = np.broadcast_to(
            values.get(prefix + "reference_gpu_hours", job.reference_gpu_hours), (count,)
        )
        m = np.arange(months)
        if isinstance(job.runs_per_month, list):
            table = np.tile(np.asarray(job.runs_per_month, dtype=np.float64), (count, 1))
            for i in range(table.shape[1]):
                if f"{prefix}runs_per_month.{i}" in values:
                    table[:, i] = values[f"{prefix}runs_per_month.{i}"]
            runs = np.where(m >= 1, table[:, (m - 1) % table.shape[1]], 0.0)
        else:
            number = np.broadcast_to(
                values.get(prefix + "runs_per_month", job.runs_per_month), (count,)
            )
            runs = np.where(m >= 1, number[:, None], 0.0)
        job_work = runs * hours[:, None]
        if job.memory_gb is None:
            work += job_work
        else:
            fits = (job.memory_gb <= box)[:, None]
            work += np.where(fits, job_work, 0.0)
            rented += np.where(fits, 0.0, job_work)
    return work, rented


Placement = Literal["box", "rent"]


def memory_of(gpu_count: int, gpu_memory_gb: float | None) -> float:
    """Memory a run may be sharded across on one box or instance [GB]: ``gpu_count ×
    gpu_memory_gb``, inf when the GPU's memory is not given (no limit)."""
    if gpu_memory_gb is None:
        return math.inf
    try:
        return float(gpu_count) * gpu_memory_gb
    except OverflowError:  # a count beyond float64
        return math.inf


def placements(scenario: Scenario) -> list[Placement]:
    """Where each job of a jobs workload runs: on the ``box`` when it holds the job, else
    ``rent`` (the build plan rents it).

    Notes
    -----
    ``M_b = build.gpu_count × build.gpu_memory_gb``: a run may be sharded across
    the GPUs of one box, never across boxes. A job is on the box when its
    ``memory_gb ≤ M_b`` (or either is not given).
    """
    workload = scenario.workload
    if not isinstance(workload, JobsWorkload):
        raise ValueError("only a jobs workload has jobs")
    box = memory_of(scenario.build.gpu_count, scenario.build.gpu_memory_gb)
    return [
        "box" if job.memory_gb is None or job.memory_gb <= box else "rent" for job in workload.jobs
    ]


Workload = Annotated[
    SteadyWorkload | TidalWorkload | ProfileWorkload | JobsWorkload, Field(discriminator="kind")
]


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
    egress_monthly: NonNegative = 0.0
    residual_value_retention_per_year: Fraction = 0.7
    useful_life_months: Annotated[int, Field(ge=1, le=MAX_HORIZON_MONTHS)] | None = None
    gpu_memory_gb: Annotated[float, Field(gt=0)] | None = None
    """Memory of one GPU [GB]; null: no limit."""
    capex_annual_price_change: AnnualChange = 0.0
    running_cost_annual_change: Annotated[float, Field(ge=-0.5, le=1)] = 0.0
    financing: Financing | None = None

    @model_validator(mode="after")
    def _idle_not_above_load(self) -> Self:
        if self.power_idle_watts > self.power_load_watts:
            raise PydanticCustomError(
                "idle_above_load",
                "must be less than or equal to power_load_watts",
                {"path": "power_idle_watts", "power_load_watts": self.power_load_watts},
            )
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
    gpu_memory_gb: Annotated[float, Field(gt=0)] | None = None
    """Memory of one GPU [GB]; null: no limit."""


class Scenario(_Strict):
    """One explicit build-vs-rent scenario (the engine's only input)."""

    name: Annotated[str, Field(max_length=200)] | None = None
    currency: Annotated[str, Field(pattern=r"^[A-Z]{3}$")]
    horizon_months: Annotated[int, Field(ge=1, le=MAX_HORIZON_MONTHS)]
    discount_rate_per_year: Fraction = 0.0
    workload: Workload
    build: Build
    rent: Rent

    @model_validator(mode="after")
    def _jobs_fit(self, info: ValidationInfo) -> Self:
        """Every job fits the box or the instance, and the box's jobs ask for at most 8
        boxes' work in any month, like a profile.

        Within an options request (validation context ``{"options": True}``) the
        scenario only carries the work, the horizon and the prices of money: its
        own box and instance are not a plan, so neither rule applies to them.
        """
        if not isinstance(self.workload, JobsWorkload):
            return self
        if isinstance(info.context, Mapping) and info.context.get("options"):
            return self
        self._refuse_jobs_without_memory()
        try:
            box = self.build.gpu_count * self.build.gpu_throughput  # [reference GPUs]
        except OverflowError:  # a count beyond float64: refused when projected
            return self
        box_memory = memory_of(self.build.gpu_count, self.build.gpu_memory_gb)
        work = placed_work(self.workload, 1, self.horizon_months + 1, None, box_memory)[0][0]
        with np.errstate(over="ignore"):
            utilization = work / box / HOURS_PER_MONTH
        above = np.flatnonzero(utilization > MAX_DEMAND_MULTIPLE)
        if above.size:
            month = int(above[0])
            raise PydanticCustomError(
                "jobs_month_above_limit",
                "month {month} asks for {utilization} times what the box does in 730 hours "
                "(at most {limit})",
                {
                    "path": "workload.jobs",
                    "month": month,
                    "utilization": float(f"{utilization[month]:.4g}"),
                    "limit": int(MAX_DEMAND_MULTIPLE),
                },
            )
        return self

    def _refuse_jobs_without_memory(self) -> None:
        """Refuse the first job that fits neither the box nor the instance (``memory``), or
        that the box holds and the instance does not (``rent_memory``: renting could not do
        the work the comparison weighs)."""
        assert isinstance(self.workload, JobsWorkload)
        box = memory_of(self.build.gpu_count, self.build.gpu_memory_gb)
        instance = memory_of(self.rent.gpu_count, self.rent.gpu_memory_gb)
        for j, job in enumerate(self.workload.jobs):
            if job.memory_gb is None or job.memory_gb <= instance:
                continue
            params = {
                "path": f"workload.jobs.{j}.memory_gb",
                "memory_gb": job.memory_gb,
                "box_memory_gb": box if math.isfinite(box) else None,
                "instance_memory_gb": instance,
            }
            if job.memory_gb > box:
                raise PydanticCustomError(
                    "memory",
                    "one run needs {memory_gb} GB of GPU memory: more than the box "
                    "({box_memory_gb} GB) and the instance ({instance_memory_gb} GB) hold",
                    params,
                )
            raise PydanticCustomError(
                "rent_memory",
                "one run needs {memory_gb} GB of GPU memory: more than the instance "
                "({instance_memory_gb} GB) holds, so renting could not do the work; choose an "
                "instance with more GPUs",
                params,
            )

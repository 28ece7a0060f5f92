"""Training jobs in the planner: what an ML lead knows about a run → the engine's jobs workload.

A job in the form is one of three kinds, each with its runs per month (one
number, or twelve that repeat):

- ``transformer``: model size, tokens per run, full or adapter training and
  the precision → :func:`costmodel.training.transformer_reference_gpu_hours`
  at the reference GPU's peak dense TFLOPS (the catalog's GPU model row of the
  benchmark's reference GPU) and :data:`costmodel.training.DEFAULT_MFU`;
- ``dataset``: samples × epochs → :func:`costmodel.training.dataset_reference_gpu_hours`
  at the reference GPU's measured samples per second on the chosen benchmark;
- ``gpu_hours``: reference GPU-hours per run, as typed.

Nothing is computed here: the conversions are the engine's, this module reads
the catalog figures they need and records them as provenance, so the results
page names where each job's hours come from and the form reopens with the
jobs as described. A transformer job must also fit the box
(:func:`costmodel.training.memory_fit`): :func:`memory_refusal` says when it
does not, and which preset (the advisor's :func:`costmodel.sizing.smallest_preset_that_fits`)
would.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from django.utils.translation import gettext_noop
from pydantic import BaseModel, ConfigDict, Field

from costmodel import FieldError, ScenarioError
from costmodel.scenario import MAX_JOBS, Runs
from costmodel.sizing import (
    Precision,
    TrainingMethod,
    smallest_preset_that_fits,
    training_memory_gb,
)
from costmodel.training import (
    DEFAULT_MFU,
    MemoryFit,
    dataset_reference_gpu_hours,
    memory_fit,
    transformer_reference_gpu_hours,
)
from webapp.catalog.specs import preset_specs

JOB_ROWS = 8
"""Job rows the form holds; the first :data:`SHOWN_JOB_ROWS` show, the page's script adds the
rest one by one ("Add a job"); without the script all of them show."""

SHOWN_JOB_ROWS = 3

JobKind = Literal["transformer", "dataset", "gpu_hours"]

RUNS_MONTHS = 12
"""A list of runs per month in the form has one value per month of a year (it repeats)."""

JOB_ROLE = gettext_noop("training job")
REFERENCE_ROLE = gettext_noop("reference GPU peak")


class DescribedJob(BaseModel):
    """One job as the form describes it (bounds shown in the form come from here)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, frozen=True)

    name: Annotated[str, Field(min_length=1, max_length=200)]
    kind: JobKind
    parameters_billion: Annotated[float, Field(gt=0, le=1_000_000)] | None = None
    """Model size [billion parameters]."""
    tokens_billion: Annotated[float, Field(gt=0, le=1_000_000)] | None = None
    """Tokens processed by one run [billion tokens]."""
    method: TrainingMethod = "full"
    precision: Precision = "bf16"
    samples: Annotated[float, Field(gt=0)] | None = None
    """Samples in the dataset [samples]."""
    epochs: Annotated[float, Field(gt=0, le=100_000)] | None = None
    reference_gpu_hours: Annotated[float, Field(gt=0)] | None = None
    """Work of one run typed directly [reference GPU-h]."""
    runs_per_month: Runs


KIND_NEEDS: dict[str, tuple[str, ...]] = {
    "transformer": ("parameters_billion", "tokens_billion"),
    "dataset": ("samples", "epochs"),
    "gpu_hours": ("reference_gpu_hours",),
}
"""What each kind of job must state besides its runs."""


def parse_runs(text: str) -> float | list[float] | None:
    """``"2"`` → 2.0; twelve numbers separated by commas or spaces → a list; else ``None``.

    >>> parse_runs("2"), parse_runs("1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0")[:4]
    (2.0, [1.0, 0.0, 0.0, 1.0])
    """
    parts = [p for p in re.split(r"[\s,，;；、]+", text.strip()) if p]
    try:
        values = [float(p) for p in parts]
    except ValueError:
        return None
    if not values or any(not (v >= 0 and v < float("inf")) for v in values):
        return None
    if len(values) == 1:
        return values[0]
    return values if len(values) == RUNS_MONTHS else None


def runs_text(runs: float | list[float]) -> str:
    """Runs per month as the form shows them (``2``, ``1, 0, 0, …``)."""
    values = runs if isinstance(runs, list) else [runs]
    return ", ".join(f"{v:g}" for v in values)


@dataclass(frozen=True)
class Reference:
    """The reference GPU's figures that convert a described run [catalog]."""

    gpu_slug: str
    gpu_name: str
    peak_tflops: float | None
    """Peak dense 16-bit throughput [TFLOP/s] (None: not in the catalog)."""
    peak_source: str
    samples_per_second: float | None
    """Measured throughput on the benchmark [benchmark unit, e.g. images/s]."""
    unit: str


def reference_for(benchmark_slug: str | None, day: datetime.date) -> Reference | None:
    """The benchmark's reference GPU and its figures, from the catalog as it stood on ``day``
    (the plan's): the snapshot the plan is resolved from, whose
    :meth:`~webapp.catalog.selectors.CatalogSnapshot.reference_gpu` is the one rule that names
    it (None: no such benchmark or GPU)."""
    from webapp.catalog import selectors

    catalog = selectors.snapshot(day)
    benchmark = catalog.benchmarks.get(benchmark_slug or "")
    if benchmark is None:
        return None
    gpu = catalog.reference_gpu(benchmark)
    if gpu is None:
        return None
    row = catalog.throughput(gpu, benchmark)
    measured = None if row is None or row.measured_value is None else float(row.measured_value)
    peak = None if gpu.peak_dense_tflops is None else float(gpu.peak_dense_tflops)
    return Reference(
        gpu.slug, str(gpu), peak, gpu.peak_tflops_source, measured, benchmark.unit or ""
    )


def reference_gpu_hours(job: DescribedJob, reference: Reference | None) -> float:
    """One run of ``job`` in reference GPU-hours, by the engine's conversion.

    Raises :class:`costmodel.ScenarioError` naming ``workload.jobs.<i>`` (the caller's index
    is added by :func:`engine_workload`) when the catalog lacks the figure the kind needs.
    """
    if job.kind == "gpu_hours":
        assert job.reference_gpu_hours is not None
        return job.reference_gpu_hours
    if job.kind == "transformer":
        if reference is None or reference.peak_tflops is None:
            raise _missing("no_reference_peak")
        assert job.parameters_billion is not None and job.tokens_billion is not None
        return float(
            transformer_reference_gpu_hours(
                job.parameters_billion * 1e9,
                job.tokens_billion * 1e9,
                job.method,
                reference.peak_tflops,
                DEFAULT_MFU,
            )
        )
    if reference is None or reference.samples_per_second is None:
        raise _missing("no_reference_throughput")
    assert job.samples is not None and job.epochs is not None
    return float(dataset_reference_gpu_hours(job.samples, job.epochs, reference.samples_per_second))


def _missing(code: str) -> ScenarioError:
    messages = {
        "no_reference_peak": "the reference GPU has no peak TFLOPS in the catalog",
        "no_reference_throughput": "the reference GPU has no measured throughput on the benchmark",
    }
    return ScenarioError([FieldError("kind", messages[code], code=code)])


def engine_workload(
    jobs: list[DescribedJob], reference: Reference | None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The engine's jobs workload (JSON) of the described jobs, and the provenance of their
    hours: the reference GPU's figures and, per job, its description.

    Raises :class:`costmodel.ScenarioError` naming ``workload.jobs.<i>.kind`` for a job whose
    kind needs a catalog figure that is missing.
    """
    errors, engine_jobs, items = [], [], []
    for i, job in enumerate(jobs[:MAX_JOBS]):
        try:
            hours = reference_gpu_hours(job, reference)
        except ScenarioError as exc:
            errors += [
                FieldError(f"workload.jobs.{i}.{e.field}", e.message, code=e.code)
                for e in exc.errors
            ]
            continue
        engine_job: dict[str, Any] = {
            "name": job.name,
            "reference_gpu_hours": hours,
            "runs_per_month": job.runs_per_month,
        }
        needed = memory_needed(job)
        if needed is not None:  # the engine places the run on the box or rents it (v4)
            engine_job["memory_gb"] = needed
        engine_jobs.append(engine_job)
        items.append(
            {
                "role": JOB_ROLE,
                "label": job.name,
                "fields": [f"workload.jobs.{i}.reference_gpu_hours"],
                "note": _job_note(job, hours, reference),
                "job": job.model_dump(mode="json"),
            }
        )
    if errors:
        raise ScenarioError(errors)
    if reference is not None and any(j.kind != "gpu_hours" for j in jobs):
        items.insert(0, _reference_item(reference, jobs))
    return {"kind": "jobs", "jobs": engine_jobs}, items


def memory_needed(job: DescribedJob) -> float | None:
    """GPU memory one run of a transformer job needs [GB] (the advisor's rule,
    :func:`costmodel.sizing.training_memory_gb`); None for another kind of job."""
    if job.kind != "transformer" or job.parameters_billion is None:
        return None
    return float(training_memory_gb(job.parameters_billion, job.precision, job.method))


def _reference_item(reference: Reference, jobs: list[DescribedJob]) -> dict[str, Any]:
    used = [i for i, j in enumerate(jobs) if j.kind != "gpu_hours"]
    notes = []
    if reference.peak_tflops is not None:
        notes.append(
            f"peak {reference.peak_tflops:g} dense 16-bit TFLOPS × MFU {DEFAULT_MFU:g} "
            "(transformer runs)"
        )
    if reference.samples_per_second is not None:
        notes.append(f"{reference.samples_per_second:g} {reference.unit} (dataset runs)")
    return {
        "role": REFERENCE_ROLE,
        "label": reference.gpu_name,
        "model": "catalog.gpumodel",
        "natural_key": [reference.gpu_slug],
        "fields": [f"workload.jobs.{i}.reference_gpu_hours" for i in used],
        "source": reference.peak_source,
        "note": "; ".join(notes),
    }


def _job_note(job: DescribedJob, hours: float, reference: Reference | None) -> str:
    if job.kind == "transformer":
        what = (
            f"{job.parameters_billion:g} B parameters × {job.tokens_billion:g} B tokens, "
            f"{job.method}, {job.precision}"
        )
    elif job.kind == "dataset":
        what = f"{job.samples:g} samples × {job.epochs:g} epochs"
    else:
        what = "typed in"
    return f"{what} → {hours:.6g} reference GPU-hours per run"


def with_memory(items: list[dict[str, Any]], fits: list[MemoryFit | None]) -> None:
    """Record each transformer job's memory fit in its provenance item (``memory_gb``: needed
    and the box's), so the results page can say it fits without asking the catalog again."""
    jobs = [item for item in items if item.get("role") == JOB_ROLE]
    for item, fit in zip(jobs, fits, strict=True):
        if fit is not None:
            item["memory_gb"] = [fit.needed_gb, fit.capacity_gb]


def job_memory_of(provenance: list[dict[str, Any]]) -> dict[int, tuple[float, float]]:
    """Job index → (needed, box) GPU memory [GB] recorded by :func:`with_memory`."""
    found = {}
    for item in provenance:
        memory, fields = item.get("memory_gb"), item.get("fields") or []
        if item.get("role") == JOB_ROLE and isinstance(memory, list) and len(memory) == 2:
            index = str(fields[0]).split(".")[2] if fields else ""
            if index.isdigit():
                found[int(index)] = (float(memory[0]), float(memory[1]))
    return found


def described_jobs(provenance: list[dict[str, Any]]) -> list[DescribedJob]:
    """The jobs as described in the form, from a plan's provenance (for reopening the form
    and for the memory check)."""
    found = []
    for item in provenance:
        if item.get("role") == JOB_ROLE and isinstance(item.get("job"), dict):
            try:
                found.append(DescribedJob.model_validate(item["job"]))
            except ValueError:
                continue
    return found


@dataclass(frozen=True)
class MemoryRefusal:
    """A transformer job that fits nothing the plan may use (neither the box nor the cloud
    instance), and the preset and the offering that would hold it."""

    index: int
    """The job's row in the form, from 0."""
    job: DescribedJob
    fit: MemoryFit
    next_preset: str | None
    """Slug of the advisor's smallest preset that holds the run (None: no preset does)."""
    next_capacity_gb: float | None = None
    """That preset's GPU memory, added up over its GPUs [GB]."""
    rent_capacity_gb: float | None = None
    """The plan's cloud instance's GPU memory, added up over its GPUs [GB]."""
    next_offering: str | None = None
    """Slug of the market's offering of least memory that holds the run (None: none does)."""
    next_offering_name: str = ""
    next_offering_capacity_gb: float | None = None


@dataclass(frozen=True)
class BoxMemory:
    gpu_count: int
    vram_gb: float
    """Memory of one GPU [GB]."""


def box_memory(selection: dict[str, Any]) -> BoxMemory | None:
    """GPUs and memory per GPU of the box a catalog selection names (None when unknown)."""
    from webapp.catalog import selectors
    from webapp.catalog.models import GPU_CARRYING_KINDS, Part

    if selection.get("preset"):
        preset = selectors.preset_by_slug(selection["preset"])
        if preset is None:
            return None
        return BoxMemory(preset.gpu_count, float(preset.gpu_model.vram_gb))
    quantities = {line["part"]: line["quantity"] for line in selection.get("parts") or []}
    parts = [
        p
        for p in selectors.rows_by_slug(Part, quantities).values()
        if p.kind in GPU_CARRYING_KINDS and p.gpu_model is not None
    ]
    count = sum(p.gpu_count * quantities[p.slug] for p in parts)
    if not count:
        return None
    vram = min(float(p.gpu_model.vram_gb) for p in parts if p.gpu_model is not None)
    return BoxMemory(count, vram)


def job_memory(jobs: list[DescribedJob], box: BoxMemory | None) -> list[MemoryFit | None]:
    """Each job's training memory against the box (the advisor's rule, sharded across the
    box's GPUs): a :class:`MemoryFit` for a transformer job, None for the others or an
    unknown box."""
    return [
        None
        if box is None or job.kind != "transformer" or job.parameters_billion is None
        else memory_fit(
            job.parameters_billion, job.precision, job.method, box.gpu_count, box.vram_gb
        )
        for job in jobs
    ]


@dataclass(frozen=True)
class Holder:
    """An offering that could hold a run: slug, name and instance memory [GB]."""

    slug: str
    name: str
    capacity_gb: float


def memory_refusal(
    jobs: list[DescribedJob],
    box: BoxMemory | None,
    rent_capacity_gb: float | None = None,
    holder: Callable[[float], Holder | None] | None = None,
) -> MemoryRefusal | None:
    """The first transformer job that fits nothing the plan may use: more training memory
    than the box's (:func:`job_memory`) and than the plan's cloud instance's
    (``rent_capacity_gb``; None: not known, the job is refused as before), with the preset
    and (``holder``: the market's smallest offering that holds a given memory) the offering
    to offer instead. A job that does not fit the box but fits the instance is not refused:
    the build plan rents it (methodology version 4)."""
    for i, (job, fit) in enumerate(zip(jobs, job_memory(jobs, box), strict=True)):
        if fit is None or fit.fits:
            continue
        if rent_capacity_gb is not None and fit.needed_gb <= rent_capacity_gb:
            continue
        preset = smallest_preset_that_fits(fit.needed_gb, preset_specs())
        offering = None if holder is None else holder(fit.needed_gb)
        return MemoryRefusal(
            i,
            job,
            fit,
            None if preset is None else preset.slug,
            None if preset is None else preset.capacity_gb,
            rent_capacity_gb,
            None if offering is None else offering.slug,
            "" if offering is None else offering.name,
            None if offering is None else offering.capacity_gb,
        )
    return None


def placed_jobs(scenario: Any, provenance: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per job the engine placed on the rent side (``jobs[i].placement``), the words of why:
    its name, the memory it needs and the box's (recorded by :func:`with_memory`)."""
    from costmodel.projection import job_times

    memory = job_memory_of(provenance)
    out = []
    for i, row in enumerate(job_times(scenario)):
        if row.get("placement") == "rent" and i in memory:
            out.append(
                {"index": i, "name": row["name"], "needed": memory[i][0], "box": memory[i][1]}
            )
    return out

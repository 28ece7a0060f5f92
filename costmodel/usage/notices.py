"""What a reader skipped or did not see, as data: a ``code`` and its figures."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

MAX_NOTICES_LISTED = 20
"""Skipped rows and gaps listed one by one; beyond this they are counted."""
MAX_PLACES = 3
"""Places (lines, GPUs) a grouped notice names; the rest are counted."""


class Notice(BaseModel):
    # Every notice carries its code: required in the answer's JSON schema.
    model_config = ConfigDict(frozen=True, json_schema_serialization_defaults_required=True)


SkipReason = Literal[
    "field_count", "unreadable_timestamp", "unreadable_utilization", "unreadable_date_or_amount"
]


class RowSkipped(Notice):
    """A row that could not be read, left out of the totals."""

    code: Literal["row_skipped"] = "row_skipped"
    line: int = Field(description="the row's line in the file (1 = the first)")
    reason: SkipReason = Field(
        description="field_count: not as many fields as the header (field_count, "
        "expected_field_count); unreadable_timestamp, unreadable_utilization: that field is "
        "not a time or a number; unreadable_date_or_amount: a bill's date or amount"
    )
    field_count: int | None = Field(default=None, description="fields the row has")
    expected_field_count: int | None = Field(default=None, description="fields a row must have")


class MoreRowsSkipped(Notice):
    """Skipped rows beyond the first :data:`MAX_NOTICES_LISTED`, counted."""

    code: Literal["more_rows_skipped"] = "more_rows_skipped"
    count: int = Field(description="rows skipped and not listed one by one")


class GpuRef(BaseModel):
    """A GPU as the file names it: its host (or the n-th concatenated log) and its index."""

    model_config = ConfigDict(frozen=True)

    host: str | None = Field(default=None, description="host name the file gives, if any")
    log: int | None = Field(
        default=None,
        description="without host names: which of the concatenated logs (1 = the first)",
    )
    index: str = Field(description="the GPU's index (or UUID, bus id) as the file gives it")


class Gap(Notice):
    """Time without samples of one GPU, longer than twice its median interval: not observed."""

    code: Literal["gap"] = "gap"
    hours: float = Field(description="length of the gap [h]")
    gpu: GpuRef
    line: int | None = Field(default=None, description="the line of the sample before the gap")
    path: str | None = Field(
        default=None,
        description='JSON path of the sample before the gap ("data.result[2].values[17]")',
    )


class MoreGaps(Notice):
    """Gaps beyond the first :data:`MAX_NOTICES_LISTED`, counted."""

    code: Literal["more_gaps"] = "more_gaps"
    count: int = Field(description="gaps not listed one by one")


class SingleSampleGpus(Notice):
    """GPUs with one sample (or all at one instant), counted at the others' median interval."""

    code: Literal["single_sample_gpus"] = "single_sample_gpus"
    count: int = Field(description="GPUs with one sample or one instant only")
    seconds: float = Field(description="the median interval they were counted with [s]")


class SamplesSkipped(Notice):
    """Samples that are not a finite utilization within 0–100 % (``NaN``, DCGM's blank
    ``4294967295``), left out: their time counts as not observed."""

    code: Literal["samples_skipped"] = "samples_skipped"
    count: int = Field(description="samples skipped")
    path: str = Field(description='JSON path of the first ("data.result[2].values[17]")')
    value: str = Field(description='the first one\'s value as the file gives it ("NaN")')


class GpusWithoutUtilization(Notice):
    """GPUs of an nvidia-smi log none of whose rows holds a utilization (``[N/A]``): with
    ``mig`` true, GPUs in MIG mode (``mig.mode.current`` is Enabled), whose work nvidia-smi
    does not report per GPU. They count no GPU-hours and are not among ``gpus``."""

    code: Literal["gpus_without_utilization"] = "gpus_without_utilization"
    count: int = Field(description="GPUs")
    mig: bool = Field(description="true: the log says these GPUs are in MIG mode")
    gpus: list[GpuRef] = Field(description="the first three of them")


class MigGpusSkipped(Notice):
    """GPUs in MIG mode in a DCGM answer: series of their MIG instances (a ``GPU_I_ID``
    label), whose activity does not add up to the GPU's. They count no GPU-hours and are
    not among ``gpus``."""

    code: Literal["mig_gpus_skipped"] = "mig_gpus_skipped"
    count: int = Field(description="GPUs")
    instances: int = Field(description="MIG instances of these GPUs, each a series or more")
    gpus: list[GpuRef] = Field(description="the first three of them")


class JobStepsSkipped(Notice):
    """Slurm job steps (``123.batch``), left out: only whole jobs count."""

    code: Literal["job_steps_skipped"] = "job_steps_skipped"
    count: int = Field(description="job steps skipped")


class JobsWithoutGpu(Notice):
    """Slurm jobs whose AllocTRES holds no ``gres/gpu``: they count no GPU-hours."""

    code: Literal["jobs_without_gpu"] = "jobs_without_gpu"
    count: int = Field(description="finished jobs without a GPU")


class UnfinishedJobsSkipped(Notice):
    """Slurm jobs without a start or an end (running, pending), left out."""

    code: Literal["unfinished_jobs_skipped"] = "unfinished_jobs_skipped"
    count: int = Field(description="jobs skipped")


class InstanceTypeUnknown(Notice):
    """A bill's instance type the catalog gives no GPU count for: its hours are not counted."""

    code: Literal["instance_type_unknown"] = "instance_type_unknown"
    instance_type: str = Field(description='the instance type ("m5.xlarge")')
    hours: float = Field(description="its instance-hours in the bill [instance-h]")


class MonthNotObserved(Notice):
    """A month between the first and last the file covers with no observation at all."""

    code: Literal["month_not_observed"] = "month_not_observed"
    month: str = Field(description='"YYYY-MM"')


class MonthPartlyObserved(Notice):
    """A month the file covers for less than :data:`PARTLY_OBSERVED_SHARE` of its hours."""

    code: Literal["month_partly_observed"] = "month_partly_observed"
    month: str = Field(description='"YYYY-MM"')
    observed_hours: float = Field(description="hours of the month observed [h]")
    month_hours: float = Field(description="hours in the month [h]")


UsageNotice = Annotated[
    RowSkipped
    | MoreRowsSkipped
    | Gap
    | MoreGaps
    | SingleSampleGpus
    | SamplesSkipped
    | GpusWithoutUtilization
    | MigGpusSkipped
    | JobStepsSkipped
    | JobsWithoutGpu
    | UnfinishedJobsSkipped
    | InstanceTypeUnknown
    | MonthNotObserved
    | MonthPartlyObserved,
    Field(discriminator="code"),
]
"""One thing a reader skipped or did not see, told by its ``code`` and figures."""

NOTICE_TYPES: tuple[type[Notice], ...] = get_args(get_args(UsageNotice)[0])
NOTICE_CODES: tuple[str, ...] = tuple(t.model_fields["code"].default for t in NOTICE_TYPES)


def add_skipped(notices: list[UsageNotice], rows: Sequence[RowSkipped]) -> None:
    """Append skipped ``rows`` one by one, the ones beyond :data:`MAX_NOTICES_LISTED` as a
    count."""
    notices.extend(rows[:MAX_NOTICES_LISTED])
    if len(rows) > MAX_NOTICES_LISTED:
        notices.append(MoreRowsSkipped(count=len(rows) - MAX_NOTICES_LISTED))


def field_count(line: int, count: int, expected: int) -> RowSkipped:
    return RowSkipped(
        line=line, reason="field_count", field_count=count, expected_field_count=expected
    )

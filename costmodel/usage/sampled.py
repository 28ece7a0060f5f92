"""Sampled utilization (nvidia-smi, DCGM): the sampling rule on every GPU at once."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from costmodel.usage.errors import fail
from costmodel.usage.months import FloatArray, IntArray, MeasuredUsage, report
from costmodel.usage.notices import (
    MAX_NOTICES_LISTED,
    Gap,
    GpuRef,
    MoreGaps,
    SingleSampleGpus,
    UsageNotice,
)


@dataclass(frozen=True)
class Samples:
    """Utilization samples of many GPUs, in the file's order."""

    gpu: IntArray  # GPU number, 0..G−1
    time: FloatArray  # [s]
    utilization: FloatArray  # [%]
    where: Callable[[int], str]  # where sample i is in the file ("line 12"), for messages
    at: Callable[[int], dict[str, int | str]]  # the same for a notice: {"line": 12}
    gpus: list[GpuRef]  # each GPU as the file names it

    def gpu_name(self, k: int) -> str:
        """GPU ``k`` in an error message: ``host-a GPU 3``, ``log 2 GPU 0``."""
        ref = self.gpus[k]
        host = ref.host if ref.host is not None else f"log {ref.log}"
        return f"{host} GPU {ref.index}".strip()


def sampled(samples: Samples, models: Sequence[str], notices: list[UsageNotice]) -> MeasuredUsage:
    """The sampling rule (module Notes) on every GPU's samples at once."""
    bad = np.flatnonzero((samples.utilization < 0) | (samples.utilization > 100))
    if bad.size:
        i = int(bad[0])
        raise fail(
            f"{samples.where(i)}: utilization {samples.utilization[i]:g} % is outside 0–100",
            "utilization_out_of_range",
            value=float(samples.utilization[i]),
            **samples.at(i),
        )
    order = np.argsort(samples.gpu, kind="stable")
    gpu, time, util = samples.gpu[order], samples.time[order], samples.utilization[order]
    same = gpu[1:] == gpu[:-1]
    step = np.diff(time)
    backwards = np.flatnonzero(same & (step < 0))
    if backwards.size:
        i = int(order[backwards[0] + 1])
        raise fail(
            f"{samples.where(i)}: timestamp is earlier than the previous sample of "
            f"{samples.gpu_name(int(samples.gpu[i]))}; the log must be in time order",
            "timestamp_out_of_order",
            gpu=samples.gpus[int(samples.gpu[i])].model_dump(),
            **samples.at(i),
        )
    count = len(samples.gpus)
    # Each GPU's median interval: sort the steps by GPU then length, take the middle one(s).
    step_gpu, steps = gpu[1:][same], step[same]
    per_gpu = np.bincount(step_gpu, minlength=count)
    offset = np.concatenate([[0], np.cumsum(per_gpu)[:-1]])
    has = per_gpu > 0
    median = np.full(count, np.nan)
    if count <= 64:  # a few GPUs: a selection per GPU, no sort of every step
        for k in np.flatnonzero(has):
            median[k] = np.median(steps[offset[k] : offset[k] + per_gpu[k]])
    elif steps.size:
        sorted_steps = steps[np.lexsort((steps, step_gpu))]
        lo = offset + np.maximum(per_gpu - 1, 0) // 2
        hi = offset + per_gpu // 2
        median[has] = (sorted_steps[lo[has]] + sorted_steps[hi[has]]) / 2
    if not has.any() or not np.isfinite(median).any() or np.nanmax(median) <= 0:
        raise fail("needs at least two samples of one GPU at different times", "too_few_samples")
    lonely = np.flatnonzero(~has | ~(median > 0))
    if lonely.size:
        fallback = float(np.median(median[has & (median > 0)]))
        median[lonely] = fallback
        notices.append(SingleSampleGpus(count=int(lonely.size), seconds=fallback))
    cap = 2 * median[gpu]
    span = np.full(gpu.size, np.nan)
    span[:-1] = np.where(same, np.minimum(step, cap[:-1]), np.nan)
    last = np.isnan(span)
    span[last] = median[gpu[last]]
    # A gap is reported when the time it leaves unobserved (beyond the capped span) is at
    # least twice the median interval: a logger's few-second stall is not worth a line.
    gaps = np.flatnonzero(same & (step - cap[:-1] >= cap[:-1]))
    notices += [
        Gap.model_validate(
            {
                "hours": float(step[i] / 3600),
                "gpu": samples.gpus[gpu[i]],
                **samples.at(int(order[i])),
            }
        )
        for i in gaps[:MAX_NOTICES_LISTED]
    ]
    if gaps.size > MAX_NOTICES_LISTED:
        notices.append(MoreGaps(count=int(gaps.size) - MAX_NOTICES_LISTED))
    end = time + span
    busy = (time, end, util / 100 * span / 3600)
    del gpu, util, same, step, span, cap  # a large log's arrays: the report needs the spans
    return report(busy, (time, end), count, models, notices)

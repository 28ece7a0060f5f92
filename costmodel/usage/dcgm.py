"""DCGM through Prometheus: the JSON answer of ``/api/v1/query_range``."""

from __future__ import annotations

import numpy as np

from costmodel.usage.bounds import CLOCK_LEEWAY_S, check_times
from costmodel.usage.errors import fail
from costmodel.usage.jsontext import load_json_bounded, number_too_long
from costmodel.usage.months import FloatArray, MeasuredUsage
from costmodel.usage.notices import (
    MAX_PLACES,
    GpuRef,
    MigGpusSkipped,
    SamplesSkipped,
    UsageNotice,
)
from costmodel.usage.sampled import Samples, sampled
from costmodel.usage.text import check_text

LATEST_UNIX_TIME = 4_102_444_800.0
"""2100-01-01 [s]: a Prometheus sample time beyond this is not Unix seconds."""

METRIC_SCALE: dict[str, float] = {
    "DCGM_FI_DEV_GPU_UTIL": 1.0,
    "DCGM_FI_PROF_GR_ENGINE_ACTIVE": 100.0,
    "DCGM_FI_PROF_SM_ACTIVE": 100.0,
}
"""The metrics read, and the factor that makes their samples percent: ``GPU_UTIL`` is a
percentage (0–100), the profiling metrics ``GR_ENGINE_ACTIVE`` and ``SM_ACTIVE`` are
ratios (0–1)."""

QUERY_RANGE_HINT = (
    "curl -G http://PROMETHEUS:9090/api/v1/query_range "
    "--data-urlencode query=DCGM_FI_DEV_GPU_UTIL "
    "--data-urlencode start=2026-10-01T00:00:00Z --data-urlencode end=2026-11-01T00:00:00Z "
    "--data-urlencode step=300s"
)
"""The call that gives the answer this reader reads (start, end and step as needed).

Prometheus answers at most 11 000 points per series (``(end − start) / step``), else
``exceeded maximum resolution``: a 31-day month takes a step of 244 s or more, so 300 s
(8 928 points); a step of 60 s is a week at most."""


MAX_QUOTED = 200
"""Characters of Prometheus' own error quoted in the refusal of an error answer."""


def _metric_name(result: list[object]) -> str:
    """The one metric the answer's series are of (``__name__``), refused unless read."""
    names: dict[str, int] = {}
    for k, series in enumerate(result):
        labels = series.get("metric") if isinstance(series, dict) else None
        if not isinstance(labels, dict):
            continue  # refused as a bad series when read
        name = labels.get("__name__")
        if name is None:
            raise fail(
                f"data.result[{k}].metric: has no __name__: query the metric itself "
                f"({', '.join(METRIC_SCALE)}), not an expression over it",
                "metric_name_missing",
                path=f"data.result[{k}].metric",
            )
        name = str(name)
        if name not in METRIC_SCALE:
            raise fail(
                f"data.result[{k}].metric.__name__: {name} is not a utilization metric; "
                "query DCGM_FI_DEV_GPU_UTIL, DCGM_FI_PROF_GR_ENGINE_ACTIVE or "
                "DCGM_FI_PROF_SM_ACTIVE",
                "metric_not_read",
                path=f"data.result[{k}].metric.__name__",
                metric=name,
            )
        names.setdefault(name, k)
    if len(names) > 1:
        first, second = list(names)[:2]
        raise fail(
            f"data.result[{names[second]}].metric.__name__: {second} beside {first}: both "
            "measure the same GPUs; query one metric",
            "two_metrics",
            path=f"data.result[{names[second]}].metric.__name__",
            metric=second,
            other=first,
        )
    return next(iter(names), "DCGM_FI_DEV_GPU_UTIL")


def read_dcgm_prometheus(text: str, *, now: float | None = None) -> MeasuredUsage:
    """Read Prometheus' ``/api/v1/query_range`` answer for a DCGM utilization metric.

    The metric is the series' ``__name__``: ``DCGM_FI_DEV_GPU_UTIL`` [%], or
    ``DCGM_FI_PROF_GR_ENGINE_ACTIVE`` / ``DCGM_FI_PROF_SM_ACTIVE`` [ratio 0–1,
    read as 100 ×]; any other is refused naming it. A GPU is its ``UUID``
    label, else its ``Hostname`` (or ``instance``) and ``gpu`` labels: the
    series of one GPU under several label sets (the exporter adds ``pod`` and
    ``namespace`` while a workload holds the GPU) are merged, and every GPU's
    samples are put in time order (one sample per instant kept). Samples that
    are not finite or outside 0–100 % (``NaN``, DCGM's ``4294967295`` blank)
    are skipped, counted in one notice. Series of a MIG instance (a ``GPU_I_ID``
    label) are not read: an instance's activity is of its part of the GPU, and the
    instances' do not add up to the GPU's; their GPUs are reported in one notice, and
    an answer of MIG instances only is refused. Its model is the ``modelName`` label.
    The sampling rule of the module Notes applies. Errors name the place:
    ``data.result[2].values[17]``. An instant ``/api/v1/query`` answer is
    refused with the ``query_range`` call to make (:data:`QUERY_RANGE_HINT`). A sample
    time before 2000 or later than ``now`` (the time of reading, default the clock's) plus
    a day is refused naming its path (:mod:`costmodel.usage.bounds`).
    """
    check_text(text)
    document = load_json_bounded(text)
    if isinstance(document, dict) and document.get("status") == "error":
        error_type = str(document.get("errorType", ""))[:MAX_QUOTED]
        error = str(document.get("error", ""))[:MAX_QUOTED]
        raise fail(
            f"status: Prometheus answered an error, not samples ({error_type}: {error}): "
            f"ask again, for instance {QUERY_RANGE_HINT}",
            "prometheus_error",
            path="status",
            kind=error_type,
            error=error,
            hint=QUERY_RANGE_HINT,
        )
    data = document.get("data") if isinstance(document, dict) else None
    kind = data.get("resultType") if isinstance(data, dict) else None
    if kind in ("vector", "scalar", "string"):
        raise fail(
            f'data.resultType: is "{kind}", the answer of an instant query (/api/v1/query): '
            f"ask for a range instead: {QUERY_RANGE_HINT}",
            "instant_query",
            path="data.resultType",
            kind=kind,
            hint=QUERY_RANGE_HINT,
        )
    if not isinstance(data, dict) or kind != "matrix":
        raise fail(
            'is not a Prometheus query_range answer: expected {"data": {"resultType": '
            '"matrix", "result": [...]}}',
            "not_query_range",
        )
    result = data.get("result")
    if not isinstance(result, list) or not result:
        raise fail("data.result: holds no series (did the query match any GPU?)", "no_series")
    scale = METRIC_SCALE[_metric_name(result)]
    series_keys: list[tuple[str, str]] = []
    series_refs: list[tuple[str, str]] = []
    models: list[str] = []
    times: list[FloatArray] = []
    utils: list[FloatArray] = []
    mig: dict[tuple[str, str], tuple[GpuRef, set[str]]] = {}
    mig_series, mig_first = 0, 0
    for k, series in enumerate(result):  # one per GPU and label set: the samples are arrays
        labels = series.get("metric", {}) if isinstance(series, dict) else {}
        values = series.get("values") if isinstance(series, dict) else None
        if not isinstance(labels, dict) or not isinstance(values, list):
            raise fail(
                f"data.result[{k}]: needs a metric object and a values list",
                "bad_series",
                path=f"data.result[{k}]",
            )
        host = str(labels.get("Hostname") or labels.get("instance") or "")
        index = str(labels.get("gpu", labels.get("UUID", k)))
        uuid = labels.get("UUID")
        series_keys.append(("", str(uuid)) if uuid else (host, index))
        series_refs.append((host, index))
        if labels.get("GPU_I_ID") not in (None, ""):  # a MIG instance: not the whole GPU
            mig.setdefault(series_keys[-1], (GpuRef(host=host or None, index=index), set()))
            mig[series_keys[-1]][1].add(str(labels["GPU_I_ID"]))
            if mig_series == 0:
                mig_first = k
            mig_series += 1
            times.append(np.empty(0))  # its samples are not read
            utils.append(np.empty(0))
            continue
        if labels.get("modelName"):
            models.append(str(labels["modelName"]))
        try:
            pairs = np.array(values, dtype=np.float64).reshape(len(values), -1)
        except OverflowError:  # an integer too large for a float
            raise number_too_long(text) from None
        except (ValueError, TypeError):
            pairs = np.empty((0, 0))
        if len(values) and pairs.shape[1:] != (2,):
            raise fail(
                f'data.result[{k}].values: every sample must be [time, "number"]',
                "bad_sample",
                path=f"data.result[{k}].values",
            )
        if (
            len(values) and not ((pairs[:, 0] >= 0) & (pairs[:, 0] < LATEST_UNIX_TIME)).all()
        ):  # NaN times too
            raise fail(
                f"data.result[{k}].values: times must be Unix seconds (1970 to 2100)",
                "not_unix_seconds",
                path=f"data.result[{k}].values",
            )
        times.append(pairs[:, 0] if len(values) else np.empty(0))
        utils.append(pairs[:, 1] * scale if len(values) else np.empty(0))
    lengths = np.array([t.size for t in times])
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    keys = sorted(set(series_keys))
    number = {key: k for k, key in enumerate(keys)}
    # Each merged GPU is named as its first series names it.
    refs: dict[int, tuple[str, str]] = {}
    for key, ref in zip(series_keys, series_refs, strict=True):
        refs.setdefault(number[key], ref)
    series_gpu = np.array([number[key] for key in series_keys], dtype=np.int64)
    gpu = np.repeat(series_gpu, lengths)
    time = np.concatenate(times)
    util = np.concatenate(utils)

    def path(i: int) -> str:
        k = int(np.searchsorted(offsets, i, side="right")) - 1
        return f"data.result[{k}].values[{i - offsets[k]}]"

    notices: list[UsageNotice] = []
    if mig:
        if mig_series == len(result):
            raise fail(
                f"data.result[{mig_first}].metric.GPU_I_ID: every GPU of the answer is in MIG "
                "mode, its series are of MIG instances, whose activity does not add up to "
                "the GPU's: measure these GPUs by their allocation (Slurm's sacct, the "
                "cloud bill)",
                "only_mig_gpus",
                path=f"data.result[{mig_first}].metric.GPU_I_ID",
            )
        notices.append(
            MigGpusSkipped(
                count=len(mig),
                instances=sum(len(ids) for _ref, ids in mig.values()),
                gpus=[ref for ref, _ids in list(mig.values())[:MAX_PLACES]],
            )
        )
    if time.size == 0:
        raise fail("data.result: the series hold no samples", "no_samples")
    check_times([("time", time, CLOCK_LEEWAY_S)], lambda i: {"path": path(i)}, now)
    readable = np.isfinite(util) & (util >= 0) & (util <= 100)
    if not readable.all():
        bad = np.flatnonzero(~readable)
        raw = util[bad[0]] / scale
        notices.append(
            SamplesSkipped(
                count=int(bad.size),
                path=path(int(bad[0])),
                value=np.format_float_positional(raw, trim="-"),
            )
        )
    # Every GPU's samples in time order, one per instant (merged label sets may overlap).
    kept = np.flatnonzero(readable)
    order = kept[np.lexsort((time[kept], gpu[kept]))]
    repeat = np.zeros(order.size, dtype=bool)
    repeat[1:] = (gpu[order][1:] == gpu[order][:-1]) & (time[order][1:] == time[order][:-1])
    origin = order[~repeat]
    if origin.size == 0:
        raise fail(
            f"data.result: no sample is a finite utilization (first: {path(0)})",
            "no_samples",
        )
    # GPUs left without a sample are not counted.
    seen, gpu_kept = np.unique(gpu[origin], return_inverse=True)
    samples = Samples(
        gpu=gpu_kept.astype(np.int64),
        time=time[origin],
        utilization=util[origin],
        where=lambda i: path(int(origin[i])),
        at=lambda i: {"path": path(int(origin[i]))},
        gpus=[GpuRef(host=refs[k][0] or None, index=refs[k][1]) for k in seen.tolist()],
    )
    return sampled(samples, models, notices)

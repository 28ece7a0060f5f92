"""DCGM through Prometheus: the JSON answer of ``/api/v1/query_range``."""

from __future__ import annotations

import numpy as np

from costmodel.usage.errors import fail
from costmodel.usage.jsontext import load_json_bounded, number_too_long
from costmodel.usage.months import FloatArray, MeasuredUsage
from costmodel.usage.notices import GpuRef
from costmodel.usage.sampled import Samples, sampled
from costmodel.usage.text import check_text

LATEST_UNIX_TIME = 4_102_444_800.0
"""2100-01-01 [s]: a Prometheus sample time beyond this is not Unix seconds."""


def read_dcgm_prometheus(text: str) -> MeasuredUsage:
    """Read Prometheus' ``/api/v1/query_range`` answer for ``DCGM_FI_DEV_GPU_UTIL``.

    One series per GPU (``result`` of type ``matrix``); a GPU is named by its
    ``Hostname`` (or ``instance``) and ``gpu`` labels, its model by ``modelName``.
    Samples are ``[unix seconds, "utilization %"]``; the sampling rule of the
    module Notes applies. Errors name the place: ``data.result[2].values[17]``.
    """
    check_text(text)
    document = load_json_bounded(text)
    data = document.get("data") if isinstance(document, dict) else None
    if not isinstance(data, dict) or data.get("resultType") != "matrix":
        raise fail(
            'is not a Prometheus query_range answer: expected {"data": {"resultType": '
            '"matrix", "result": [...]}}',
            "not_query_range",
        )
    result = data.get("result")
    if not isinstance(result, list) or not result:
        raise fail("data.result: holds no series (did the query match any GPU?)", "no_series")
    series_keys: list[tuple[str, str]] = []
    models: list[str] = []
    times: list[FloatArray] = []
    utils: list[FloatArray] = []
    for k, series in enumerate(result):  # one per GPU, a few dozen: the samples are arrays
        labels = series.get("metric", {}) if isinstance(series, dict) else {}
        values = series.get("values") if isinstance(series, dict) else None
        if not isinstance(labels, dict) or not isinstance(values, list):
            raise fail(
                f"data.result[{k}]: needs a metric object and a values list",
                "bad_series",
                path=f"data.result[{k}]",
            )
        host = labels.get("Hostname") or labels.get("instance") or ""
        series_keys.append((str(host), str(labels.get("gpu", labels.get("UUID", k)))))
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
        if not np.isfinite(pairs).all():
            raise fail(
                f"data.result[{k}].values: holds a value that is not a finite number",
                "not_finite",
                path=f"data.result[{k}].values",
            )
        if len(values) and not ((pairs[:, 0] >= 0) & (pairs[:, 0] < LATEST_UNIX_TIME)).all():
            raise fail(
                f"data.result[{k}].values: times must be Unix seconds (1970 to 2100)",
                "not_unix_seconds",
                path=f"data.result[{k}].values",
            )
        times.append(pairs[:, 0] if len(values) else np.empty(0))
        utils.append(pairs[:, 1] if len(values) else np.empty(0))
    lengths = np.array([t.size for t in times])
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    keys = sorted(set(series_keys))
    number = {key: k for k, key in enumerate(keys)}
    series_gpu = np.array([number[key] for key in series_keys], dtype=np.int64)

    def where(i: int) -> str:
        k = int(np.searchsorted(offsets, i, side="right")) - 1
        return f"data.result[{k}].values[{i - offsets[k]}]"

    samples = Samples(
        gpu=np.repeat(series_gpu, lengths),
        time=np.concatenate(times),
        utilization=np.concatenate(utils),
        where=where,
        at=lambda i: {"path": where(i)},
        gpus=[GpuRef(host=host or None, index=index) for host, index in keys],
    )
    if samples.time.size == 0:
        raise fail("data.result: the series hold no samples", "no_samples")
    return sampled(samples, models, [])

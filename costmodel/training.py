"""From a training run to reference GPU-hours, and whether its model fits a box.

Pure functions (numpy arrays or floats in, the same out) that turn what an ML
lead knows about a run — a transformer's size and tokens, or a dataset's
samples and epochs — into the work a jobs workload states
(:class:`~costmodel.scenario.Job`'s ``reference_gpu_hours``), and a check of
the run's training memory against a box (the advisor's rule,
:func:`costmodel.sizing.training_memory_gb`).

Notes
-----
A transformer run costs about ``6 N D`` floating-point operations for ``N``
parameters and ``D`` tokens (forward ``2 N D``, backward ``4 N D``; Kaplan et
al. 2020, "Scaling Laws for Neural Language Models"), and about ``4 N D``
when only adapters are trained (the frozen weights need no weight
gradients). The reference GPU delivers its peak dense throughput times the
model-FLOPs utilization (MFU, Chowdhery et al. 2022, "PaLM") a real run
reaches::

    reference_gpu_hours = factor × N × D / (peak_tflops × 1e12 × mfu) / 3600

Work that is not a transformer is ``samples × epochs / samples_per_second /
3600`` at the reference GPU's measured throughput on the benchmark.

Examples
--------
>>> round(transformer_reference_gpu_hours(7e9, 2e9, "adapter", 312, 0.4), 2)
124.64
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import overload

import numpy as np
import numpy.typing as npt

from costmodel.sizing import (
    Precision,
    TrainingMethod,
    memory_capacity_gb,
    training_memory_gb,
)

__all__ = [
    "DEFAULT_MFU",
    "FLOPS_PER_PARAMETER_TOKEN",
    "MemoryFit",
    "dataset_reference_gpu_hours",
    "memory_fit",
    "transformer_reference_gpu_hours",
]

FLOPS_PER_PARAMETER_TOKEN: dict[str, float] = {"full": 6.0, "adapter": 4.0, "qlora": 4.0}
"""Floating-point operations per parameter and token [FLOP]: full training
(pre-training or full fine-tuning) 6, adapters only (LoRA and its kin, on 4-bit
base weights too: QLoRA) 4. Dequantizing 4-bit weights costs time, not model
FLOPs: a QLoRA run shows it as a lower MFU."""

DEFAULT_MFU = 0.4
"""Model-FLOPs utilization a well-tuned run reaches [fraction]. PaLM reported
46 % on TPU v4 (Chowdhery et al. 2022); published GPU runs of 1–100 B models
reach 35–55 %. 0.4 is the methodology's worked example, a little below them,
for runs not tuned by a specialist team."""

SECONDS_PER_HOUR = 3600.0

Number = float | npt.NDArray[np.float64]


@overload
def transformer_reference_gpu_hours(
    parameters: float,
    tokens: float,
    method: TrainingMethod,
    reference_peak_tflops: float,
    mfu: float = DEFAULT_MFU,
) -> float: ...
@overload
def transformer_reference_gpu_hours(
    parameters: npt.ArrayLike,
    tokens: npt.ArrayLike,
    method: TrainingMethod,
    reference_peak_tflops: npt.ArrayLike,
    mfu: npt.ArrayLike = DEFAULT_MFU,
) -> Number: ...
def transformer_reference_gpu_hours(
    parameters: npt.ArrayLike,
    tokens: npt.ArrayLike,
    method: TrainingMethod,
    reference_peak_tflops: npt.ArrayLike,
    mfu: npt.ArrayLike = DEFAULT_MFU,
) -> Number:
    """Reference GPU-hours of one transformer training run [reference GPU-h].

    Parameters
    ----------
    parameters : float or array
        Model size N [parameters], > 0.
    tokens : float or array
        Tokens processed by one run D [tokens] (dataset tokens × epochs), > 0.
    method : {"full", "adapter", "qlora"}
        Full training (factor 6) or adapters only (factor 4), on 4-bit base weights too.
    reference_peak_tflops : float or array
        Peak dense throughput of the reference GPU at the run's precision
        [TFLOP/s] (A100: 312 at BF16).
    mfu : float or array
        Model-FLOPs utilization (0, 1] [fraction]; :data:`DEFAULT_MFU`.

    Returns
    -------
    float or ndarray
        ``factor × N × D / (peak_tflops × 1e12 × mfu) / 3600``.

    Raises
    ------
    ValueError
        If a value is not finite and above 0, ``mfu`` is above 1, or
        ``method`` is not "full", "adapter" or "qlora".
    """
    if method not in FLOPS_PER_PARAMETER_TOKEN:
        raise ValueError(f"method: must be 'full', 'adapter' or 'qlora', not {method!r}")
    n, d = _positive("parameters", parameters), _positive("tokens", tokens)
    peak = _positive("reference_peak_tflops", reference_peak_tflops)
    utilization = _positive("mfu", mfu, at_most=1.0)
    flops = FLOPS_PER_PARAMETER_TOKEN[method] * n * d  # [FLOP]
    seconds = flops / (peak * 1e12 * utilization)  # on one reference GPU [s]
    return _out(seconds / SECONDS_PER_HOUR)


def dataset_reference_gpu_hours(
    samples: npt.ArrayLike, epochs: npt.ArrayLike, reference_samples_per_second: npt.ArrayLike
) -> Number:
    """Reference GPU-hours of one run over a dataset [reference GPU-h].

    Parameters
    ----------
    samples : float or array
        Samples in the dataset [samples], > 0.
    epochs : float or array
        Passes over it in one run [-], > 0.
    reference_samples_per_second : float or array
        The reference GPU's throughput on the benchmark [samples/s], > 0.

    Returns
    -------
    float or ndarray
        ``samples × epochs / reference_samples_per_second / 3600``.

    Examples
    --------
    >>> dataset_reference_gpu_hours(1_281_167, 90, 2_500.0)  # doctest: +ELLIPSIS
    12.81...
    """
    work = _positive("samples", samples) * _positive("epochs", epochs)  # [samples]
    rate = _positive("reference_samples_per_second", reference_samples_per_second)
    return _out(work / rate / SECONDS_PER_HOUR)


@dataclass(frozen=True)
class MemoryFit:
    """Whether a run's training memory fits one box, with the figures to say why."""

    needed_gb: float
    """Training memory of the run [GB] (:func:`costmodel.sizing.training_memory_gb`)."""
    capacity_gb: float
    """GPU memory of the box, states sharded across its GPUs [GB]."""

    @property
    def fits(self) -> bool:
        return self.needed_gb <= self.capacity_gb


def memory_fit(
    parameters_billion: float,
    precision: Precision,
    method: TrainingMethod,
    gpu_count: int,
    vram_gb: float,
    sharded: bool = True,
) -> MemoryFit:
    """The run's training memory against one box's GPU memory.

    Parameters
    ----------
    parameters_billion : model size [billion parameters]
    precision : "fp32", "fp16", "bf16" or "int8"
    method : "full", "adapter" (LoRA) or "qlora" (adapters on 4-bit weights)
    gpu_count : GPUs in the box
    vram_gb : memory of one of its GPUs [GB]
    sharded : the run splits its states across the box's GPUs (ZeRO-3 / FSDP);
        false: each GPU holds the whole run (plain data parallelism)

    Notes
    -----
    ``needed = training_memory_gb(P, precision, method)`` (the advisor's
    rule); ``capacity = gpu_count × vram_gb`` when sharded, as the advisor
    assumes, else ``vram_gb`` (:func:`costmodel.sizing.memory_capacity_gb`).
    The run fits when ``needed ≤ capacity``.

    >>> memory_fit(7.0, "bf16", "full", 1, 16.0).fits
    False
    >>> memory_fit(7.0, "bf16", "qlora", 1, 16.0).fits
    True
    """
    if gpu_count < 1 or not vram_gb > 0:
        raise ValueError("gpu_count and vram_gb: must be greater than 0")
    needed = training_memory_gb(parameters_billion, precision, method)
    return MemoryFit(needed_gb=needed, capacity_gb=memory_capacity_gb(gpu_count, vram_gb, sharded))


def _positive(name: str, value: npt.ArrayLike, at_most: float | None = None) -> Number:
    array = np.asarray(value, dtype=np.float64)
    if not (np.all(np.isfinite(array)) and np.all(array > 0)):
        raise ValueError(f"{name}: must be a finite number greater than 0")
    if at_most is not None and np.any(array > at_most):
        raise ValueError(f"{name}: must be less than or equal to {at_most:g}")
    return array


def _out(values: Number) -> Number:
    array = np.asarray(values)
    return float(array) if array.ndim == 0 else array

"""Sizing advisor: from model size, dataset size and precision to a hardware tier.

Encodes the rules of thumb of the two buyer's guides the product is built
around (``SIZING_RULES.md``) and says which rule decided what. Pure: no
Django, no catalog access. The web layer passes the catalog's presets as
:class:`PresetSpec` rows; without them the shipped presets' specs are used.

Every explanation is a :class:`Reason` with a stable ``code``, the figures it
quotes in ``params`` and an English ``text``; other languages translate by
``code`` and interpolate ``params``.

Notes
-----
Training memory [GB] is estimated as

``memory = max(P × b × (1 + a) + c, 12)``

with ``P`` the parameter count, ``b`` bytes per parameter for weights,
gradients and optimizer states (Adam) at the chosen precision, ``a = 0.25``
an allowance for activations (they depend on batch size and sequence length,
which the advisor does not ask for), ``c = 2 GB`` for the CUDA context and
framework, and 12 GB the guide's floor below which batch and model size are
limited. Bytes per parameter (Hugging Face, "Model training anatomy"):

- fp32: 4 weights + 4 gradients + 8 Adam moments = 16
- fp16 / bf16 mixed precision: 6 weights (fp32 master + half copy)
  + 4 gradients + 8 Adam moments = 18
- int8: mixed-precision weights and gradients with 8-bit Adam
  states: 6 + 4 + 2 = 12

A multi-GPU box is assumed to shard weights, gradients and optimizer states
across its GPUs (ZeRO-3 / FSDP), so its capacity is the sum of its GPUs'
memory; a single-GPU box's capacity is its GPU's memory.

The recommended tier is the highest tier any rule asks for:

- the guide's size bands: > 0.1 B parameters is beyond the budget tier
  (ResNet-50 class is 0.025 B; BERT-base, 0.11 B, is entry work),
  ≥ 1 B needs the multi tier, > 100 B the cluster tier;
- memory: the smallest tier with a preset whose capacity holds the estimate
  (and whose GPUs have at least 12 GB each); if no single box holds it,
  the cluster tier;
- dataset bands: < 10 GB budget, < 50 GB entry, ≥ 50 GB multi (the guide
  places multi at > 100 GB and leaves 50–100 GB unassigned: the advisor
  rounds up);
- a multi-GPU wish needs the multi tier.

Example
-------
>>> advice = advise(AdvisorInput(parameters_billion=0.11, dataset_gb=20))
>>> advice.tier, advice.preset_slug
('entry', 'entry-rtx4090')
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Tier = Literal["budget", "entry", "multi", "cluster"]
Precision = Literal["fp32", "fp16", "bf16", "int8"]

TIERS: tuple[Tier, ...] = ("budget", "entry", "multi", "cluster")
"""Tiers from smallest to largest."""

BYTES_PER_PARAMETER: dict[str, float] = {"fp32": 16.0, "fp16": 18.0, "bf16": 18.0, "int8": 12.0}
"""Weights + gradients + Adam states per parameter at each precision [B]."""

ACTIVATION_ALLOWANCE = 0.25
"""Activations as a fraction of weight, gradient and optimizer memory [-]."""

FRAMEWORK_OVERHEAD_GB = 2.0
"""CUDA context and framework buffers [GB]."""

VRAM_FLOOR_GB = 12.0
"""Below this much GPU memory batch and model size are limited [GB]."""

BUDGET_MAX_PARAMETERS_BILLION = 0.1
"""Largest model the budget tier is meant for (ResNet-50 class) [billion parameters]."""

ENTRY_MAX_PARAMETERS_BILLION = 1.0
"""The entry tier is for models below 1 B parameters [billion parameters]."""

CLUSTER_MIN_PARAMETERS_BILLION = 100.0
"""Above this the guide calls for a multi-node cluster [billion parameters]."""

BUDGET_MAX_DATASET_GB = 10.0
ENTRY_MAX_DATASET_GB = 50.0
MULTI_DATASET_GB = 100.0
"""Dataset bands [GB]: budget below 10, entry below 50, multi above 100."""

PSU_HEADROOM = 0.30
"""Required PSU rating over the box's peak draw [-]."""

PSU_MIN_EFFICIENCY = "gold"
"""Minimum 80 Plus grade."""

_EFFICIENCY_RANK = {"white": 0, "bronze": 1, "silver": 2, "gold": 3, "platinum": 4, "titanium": 5}

NVME_CAPACITY_FACTOR = 2.0
"""NVMe capacity per GB of training data (shards, shuffling buffers, checkpoints) [-]."""

CPU_CORES_BY_TIER: dict[str, int] = {"budget": 6, "entry": 8, "multi": 32}
"""CPU cores the guide pairs with each tier; tf.data ``num_parallel_calls`` ≈ cores."""

_GEFORCE_40 = re.compile(r"\bRTX\s*40[5-9]0\b", re.IGNORECASE)


class _Strict(BaseModel):
    model_config = ConfigDict(
        extra="forbid", strict=True, allow_inf_nan=False, frozen=True, validate_default=True
    )


class AdvisorInput(_Strict):
    """What the user knows about the training job."""

    parameters_billion: Annotated[float, Field(gt=0, le=1_000_000)]
    """Model size [billion parameters]."""
    dataset_gb: Annotated[float, Field(ge=0, le=1_000_000_000)]
    """Training data on disk [GB]."""
    precision: Precision = "fp16"
    multi_gpu: bool = False
    """The team wants several GPUs in the box (data parallel training)."""
    nvlink: bool = False
    """The team asked for an NVLink bridge between the GPUs."""


class PresetSpec(_Strict):
    """The facts about one build preset the advisor needs (from the catalog)."""

    slug: Annotated[str, Field(min_length=1)]
    tier: Tier
    gpu_name: str
    gpu_count: Annotated[int, Field(ge=1)]
    vram_gb: Annotated[float, Field(gt=0)]
    """Memory of one GPU [GB]."""
    nvlink: bool = False
    """Whether the GPU model supports NVLink."""
    peak_power_watts: Annotated[float, Field(gt=0)] | None = None
    """Peak wall draw of the whole box [W]."""
    psu_rated_watts: Annotated[float, Field(gt=0)] | None = None
    psu_efficiency: str | None = None
    """80 Plus grade of the PSU: white, bronze, silver, gold, platinum, titanium."""

    @property
    def capacity_gb(self) -> float:
        """Memory available to one training job, states sharded across GPUs [GB]."""
        return self.vram_gb * self.gpu_count

    @property
    def is_geforce_40(self) -> bool:
        return is_geforce_40_series(self.gpu_name)


DEFAULT_PRESETS: tuple[PresetSpec, ...] = (
    PresetSpec(
        slug="budget-rtx4060ti", tier="budget", gpu_name="RTX 4060 Ti 16GB", gpu_count=1, vram_gb=16
    ),
    PresetSpec(slug="entry-rtx4090", tier="entry", gpu_name="RTX 4090", gpu_count=1, vram_gb=24),
    PresetSpec(slug="multi-4x-rtx4090", tier="multi", gpu_name="RTX 4090", gpu_count=4, vram_gb=24),
    PresetSpec(slug="multi-8x-rtx4090", tier="multi", gpu_name="RTX 4090", gpu_count=8, vram_gb=24),
)
"""The guide's presets, used when no catalog is at hand."""


class Reason(_Strict):
    """One rule applied, or one warning: a stable code, its figures, English text."""

    code: str
    params: dict[str, Any] = Field(default_factory=dict)
    text: str


class Advice(_Strict):
    """The recommendation and why."""

    tier: Tier
    preset_slug: str | None
    """A build preset of that tier; ``None`` for the cluster tier (rent instead)."""
    training_memory_gb: float
    """Estimated GPU memory the training job needs [GB]."""
    reasons: list[Reason]
    warnings: list[Reason]


class PsuCheck(_Strict):
    """Result of :func:`check_psu`."""

    ok: bool
    required_watts: float
    """Smallest rating with the required headroom [W]."""
    headroom: float
    """Rating over peak draw, as a fraction (0.3 = 30 %) [-]."""
    efficiency_ok: bool


def is_geforce_40_series(gpu_name: str) -> bool:
    """Whether a GPU name is a GeForce RTX 40-series card (none of them has NVLink).

    >>> is_geforce_40_series("NVIDIA GeForce RTX 4090"), is_geforce_40_series("A100 80GB")
    (True, False)
    """
    return bool(_GEFORCE_40.search(gpu_name))


def training_memory_gb(parameters_billion: float, precision: Precision) -> float:
    """Estimated GPU memory to train a model with Adam [GB].

    Notes
    -----
    ``max(P × b × (1 + 0.25) + 2, 12)`` with ``P`` in billions (so ``P × b``
    is in GB) and ``b`` from :data:`BYTES_PER_PARAMETER`.

    >>> round(training_memory_gb(1.0, "fp16"), 2)
    24.5
    """
    states = parameters_billion * BYTES_PER_PARAMETER[precision]
    return max(states * (1 + ACTIVATION_ALLOWANCE) + FRAMEWORK_OVERHEAD_GB, VRAM_FLOOR_GB)


def check_psu(
    rated_watts: float, peak_draw_watts: float, efficiency: str | None = PSU_MIN_EFFICIENCY
) -> PsuCheck:
    """Check a power supply against a box's peak draw.

    Parameters
    ----------
    rated_watts : PSU rating [W]
    peak_draw_watts : the box's peak draw [W], > 0
    efficiency : 80 Plus grade (``None`` if unknown: fails the grade check)

    Notes
    -----
    OK when ``rated ≥ peak × (1 + 0.30)`` and the grade is Gold or better.

    >>> check_psu(1200, 850, "gold").ok, check_psu(1000, 850, "gold").ok
    (True, False)
    """
    if not (math.isfinite(rated_watts) and math.isfinite(peak_draw_watts)):
        raise ValueError("rated_watts and peak_draw_watts must be finite")
    if rated_watts <= 0 or peak_draw_watts <= 0:
        raise ValueError("rated_watts and peak_draw_watts must be greater than 0")
    required = peak_draw_watts * (1 + PSU_HEADROOM)
    grade = _EFFICIENCY_RANK.get((efficiency or "").strip().lower().removeprefix("80 plus "), -1)
    efficiency_ok = grade >= _EFFICIENCY_RANK[PSU_MIN_EFFICIENCY]
    # A hair of tolerance so that exactly 30 % passes despite float rounding.
    headroom_ok = rated_watts >= required * (1 - 1e-12)
    return PsuCheck(
        ok=headroom_ok and efficiency_ok,
        required_watts=required,
        headroom=rated_watts / peak_draw_watts - 1,
        efficiency_ok=efficiency_ok,
    )


def _tier_index(tier: Tier) -> int:
    return TIERS.index(tier)


def _band_for_parameters(p: float) -> Tier:
    if p > CLUSTER_MIN_PARAMETERS_BILLION:
        return "cluster"
    if p >= ENTRY_MAX_PARAMETERS_BILLION:
        return "multi"
    if p > BUDGET_MAX_PARAMETERS_BILLION:
        return "entry"
    return "budget"


def _band_for_dataset(gb: float) -> Tier:
    if gb >= ENTRY_MAX_DATASET_GB:
        return "multi"
    if gb >= BUDGET_MAX_DATASET_GB:
        return "entry"
    return "budget"


def _usable(presets: Sequence[PresetSpec]) -> list[PresetSpec]:
    return [p for p in presets if p.vram_gb >= VRAM_FLOOR_GB and p.tier != "cluster"]


def _tier_for_memory(memory_gb: float, presets: Sequence[PresetSpec]) -> Tier:
    for tier in TIERS[:-1]:
        if any(p.tier == tier and p.capacity_gb >= memory_gb for p in presets):
            return tier
    return "cluster"


def _pick_preset(tier: Tier, memory_gb: float, presets: Sequence[PresetSpec]) -> PresetSpec | None:
    """The smallest preset of the tier that holds the job (the largest if none does)."""
    candidates = sorted(
        (p for p in presets if p.tier == tier), key=lambda p: (p.capacity_gb, p.slug)
    )
    for p in candidates:
        if p.capacity_gb >= memory_gb:
            return p
    return candidates[-1] if candidates else None


def _r(code: str, text: str, **params: Any) -> Reason:
    return Reason(code=code, params=params, text=text.format(**params))


def _fmt(x: float) -> float | int:
    """Three significant figures (whole numbers from 100 up), an int when it is one."""
    rounded = float(f"{x:.3g}") if x < 100 else float(round(x))
    return int(rounded) if rounded.is_integer() else rounded


def advise(inp: AdvisorInput, presets: Sequence[PresetSpec] | None = None) -> Advice:
    """Recommend a tier and a preset for a training job, with the rules applied.

    Parameters
    ----------
    inp : the job
    presets : the catalog's presets (default :data:`DEFAULT_PRESETS`); presets
        whose GPUs have less than 12 GB are never recommended.
    """
    usable = _usable(DEFAULT_PRESETS if presets is None else presets)
    p = inp.parameters_billion
    memory = training_memory_gb(p, inp.precision)

    by_parameters = _band_for_parameters(p)
    by_memory = _tier_for_memory(memory, usable)
    by_dataset = _band_for_dataset(inp.dataset_gb)
    by_wish: Tier = "multi" if inp.multi_gpu else "budget"
    tier = max((by_parameters, by_memory, by_dataset, by_wish), key=_tier_index)
    # A tier the catalog has no preset for is skipped upwards (the cluster tier needs none).
    while tier != "cluster" and not any(x.tier == tier for x in usable):
        tier = TIERS[_tier_index(tier) + 1]
    preset = None if tier == "cluster" else _pick_preset(tier, memory, usable)

    reasons: list[Reason] = []
    warnings: list[Reason] = []
    bpp = BYTES_PER_PARAMETER[inp.precision]
    reasons.append(
        _r(
            "vram_priority",
            "GPU memory comes first. Training a {parameters_billion} B-parameter model at "
            "{precision} with Adam needs about {memory_gb} GB: {bytes_per_parameter} bytes per "
            "parameter for weights, gradients and optimizer states, plus {activation_pct} % for "
            "activations and {overhead_gb} GB for the framework.",
            parameters_billion=_fmt(p),
            precision=inp.precision,
            memory_gb=_fmt(memory),
            bytes_per_parameter=_fmt(bpp),
            activation_pct=round(ACTIVATION_ALLOWANCE * 100),
            overhead_gb=_fmt(FRAMEWORK_OVERHEAD_GB),
        )
    )
    reasons.append(
        _r(
            "vram_floor",
            "Below {floor_gb} GB of GPU memory batch size and model size are limited, so no GPU "
            "with less than {floor_gb} GB is recommended.",
            floor_gb=_fmt(VRAM_FLOOR_GB),
        )
    )
    if by_parameters != "budget":
        reasons.append(
            _r(
                "model_size_band",
                "The guide puts a {parameters_billion} B-parameter model in the {band} tier "
                "(budget up to {budget_max} B, entry below {entry_max} B, multi from {entry_max} "
                "B, cluster above {cluster_min} B).",
                parameters_billion=_fmt(p),
                band=by_parameters,
                budget_max=_fmt(BUDGET_MAX_PARAMETERS_BILLION),
                entry_max=_fmt(ENTRY_MAX_PARAMETERS_BILLION),
                cluster_min=_fmt(CLUSTER_MIN_PARAMETERS_BILLION),
            )
        )
    if by_memory != "budget":
        if by_memory == "cluster":
            largest = max((x.capacity_gb for x in usable), default=0.0)
            reasons.append(
                _r(
                    "memory_beyond_one_box",
                    "About {memory_gb} GB of training memory does not fit in one box: the "
                    "largest preset has {largest_gb} GB of GPU memory.",
                    memory_gb=_fmt(memory),
                    largest_gb=_fmt(largest),
                )
            )
        else:
            reasons.append(
                _r(
                    "memory_needs_tier",
                    "About {memory_gb} GB of training memory needs at least the {band} tier.",
                    memory_gb=_fmt(memory),
                    band=by_memory,
                )
            )
    if by_dataset != "budget":
        reasons.append(
            _r(
                "dataset_band",
                "A {dataset_gb} GB dataset puts the job in at least the {band} tier (budget below "
                "{budget_max} GB, entry below {entry_max} GB; the guide puts more than "
                "{multi_min} GB in the multi tier and leaves the gap between open: the advisor "
                "rounds up).",
                dataset_gb=_fmt(inp.dataset_gb),
                band=by_dataset,
                budget_max=_fmt(BUDGET_MAX_DATASET_GB),
                entry_max=_fmt(ENTRY_MAX_DATASET_GB),
                multi_min=_fmt(MULTI_DATASET_GB),
            )
        )
    if inp.multi_gpu:
        reasons.append(
            _r(
                "multi_gpu_requested",
                "Several GPUs in one box were asked for, which is the multi tier. Total batch = "
                "per-GPU batch × GPUs; scale the learning rate linearly or by √GPUs.",
            )
        )

    if tier == "cluster":
        reasons.append(
            _r(
                "cluster_beyond_one_box",
                "This job needs several nodes joined by RDMA / InfiniBand. That is beyond one "
                "self-built box: rent GPU instances or a managed cluster rather than building one.",
            )
        )
    elif preset is not None:
        reasons.append(
            _r(
                "preset_fits",
                "The {tier} preset {slug} has {gpu_count} × {gpu_name} with {capacity_gb} GB of "
                "GPU memory in total for about {memory_gb} GB needed.",
                tier=tier,
                slug=preset.slug,
                gpu_count=preset.gpu_count,
                gpu_name=preset.gpu_name,
                capacity_gb=_fmt(preset.capacity_gb),
                memory_gb=_fmt(memory),
            )
        )
        if preset.capacity_gb < memory:
            warnings.append(
                _r(
                    "preset_too_small",
                    "The {slug} preset has only {capacity_gb} GB of GPU memory for about "
                    "{memory_gb} GB needed: reduce the batch size, use gradient checkpointing, "
                    "or choose a larger box.",
                    slug=preset.slug,
                    capacity_gb=_fmt(preset.capacity_gb),
                    memory_gb=_fmt(memory),
                )
            )
        cores = CPU_CORES_BY_TIER[tier]
        reasons.append(
            _r(
                "cpu_cores_pipeline",
                "Give the input pipeline at least {cores} CPU cores and set tf.data "
                "num_parallel_calls to about the number of cores, so preprocessing does not "
                "starve the GPU.",
                cores=cores,
            )
        )
        nvme = max(500.0, inp.dataset_gb * NVME_CAPACITY_FACTOR)
        reasons.append(
            _r(
                "nvme_for_data",
                "Keep the training data on NVMe (PCIe 4.0), never on HDD: at least {nvme_gb} GB "
                "for a {dataset_gb} GB dataset; HDD only for cold storage. Put each GPU in a "
                "PCIe 4.0 x8/x16 slot.",
                nvme_gb=_fmt(nvme),
                dataset_gb=_fmt(inp.dataset_gb),
            )
        )
        reasons.append(_psu_reason(preset, warnings))
        if preset.gpu_count > 1 and preset.is_geforce_40:
            warnings.append(_no_nvlink(preset.gpu_name))
    if inp.nvlink and not any(w.code == "no_nvlink_geforce_40" for w in warnings):
        if preset is None or preset.is_geforce_40 or not preset.nvlink:
            warnings.append(_no_nvlink(preset.gpu_name if preset else "RTX 4090"))
    if inp.precision == "int8":
        warnings.append(
            _r(
                "int8_training",
                "int8 here means 8-bit optimizer states with mixed-precision weights and "
                "gradients; fully 8-bit training needs quantization-aware tooling.",
            )
        )
    warnings.append(
        _r(
            "tensorflow_linux_gpu",
            "The guide says TensorFlow 2.10 and later no longer support the GPU on Linux. That "
            "is wrong: native Windows GPU support ended after 2.10; on Linux the GPU is "
            "supported (pip install tensorflow[and-cuda] from 2.14).",
        )
    )
    return Advice(
        tier=tier,
        preset_slug=preset.slug if preset is not None else None,
        training_memory_gb=memory,
        reasons=reasons,
        warnings=warnings,
    )


def _ceil_watts(watts: float) -> int:
    # Round first so that 850 W × 1.3 reads 1105 W, not 1106 W.
    return math.ceil(round(watts, 6))


def _no_nvlink(gpu_name: str) -> Reason:
    return _r(
        "no_nvlink_geforce_40",
        "GeForce RTX 40-series cards such as the {gpu_name} have no NVLink: the guide's "
        "'needs an NVLink bridge' is wrong. Several of them in one box talk over PCIe only.",
        gpu_name=gpu_name,
    )


def _psu_reason(preset: PresetSpec, warnings: list[Reason]) -> Reason:
    if preset.peak_power_watts is None:
        return _r(
            "psu_headroom",
            "Choose a power supply rated at least {headroom_pct} % above the box's peak draw, "
            "80 Plus Gold or better.",
            headroom_pct=round(PSU_HEADROOM * 100),
        )
    peak = preset.peak_power_watts
    if preset.psu_rated_watts is not None:
        check = check_psu(preset.psu_rated_watts, peak, preset.psu_efficiency)
        if not check.ok:
            warnings.append(
                _r(
                    "psu_insufficient",
                    "The preset's {rated_watts} W {efficiency} power supply does not meet the "
                    "rule for a {peak_watts} W peak draw: it needs at least {required_watts} W, "
                    "80 Plus Gold or better.",
                    rated_watts=_fmt(preset.psu_rated_watts),
                    efficiency=preset.psu_efficiency or "unrated",
                    peak_watts=_fmt(peak),
                    required_watts=_ceil_watts(check.required_watts),
                )
            )
    return _r(
        "psu_headroom",
        "The box peaks at about {peak_watts} W: choose a power supply of at least "
        "{required_watts} W ({headroom_pct} % headroom), 80 Plus Gold or better.",
        peak_watts=_fmt(peak),
        required_watts=_ceil_watts(peak * (1 + PSU_HEADROOM)),
        headroom_pct=round(PSU_HEADROOM * 100),
    )

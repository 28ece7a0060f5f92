"""Sizing advisor: from model size, dataset size and precision to a hardware tier.

Encodes the rules of thumb of the two buyer's guides the product is built
around and says which rule decided what. Pure: no Django, no catalog access,
no prose. The web layer passes the catalog's presets as :class:`PresetSpec`
rows; without them :data:`DEFAULT_PRESETS` are used.

Every explanation is a :class:`Reason`: a stable ``code`` (one of
:data:`REASON_CODES`) and the figures it quotes in ``params``, unrounded.
The sentences live in the web layer's translations, one per code.

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

Adapter training (LoRA) keeps only the frozen weights: 4, 2 or 1 bytes at
fp32, fp16/bf16 or int8; on a 4-bit base (QLoRA) 4.127 bits, 4-bit NormalFloat
weights and their double-quantized constants (Dettmers et al. 2023).

A multi-GPU box or a cluster is assumed to shard weights, gradients and
optimizer states across all its GPUs (ZeRO-3 / FSDP), so its capacity is the
sum of its GPUs' memory; a single-GPU box's capacity is its GPU's memory. A
run stated as not sharded (plain data parallelism) must fit one GPU
(:func:`memory_capacity_gb`).

The recommended tier is the highest tier any rule asks for
(:func:`tier_votes`, :func:`recommended_tier`):

- the guide's size bands: > 0.1 B parameters is beyond the budget tier
  (ResNet-50 class is 0.025 B; BERT-base, 0.11 B, is entry work),
  ≥ 1 B needs the multi tier, > 100 B the cluster tier;
- memory: the smallest tier with a preset whose capacity holds the estimate
  (and whose GPUs have at least 12 GB each); if no preset holds it, the
  cluster tier;
- dataset bands: < 10 GB budget, < 50 GB entry, ≥ 50 GB multi (the guide
  places multi at > 100 GB and leaves 50–100 GB unassigned: the advisor
  rounds up);
- a multi-GPU wish needs the multi tier.

Within the tier the smallest preset (by GPU memory) that holds the job is
picked (:func:`pick_preset`). A cluster preset is several GPU servers joined
by RDMA; the advisor then also says what a managed cluster or a cloud
reservation offers instead (``managed_alternatives``).

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
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

Tier = Literal["budget", "entry", "multi", "cluster"]
Precision = Literal["fp32", "fp16", "bf16", "int8"]

TIERS: tuple[Tier, ...] = ("budget", "entry", "multi", "cluster")
"""Tiers from smallest to largest."""

BYTES_PER_PARAMETER: dict[str, float] = {"fp32": 16.0, "fp16": 18.0, "bf16": 18.0, "int8": 12.0}
"""Weights + gradients + Adam states per parameter at each precision [B]."""

ADAPTER_BYTES_PER_PARAMETER: dict[str, float] = {"fp32": 4.0, "fp16": 2.0, "bf16": 2.0, "int8": 1.0}
"""Frozen weights per parameter when only adapters are trained [B]: no gradient or optimizer
state for them (LoRA, Hu et al. 2021); the adapters' own states are a fraction of a percent."""

QLORA_BYTES_PER_PARAMETER = 4.127 / 8
"""Frozen base weights per parameter when adapters are trained on a 4-bit base (QLoRA) [B]:
4-bit NormalFloat weights plus their double-quantized scaling constants, 0.127 bits per
parameter (Dettmers et al. 2023, "QLoRA: Efficient Finetuning of Quantized LLMs", sections
2-3). Computation runs in the chosen precision; the stored weights are 4-bit whatever it is."""

TrainingMethod = Literal["full", "adapter", "qlora"]
"""``full``: every weight trained (Adam states for all); ``adapter``: adapters only (LoRA) on
base weights stored at the chosen precision; ``qlora``: adapters on 4-bit base weights."""

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

NVME_MIN_GB = 500.0
"""Smallest NVMe drive the guide recommends [GB]."""

NVME_CAPACITY_FACTOR = 2.0
"""NVMe capacity per GB of training data (shards, shuffling buffers, checkpoints) [-]."""

CPU_CORES_BY_TIER: dict[str, int] = {"budget": 6, "entry": 8, "multi": 32}
"""CPU cores the guide pairs with each tier; tf.data ``num_parallel_calls`` ≈ cores."""

REASON_CODES: frozenset[str] = frozenset(
    {
        # the rules that set the tier
        "vram_priority",
        "vram_floor",
        "model_size_band",
        "memory_beyond_one_box",
        "memory_needs_tier",
        "dataset_band",
        "multi_gpu_requested",
        # one box
        "preset_fits",
        "cpu_cores_pipeline",
        "nvme_for_data",
        "psu_headroom",
        "psu_headroom_known_peak",
        # the cluster tier
        "cluster_beyond_one_box",
        "cluster_preset_fits",
        "cluster_no_preset",
        "cluster_power",
        "managed_alternatives",
        # warnings
        "preset_too_small",
        "cluster_too_small",
        "psu_insufficient",
        "no_nvlink_geforce_40",
        "no_nvlink",
        "int8_training",
        "tensorflow_linux_gpu",
    }
)
"""Every code a :class:`Reason` can carry; the web layer has one sentence for each."""

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
    """GPUs of the whole preset (every node of a cluster)."""
    vram_gb: Annotated[float, Field(gt=0)]
    """Memory of one GPU [GB]."""
    node_count: Annotated[int, Field(ge=1)] = 1
    """GPU servers joined by RDMA (1 for a single box)."""
    nvlink: bool = False
    """Whether the GPU model supports NVLink."""
    peak_power_watts: Annotated[float, Field(gt=0)] | None = None
    """Peak draw of the whole box or cluster [W]."""
    psu_rated_watts: Annotated[float, Field(gt=0)] | None = None
    psu_efficiency: str | None = None
    """80 Plus grade of the PSU: white, bronze, silver, gold, platinum, titanium."""

    @property
    def capacity_gb(self) -> float:
        """Memory available to one training job, states sharded across GPUs [GB]."""
        return self.vram_gb * self.gpu_count

    @property
    def gpus_per_node(self) -> int:
        return self.gpu_count // self.node_count

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
    PresetSpec(
        slug="multi-4x-a100-80gb",
        tier="multi",
        gpu_name="A100 80GB PCIe",
        gpu_count=4,
        vram_gb=80,
        nvlink=True,
    ),
    PresetSpec(
        slug="cluster-2x-hgx-h100",
        tier="cluster",
        gpu_name="H100 80GB SXM5",
        gpu_count=16,
        node_count=2,
        vram_gb=80,
        nvlink=True,
    ),
    PresetSpec(
        slug="cluster-4x-hgx-h100",
        tier="cluster",
        gpu_name="H100 80GB SXM5",
        gpu_count=32,
        node_count=4,
        vram_gb=80,
        nvlink=True,
    ),
)
"""The guide's presets and the cluster tier, used when no catalog is at hand."""

Param = str | int | float | bool | None


class Reason(_Strict):
    """One rule applied, or one warning: a stable code and the figures it quotes."""

    code: str
    params: dict[str, Param] = Field(default_factory=dict)


class Advice(_Strict):
    """The recommendation and why."""

    tier: Tier
    preset_slug: str | None
    """A preset of that tier; ``None`` when the catalog has none (rent instead)."""
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


@dataclass(frozen=True)
class TierVotes:
    """The tier each rule asks for; the recommendation is the highest."""

    parameters: Tier
    memory: Tier
    dataset: Tier
    wish: Tier

    @property
    def highest(self) -> Tier:
        return max((self.parameters, self.memory, self.dataset, self.wish), key=TIERS.index)


def is_geforce_40_series(gpu_name: str) -> bool:
    """Whether a GPU name is a GeForce RTX 40-series card (none of them has NVLink).

    >>> is_geforce_40_series("NVIDIA GeForce RTX 4090"), is_geforce_40_series("A100 80GB")
    (True, False)
    """
    return bool(_GEFORCE_40.search(gpu_name))


def bytes_per_parameter(precision: Precision, method: TrainingMethod = "full") -> float:
    """What one parameter keeps in GPU memory while training [B].

    :data:`BYTES_PER_PARAMETER` for ``full`` training,
    :data:`ADAPTER_BYTES_PER_PARAMETER` for ``adapter`` training (the frozen
    weights alone), :data:`QLORA_BYTES_PER_PARAMETER` for ``qlora`` (4-bit
    frozen weights, whatever the precision of the computation).

    >>> bytes_per_parameter("bf16", "qlora")
    0.515875
    """
    if method == "qlora":
        return QLORA_BYTES_PER_PARAMETER
    per_parameter = BYTES_PER_PARAMETER if method == "full" else ADAPTER_BYTES_PER_PARAMETER
    return per_parameter[precision]


def training_memory_gb(
    parameters_billion: float, precision: Precision, method: TrainingMethod = "full"
) -> float:
    """Estimated GPU memory to train a model with Adam [GB].

    Notes
    -----
    ``max(P × b × (1 + 0.25) + 2, 12)`` with ``P`` in billions (so ``P × b``
    is in GB) and ``b`` from :func:`bytes_per_parameter`: every weight's
    states for ``full`` training, the frozen weights alone when only adapters
    are trained (``adapter``, at the chosen precision; ``qlora``, 4-bit).

    >>> round(training_memory_gb(1.0, "fp16"), 2)
    24.5
    >>> round(training_memory_gb(7.0, "bf16", "adapter"), 2)
    19.5
    >>> round(training_memory_gb(70.0, "bf16", "qlora"), 2)
    47.14
    """
    states = parameters_billion * bytes_per_parameter(precision, method)
    return max(states * (1 + ACTIVATION_ALLOWANCE) + FRAMEWORK_OVERHEAD_GB, VRAM_FLOOR_GB)


def memory_capacity_gb(gpu_count: int, vram_gb: float, sharded: bool = True) -> float:
    """GPU memory one run may use on one box or instance [GB].

    ``sharded`` (ZeRO-3 / FSDP: weights, gradients and optimizer states split
    across the GPUs): every GPU's memory, ``gpu_count × vram_gb``. Not sharded
    (plain data parallelism, DDP: every GPU holds the whole model): one GPU's,
    ``vram_gb``. A run is never sharded across boxes or instances.

    >>> memory_capacity_gb(4, 24.0), memory_capacity_gb(4, 24.0, sharded=False)
    (96.0, 24.0)
    """
    return float(gpu_count) * vram_gb if sharded else float(vram_gb)


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


def nodes_needed(memory_gb: float, preset: PresetSpec) -> int:
    """Servers of the preset's kind whose GPUs together hold ``memory_gb`` [-].

    >>> nodes_needed(3939.5, DEFAULT_PRESETS[-1])  # 175 B at fp16 on 8 × 80 GB nodes
    7
    """
    return math.ceil(memory_gb / (preset.vram_gb * preset.gpus_per_node))


# --- the tier -------------------------------------------------------------------------------


def tier_for_parameters(parameters_billion: float) -> Tier:
    """The guide's model-size band."""
    if parameters_billion > CLUSTER_MIN_PARAMETERS_BILLION:
        return "cluster"
    if parameters_billion >= ENTRY_MAX_PARAMETERS_BILLION:
        return "multi"
    if parameters_billion > BUDGET_MAX_PARAMETERS_BILLION:
        return "entry"
    return "budget"


def tier_for_dataset(dataset_gb: float) -> Tier:
    """The guide's dataset band (50 – 100 GB rounded up to multi)."""
    if dataset_gb >= ENTRY_MAX_DATASET_GB:
        return "multi"
    if dataset_gb >= BUDGET_MAX_DATASET_GB:
        return "entry"
    return "budget"


def tier_for_memory(memory_gb: float, presets: Sequence[PresetSpec]) -> Tier:
    """The smallest tier with a preset that holds ``memory_gb``; the cluster tier if none does."""
    for tier in TIERS:
        if any(p.tier == tier and p.capacity_gb >= memory_gb for p in presets):
            return tier
    return "cluster"


def tier_votes(inp: AdvisorInput, memory_gb: float, presets: Sequence[PresetSpec]) -> TierVotes:
    return TierVotes(
        parameters=tier_for_parameters(inp.parameters_billion),
        memory=tier_for_memory(memory_gb, presets),
        dataset=tier_for_dataset(inp.dataset_gb),
        wish="multi" if inp.multi_gpu else "budget",
    )


def recommended_tier(votes: TierVotes, presets: Sequence[PresetSpec]) -> Tier:
    """The highest vote, moved up past tiers the catalog has no preset for.

    The cluster tier is recommended even without a preset (then: rent).
    """
    tier = votes.highest
    while tier != "cluster" and not any(p.tier == tier for p in presets):
        tier = TIERS[TIERS.index(tier) + 1]
    return tier


def pick_preset(tier: Tier, memory_gb: float, presets: Sequence[PresetSpec]) -> PresetSpec | None:
    """The smallest preset of the tier that holds the job (the largest if none does)."""
    candidates = sorted(
        (p for p in presets if p.tier == tier), key=lambda p: (p.capacity_gb, p.slug)
    )
    for p in candidates:
        if p.capacity_gb >= memory_gb:
            return p
    return candidates[-1] if candidates else None


def smallest_preset_that_fits(
    memory_gb: float, presets: Sequence[PresetSpec] = DEFAULT_PRESETS
) -> PresetSpec | None:
    """The preset of least GPU memory, of any tier, that holds ``memory_gb``; None if none does.

    What to offer when a run does not fit the chosen box: capacity as
    :attr:`PresetSpec.capacity_gb` (states sharded across the GPUs), ties
    broken by tier (the smaller first), then slug.

    >>> smallest_preset_that_fits(159.5).slug
    'multi-8x-rtx4090'
    """
    fitting = [p for p in presets if p.capacity_gb >= memory_gb]
    if not fitting:
        return None
    return min(fitting, key=lambda p: (p.capacity_gb, TIERS.index(p.tier), p.slug))


# --- what the advisor says ------------------------------------------------------------------


def tier_reasons(
    inp: AdvisorInput, memory_gb: float, votes: TierVotes, presets: Sequence[PresetSpec]
) -> list[Reason]:
    """Why this tier: memory first, then each rule that asked for more than the budget tier."""
    reasons = [
        Reason(
            code="vram_priority",
            params={
                "parameters_billion": inp.parameters_billion,
                "precision": inp.precision,
                "memory_gb": memory_gb,
                "bytes_per_parameter": BYTES_PER_PARAMETER[inp.precision],
                "activation_allowance": ACTIVATION_ALLOWANCE,
                "overhead_gb": FRAMEWORK_OVERHEAD_GB,
            },
        ),
        Reason(code="vram_floor", params={"floor_gb": VRAM_FLOOR_GB}),
    ]
    if votes.parameters != "budget":
        reasons.append(
            Reason(
                code="model_size_band",
                params={
                    "parameters_billion": inp.parameters_billion,
                    "tier": votes.parameters,
                    "budget_max": BUDGET_MAX_PARAMETERS_BILLION,
                    "entry_max": ENTRY_MAX_PARAMETERS_BILLION,
                    "cluster_min": CLUSTER_MIN_PARAMETERS_BILLION,
                },
            )
        )
    if votes.memory == "cluster":  # no single box holds it (else a lower tier would)
        largest = max((p.capacity_gb for p in presets if p.tier != "cluster"), default=0.0)
        reasons.append(
            Reason(
                code="memory_beyond_one_box",
                params={"memory_gb": memory_gb, "largest_gb": largest},
            )
        )
    elif votes.memory != "budget":
        reasons.append(
            Reason(code="memory_needs_tier", params={"memory_gb": memory_gb, "tier": votes.memory})
        )
    if votes.dataset != "budget":
        reasons.append(
            Reason(
                code="dataset_band",
                params={
                    "dataset_gb": inp.dataset_gb,
                    "tier": votes.dataset,
                    "budget_max": BUDGET_MAX_DATASET_GB,
                    "entry_max": ENTRY_MAX_DATASET_GB,
                    "multi_min": MULTI_DATASET_GB,
                },
            )
        )
    if inp.multi_gpu:
        reasons.append(Reason(code="multi_gpu_requested"))
    return reasons


def box_advice(
    inp: AdvisorInput, preset: PresetSpec, memory_gb: float
) -> tuple[list[Reason], list[Reason]]:
    """Reasons and warnings for building one box: fit, CPU, NVMe, power supply, NVLink."""
    reasons = [
        Reason(
            code="preset_fits",
            params={
                "preset": preset.slug,
                "tier": preset.tier,
                "gpu_count": preset.gpu_count,
                "gpu_name": preset.gpu_name,
                "capacity_gb": preset.capacity_gb,
                "memory_gb": memory_gb,
            },
        ),
        Reason(code="cpu_cores_pipeline", params={"cores": CPU_CORES_BY_TIER[preset.tier]}),
        _nvme(inp),
    ]
    warnings = []
    if preset.capacity_gb < memory_gb:
        warnings.append(
            Reason(
                code="preset_too_small",
                params={
                    "preset": preset.slug,
                    "capacity_gb": preset.capacity_gb,
                    "memory_gb": memory_gb,
                },
            )
        )
    psu_reason, psu_warnings = power_supply_advice(preset)
    reasons.append(psu_reason)
    warnings.extend(psu_warnings)
    if preset.gpu_count > 1 and preset.is_geforce_40:
        warnings.append(Reason(code="no_nvlink_geforce_40", params={"gpu_name": preset.gpu_name}))
    return reasons, warnings


def cluster_advice(
    inp: AdvisorInput, preset: PresetSpec | None, memory_gb: float
) -> tuple[list[Reason], list[Reason]]:
    """Reasons and warnings for the cluster tier: the preset, its power, the managed alternatives.

    Notes
    -----
    The cluster's power is given in kW for colocation billed per kW:
    ``peak / 1000`` for the whole cluster and ``peak / nodes / 1000`` per node.
    """
    reasons = [Reason(code="cluster_beyond_one_box")]
    warnings = []
    if preset is None:
        reasons.append(Reason(code="cluster_no_preset"))
    else:
        reasons.append(
            Reason(
                code="cluster_preset_fits",
                params={
                    "preset": preset.slug,
                    "node_count": preset.node_count,
                    "gpus_per_node": preset.gpus_per_node,
                    "gpu_name": preset.gpu_name,
                    "capacity_gb": preset.capacity_gb,
                    "memory_gb": memory_gb,
                },
            )
        )
        if preset.peak_power_watts is not None:
            reasons.append(
                Reason(
                    code="cluster_power",
                    params={
                        "peak_kw": preset.peak_power_watts / 1000,
                        "node_kw": preset.peak_power_watts / preset.node_count / 1000,
                    },
                )
            )
        reasons.append(_nvme(inp))
        if preset.capacity_gb < memory_gb:
            warnings.append(
                Reason(
                    code="cluster_too_small",
                    params={
                        "preset": preset.slug,
                        "capacity_gb": preset.capacity_gb,
                        "memory_gb": memory_gb,
                        "nodes_needed": nodes_needed(memory_gb, preset),
                        "gpus_per_node": preset.gpus_per_node,
                        "gpu_name": preset.gpu_name,
                    },
                )
            )
    reasons.append(Reason(code="managed_alternatives", params={"has_preset": preset is not None}))
    return reasons, warnings


def power_supply_advice(preset: PresetSpec) -> tuple[Reason, list[Reason]]:
    """The headroom rule for the box, and a warning if the preset's supply breaks it."""
    if preset.peak_power_watts is None:
        return Reason(code="psu_headroom", params={"headroom": PSU_HEADROOM}), []
    peak = preset.peak_power_watts
    reason = Reason(
        code="psu_headroom_known_peak",
        params={
            "peak_watts": peak,
            "required_watts": _ceil_watts(peak * (1 + PSU_HEADROOM)),
            "headroom": PSU_HEADROOM,
        },
    )
    if preset.psu_rated_watts is None:
        return reason, []
    check = check_psu(preset.psu_rated_watts, peak, preset.psu_efficiency)
    if check.ok:
        return reason, []
    warning = Reason(
        code="psu_insufficient",
        params={
            "rated_watts": preset.psu_rated_watts,
            "efficiency": preset.psu_efficiency,
            "peak_watts": peak,
            "required_watts": _ceil_watts(check.required_watts),
        },
    )
    return reason, [warning]


def guide_corrections(
    inp: AdvisorInput, preset: PresetSpec | None, warnings: Sequence[Reason]
) -> list[Reason]:
    """The guides' known errors that apply to this job, and what int8 means here."""
    corrections = []
    said = {w.code for w in warnings}
    if inp.nvlink and preset is not None and "no_nvlink_geforce_40" not in said:
        if preset.is_geforce_40:
            corrections.append(
                Reason(code="no_nvlink_geforce_40", params={"gpu_name": preset.gpu_name})
            )
        elif not preset.nvlink:
            corrections.append(Reason(code="no_nvlink", params={"gpu_name": preset.gpu_name}))
    if inp.precision == "int8":
        corrections.append(Reason(code="int8_training"))
    corrections.append(Reason(code="tensorflow_linux_gpu"))
    return corrections


def advise(inp: AdvisorInput, presets: Sequence[PresetSpec] | None = None) -> Advice:
    """Recommend a tier and a preset for a training job, with the rules applied.

    Parameters
    ----------
    inp : the job
    presets : the catalog's presets (default :data:`DEFAULT_PRESETS`); presets
        whose GPUs have less than 12 GB are never recommended.
    """
    usable = [p for p in (DEFAULT_PRESETS if presets is None else presets) if _usable(p)]
    memory = training_memory_gb(inp.parameters_billion, inp.precision)
    votes = tier_votes(inp, memory, usable)
    tier = recommended_tier(votes, usable)
    preset = pick_preset(tier, memory, usable)
    reasons = tier_reasons(inp, memory, votes, usable)
    if tier == "cluster":
        more, warnings = cluster_advice(inp, preset, memory)
    else:
        assert preset is not None  # below the cluster tier, recommended_tier needs a preset
        more, warnings = box_advice(inp, preset, memory)
    warnings += guide_corrections(inp, preset, warnings)
    return Advice(
        tier=tier,
        preset_slug=None if preset is None else preset.slug,
        training_memory_gb=memory,
        reasons=reasons + more,
        warnings=warnings,
    )


def _usable(preset: PresetSpec) -> bool:
    return preset.vram_gb >= VRAM_FLOOR_GB


def _nvme(inp: AdvisorInput) -> Reason:
    nvme = max(NVME_MIN_GB, inp.dataset_gb * NVME_CAPACITY_FACTOR)
    return Reason(code="nvme_for_data", params={"nvme_gb": nvme, "dataset_gb": inp.dataset_gb})


def _ceil_watts(watts: float) -> int:
    # Round first so that 850 W × 1.3 reads 1105 W, not 1106 W.
    return math.ceil(round(watts, 6))

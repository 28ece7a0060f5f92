"""The advisor's sentences: one per reason code of :mod:`costmodel.sizing`, translated.

The engine says *what* applies (a code) and *with which figures* (its params,
unrounded); this module is the only place that says it in words. Figures are
shown to three significant figures in the active language; a tier, a preset
and a GPU are shown by their catalog names.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from costmodel.sizing import Param, Reason
from webapp.catalog.models import BuildPreset, EfficiencyGrade, Tier
from webapp.formatting import number, percent

TIER_LABELS: dict[str, Promise] = dict(Tier.choices)
GRADE_LABELS: dict[str, Promise] = dict(EfficiencyGrade.choices)

REASON_TEXTS: dict[str, Promise] = {
    "vram_priority": _(
        "GPU memory comes first. Training a %(parameters_billion)s B-parameter model at "
        "%(precision)s with Adam needs about %(memory_gb)s GB: %(bytes_per_parameter)s bytes per "
        "parameter for weights, gradients and optimizer states, plus %(activation_allowance)s for "
        "activations and %(overhead_gb)s GB for the framework."
    ),
    "vram_floor": _(
        "Below %(floor_gb)s GB of GPU memory batch size and model size are limited, so no GPU "
        "with less than %(floor_gb)s GB is recommended."
    ),
    "model_size_band": _(
        "The guide puts a %(parameters_billion)s B-parameter model in the %(tier)s tier (budget "
        "up to %(budget_max)s B, entry below %(entry_max)s B, multi from %(entry_max)s B, cluster "
        "above %(cluster_min)s B)."
    ),
    "memory_beyond_one_box": _(
        "About %(memory_gb)s GB of training memory does not fit in one box: the largest preset "
        "has %(largest_gb)s GB of GPU memory."
    ),
    "memory_needs_tier": _(
        "About %(memory_gb)s GB of training memory needs at least the %(tier)s tier."
    ),
    "dataset_band": _(
        "A %(dataset_gb)s GB dataset puts the job in at least the %(tier)s tier (budget below "
        "%(budget_max)s GB, entry below %(entry_max)s GB; the guide puts more than %(multi_min)s "
        "GB in the multi tier and leaves the gap between open: the advisor rounds up)."
    ),
    "multi_gpu_requested": _(
        "Several GPUs in one box were asked for, which is the multi tier. Total batch = per-GPU "
        "batch × GPUs; scale the learning rate linearly or by √GPUs."
    ),
    "preset_fits": _(
        "The %(tier)s preset “%(preset)s” has %(gpu_count)s × %(gpu_name)s with %(capacity_gb)s "
        "GB of GPU memory in total for about %(memory_gb)s GB needed."
    ),
    "cpu_cores_pipeline": _(
        "Give the input pipeline at least %(cores)s CPU cores and set tf.data "
        "num_parallel_calls to about the number of cores, so preprocessing does not starve the "
        "GPU."
    ),
    "nvme_for_data": _(
        "Keep the training data on NVMe (PCIe 4.0), never on HDD: at least %(nvme_gb)s GB for "
        "a %(dataset_gb)s GB dataset; HDD only for cold storage. Put each GPU in a PCIe 4.0 "
        "x8/x16 slot."
    ),
    "psu_headroom": _(
        "Choose a power supply rated at least %(headroom)s above the box's peak draw, 80 Plus "
        "Gold or better."
    ),
    "psu_headroom_known_peak": _(
        "The box peaks at about %(peak_watts)s W: choose a power supply of at least "
        "%(required_watts)s W (%(headroom)s headroom), 80 Plus Gold or better."
    ),
    "cluster_beyond_one_box": _(
        "This job needs several GPU servers joined by RDMA (InfiniBand or RoCE): the cluster tier."
    ),
    "cluster_preset_fits": _(
        "The cluster preset “%(preset)s” has %(node_count)s nodes of %(gpus_per_node)s × "
        "%(gpu_name)s, %(capacity_gb)s GB of GPU memory in total for about %(memory_gb)s GB "
        "needed, with the weights, gradients and optimizer states sharded across every GPU "
        "(ZeRO-3 / FSDP)."
    ),
    "cluster_no_preset": _(
        "The catalog has no cluster preset to price: rent GPU instances, reserve them for a "
        "year or three, or use a managed cluster."
    ),
    "cluster_power": _(
        "It draws about %(peak_kw)s kW at full load (%(node_kw)s kW per node): place it in "
        "colocation billed per kW, with the network fabric (adapters, switch, cables) in the "
        "same rack row."
    ),
    "managed_alternatives": _(
        "The alternative to owning a cluster is a managed cluster or a cloud reservation for 1 or "
        "3 years: the provider brings the operations staff, the spare nodes and the handling of "
        "failed GPUs and links. An owner pays for these as operations and maintenance costs, "
        "keeps spares or waits for repairs. “The guide, checked” compares the H100 cluster with "
        "reserved and on-demand 8 × H100 nodes."
    ),
    "preset_too_small": _(
        "The preset “%(preset)s” has only %(capacity_gb)s GB of GPU memory for about "
        "%(memory_gb)s GB needed: reduce the batch size, use gradient checkpointing, or choose a "
        "larger box."
    ),
    "cluster_too_small": _(
        "Even the largest cluster preset, “%(preset)s”, has only %(capacity_gb)s GB of GPU "
        "memory for about %(memory_gb)s GB needed: about %(nodes_needed)s nodes of "
        "%(gpus_per_node)s × %(gpu_name)s would hold the job, or cut its memory with 8-bit "
        "optimizer states, activation checkpointing or offloading."
    ),
    "psu_insufficient": _(
        "The preset's %(rated_watts)s W %(efficiency)s power supply does not meet the rule for a "
        "%(peak_watts)s W peak draw: it needs at least %(required_watts)s W, 80 Plus Gold or "
        "better."
    ),
    "no_nvlink_geforce_40": _(
        "GeForce RTX 40-series cards such as the %(gpu_name)s have no NVLink: the guide's "
        "'needs an NVLink bridge' is wrong. Several of them in one box talk over PCIe only."
    ),
    "no_nvlink": _(
        "The %(gpu_name)s has no NVLink: several of them in one box talk over PCIe only."
    ),
    "int8_training": _(
        "int8 here means 8-bit optimizer states with mixed-precision weights and gradients; "
        "fully 8-bit training needs quantization-aware tooling."
    ),
    "tensorflow_linux_gpu": _(
        "The guide says TensorFlow 2.10 and later no longer support the GPU on Linux. That is "
        "wrong: native Windows GPU support ended after 2.10; on Linux the GPU is supported (pip "
        "install tensorflow[and-cuda] from 2.14)."
    ),
}
"""The sentence of each reason code, in the active language."""

_PERCENT_PARAMS = {"activation_allowance", "headroom"}


def sentence(reason: Reason, presets: Mapping[str, BuildPreset] | None = None) -> str:
    """The reason in words, in the active language.

    ``presets`` are the catalog's presets by slug, to name the preset and its
    GPU a reason quotes. A code without a sentence (none ships: a test checks)
    is shown as the code.
    """
    template = REASON_TEXTS.get(reason.code)
    if template is None:
        return reason.code
    preset = (presets or {}).get(str(reason.params.get("preset")))
    shown = {name: _shown(name, value, preset) for name, value in reason.params.items()}
    return str(template) % shown


def significant(value: float) -> str:
    """A figure to three significant figures (whole numbers from 100 up), localized.

    >>> significant(22.25), significant(159.5), significant(0.11), significant(2560.0)
    ('22.2', '160', '0.11', '2,560')
    """
    if value == 0 or not math.isfinite(value):
        return number(value)
    if abs(value) >= 100:
        return number(value, 0)
    decimals = max(0, 2 - math.floor(math.log10(abs(value))))
    text = number(round(value, decimals), decimals)
    if decimals and "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _shown(name: str, value: Param, preset: BuildPreset | None) -> str:
    if name == "tier":
        return str(TIER_LABELS.get(str(value), value))
    if name == "preset":
        return preset.localized_name() if preset is not None else str(value)
    if name == "gpu_name" and preset is not None:
        return preset.gpu_model.localized_name()
    if name == "efficiency":
        return str(GRADE_LABELS.get(str(value), _("unrated"))) if value else str(_("unrated"))
    if name in _PERCENT_PARAMS and isinstance(value, float):
        return percent(value)
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return number(value)
    return significant(value)

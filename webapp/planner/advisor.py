"""The sizing advisor on the web: catalog presets in, translated reasons out.

The rules live in :mod:`costmodel.sizing`; this module only feeds it the
catalog's presets and turns its coded reasons into sentences of the active
language (``REASON_TEXTS``, keyed by the reason's ``code``, with its params
interpolated). A code without a translation falls back to the engine's
English text, so a new rule never breaks the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy as _

from costmodel.sizing import Advice, AdvisorInput, PresetSpec, Reason, advise
from webapp.catalog import selectors
from webapp.catalog.models import BuildPreset, EfficiencyGrade, PartKind, Tier

TIER_LABELS = dict(Tier.choices)

REASON_TEXTS = {
    "vram_priority": _(
        "GPU memory comes first. Training a %(parameters_billion)s B-parameter model at "
        "%(precision)s with Adam needs about %(memory_gb)s GB: %(bytes_per_parameter)s bytes per "
        "parameter for weights, gradients and optimizer states, plus %(activation_pct)s %% for "
        "activations and %(overhead_gb)s GB for the framework."
    ),
    "vram_floor": _(
        "Below %(floor_gb)s GB of GPU memory batch size and model size are limited, so no GPU "
        "with less than %(floor_gb)s GB is recommended."
    ),
    "model_size_band": _(
        "The guide puts a %(parameters_billion)s B-parameter model in the %(band)s tier (budget "
        "up to %(budget_max)s B, entry below %(entry_max)s B, multi from %(entry_max)s B, cluster "
        "above %(cluster_min)s B)."
    ),
    "memory_beyond_one_box": _(
        "About %(memory_gb)s GB of training memory does not fit in one box: the largest preset "
        "has %(largest_gb)s GB of GPU memory."
    ),
    "memory_needs_tier": _(
        "About %(memory_gb)s GB of training memory needs at least the %(band)s tier."
    ),
    "dataset_band": _(
        "A %(dataset_gb)s GB dataset puts the job in at least the %(band)s tier (budget below "
        "%(budget_max)s GB, entry below %(entry_max)s GB; the guide puts more than %(multi_min)s "
        "GB in the multi tier and leaves the gap between open: the advisor rounds up)."
    ),
    "multi_gpu_requested": _(
        "Several GPUs in one box were asked for, which is the multi tier. Total batch = per-GPU "
        "batch × GPUs; scale the learning rate linearly or by √GPUs."
    ),
    "cluster_beyond_one_box": _(
        "This job needs several nodes joined by RDMA / InfiniBand. That is beyond one "
        "self-built box: rent GPU instances or a managed cluster rather than building one."
    ),
    "preset_fits": _(
        "The %(tier)s preset %(slug)s has %(gpu_count)s × %(gpu_name)s with %(capacity_gb)s GB "
        "of GPU memory in total for about %(memory_gb)s GB needed."
    ),
    "preset_too_small": _(
        "The %(slug)s preset has only %(capacity_gb)s GB of GPU memory for about %(memory_gb)s "
        "GB needed: reduce the batch size, use gradient checkpointing, or choose a larger box."
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
        "Choose a power supply rated at least %(headroom_pct)s %% above the box's peak draw, "
        "80 Plus Gold or better."
    ),
    "psu_headroom_known_peak": _(
        "The box peaks at about %(peak_watts)s W: choose a power supply of at least "
        "%(required_watts)s W (%(headroom_pct)s %% headroom), 80 Plus Gold or better."
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
"""Sentences for each reason code, in the active language."""

_TRANSLATED_PARAMS = {"band", "tier"}
_GRADE_ORDER = ["", *EfficiencyGrade.values]


def translate_reason(reason: Reason) -> str:
    """The reason as a sentence of the active language (the English text if no entry)."""
    code = reason.code
    if code == "psu_headroom" and "peak_watts" in reason.params:
        code = "psu_headroom_known_peak"
    template = REASON_TEXTS.get(code)
    if template is None:
        return reason.text
    params: dict[str, Any] = {
        k: (TIER_LABELS.get(v, v) if k in _TRANSLATED_PARAMS else v)
        for k, v in reason.params.items()
    }
    try:
        return str(template) % params
    except (KeyError, TypeError, ValueError):
        return reason.text


def preset_specs() -> list[PresetSpec]:
    """Every catalog preset as the advisor sees it: GPUs, memory, power and PSU."""
    specs = []
    for preset in selectors.presets_with_parts():
        lines = list(preset.lines.all())
        # Power-supply parts and the built-in supplies of GPU servers.
        psus = [
            line
            for line in lines
            if line.part.kind in (PartKind.PSU, PartKind.NODE) and line.part.rated_watts
        ]
        # Several supplies share the load: their ratings add up; the worst grade counts.
        psu_watts = sum(line.part.rated_watts * line.quantity for line in psus)
        grades = sorted((line.part.efficiency_grade for line in psus), key=_GRADE_ORDER.index)
        specs.append(
            PresetSpec(
                slug=preset.slug,
                tier=preset.tier,
                gpu_name=preset.gpu_model.name,
                gpu_count=preset.gpu_count,
                vram_gb=float(preset.gpu_model.vram_gb),
                nvlink=preset.gpu_model.supports_nvlink,
                peak_power_watts=_peak_power_watts(preset, lines),
                psu_rated_watts=float(psu_watts) if psu_watts else None,
                psu_efficiency=grades[0] if grades else None,
            )
        )
    return specs


def _peak_power_watts(preset: BuildPreset, lines: list) -> float | None:
    """DC load the PSU must deliver [W]: GPUs at board power plus the other parts' load.

    The power supply's own conversion loss is left out: it is drawn from the
    wall, not from the supply's rated output.
    """
    watts = preset.gpu_model.board_power_watts * preset.gpu_count + sum(
        line.part.load_power_watts * line.quantity
        for line in lines
        if line.part.kind not in (PartKind.GPU, PartKind.PSU)
    )
    return float(watts) if watts > 0 else None


def planner_form_url(preset_slug: str) -> str:
    """The planner form with the preset preselected (``?preset=<slug>``)."""
    return f"{reverse('planner:home')}?{urlencode({'preset': preset_slug})}"


@dataclass(frozen=True)
class AdvisorPage:
    """What the advisor page shows for one job."""

    advice: Advice
    tier_label: str
    preset: BuildPreset | None
    planner_url: str | None
    reasons: list[str]
    warnings: list[str]


def advise_from_catalog(job: AdvisorInput) -> AdvisorPage:
    """Run the advisor over the catalog's presets and translate what it says."""
    specs = preset_specs()
    # An empty catalog still gets the guide's advice, with nothing to link to.
    advice = advise(job, specs or None)
    preset = selectors.preset_by_slug(advice.preset_slug) if advice.preset_slug else None
    return AdvisorPage(
        advice=advice,
        tier_label=str(TIER_LABELS[advice.tier]),
        preset=preset,
        planner_url=planner_form_url(preset.slug) if preset is not None else None,
        reasons=[translate_reason(r) for r in advice.reasons],
        warnings=[translate_reason(r) for r in advice.warnings],
    )

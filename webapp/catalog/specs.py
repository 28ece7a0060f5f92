"""Catalog presets as the sizing rules see them (:class:`costmodel.sizing.PresetSpec`).

The advisor ranks these, and the planner offers the smallest one that holds a
job the chosen box cannot: both read them from here, below either app.
"""

from __future__ import annotations

from collections.abc import Iterable

from costmodel.sizing import PresetSpec
from webapp.catalog import selectors
from webapp.catalog.checks import preset_power
from webapp.catalog.models import BuildPreset


def preset_spec(preset: BuildPreset) -> PresetSpec:
    """One catalog preset as the advisor sees it: GPUs, memory, nodes, peak draw and supplies.

    Several supplies share the load: their ratings add up and the worst grade
    counts (:func:`webapp.catalog.checks.preset_power`, the catalog check's rule).
    """
    peak, rated, grade = preset_power(preset, list(preset.lines.all()))
    return PresetSpec.model_validate(
        {
            "slug": preset.slug,
            "tier": preset.tier,
            "gpu_name": preset.gpu_model.name,
            "gpu_count": preset.gpu_count,
            "node_count": preset.node_count,
            "vram_gb": float(preset.gpu_model.vram_gb),
            "nvlink": preset.gpu_model.supports_nvlink,
            "peak_power_watts": peak if peak > 0 else None,
            "psu_rated_watts": rated if rated > 0 else None,
            "psu_efficiency": grade or None,
        }
    )


def preset_specs(presets: Iterable[BuildPreset] | None = None) -> list[PresetSpec]:
    """Every catalog preset (or those given, with their parts) as the advisor sees it."""
    rows = selectors.presets_with_parts() if presets is None else presets
    return [preset_spec(preset) for preset in rows]

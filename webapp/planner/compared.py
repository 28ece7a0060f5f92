"""What a results page compares: the two sides named from the catalog, in the visitor's language.

A permalink carries its provenance: the catalog rows (by natural key) the
explicit scenario was resolved from. This module reads from it which preset,
cloud offering, GPU models and benchmark were used and looks them up in the
catalog snapshot of the plan's day (:func:`webapp.catalog.selectors.snapshot`, the one
its ranking reads: no query of its own) for their names in the active language
(``localized_name()``, English when a row has no Chinese name) and the GPUs'
memory. Rows deleted from the catalog since fall back to the provenance's
English label. Nothing is computed here.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from webapp.catalog.models import Benchmark, BuildPreset, CloudOffering, GpuModel
from webapp.catalog.selectors import snapshot


@dataclass(frozen=True)
class Side:
    """One side of the comparison as people read it."""

    name: str | None
    """The preset or cloud offering; None for a custom parts list or a hand-typed scenario."""
    gpu: str | None
    """The GPU model's name; None when the scenario does not come from the catalog."""
    vram_gb: int | None


@dataclass(frozen=True)
class Compared:
    build: Side
    rent: Side
    benchmark: str | None
    reference_gpu: str | None


def _key(provenance: Sequence[Mapping[str, Any]], role: str, index: int = 0) -> str | None:
    for item in provenance:
        key = item.get("natural_key")
        if item.get("role") == role and isinstance(key, list) and len(key) > index:
            return str(key[index])
    return None


def _label(provenance: Sequence[Mapping[str, Any]], role: str) -> str | None:
    for item in provenance:
        if item.get("role") == role and item.get("label"):
            return str(item["label"])
    return None


def compared(provenance: Sequence[Mapping[str, Any]], day: datetime.date | None = None) -> Compared:
    """The catalog facts behind a scenario's provenance (empty for a hand-typed scenario), read
    from the catalog of ``day`` (the plan's prices' day; None: today). Names and memory
    carry no date: the day only picks the snapshot the plan's other readers share."""
    preset_slug = _key(provenance, "preset")
    offering_slug = _key(provenance, "cloud rate")
    build_gpu_slug = _key(provenance, "build GPU") or _key(provenance, "build throughput")
    rent_gpu_slug = _key(provenance, "rent throughput")
    benchmark_slug = _key(provenance, "rent throughput", 1) or _key(
        provenance, "build throughput", 1
    )
    preset: BuildPreset | None = None
    offering: CloudOffering | None = None
    benchmark: Benchmark | None = None
    reference: GpuModel | None = None
    gpus: dict[str, GpuModel] = {}
    if any((preset_slug, offering_slug, build_gpu_slug, rent_gpu_slug, benchmark_slug)):
        catalog = snapshot(day or datetime.date.today())  # not for a hand-typed scenario
        gpus = catalog.gpu_models if build_gpu_slug or rent_gpu_slug else {}
        preset = catalog.presets.get(preset_slug or "")
        offering = catalog.offerings.get(offering_slug or "")
        benchmark = catalog.benchmarks.get(benchmark_slug or "")
        reference = None if benchmark is None else catalog.reference_gpu(benchmark)

    def side(name: Any, fallback: str | None, gpu_slug: str | None) -> Side:
        gpu = gpus.get(gpu_slug or "")
        return Side(
            name=name.localized_name() if name is not None else fallback,
            gpu=gpu.localized_name() if gpu is not None else None,
            vram_gb=gpu.vram_gb if gpu is not None else None,
        )

    return Compared(
        build=side(preset, _label(provenance, "preset"), build_gpu_slug),
        rent=side(offering, _label(provenance, "cloud rate"), rent_gpu_slug),
        benchmark=benchmark.localized_name() if benchmark is not None else None,
        reference_gpu=reference.localized_name() if reference is not None else None,
    )

"""What a results page compares: the two sides named from the catalog, in the visitor's language.

A permalink carries its provenance: the catalog rows (by natural key) the
explicit scenario was resolved from. This module reads from it which preset,
cloud offering, GPU models and benchmark were used and looks them up through
:mod:`webapp.catalog.selectors` for their names in the active language
(``localized_name()``, English when a row has no Chinese name) and the GPUs'
memory. Rows deleted from the catalog since fall back to the provenance's
English label. Nothing is computed here. The answer is cached per catalog
version and language (five catalog queries become one version lookup).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.utils.translation import get_language

from webapp.catalog import selectors
from webapp.catalog.models import Benchmark, BuildPreset, CloudOffering


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


CACHE_SECONDS = 3600
"""How long the names of one combination of catalog rows stay cached [s]: a catalog change
makes a new version, so the timeout only bounds memory."""


def compared(provenance: Sequence[Mapping[str, Any]]) -> Compared:
    """The catalog facts behind a scenario's provenance (empty for a hand-typed scenario)."""
    keys = [
        (item.get("role"), item.get("natural_key"), item.get("label"))
        for item in provenance
        if item.get("role") in ROLES
    ]
    if not any(natural_key for _role, natural_key, _label in keys):
        return _compared(provenance)  # nothing to look up in the catalog
    digest = hashlib.blake2b(repr(keys).encode(), digest_size=16).hexdigest()
    key = f"planner:compared:{selectors.catalog_version()}:{get_language()}:{digest}"
    facts: Compared | None = cache.get(key)
    if facts is None:
        facts = _compared(provenance)
        cache.set(key, facts, CACHE_SECONDS)
    return facts


ROLES = frozenset({"preset", "cloud rate", "build GPU", "build throughput", "rent throughput"})
"""The provenance roles :func:`compared` reads."""


def _compared(provenance: Sequence[Mapping[str, Any]]) -> Compared:
    preset_slug = _key(provenance, "preset")
    offering_slug = _key(provenance, "cloud rate")
    build_gpu_slug = _key(provenance, "build GPU") or _key(provenance, "build throughput")
    rent_gpu_slug = _key(provenance, "rent throughput")
    benchmark_slug = _key(provenance, "rent throughput", 1) or _key(
        provenance, "build throughput", 1
    )
    slugs = [s for s in (build_gpu_slug, rent_gpu_slug) if s]
    gpus = selectors.gpu_models_by_slug(slugs) if slugs else {}
    preset = selectors.by_slug(BuildPreset, preset_slug) if preset_slug else None
    offering = selectors.by_slug(CloudOffering, offering_slug) if offering_slug else None
    benchmark = selectors.by_slug(Benchmark, benchmark_slug) if benchmark_slug else None
    reference = selectors.reference_gpu(benchmark) if benchmark else None

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

"""The box measured usage offers: the GPUs the file shows, not the catalog's first preset.

After an upload the planner offers the GPU model and count seen in the file
(:func:`box_for_usage`): the preset of that model and count when the catalog
has one; otherwise a custom box of those GPU cards, the rest of the box (board,
processor, memory, power supply, chassis) taken from the smallest preset that
holds as many GPUs — of the same model when there is one — and its multi-GPU
scaling efficiency. The custom box is an estimate and says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from webapp.catalog import selectors
from webapp.catalog.models import GPU_CARRYING_KINDS, BuildPreset, Part, PartKind

CUSTOM = "custom"
"""The box choice of a custom box of the file's GPUs."""


@dataclass(frozen=True)
class UsageBox:
    """The box offered for a measured workload."""

    gpu: str
    """Slug of the catalog GPU model."""
    count: int
    preset: str | None
    """The matching preset; None: a custom box (``parts``)."""
    parts: list[dict[str, Any]]
    """``[{"part", "quantity"}]`` of the custom box (empty for a preset)."""
    scaling_efficiency: float | None
    """The custom box's multi-GPU scaling efficiency [fraction] (None for one GPU)."""
    based_on: str | None
    """The preset the custom box's other parts come from."""

    def label(self) -> str:
        """What the box choice says."""
        if self.preset is not None:
            return ""
        return _("A custom box of the file's GPUs: %(count)d × %(gpu)s") % {
            "count": self.count,
            "gpu": self.gpu_name(),
        }

    def gpu_name(self) -> str:
        part = _gpu_card(self.gpu)
        return self.gpu if part is None or part.gpu_model is None else part.gpu_model.name


def _gpu_card(gpu: str) -> Part | None:
    """The catalog's GPU card of ``gpu`` (one GPU per card)."""
    return (
        Part.objects.filter(kind=PartKind.GPU, gpu_model__slug=gpu, gpu_count=1)
        .select_related("gpu_model")
        .order_by("slug")
        .first()
    )


def box_for_usage(gpu: str | None, count: int) -> UsageBox | None:
    """The box of ``count`` GPUs of model ``gpu`` (a catalog slug): a preset when one has
    exactly these, else a custom box of these cards; None when the GPU is unknown, or when
    the catalog has no card of it (and no preset)."""
    if gpu is None or count < 1:
        return None
    presets = list(
        selectors.presets_for_choice().select_related("gpu_model").prefetch_related("lines__part")
    )
    for preset in presets:
        if preset.gpu_model.slug == gpu and preset.gpu_count == count and preset.node_count == 1:
            return UsageBox(gpu, count, preset.slug, [], None, None)
    card = _gpu_card(gpu)
    base = _base_preset(presets, gpu, count)
    if card is None or base is None:
        return None
    others = [
        {"part": line.part.slug, "quantity": line.quantity}
        for line in base.lines.all()
        if line.part.kind not in GPU_CARRYING_KINDS
    ]
    scaling = float(base.scaling_efficiency) if count > 1 else None
    return UsageBox(
        gpu, count, None, [{"part": card.slug, "quantity": count}, *others], scaling, base.slug
    )


def _base_preset(presets: list[BuildPreset], gpu: str, count: int) -> BuildPreset | None:
    """The preset whose other parts hold ``count`` cards: a single-node one of the same GPU
    model first, then any; the smallest with room for them, else the largest."""
    single = [
        p
        for p in presets
        if p.node_count == 1 and all(line.part.kind != PartKind.NODE for line in p.lines.all())
    ]
    for pool in ([p for p in single if p.gpu_model.slug == gpu], single):
        if not pool:
            continue
        room = sorted((p for p in pool if p.gpu_count >= count), key=lambda p: p.gpu_count)
        return room[0] if room else max(pool, key=lambda p: p.gpu_count)
    return None

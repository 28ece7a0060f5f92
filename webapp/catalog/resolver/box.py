"""The box or cluster to build, from a preset or a custom parts list, and what it draws."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from django.utils.translation import gettext

from costmodel import FieldError, ScenarioError
from webapp.catalog.models import (
    GPU_CARRYING_KINDS,
    RACK_KINDS,
    BuildPreset,
    GpuModel,
    Part,
    PartKind,
)
from webapp.catalog.resolver.defaults import CUSTOM_BOX, default
from webapp.catalog.resolver.provenance import Unresolvable
from webapp.catalog.resolver.selection import Selection
from webapp.catalog.selectors import CatalogSnapshot


@dataclass
class Box:
    """The box or cluster to build: parts and the figures that are not prices."""

    label: str
    lines: list[tuple[Part, int]]
    gpu: GpuModel
    gpu_count: int
    node_count: int
    scaling_efficiency: Decimal
    multi_node_scaling_efficiency: Decimal
    preset: BuildPreset | None

    @property
    def gpus_per_node(self) -> int:
        return self.gpu_count // self.node_count

    @property
    def hosting_kind(self) -> tuple[str, str]:
        """Where the box runs by default, and why (:func:`hosting_kind`)."""
        return hosting_kind(self.preset, self.lines)


def hosting_kind(preset: BuildPreset | None, lines: Iterable[tuple[Part, int]]) -> tuple[str, str]:
    """Where a box runs by default, and why: the preset's kind of hosting with its rationale
    in the active language (catalog text), or a custom parts list's (:data:`DEFAULTS`,
    translated): colocation when it holds a GPU server, else the office."""
    if preset is not None:
        return preset.hosting_kind, preset.localized("hosting_rationale")
    has_server = any(part.kind == PartKind.NODE for part, _ in lines)
    row = default("hosting kind", CUSTOM_BOX + " with a GPU server" if has_server else CUSTOM_BOX)
    return row.value, gettext(row.reason)


def _decimal(value: float | None, default: Decimal) -> Decimal:
    return default if value is None else Decimal(str(value))


def box_from_preset(selection: Selection, catalog: CatalogSnapshot) -> Box:
    preset = catalog.presets.get(selection.preset or "")
    if preset is None:
        raise Unresolvable(
            "preset",
            gettext("no %(what)s with slug '%(slug)s'")
            % {"what": gettext("build preset"), "slug": selection.preset},
        )
    return Box(
        label=preset.name,
        lines=[(line.part, line.quantity) for line in preset.lines.all()],
        gpu=preset.gpu_model,
        gpu_count=preset.gpu_count,
        node_count=preset.node_count,
        scaling_efficiency=_decimal(selection.scaling_efficiency, preset.scaling_efficiency),
        multi_node_scaling_efficiency=_decimal(
            selection.multi_node_scaling_efficiency, preset.multi_node_scaling_efficiency
        ),
        preset=preset,
    )


def box_from_parts(selection: Selection, catalog: CatalogSnapshot) -> Box:
    """A custom parts list; its GPUs are its GPU cards and the GPUs of its GPU servers."""
    assert selection.parts is not None
    found = catalog.parts
    errors = [
        FieldError(f"parts.{i}.part", gettext("no part with slug '%(slug)s'") % {"slug": line.part})
        for i, line in enumerate(selection.parts)
        if line.part not in found
    ]
    if errors:
        raise ScenarioError(errors)
    lines = [(found[line.part], line.quantity) for line in selection.parts]
    gpu_lines = [(p, q) for p, q in lines if p.kind in GPU_CARRYING_KINDS]
    if not gpu_lines:
        raise Unresolvable("parts", gettext("must include the GPU cards (a part of kind 'gpu')"))
    models = {p.gpu_model.slug for p, _ in gpu_lines if p.gpu_model is not None}
    if len(models) > 1:
        raise Unresolvable(
            "parts",
            gettext("GPU cards of one model only: %(models)s")
            % {"models": ", ".join(sorted(models))},
        )
    gpu = gpu_lines[0][0].gpu_model
    assert gpu is not None
    count = sum(p.gpu_count * q for p, q in gpu_lines)
    nodes = sum(q for p, q in lines if p.kind == PartKind.NODE) or 1
    if selection.gpu_model is not None and selection.gpu_model != gpu.slug:
        raise Unresolvable(
            "gpu_model",
            gettext("the parts list holds '%(found)s' cards, not '%(asked)s'")
            % {"found": gpu.slug, "asked": selection.gpu_model},
        )
    if selection.gpu_count is not None and selection.gpu_count != count:
        raise Unresolvable(
            "gpu_count", gettext("the parts list holds %(count)d GPU cards") % {"count": count}
        )
    if selection.scaling_efficiency is None and count // nodes > 1:
        raise Unresolvable(
            "scaling_efficiency", gettext("is required for a box with 2 or more GPUs")
        )
    if selection.multi_node_scaling_efficiency is None and nodes > 1:
        raise Unresolvable(
            "multi_node_scaling_efficiency", gettext("is required for 2 or more GPU servers")
        )
    return Box(
        label=gettext("Custom box, %(count)d × %(gpu)s") % {"count": count, "gpu": gpu.name},
        lines=lines,
        gpu=gpu,
        gpu_count=count,
        node_count=nodes,
        scaling_efficiency=_decimal(selection.scaling_efficiency, Decimal(1)),
        multi_node_scaling_efficiency=_decimal(selection.multi_node_scaling_efficiency, Decimal(1)),
        preset=None,
    )


@dataclass(frozen=True)
class BoxPower:
    """What the box draws [W] and the rack space it takes [U]."""

    load_watts: Decimal
    idle_watts: Decimal
    rack_units: int


def box_power(box: Box) -> BoxPower:
    """The box's wall draw and rack units, from its parts (no prices involved).

    Notes
    -----
    ``load = GPU board power × GPU count + Σ quantity × load draw`` of every part that
    is not a GPU card (a GPU server's own draw is what it uses besides its GPUs);
    ``idle`` likewise; ``rack_units = Σ quantity × height`` of chassis, GPU servers and
    network gear.
    """
    load = Decimal(box.gpu.board_power_watts * box.gpu_count)
    idle = Decimal(box.gpu.idle_power_watts * box.gpu_count)
    rack_units = 0
    for part, quantity in box.lines:
        if part.kind != PartKind.GPU:
            load += part.load_power_watts * quantity
            idle += part.idle_power_watts * quantity
        if part.kind in RACK_KINDS:
            rack_units += part.rack_units * quantity
    return BoxPower(load, idle, rack_units)

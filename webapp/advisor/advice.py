"""The sizing advisor on the web: the catalog's presets in, the advice in words out.

The rules live in :mod:`costmodel.sizing` (codes and figures); the sentences
in :mod:`webapp.advisor.reasons`. This module feeds the rules the catalog's
presets (GPUs, memory, nodes, power and supplies) and names what they pick.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import reverse
from django.utils.http import urlencode

from costmodel.sizing import Advice, AdvisorInput, advise
from webapp.advisor.reasons import TIER_LABELS, sentence
from webapp.catalog import selectors
from webapp.catalog.models import BuildPreset
from webapp.catalog.specs import preset_specs

CLUSTER_CLAIM_ANCHOR = "claim-cluster-h100"
"""Where "the guide, checked" compares the cluster tier with reserved and on-demand nodes."""


def planner_form_url(preset_slug: str) -> str:
    """The planner form with the preset preselected (``?preset=<slug>``)."""
    return f"{reverse('planner:home')}?{urlencode({'preset': preset_slug})}"


@dataclass(frozen=True)
class AdvisorPage:
    """What the advisor page shows for one job."""

    advice: Advice
    tier_label: str
    preset: BuildPreset | None
    preset_description: str
    """What the preset is for and holds, in the active language ('' when none)."""
    planner_url: str | None
    guide_url: str | None
    """For the cluster tier: the guide's comparison with reserved and managed capacity."""
    reasons: list[str]
    warnings: list[str]


def advise_from_catalog(job: AdvisorInput) -> AdvisorPage:
    """Run the advisor over the catalog's presets and say what it found."""
    presets = {p.slug: p for p in selectors.presets_with_parts()}
    # An empty catalog still gets the guide's advice, with nothing to link to.
    advice = advise(job, preset_specs(presets.values()) or None)
    preset = presets.get(advice.preset_slug or "")
    return AdvisorPage(
        advice=advice,
        tier_label=str(TIER_LABELS[advice.tier]),
        preset=preset,
        preset_description=preset.localized("description") if preset is not None else "",
        planner_url=planner_form_url(preset.slug) if preset is not None else None,
        guide_url=(
            f"{reverse('advisor:guide')}#{CLUSTER_CLAIM_ANCHOR}"
            if advice.tier == "cluster"
            else None
        ),
        reasons=[sentence(r, presets) for r in advice.reasons],
        warnings=[sentence(r, presets) for r in advice.warnings],
    )

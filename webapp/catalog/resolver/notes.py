"""The notes the resolver writes into the provenance."""

from __future__ import annotations

from django.utils.translation import gettext_noop

# Notes the resolver writes into the provenance. A permalink keeps them in English; a page
# shows them in its own language (webapp.planner.sources reads them back by these patterns),
# so every note is one of these templates filled in, never free text.
NOTE_GPU_POWER = gettext_noop("%(count)s × %(load)s W load, %(idle)s W idle")
NOTE_GPU_POWER_SERVERS = gettext_noop(
    "%(count)s × %(load)s W load, %(idle)s W idle, in %(servers)s servers"
)
NOTE_HOSTING_FEE = gettext_noop("%(per_u)s × %(units)s U + %(per_kw)s × %(kw)s kW; PUE %(pue)s")
NOTE_POWER_INCLUDED = gettext_noop("not used: the hosting fee includes power")
NOTE_SCALING = gettext_noop("× scaling efficiency %(efficiency)s for %(gpus)s GPUs")
NOTE_MULTI_NODE = gettext_noop(
    "× multi-node scaling efficiency %(efficiency)s for %(servers)s servers"
)
NOTE_NO_REWORK = gettext_noop("no rework fraction in the catalog: 0 used")
NOTE_OVERFLOW = gettext_noop(
    "on-demand rate of the same instance: pays the hours beyond the committed instances"
)
NOTE_OVERFLOW_NO_SIBLING = gettext_noop(
    "no on-demand sibling in the catalog: hours beyond the committed instances are billed at "
    "the committed rate"
)
NOTE_OVERFLOW_NO_SIBLING_RATE = gettext_noop(
    "the on-demand sibling %(sibling)s has no rate on %(day)s: hours beyond the committed "
    "instances are billed at the committed rate"
)
NOTE_SET_BY_SELECTION = gettext_noop("set by the selection")
NOTE_MONTHS = gettext_noop("%(months)s months")
NOTES = (
    NOTE_GPU_POWER_SERVERS,
    NOTE_GPU_POWER,
    NOTE_HOSTING_FEE,
    NOTE_POWER_INCLUDED,
    NOTE_SCALING,
    NOTE_MULTI_NODE,
    NOTE_NO_REWORK,
    NOTE_OVERFLOW,
    NOTE_OVERFLOW_NO_SIBLING,
    NOTE_OVERFLOW_NO_SIBLING_RATE,
    NOTE_SET_BY_SELECTION,
    NOTE_MONTHS,
)
"""Every note template, the longer of two that share a beginning first."""

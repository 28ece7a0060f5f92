"""Catalog → explicit scenario: the only place catalog rows become engine inputs.

A :class:`Selection` names catalog rows by slug (a preset or a custom parts
list, a cloud offering, a tariff, a hosting option, a benchmark) plus the
workload, horizon, currency, discount rate and an "as of" date. :func:`resolve`
reads the catalog in effect on that date once (a
:class:`webapp.catalog.selectors.CatalogSnapshot`, which one request may share
between many resolutions), converts money into the selection's currency at the
FX rate in effect on that date, and returns the explicit
:class:`costmodel.Scenario` with a provenance record naming every row used and
the list of choices it made on the user's behalf (:class:`Defaulted`).

No cost is computed here: only inputs are assembled. First :func:`choose`
looks up the rows the selection names, filling in what it leaves out from
:data:`DEFAULTS` (the tariff, hosting and cloud offering of the currency's
region; the preset's own kind of hosting) as :func:`default_choices` picks
them. :func:`defaults_for` says the same for a plan made earlier (a results
page), with the reasons in the language of the moment. Then every rule of
``docs/catalog.md`` is one function of the same shape: it takes the choice and
the snapshot and returns a :class:`Ruling`, the scenario fields it sets with
their provenance. No rule reads or changes another's output, and no two rules
set the same field (:func:`resolve` refuses that):

- :func:`parts_rule` — parts → ``build.gpu_count``, ``capex`` and power draw;
- :func:`build_throughput_rule` / :func:`rent_throughput_rule` — per-GPU throughput with
  intra- and multi-node scaling (:func:`per_gpu_throughput`);
- :func:`running_costs_rule` — maintenance, resale retention, ops, useful life;
- :func:`electricity_rule` — tariff → ``build.electricity_price_per_kwh``;
- :func:`hosting_rule` — hosting option → ``build.hosting_monthly`` and ``build.pue``;
- :func:`cloud_rate_rule` — the offering's rate by pricing mode;
- :func:`overflow_rate_rule` — a commitment's rate for hours beyond it;
- :func:`rework_rule` — a spot offering's rework fraction.

One rule needs the others' scenario and comes after them:
:func:`commitment_rule` (how many instances a commitment reserves) reads the
draft scenario, never changing it.

Converted money keeps full decimal precision (no rounding) and is handed to the
engine as float; the FX rate used is recorded in the provenance.

One module per step: :mod:`.selection` (the input), :mod:`.defaults` (the table of
defaults), :mod:`.choose` (the rows looked up or defaulted), :mod:`.box` (the box and its
power), :mod:`.currency` (conversion), :mod:`.rules` (one function per rule),
:mod:`.provenance` (what a rule returns and where each figure came from), :mod:`.notes`
and :mod:`.resolution` (:func:`resolve` itself, and :func:`resolve_build` /
:func:`resolve_rent`: one side by its rules alone, for a caller weighing many boxes or
offerings against one plan's work). This package exposes the names the rest
of the project uses.
"""

from webapp.catalog.resolver.choose import CUSTOM_BOX_RUNNING_COSTS, defaults_for
from webapp.catalog.resolver.defaults import DEFAULTS, Default, default
from webapp.catalog.resolver.notes import NOTES
from webapp.catalog.resolver.provenance import Defaulted, Provenance, Resolution
from webapp.catalog.resolver.resolution import (
    resolve,
    resolve_build,
    resolve_data,
    resolve_rent,
    resolve_rents,
)
from webapp.catalog.resolver.rules import commitment_reason
from webapp.catalog.resolver.selection import PartLine, Selection, parse_selection

__all__ = [
    "CUSTOM_BOX_RUNNING_COSTS",
    "DEFAULTS",
    "NOTES",
    "Default",
    "Defaulted",
    "PartLine",
    "Provenance",
    "Resolution",
    "Selection",
    "commitment_reason",
    "default",
    "defaults_for",
    "parse_selection",
    "resolve",
    "resolve_build",
    "resolve_data",
    "resolve_rent",
    "resolve_rents",
]

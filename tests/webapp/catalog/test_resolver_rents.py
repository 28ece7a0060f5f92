"""Every offering of a market resolved for one plan at once (resolve_rents, the ranking's)."""

from __future__ import annotations

import datetime

import pytest

from costmodel import ScenarioError
from webapp.catalog.resolver import parse_selection, resolve_rent, resolve_rents
from webapp.catalog.selectors import CatalogSnapshot

PLAN = {
    "preset": "multi-4x-rtx4090",
    "tariff": None,
    "hosting": None,
    "benchmark": "resnet50-fp16",
    "workload": {"kind": "steady", "utilization": 0.6},
    "horizon_months": 36,
    "as_of": "2026-12-01",
}


def one_by_one(selection, slugs, catalog):
    """What the ranking did before: each offering resolved on its own, None when refused."""
    rents = []
    for slug in slugs:
        try:
            rents.append(
                resolve_rent(selection.model_copy(update={"cloud_offering": slug}), catalog)
            )
        except ScenarioError:
            rents.append(None)
    return rents


@pytest.mark.parametrize("currency", ["CNY", "USD"])
def test_each_offering_is_what_resolve_rent_gives_it_alone(shipped_catalog, currency):
    catalog = CatalogSnapshot(datetime.date(2026, 12, 1))
    slugs = [*sorted(catalog.offerings), "no-such-offering"]
    selection = parse_selection({**PLAN, "currency": currency})
    together = resolve_rents(selection, slugs, catalog)
    assert together == one_by_one(selection, slugs, catalog)
    assert together[-1] is None and sum(rent is not None for rent in together) > 20
    for rent in together:
        assert rent is None or "committed_instances" not in rent.model_fields_set


def test_a_shared_row_not_in_effect_refuses_every_offering_as_alone(shipped_catalog):
    # A tariff that starts after the plan's date refuses each offering alone (resolve_rent
    # reports the choice's problems with its rules'); so it does together.
    catalog = CatalogSnapshot(datetime.date(2020, 1, 1))
    slugs = sorted(catalog.offerings)[:5]
    selection = parse_selection({**PLAN, "currency": "CNY", "as_of": "2020-01-01"})
    assert resolve_rents(selection, slugs, catalog) == one_by_one(selection, slugs, catalog)


def test_a_box_that_cannot_be_looked_up_refuses_every_offering(shipped_catalog):
    catalog = CatalogSnapshot(datetime.date(2026, 12, 1))
    slugs = sorted(catalog.offerings)[:3]
    selection = parse_selection({**PLAN, "currency": "USD", "preset": "gone"})
    assert resolve_rents(selection, slugs, catalog) == [None, None, None]

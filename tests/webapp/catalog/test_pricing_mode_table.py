"""The table of pricing modes (webapp/catalog/pricing_modes.py): one definition, from which
the choices, the database's constraints, the selectors and the page's data attributes follow."""

import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings
from django.db import IntegrityError, transaction
from django.urls import reverse

from webapp.catalog import check_queries
from webapp.catalog.models import CloudOffering, GpuModel
from webapp.catalog.pricing_modes import MODES, PricingMode

SOURCES = [
    path
    for folder in ("webapp", "static/js")
    for path in (Path(settings.BASE_DIR) / folder).rglob("*")
    if path.suffix in {".py", ".js", ".html"} and "migrations" not in path.parts
]


@pytest.mark.parametrize("mode", [mode.value for mode in MODES])
def test_each_modes_literal_is_written_in_one_module_only(mode):
    quoted = re.compile(rf"""["']{re.escape(mode)}["']""")
    holders = [
        str(path.relative_to(settings.BASE_DIR))
        for path in SOURCES
        if quoted.search(path.read_text(encoding="utf-8"))
    ]
    assert holders == ["webapp/catalog/pricing_modes.py"]


def test_the_model_choices_are_the_tables_modes_in_its_order():
    field = CloudOffering._meta.get_field("pricing_mode")
    assert [value for value, _ in field.choices] == [mode.value for mode in MODES]


def offering(**fields) -> CloudOffering:
    defaults = dict(
        slug="o", provider="P", instance_type="t", region="r",
        gpu_model=GpuModel.objects.get(slug="ref"), gpu_count=1,
    )  # fmt: skip
    return CloudOffering(**{**defaults, **fields})


@pytest.mark.parametrize(
    "fields",
    [
        {"pricing_mode": "commit-2y", "commitment_term_months": 24},
        {"pricing_mode": PricingMode.COMMIT_1Y, "commitment_term_months": 36},
        {"pricing_mode": PricingMode.COMMIT_3Y},
        {"pricing_mode": PricingMode.ON_DEMAND, "commitment_term_months": 12},
        {"pricing_mode": PricingMode.ON_DEMAND, "rework_fraction": Decimal("0.1")},
    ],
)
def test_the_database_refuses_an_offering_its_mode_does_not_allow(mini, fields):
    with pytest.raises(IntegrityError), transaction.atomic():
        offering(**fields).save()


@pytest.mark.parametrize(
    "fields",
    [
        {"pricing_mode": PricingMode.SPOT, "rework_fraction": Decimal("0.1")},
        *[
            {"pricing_mode": mode, "commitment_term_months": terms.term_months}
            for mode, terms in MODES.items()
            if terms.term_months
        ],
    ],
)
def test_the_database_takes_an_offering_that_keeps_its_modes_terms(mini, fields):
    offering(**fields).save()  # an IntegrityError here fails the test
    stored = CloudOffering.objects.get(slug="o")
    assert stored.pricing_mode == fields["pricing_mode"]
    assert stored.commitment_term_months == fields.get("commitment_term_months")


def test_the_selectors_find_commitments_and_spot_offerings_by_the_table(mini):
    offering(slug="c1", pricing_mode=PricingMode.COMMIT_1Y, commitment_term_months=12).save()
    offering(slug="spot", pricing_mode=PricingMode.SPOT).save()
    assert [o.slug for o in check_queries.commitments_without_sibling()] == ["c1"]
    spot = check_queries.spot_offerings_without_rework()
    assert "spot" in [o.slug for o in spot]
    assert {o.pricing_mode for o in spot} == {PricingMode.SPOT}


def test_the_planner_marks_each_offering_with_its_mode_and_whether_it_commits(client, shipped):
    html = client.get(reverse("planner:home"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    options = re.findall(r'<option value="([^"]+)" data-pricing-mode="([^"]+)" '
                         r'data-commitment="(true|false)"', html)  # fmt: skip
    assert {mode for _, mode, _ in options} == {mode.value for mode in MODES}
    for slug, mode, commitment in options:
        assert (commitment == "true") == bool(MODES[PricingMode(mode)].term_months), slug

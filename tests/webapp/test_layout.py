"""The boundaries between the apps, as the code's figures and queries show them (the import
rules: test_architecture.py)."""

from costmodel.results import BUILD_FIGURES, HEADLINE, RENT_FIGURES
from webapp.planner.choices import catalog_choices
from webapp.planner.figures import FIGURES
from webapp.planner.forms import PlannerForm


def test_every_figure_the_pages_label_is_a_name_of_the_result_schema():
    schema = {
        *HEADLINE,
        *(f"build.{name}" for name in BUILD_FIGURES),
        *(f"rent.{name}" for name in RENT_FIGURES),
    }
    assert set(FIGURES) <= schema


def test_the_planner_form_validates_without_a_database_query(
    shipped_catalog, django_assert_num_queries
):
    catalog = catalog_choices()
    data = {
        "currency": "CNY",
        "horizon_months": "36",
        "workload_kind": "steady",
        "utilization_percent": "80",
        "use_catalog": "on",
        "box": "preset",
        "preset": catalog.presets[0][0],
        "cloud_offering": catalog.default_offering,
        "tariff": catalog.tariffs[0][0],
        "hosting": catalog.default_hosting,
        "benchmark": catalog.default_benchmark,
    }
    with django_assert_num_queries(0):
        form = PlannerForm(data, catalog=catalog)
        assert form.is_valid(), form.errors

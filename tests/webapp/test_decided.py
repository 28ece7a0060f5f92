"""The one decision of a plan (webapp.decided): a decision that is only stored runs its Monte
Carlo without the fan chart's bands, and is the same decision the results page states."""

import pytest
from django.core.cache import caches

from webapp import decided as deciding
from webapp.decided import CACHE, decided


@pytest.fixture(autouse=True)
def empty_cache():
    caches[CACHE].clear()
    yield
    caches[CACHE].clear()


@pytest.fixture
def discounted(scenario):
    """The worked example with a cost of capital: the verdict on present values."""
    return scenario.model_copy(update={"discount_rate_per_year": 0.08})


@pytest.mark.parametrize("with_cost_of_capital", [False, True])
def test_without_the_bands_the_decision_is_the_results_pages(
    scenario, discounted, with_cost_of_capital
):
    plan = discounted if with_cost_of_capital else scenario
    stored = decided(plan, with_bands=False)
    caches[CACHE].clear()
    page = decided(plan, monthly=True)  # the results page's call
    assert stored.uncertainty is not None and page.uncertainty is not None
    assert stored.uncertainty["bands"] is None
    assert len(page.uncertainty["bands"]["p50"]) == plan.horizon_months + 1
    assert {**stored.uncertainty, "bands": page.uncertainty["bands"]} == page.uncertainty
    assert stored.decision == page.decision
    assert stored.decision.probability_recommendation_holds is not None


def test_an_answer_without_bands_is_not_kept_for_the_page(scenario):
    decided(scenario, with_bands=False)
    page = decided(scenario)  # the page of the same plan next: its fan chart needs the bands
    assert page.uncertainty is not None
    assert page.uncertainty["bands"] is not None


def test_without_the_bands_the_monte_carlo_a_page_ran_is_read_not_run_again(scenario, monkeypatch):
    page = decided(scenario)

    def run_again(*args, **kwargs):
        raise AssertionError("the Monte Carlo ran again")

    monkeypatch.setattr(deciding, "uncertainty", run_again)
    stored = decided(scenario, with_bands=False)
    assert stored.uncertainty == page.uncertainty

"""A saved scenario keeps the decision its results page states, so lists need no engine run."""

import pytest
from django.utils import timezone

from costmodel import parse_scenario
from tests.webapp.migrations import migrate, migrated_to
from webapp.planner.results import results_context
from webapp.planner.services import saved_link
from webapp.scenarios.decisions import side, stored
from webapp.scenarios.services import create_saved_scenario


def save(scenario, name="box"):
    return create_saved_scenario(name=name, scenario=scenario, session_key="s1")


@pytest.mark.django_db
def test_a_save_stores_the_verdict_its_results_page_states(scenario):
    before = timezone.now()
    saved = save(scenario)
    saved.refresh_from_db()
    page = results_context(saved_link(saved))["decision"]
    assert saved.decision_code == page.verdict
    assert saved.decision_savings == pytest.approx(page.savings, rel=1e-12)
    # the Monte Carlo is part of the one decision (webapp.decided): stored when saved
    assert saved.decision_probability_agreeing == page.probability_recommendation_holds
    assert saved.decision_probability_agreeing is not None
    assert saved.decision_computed_at >= before


@pytest.mark.django_db
def test_a_scenario_that_rents_stores_rent_and_its_negative_savings(scenario_data):
    scenario_data["rent"]["hourly_rate"] = 0.01
    saved = save(parse_scenario(scenario_data))
    assert saved.decision_code == "rent"
    assert saved.decision_savings < 0


def test_the_stored_form_has_the_four_keys_of_the_shared_seam(scenario):
    from webapp.scenarios.decisions import decision_of

    data = stored(decision_of(scenario))
    assert set(data) == {"code", "present_value_savings", "savings", "probability_agreeing"}


def test_a_close_call_is_its_own_side_and_otherwise_the_sign_of_the_savings_decides():
    assert side("close_call", 5.0, None) == "close_call"
    assert side("late_payback", 5.0, None) == "build"
    assert side("uncertain", -5.0, None) == "rent"
    assert side("build", -5.0, 3.0) == "build"  # the present value where there is one


BEFORE = [("scenarios", "0003_saved_scenario_team")]
AFTER = [("scenarios", "0004_saved_scenario_stored_decision")]


@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_existing_rows_their_decision_and_skips_a_broken_one(scenario):
    with migrated_to(BEFORE) as old_apps:
        Saved = old_apps.get_model("scenarios", "SavedScenario")
        good = Saved.objects.create(name="good", scenario=scenario.model_dump(mode="json"))
        broken = Saved.objects.create(name="broken", scenario={"currency": "CNY"})
        new_apps = migrate(AFTER)
        Saved = new_apps.get_model("scenarios", "SavedScenario")
        good, broken = Saved.objects.get(pk=good.pk), Saved.objects.get(pk=broken.pk)
        from webapp.scenarios.decisions import decision_of

        expected = decision_of(scenario)
        assert good.decision_code == expected.verdict
        assert good.decision_savings == pytest.approx(expected.savings, rel=1e-12)
        assert good.decision_computed_at is not None
        assert broken.decision_code == "" and broken.decision_computed_at is None

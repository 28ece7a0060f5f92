"""Which saved decisions changed: after a catalog change, each saved scenario from the catalog is
re-priced and today's decision stored beside the saved one; those whose verdict would differ are
marked (list and admin report); their saved figures stay as saved."""

import datetime
from decimal import Decimal

import pytest
from django.urls import reverse

from costmodel import parse_scenario
from webapp.catalog import services as catalog_services
from webapp.catalog.models import CloudOffering, CloudRate
from webapp.catalog.resolver import resolve_data
from webapp.scenarios.models import SavedScenario
from webapp.scenarios.services import create_saved_scenario, reprice_due

OFFERING = "runpod-a100-80gb-community"
SELECTION = {
    "preset": "entry-rtx4090",
    "cloud_offering": OFFERING,
    "tariff": "us-ca-commercial",
    "hosting": "office-deskside",
    "benchmark": "resnet50-fp16",
    "workload": {"kind": "steady", "utilization": 1.0},
    "horizon_months": 36,
    "currency": "USD",
}


@pytest.fixture
def user(shipped_catalog, django_user_model):
    return django_user_model.objects.create_superuser("lead", "lead@example.com", "pw")


def save(user, name="4090 vs RunPod", **changes):
    selection = {**SELECTION, **changes}
    resolution = resolve_data(selection)
    return create_saved_scenario(
        name=name,
        scenario=resolution.scenario,
        provenance=resolution.provenance,
        selection=selection,
        user=user,
    )


def reprice(user, hourly_rate: str) -> None:
    """An admin records a new rate from yesterday; it moves far, so it is approved."""
    rate = CloudRate(
        offering=CloudOffering.objects.get(slug=OFFERING),
        hourly_rate=Decimal(hourly_rate),
        currency="USD",
        effective_date=datetime.date.today() - datetime.timedelta(days=1),
        source="test",
    )
    assert catalog_services.record_price(rate, user)  # held: it moved far
    catalog_services.approve([rate], user)


def flip(user, saved) -> None:
    """Make renting far cheaper or far dearer, whichever flips the saved verdict."""
    reprice(user, "0.0100" if saved.scenario and building_wins(saved) else "500.0000")


def building_wins(saved) -> bool:
    from costmodel import compare

    return compare(parse_scenario(saved.scenario))["savings"] > 0


def marked():
    return set(SavedScenario.objects.filter(changed_today=True).values_list("pk", flat=True))


def test_nothing_is_marked_while_the_prices_are_those_saved(user):
    saved = save(user)
    assert reprice_due() == 1
    saved.refresh_from_db()
    assert not saved.changed_today
    assert saved.today_code == saved.decision_code
    assert saved.today_savings == pytest.approx(saved.decision_savings, rel=1e-9)
    assert saved.today_computed_at is not None and saved.today_problem == ""


def test_a_saved_decision_that_todays_prices_reverse_is_marked(user):
    saved = save(user)
    before = dict(saved.scenario)
    flip(user, saved)
    reprice_due()
    saved.refresh_from_db()
    assert saved.changed_today
    assert (saved.decision_savings > 0) != (saved.today_savings > 0)
    assert saved.scenario == before  # the saved figures stay as saved


def test_a_second_run_at_the_same_catalog_finds_nothing_due(user):
    save(user)
    assert reprice_due() == 1
    assert reprice_due() == 0


def test_a_run_stopped_midway_is_completed_by_the_next(user):
    for i in range(3):
        save(user, name=f"box {i}")
    assert reprice_due(limit=2) == 2  # as if the worker were killed after two rows
    assert reprice_due() == 1
    assert not SavedScenario.objects.filter(today_computed_at__isnull=True).exists()


def test_only_the_scenarios_whose_decision_changes_are_marked(user):
    changed = save(user)
    other = save(user, name="4090 vs vast.ai", cloud_offering="vastai-rtx-4090")
    by_hand = create_saved_scenario(
        name="typed", scenario=parse_scenario(changed.scenario), user=user
    )
    flip(user, changed)
    assert reprice_due() == 2  # the one typed in by hand has no catalog prices to follow
    assert marked() == {changed.pk}
    by_hand.refresh_from_db()
    assert by_hand.today_computed_at is None
    assert other.pk not in marked()


def test_a_scenario_the_catalog_can_no_longer_price_stores_why_in_words(user):
    saved = save(user)
    CloudOffering.objects.filter(slug=OFFERING).delete()
    reprice_due()
    saved.refresh_from_db()
    assert saved.today_problem.startswith("can no longer be priced: ")
    assert "cloud_offering" in saved.today_problem
    assert "Traceback" not in saved.today_problem
    assert saved.today_code == "" and saved.today_savings is None
    assert not saved.changed_today


def test_the_saved_list_marks_the_changed_decision_with_when_it_was_priced(client, user):
    changed = save(user)
    kept = save(user, name="4090 vs vast.ai", cloud_offering="vastai-rtx-4090")
    flip(user, changed)
    reprice_due()
    client.force_login(user)
    html = client.get(reverse("planner:saved-list"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    row = html[html.index(f'data-saved="{changed.pk}"') :]
    row = row[: row.index("</tr>")]
    assert "at today's prices (as of " in row
    other = html[html.index(f'data-saved="{kept.pk}"') :]
    assert "decision-changed" not in other[: other.index("</tr>")]


def test_the_admin_reports_what_the_repricing_stored(client, user):
    changed = save(user)
    save(user, name="4090 vs vast.ai", cloud_offering="vastai-rtx-4090")
    flip(user, changed)
    client.force_login(user)
    report_url = reverse("admin:scenarios_savedscenario_decisions_changed")
    before = client.get(report_url, HTTP_ACCEPT_LANGUAGE="en")
    assert before.context["due"] == 2  # not re-priced yet: the report says so, runs nothing
    assert list(before.context["page"].object_list) == []
    reprice_due()
    changelist = client.get(reverse("admin:scenarios_savedscenario_changelist"))
    assert report_url in changelist.content.decode()
    report = client.get(report_url, HTTP_ACCEPT_LANGUAGE="en")
    assert [saved.pk for saved in report.context["page"].object_list] == [changed.pk]
    assert report.context["due"] == 0
    assert f'data-saved="{changed.pk}"' in report.content.decode()


def test_the_report_is_for_staff_only(client, user, django_user_model):
    client.force_login(django_user_model.objects.create_user("someone", password="pw"))
    response = client.get(reverse("admin:scenarios_savedscenario_decisions_changed"))
    assert response.status_code == 302


def test_rows_saved_from_one_selection_are_decided_once_a_run_as_each_alone(user, monkeypatch):
    from webapp.scenarios import decisions, services

    rows = [save(user, name=f"copy {i}") for i in range(3)]
    other = save(user, name="4090 vs vast.ai", cloud_offering="vastai-rtx-4090")
    flip(user, rows[0])
    calls = []
    decide = decisions.decision_of
    monkeypatch.setattr(
        decisions, "decision_of", lambda *a, **k: calls.append(a) or decide(*a, **k)
    )

    assert reprice_due() == 4
    assert len(calls) == 2  # one for the three copies, one for the other offering
    for item in [*rows, other]:
        item.refresh_from_db()
        alone = services.reprice(item, "alone")  # decided by itself, not from the run's memory
        for field in ("today_code", "today_savings", "today_present_value_savings"):
            assert getattr(item, field) == getattr(alone, field)
    assert {item.changed_today for item in rows} == {True}


def test_rows_of_one_selection_with_different_typed_in_values_are_decided_apart(user):
    from costmodel.errors import with_fields

    resolution = resolve_data(SELECTION)
    capex = resolution.scenario.build.capex
    typed = [
        create_saved_scenario(
            name=f"capex × {factor}",
            scenario=with_fields(resolution.scenario, {"build.capex": capex * factor}),
            provenance=resolution.provenance,
            selection=SELECTION,
            overrides=["build.capex"],
            user=user,
        )
        for factor in (1, 3)
    ]
    assert reprice_due() == 2
    for item in typed:
        item.refresh_from_db()
        assert item.today_savings == pytest.approx(item.decision_savings, rel=1e-9)
    assert typed[0].today_savings != typed[1].today_savings


def test_a_row_whose_scenario_today_has_not_moved_keeps_its_decision_without_deciding(
    user, monkeypatch
):
    from webapp.scenarios import decisions, services

    moved = save(user)
    still = save(user, name="4090 vs vast.ai", cloud_offering="vastai-rtx-4090")
    assert reprice_due() == 2
    still.refresh_from_db()
    before = (still.today_code, still.today_savings, still.today_inputs, still.today_computed_at)
    calls = []
    decide = decisions.decision_of
    monkeypatch.setattr(
        decisions, "decision_of", lambda *a, **k: calls.append(a) or decide(*a, **k)
    )

    flip(user, moved)  # a new price for RunPod: vast.ai's rows resolve to the same scenario
    assert reprice_due() == 2  # both re-priced at the new catalog version...
    assert len(calls) == 1  # ...but only RunPod's decided again
    still.refresh_from_db()
    assert (still.today_code, still.today_savings, still.today_inputs) == before[:3]
    assert still.today_computed_at > before[3]
    moved.refresh_from_db()
    assert moved.changed_today

    monkeypatch.setattr(services, "release", lambda: "another release")
    services.SavedScenario.objects.update(today_catalog_version="")  # due again
    assert reprice_due() == 2
    assert len(calls) == 3  # a new release decides everything again


@pytest.mark.parametrize("utilization", [0.2, 0.6, 1.0])
def test_the_repricing_stores_the_decision_the_results_page_states_at_todays_prices(
    user, utilization
):
    # the worker's Monte Carlo leaves out the fan chart's bands; the verdict is the page's
    from django.core.cache import caches

    from webapp.decided import CACHE, decided
    from webapp.scenarios.decisions import stored
    from webapp.scenarios.services import resolve_at_todays_prices

    saved = save(user, workload={"kind": "steady", "utilization": utilization})
    reprice(user, "3.0000")
    caches[CACHE].clear()
    assert reprice_due() == 1
    saved.refresh_from_db()
    caches[CACHE].clear()  # the page decides on its own, bands and all
    page = decided(resolve_at_todays_prices(saved)[1], monthly=True)
    assert page.uncertainty is not None and page.uncertainty["bands"] is not None
    shown = stored(page.decision)
    assert (saved.today_code, saved.today_savings, saved.today_present_value_savings) == (
        shown["code"],
        shown["savings"],
        shown["present_value_savings"],
    )

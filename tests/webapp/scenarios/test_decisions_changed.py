"""Which saved decisions changed: after a catalog change, saved scenarios whose verdict or sign
of savings would differ at today's prices are marked (list and admin report); their saved
figures stay as saved."""

import datetime
from decimal import Decimal

import pytest
from django.urls import reverse

from costmodel import parse_scenario
from webapp.catalog import services as catalog_services
from webapp.catalog.fixtures_io import load_catalog
from webapp.catalog.models import CloudOffering, CloudRate
from webapp.catalog.resolver import resolve_data
from webapp.scenarios.services import changed_decisions, create_saved_scenario

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
def user(db, django_user_model):
    load_catalog()
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


def test_nothing_is_marked_while_the_prices_are_those_saved(user):
    assert changed_decisions([save(user)]) == {}


def test_a_saved_decision_that_todays_prices_reverse_is_marked(user):
    saved = save(user)
    before = dict(saved.scenario)
    flip(user, saved)
    change = changed_decisions([saved])[saved.pk]
    assert change.saved_verdict != change.today_verdict
    assert (change.saved_savings > 0) != (change.today_savings > 0)
    saved.refresh_from_db()
    assert saved.scenario == before  # the saved figures stay as saved


def test_only_the_scenarios_whose_decision_changes_are_marked(user):
    changed = save(user)
    other = save(user, name="4090 vs vast.ai", cloud_offering="vastai-rtx-4090")
    by_hand = create_saved_scenario(
        name="typed", scenario=parse_scenario(changed.scenario), user=user
    )
    flip(user, changed)
    assert set(changed_decisions([changed, other, by_hand])) == {changed.pk}


def test_the_saved_list_marks_the_changed_decision(client, user):
    changed = save(user)
    kept = save(user, name="4090 vs vast.ai", cloud_offering="vastai-rtx-4090")
    flip(user, changed)
    client.force_login(user)
    html = client.get(reverse("planner:saved-list"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    row = html[html.index(f'data-saved="{changed.pk}"') :]
    row = row[: row.index("</tr>")]
    assert "at today's prices this decision would differ" in row
    other = html[html.index(f'data-saved="{kept.pk}"') :]
    assert "decision-changed" not in other[: other.index("</tr>")]


def test_the_admin_reports_the_changed_decisions(client, user):
    changed = save(user)
    save(user, name="4090 vs vast.ai", cloud_offering="vastai-rtx-4090")
    flip(user, changed)
    client.force_login(user)
    changelist = client.get(reverse("admin:scenarios_savedscenario_changelist"))
    report_url = reverse("admin:scenarios_savedscenario_decisions_changed")
    assert report_url in changelist.content.decode()
    report = client.get(report_url, HTTP_ACCEPT_LANGUAGE="en")
    assert [row["change"].saved.pk for row in report.context["changes"]] == [changed.pk]
    assert f'data-saved="{changed.pk}"' in report.content.decode()


def test_the_report_is_for_staff_only(client, user, django_user_model):
    client.force_login(django_user_model.objects.create_user("someone", password="pw"))
    response = client.get(reverse("admin:scenarios_savedscenario_decisions_changed"))
    assert response.status_code == 302

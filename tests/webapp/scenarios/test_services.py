import pytest
from django.contrib.auth.models import AnonymousUser, User

from costmodel import parse_scenario
from webapp.scenarios.selectors import can_modify
from webapp.scenarios.services import create_saved_scenario

pytestmark = pytest.mark.django_db


def test_it_stores_the_explicit_scenario_with_defaults_filled_in(scenario_data):
    data = scenario_data
    del data["build"]["pue"]
    saved = create_saved_scenario(
        name="box",
        scenario=parse_scenario(data),
        provenance=[],
        overrides=[],
        user=None,
        session_key="s1",
    )
    saved.refresh_from_db()
    assert saved.scenario["build"]["pue"] == 1.0
    assert parse_scenario(saved.scenario).build.capex == 25000


def test_it_gives_an_anonymous_scenario_to_the_session_that_made_it(scenario_data):
    saved = create_saved_scenario(
        name="box",
        scenario=parse_scenario(scenario_data),
        provenance=[],
        overrides=[],
        user=AnonymousUser(),
        session_key="s1",
    )
    assert saved.owner is None
    assert can_modify(saved, AnonymousUser(), "s1")
    assert not can_modify(saved, AnonymousUser(), "s2")
    assert not can_modify(saved, AnonymousUser(), None)


def test_only_the_owner_or_staff_may_modify_a_users_scenario(scenario_data):
    alice = User.objects.create_user("alice")
    bob = User.objects.create_user("bob")
    staff = User.objects.create_user("staff", is_staff=True)
    saved = create_saved_scenario(
        name="box",
        scenario=parse_scenario(scenario_data),
        provenance=[],
        overrides=["rent.hourly_rate"],
        user=alice,
        session_key="s1",
    )
    assert saved.session_key == ""
    assert can_modify(saved, alice, None)
    assert not can_modify(saved, bob, "s1")
    assert not can_modify(saved, AnonymousUser(), "s1")
    assert can_modify(saved, staff, None)


def test_ids_are_random_uuids(scenario_data):
    a = create_saved_scenario(
        name="a", scenario=parse_scenario(scenario_data), user=None, session_key="s"
    )
    b = create_saved_scenario(
        name="b", scenario=parse_scenario(scenario_data), user=None, session_key="s"
    )
    assert a.pk != b.pk
    assert a.pk.version == 4


def test_it_keeps_only_the_ranges_the_user_changed_and_reads_them_back_complete(scenario):
    from costmodel.ranges import Range, default_ranges
    from webapp.scenarios.services import stored_ranges

    mine = Range("build.electricity_price_per_kwh", 0.5, 0.8, 1.5)
    ranges = [mine if r.path == mine.path else r for r in default_ranges(scenario)]
    saved = create_saved_scenario(name="box", scenario=scenario, ranges=ranges, session_key="s")
    saved.refresh_from_db()
    assert saved.ranges == [
        {"path": "build.electricity_price_per_kwh", "low": 0.5, "mode": 0.8, "high": 1.5}
    ]
    assert stored_ranges(saved) == ranges


def test_defaults_are_stored_as_no_ranges(scenario):
    from costmodel.ranges import default_ranges
    from webapp.scenarios.services import stored_ranges

    saved = create_saved_scenario(
        name="box", scenario=scenario, ranges=default_ranges(scenario), session_key="s"
    )
    saved.refresh_from_db()
    assert saved.ranges is None
    assert stored_ranges(saved) is None


def test_ranges_that_do_not_fit_the_scenario_are_refused(scenario):
    from costmodel import ScenarioError
    from costmodel.ranges import Range

    with pytest.raises(ScenarioError, match=r"distributions\.workload\.utilization\.high"):
        create_saved_scenario(
            name="box",
            scenario=scenario,
            ranges=[Range("workload.utilization", 0.1, 0.8, 12.0)],
            session_key="s",
        )


def test_a_hand_edited_row_with_unreadable_ranges_falls_back_to_the_defaults(scenario):
    from webapp.scenarios.services import stored_ranges

    saved = create_saved_scenario(name="box", scenario=scenario, session_key="s")
    for broken in (
        [{"path": "workload.utilization"}],
        [{"path": "x", "low": 0, "mode": 0, "high": 0}],
        "x",
    ):
        saved.ranges = broken
        assert stored_ranges(saved) is None

import pytest

from costmodel import parse_scenario
from webapp.planner.permalink import MAX_LENGTH, PermalinkError, decode, encode

PROVENANCE = [{"role": "part", "label": "Card", "fields": ["build.capex"], "amount": "100"}]


def test_a_permalink_round_trips_the_scenario_provenance_overrides_and_selection(scenario):
    selection = {"preset": "entry-rtx4090", "cloud_offering": "x"}
    code = encode(scenario, PROVENANCE, ["rent.hourly_rate"], selection)
    link = decode(code)
    assert link.scenario == scenario
    assert link.provenance == PROVENANCE
    assert link.overrides == ["rent.hourly_rate"]
    assert link.selection == selection


def test_a_permalink_is_url_safe_and_short_enough_for_a_request_line(scenario):
    code = encode(scenario, PROVENANCE * 20)
    assert len(code) < 4000
    assert all(c.isalnum() or c in "-_:." for c in code)


def test_a_permalink_altered_by_hand_is_refused(permalink):
    tampered = permalink[:-5] + ("AAAAA" if not permalink.endswith("AAAAA") else "BBBBB")
    with pytest.raises(PermalinkError, match="damaged or was altered"):
        decode(tampered)


@pytest.mark.parametrize("code", ["", "x", "not-a-link", "a:b:c", "." * 10, "x" * (MAX_LENGTH + 1)])
def test_garbage_is_refused_with_a_permalink_error(code):
    with pytest.raises(PermalinkError):
        decode(code)


def test_a_signed_payload_without_a_valid_scenario_is_refused(scenario_data, settings):
    from django.core import signing

    from webapp.planner.permalink import SALT

    scenario_data["horizon_months"] = 0
    code = signing.dumps({"s": scenario_data}, salt=SALT, compress=True)
    with pytest.raises(PermalinkError, match="horizon_months"):
        decode(code)
    with pytest.raises(PermalinkError):
        decode(signing.dumps({"s": [1, 2]}, salt=SALT))
    with pytest.raises(PermalinkError):
        decode(signing.dumps({"s": scenario_data | {"horizon_months": 12}, "o": [1]}, salt=SALT))


def test_the_permalink_does_not_depend_on_the_catalog(scenario_data):
    # The code carries every figure: nothing refers to catalog rows by id.
    scenario = parse_scenario(scenario_data)
    assert decode(encode(scenario)).scenario.build.capex == 25000

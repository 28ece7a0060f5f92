import pytest
from django.conf import settings
from django.urls import set_script_prefix

from costmodel import parse_scenario
from webapp.planner.permalink import PermalinkError, decode, encode, link_urls

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


@pytest.mark.parametrize("prefix", ["/", "/gpu-costs/"])
def test_every_url_of_a_code_holds_the_code_as_it_is(scenario, prefix):
    # The link limit counts these URLs' bytes: a code is never quoted into a longer one.
    code = encode(scenario, PROVENANCE * 20, ["rent.hourly_rate"], {"preset": "entry-rtx4090"})
    set_script_prefix(prefix)
    try:
        urls = link_urls(code)
    finally:
        set_script_prefix("/")
    assert urls[0] == prefix + "r/" + code
    assert all(url.startswith(prefix) and code in url for url in urls)


@pytest.mark.parametrize(
    "code", ["", "x", "not-a-link", "a:b:c", "." * 10, "x" * (settings.MAX_REQUEST_LINE_BYTES + 1)]
)
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


def test_ranges_round_trip_and_only_the_custom_ones_travel(scenario):
    from django.core import signing

    from costmodel.ranges import Range, default_ranges
    from webapp.planner.permalink import SALT

    mine = Range("rent.annual_price_change", -0.5, -0.1, 0.05)
    ranges = [mine if r.path == mine.path else r for r in default_ranges(scenario)]
    code = encode(scenario, ranges=ranges)
    link = decode(code)
    assert link.ranges == ranges
    assert signing.loads(code, salt=SALT)["u"] == [["rent.annual_price_change", -0.5, -0.1, 0.05]]


def test_default_ranges_leave_no_trace_in_the_link(scenario, permalink):
    from costmodel.ranges import default_drivers, default_ranges

    assert decode(permalink).ranges is None
    assert encode(scenario, ranges=default_ranges(scenario)) == permalink
    assert encode(scenario, ranges=default_drivers(scenario)) == permalink


def test_a_link_whose_ranges_were_altered_by_hand_is_refused(scenario):
    from django.core import signing

    from costmodel.ranges import Range
    from webapp.planner.permalink import SALT

    code = encode(scenario, ranges=[Range("workload.utilization", 0.3, 0.8, 0.9)])
    payload = signing.loads(code, salt=SALT)
    payload["u"] = [["workload.utilization", 0.7, 0.8, 0.9]]  # a rosier range, re-signed
    forged = signing.dumps(payload, key="not-the-apps-key", salt=SALT, compress=True)
    body, _signature = code.rsplit(":", 1)
    for tampered in (forged, body + ":" + forged.rsplit(":", 1)[1], code[:-4] + "AAAA"):
        with pytest.raises(PermalinkError, match="damaged or was altered"):
            decode(tampered)


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ([["workload.utilization", 0.9, 0.8, 1.0]], "invalid uncertainty ranges"),
        ([["workload.utilization", 0.5, 0.8, 9.0]], "invalid uncertainty ranges"),
        ([["build.pue", 1.0, 1.0, 1.5]], "invalid uncertainty ranges"),
        ([["workload.active_days_per_month", 1, 2, 3]], "invalid uncertainty ranges"),
        ([["workload.utilization", 0.5, 0.8, 1.0]] * 2, "invalid uncertainty ranges"),
        ([["workload.utilization", 0.5, 0.8]], "cannot be read"),
        ([["workload.utilization", "0.5", 0.8, 1.0]], "cannot be read"),
        ([["workload.utilization", True, 0.8, 1.0]], "cannot be read"),
        ([[7, 0.5, 0.8, 1.0]], "cannot be read"),
        ({"workload.utilization": [0.5, 0.8, 1.0]}, "cannot be read"),
        ("everything", "cannot be read"),
    ],
)
def test_a_signed_payload_with_bad_ranges_is_a_permalink_error(scenario_data, entries, message):
    from django.core import signing

    from webapp.planner.permalink import SALT

    code = signing.dumps({"s": scenario_data, "u": entries}, salt=SALT, compress=True)
    with pytest.raises(PermalinkError, match=message):
        decode(code)


def test_a_results_page_with_bad_ranges_is_a_400_page_not_a_500(client, scenario_data):
    from django.core import signing

    from webapp.planner.permalink import SALT

    code = signing.dumps(
        {"s": scenario_data, "u": [["workload.utilization", 2.0, 0.8, 1.0]]}, salt=SALT
    )
    response = client.get(f"/r/{code}")
    assert response.status_code == 400

"""The analysis JSON behind the results page's charts: the engine's answers, labelled."""

import pytest
from django.urls import reverse
from django.utils import translation
from numpy.testing import assert_allclose

from costmodel import compare, parse_scenario
from costmodel.decision import decide
from costmodel.lines import LINES
from costmodel.operations import (
    fleet,
    parse_fleet,
    parse_tornado,
    parse_uncertainty,
    tornado,
    uncertainty,
)
from costmodel.ranges import Range, default_drivers, default_ranges, fleet_size
from costmodel.sensitivity import default_horizons, utilization_horizon_grid, utilization_sweep
from webapp.planner.analysis import (
    GRID_UTILIZATIONS,
    analysis_document,
    draws_for,
)
from webapp.planner.permalink import Permalink, encode
from webapp.planner.verdict import how_sure
from webapp.scenarios.services import create_saved_scenario

# analysis.json keeps its documents in the shared (database) cache.
pytestmark = pytest.mark.django_db


def analysis_url(code: str) -> str:
    return reverse("planner:results-analysis", args=[code])


def uncertainty_of(scenario, ranges, draws):
    return uncertainty(
        parse_uncertainty(
            {
                "scenario": scenario.model_dump(mode="json"),
                "distributions": {r.path: r.as_triangular() for r in ranges},
                "draws": draws,
                "seed": 0,
                "measure": "present_value_savings",  # the verdict's measure
            }
        )
    )


def test_the_document_holds_the_engines_series(client, scenario, permalink):
    response = client.get(analysis_url(permalink), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    doc = response.json()
    result = compare(scenario)
    cumulative = doc["cumulative"]
    assert cumulative["months"] == result["months"]
    assert cumulative["build"] == result["build"]["cumulative"]
    assert cumulative["rent"] == result["rent"]["cumulative"]
    assert cumulative["value_if_sold"] == result["build"]["value_if_sold"]
    assert cumulative["break_even_month"] == result["break_even_month"]
    assert cumulative["build_total_net"] == result["build"]["total_net"]
    sweep = utilization_sweep(scenario)
    assert_allclose(doc["utilization"]["savings"], sweep["savings"], rtol=1e-12)
    assert doc["utilization"]["break_even_month"] == sweep["break_even_month"]
    assert doc["utilization"]["break_even_utilization"] == result["break_even_utilization"]
    assert_allclose(doc["utilization"]["scenario_utilization"], 0.8, rtol=1e-12)
    grid = utilization_horizon_grid(scenario, GRID_UTILIZATIONS, default_horizons(scenario))
    assert doc["grid"]["savings"] == grid["savings"]
    assert doc["grid"]["horizon_months"] == grid["horizon_months"]
    assert (doc["grid"]["scenario_horizon"], doc["grid"]["scenario_utilization"]) == (
        36,
        pytest.approx(0.8, rel=1e-12),
    )


def test_every_money_axis_names_the_currency(client, scenario_data):
    for currency, symbol in (("CNY", "¥"), ("USD", "$")):
        code = encode(parse_scenario({**scenario_data, "currency": currency}))
        labels = client.get(analysis_url(code), HTTP_ACCEPT_LANGUAGE="en").json()["labels"]
        for key in (
            "cumulative_axis",
            "breakdown_axis",
            "savings_axis",
            "fan_axis",
            "tornado_axis",
            "fleet_axis",
        ):
            assert labels[key].endswith(f"[{symbol}]"), (key, labels[key])


def test_the_uncertainty_is_the_engines_over_the_default_ranges(client, scenario, permalink):
    doc = client.get(analysis_url(permalink), HTTP_ACCEPT_LANGUAGE="en").json()
    part = doc["uncertainty"]
    answer = uncertainty_of(scenario, default_ranges(scenario), 10_000)
    assert part["draws"] == 10_000 and part["seed"] == 0
    assert part["bands"] == answer["bands"]
    assert part["savings"] == answer["savings"]
    assert part["probability_build_cheaper"] == answer["probability_build_cheaper"]
    assert [r["path"] for r in part["ranges"]] == [r.path for r in default_ranges(scenario)]
    result = compare(scenario)
    decision = decide(scenario, result, utilization_sweep(scenario), answer)
    with translation.override("en"):
        expected = how_sure(decision, answer, 10_000, "CNY")
    assert part["confidence"] == expected
    assert part["confidence"]["sentence"].startswith("Building is cheaper in ")
    assert "of 10,000 draws" in part["confidence"]["sentence"]


def test_the_tornado_is_the_engines_with_the_largest_swing_first(client, scenario, permalink):
    doc = client.get(analysis_url(permalink), HTTP_ACCEPT_LANGUAGE="en").json()
    drivers = {r.path: r.as_driver() for r in default_drivers(scenario)}
    assert scenario.discount_rate_per_year > 0  # the tornado of the verdict's measure
    answer = tornado(
        parse_tornado(
            {
                "scenario": scenario.model_dump(mode="json"),
                "drivers": drivers,
                "measure": "present_value_savings",
            }
        )
    )
    rows = doc["tornado"]["rows"]
    assert doc["tornado"]["base_savings"] == answer["base_savings"]
    assert [r["path"] for r in rows] == [r["path"] for r in answer["drivers"]]
    for row, want in zip(rows, answer["drivers"], strict=True):
        assert (row["savings_low"], row["savings_high"]) == (
            want["savings_low"],
            want["savings_high"],
        )
    swings = [abs(r["savings_high"] - r["savings_low"]) for r in rows]
    assert swings == sorted(swings, reverse=True)
    # the label names the input and its two values, as the inputs table writes them
    capex = next(r for r in rows if r["path"] == "build.capex")
    assert capex["label"] == "Purchase price of the box: ¥21,250.00 to ¥28,750.00"


def test_the_fleet_is_the_engines_and_names_the_cheapest_count(client, scenario_data):
    scenario_data["workload"] = {"kind": "steady", "utilization": 2.6}  # beyond one box
    scenario = parse_scenario(scenario_data)
    doc = client.get(analysis_url(encode(scenario)), HTTP_ACCEPT_LANGUAGE="en").json()
    boxes = fleet_size(scenario)
    assert boxes == 5  # ⌈2.6⌉ + 2
    answer = fleet(parse_fleet({"scenario": scenario.model_dump(mode="json"), "max_boxes": boxes}))
    part = doc["fleet"]
    assert part["rows"] == answer["rows"]
    assert part["rent_present_value"] == answer["rent_present_value"]
    assert part["best_boxes"] == answer["best_boxes"] >= 1
    best = answer["rows"][answer["best_boxes"] - 1]
    assert part["best_present_value"] == best["build_present_value"]
    assert part["note"].startswith(f"Cheapest: owning {answer['best_boxes']} box")


def test_a_tidal_workload_has_no_fleet(client, scenario_data):
    scenario_data["workload"] = {"kind": "tidal", "active_days_per_month": 4}
    doc = client.get(analysis_url(encode(parse_scenario(scenario_data)))).json()
    assert doc["fleet"] is None
    assert "error" not in doc["uncertainty"] and "error" not in doc["tornado"]


def test_every_monthly_component_is_charted_from_its_own_series(client, scenario_data):
    # Every cost line of both sides at work, each different from the others, so a series
    # drawn from the wrong one shows; every fixed monthly fee set from its declaration.
    scenario_data["workload"] = {"kind": "steady", "utilization": 2.0}  # burst; beyond C
    scenario_data["build"].update(
        useful_life_months=24,  # a replacement at month 24
        financing={"down_payment_fraction": 0.2, "annual_interest_rate": 0.06, "term_months": 12},
    )
    scenario_data["rent"].update(
        annual_price_change=-0.1,
        committed_instances=1,
        committed_hourly_rate=9.0,
    )
    for k, line in enumerate(line for line in LINES if line.fee is not None):
        scenario_data[line.side][line.fee.field] = 95.0 + 79.0 * k
    scenario = parse_scenario(scenario_data)
    result = compare(scenario)
    doc = client.get(analysis_url(encode(scenario)), HTTP_ACCEPT_LANGUAGE="en").json()
    breakdown = doc["breakdown"]
    assert breakdown["months"] == result["months"][1:]
    # Every line but the offload, which needs jobs the box cannot hold (a steady workload
    # has none): it is left out, as any line zero every month that is not always charted.
    expected = [(line.side, line.key) for line in LINES if line.key != "offload"]
    assert not any(result["build"]["offload"])
    assert [(s["side"], s["key"]) for s in breakdown["series"]] == expected
    for series in breakdown["series"]:
        assert series["values"] == result[series["side"]][series["key"]][1:], series["key"]
    firsts = {s["values"][0] for s in breakdown["series"] if s["key"] != "replacement"}
    assert len(firsts) == len(expected) - 1
    assert breakdown["series"][0]["name"] == "Build · Energy"


SIX_SERIES = [
    ("build", "energy"),
    ("build", "hosting"),
    ("build", "maintenance"),
    ("build", "ops"),
    ("rent", "compute"),
    ("rent", "fixed"),
]


def test_the_six_series_are_charted_even_at_zero_and_idle_v2_components_left_out(
    client, scenario_data
):
    scenario_data["build"].update(ops_monthly=0.0)
    scenario_data["rent"].update(fixed_monthly=0.0)
    scenario = parse_scenario(scenario_data)
    doc = client.get(analysis_url(encode(scenario))).json()
    result = compare(scenario)
    assert not any(result["build"]["ops"]) and not any(result["rent"]["fixed"])
    charted = [(s["side"], s["key"]) for s in doc["breakdown"]["series"]]
    assert charted == SIX_SERIES  # ops and fixed at zero stay; no burst, loan or commitment


def test_the_users_ranges_replace_the_defaults(scenario):
    chosen = [
        Range("workload.utilization", 0.6, 0.8, 0.9),
        Range("build.pue", 1.1, 1.2, 1.6),
    ]
    with translation.override("en"):
        doc = analysis_document(Permalink(scenario, ranges=chosen))
    part = doc["uncertainty"]
    assert [r["path"] for r in part["ranges"]] == ["workload.utilization", "build.pue"]
    assert part["bands"] == uncertainty_of(scenario, chosen, 10_000)["bands"]
    tornado_paths = [r["path"] for r in doc["tornado"]["rows"]]
    assert sorted(tornado_paths) == sorted(
        [d.path for d in default_drivers(scenario)] + ["build.pue"]
    )
    utilization = next(r for r in doc["tornado"]["rows"] if r["path"] == "workload.utilization")
    assert (utilization["low"], utilization["high"]) == (0.6, 0.9)


def test_ranges_the_engine_refuses_are_reported_in_the_document(client, scenario):
    impossible = [Range("build.pue", 0.5, 1.2, 1.5)]  # a PUE below 1 does not exist
    with translation.override("en"):
        doc = analysis_document(Permalink(scenario, ranges=impossible))
    assert "build.pue" in doc["uncertainty"]["error"]
    assert "build.pue" in doc["tornado"]["error"]
    assert doc["cumulative"]["build"] == compare(scenario)["build"]["cumulative"]


@pytest.mark.parametrize(
    ("horizon", "draws"), [(1, 10_000), (60, 10_000), (120, 5041), (240, 2531)]
)
def test_long_horizons_get_fewer_draws(scenario_data, horizon, draws):
    # 610 000 draw-months: 10 000 draws of 61 months (0 to 60); 610 000 ÷ 121 = 5 041.3
    assert draws_for(parse_scenario({**scenario_data, "horizon_months": horizon})) == draws


@pytest.mark.django_db
def test_a_saved_scenario_serves_the_same_document(client, scenario, permalink):
    saved = create_saved_scenario(name="s", scenario=scenario, session_key="s")
    from_saved = client.get(reverse("planner:saved-analysis", args=[saved.pk])).json()
    assert from_saved == client.get(analysis_url(permalink)).json()


@pytest.mark.django_db
def test_an_unknown_saved_scenario_is_a_404(client):
    url = reverse("planner:saved-analysis", args=["00000000-0000-0000-0000-000000000000"])
    assert client.get(url).status_code == 404


def test_a_broken_link_gets_a_json_400(client, permalink):
    for code in ("garbage", permalink[:-4] + "abcd"):
        response = client.get(analysis_url(code), HTTP_ACCEPT_LANGUAGE="en")
        assert response.status_code == 400
        assert response.json()["error"]


def test_absurd_figures_get_a_json_400_not_a_500(client, scenario_data):
    scenario_data["horizon_months"] = 240
    scenario_data["rent"]["hourly_rate"] = 1e307
    response = client.get(analysis_url(encode(parse_scenario(scenario_data))))
    assert response.status_code == 400
    assert "too large" in response.json()["error"]


def test_the_browser_may_keep_the_document_per_language(client, permalink):
    response = client.get(analysis_url(permalink))
    assert "private" in response["Cache-Control"] and "max-age=86400" in response["Cache-Control"]
    vary = {v.strip() for v in response["Vary"].split(",")}
    assert {"Accept-Language", "Cookie"} <= vary


def test_the_document_speaks_chinese(client, scenario_data):
    scenario_data["workload"] = {"kind": "tidal", "active_days_per_month": 4}
    client.cookies["django_language"] = "zh-hans"
    doc = client.get(analysis_url(encode(parse_scenario(scenario_data)))).json()
    assert doc["labels"]["cumulative_axis"] == "累计成本 [¥]"
    assert "次抽样中" in doc["uncertainty"]["confidence"]["sentence"]


def test_a_document_one_worker_computed_serves_the_others(client, permalink, monkeypatch):
    # Workers share the database cache, not their local-memory ones: clearing the
    # local cache stands for a request that reaches another worker.
    from django.core.cache import caches

    from webapp.planner import analysis

    runs = []
    real = analysis.run_analyses
    monkeypatch.setattr(analysis, "run_analyses", lambda link: runs.append(1) or real(link))
    caches["shared"].clear()
    first = client.get(analysis_url(permalink)).json()
    caches["default"].clear()
    assert client.get(analysis_url(permalink)).json() == first
    assert len(runs) == 1

"""Finance CSVs: BOM, rounding per currency, assumptions with the numbers, no formula injection."""

import copy
import csv
import io
import re
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import translation

from costmodel import compare, parse_scenario
from costmodel.tables import MONTHLY_COLUMNS, monthly_table
from webapp.planner.export import monthly_csv, neutralise, summary_csv
from webapp.planner.permalink import encode
from webapp.scenarios.services import create_saved_scenario


def parse(body: bytes) -> list[list[str]]:
    assert body.startswith("\ufeff".encode()), "UTF-8 byte-order mark first"
    return list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))


def section(rows: list[list[str]], title: str) -> list[list[str]]:
    start = next(i for i, r in enumerate(rows) if r == [title]) + 1
    end = next((i for i in range(start, len(rows)) if rows[i] == []), len(rows))
    return rows[start:end]


def test_the_monthly_csv_parses_back_to_the_engines_figures(client, scenario, permalink):
    response = client.get(
        reverse("planner:results-csv", args=[permalink]), HTTP_ACCEPT_LANGUAGE="en"
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment" in response["Content-Disposition"]
    rows = parse(response.content)
    table = section(rows, "Monthly projection")
    assert tuple(table[0]) == MONTHLY_COLUMNS
    _header, expected = monthly_table(compare(scenario))
    body = table[2:]
    assert len(body) == scenario.horizon_months + 1
    for got, want in zip(body, expected, strict=True):
        assert int(got[0]) == want[0]
        for cell, value in zip(got[1:], want[1:], strict=True):
            assert Decimal(cell) == Decimal(repr(value)).quantize(Decimal("0.01"))
            assert len(cell.partition(".")[2]) == 2  # rounded to the fen


def test_the_headline_and_assumptions_travel_with_the_numbers(client, scenario, permalink):
    rows = parse(client.get(reverse("planner:results-csv", args=[permalink])).content)
    headline = {r[0]: r[2] for r in section(rows, "Headline")[1:]}
    result = compare(scenario)
    assert Decimal(headline["savings"]) == Decimal("320434.19")
    assert Decimal(headline["break_even_month"]) == Decimal("2.67")
    assert Decimal(headline["rent_total"]) == Decimal(repr(result["rent"]["total"])).quantize(
        Decimal("0.01")
    )
    assumptions = {r[0]: r for r in section(rows, "Assumptions")[1:]}
    assert assumptions["build.capex"][2] == "25000.00"
    assert float(assumptions["build.electricity_price_per_kwh"][2]) == 0.8
    assert assumptions["workload.utilization"][2] == "0.8"
    assert assumptions["rent.hourly_rate"][6] == "false"
    assert f"/r/{permalink}" in dict((r[0], r[2]) for r in rows if len(r) > 2)["link"]


def test_negative_amounts_stay_numeric(scenario_data):
    scenario_data["workload"]["utilization"] = 0.01
    scenario = parse_scenario(scenario_data)
    result = compare(scenario)
    assert result["savings"] < 0
    rows = parse(monthly_csv(scenario, result).encode("utf-8"))
    savings = {r[0]: r[2] for r in section(rows, "Headline")[1:]}["savings"]
    assert savings.startswith("-") and Decimal(savings) < 0
    difference = [r[-1] for r in section(rows, "Monthly projection")[2:]]
    assert all(not d.startswith("'") for d in difference)


@pytest.mark.parametrize("text", ["=1+2", "+1", "-2", "@SUM(A1)", "\tx", "\rx"])
def test_text_cells_that_look_like_formulas_are_neutralised(text):
    assert neutralise(text) == "'" + text
    assert neutralise("plain " + text) == "plain " + text


def test_a_malicious_scenario_name_cannot_become_a_formula(scenario_data):
    scenario_data["name"] = '=HYPERLINK("http://evil.example","click")'
    scenario = parse_scenario(scenario_data)
    rows = parse(monthly_csv(scenario, compare(scenario)).encode("utf-8"))
    name_row = next(r for r in rows if r and r[0] == "name")
    assert name_row[2] == "'" + scenario_data["name"]
    for row in rows:
        for cell in row:
            if cell and cell[0] in "=+@\t\r":
                pytest.fail(f"unneutralised cell {cell!r}")


def test_chinese_labels_survive_the_round_trip(scenario_data):
    scenario_data["name"] = "单卡入门级 RTX 4090"
    scenario = parse_scenario(scenario_data)
    with translation.override("zh-hans"):
        body = monthly_csv(scenario, compare(scenario)).encode("utf-8")
    rows = parse(body)
    assert rows[1][2] == "单卡入门级 RTX 4090"


@pytest.mark.django_db
def test_the_summary_has_one_row_per_scenario_checked_against_the_engine(client, scenario_data):
    ids = []
    for currency, rate in (("CNY", 28.0), ("USD", 4.0)):
        data = {**scenario_data, "currency": currency, "name": f"-{currency}"}
        data["rent"] = {**data["rent"], "hourly_rate": rate}
        ids.append(
            str(
                create_saved_scenario(
                    name=currency, scenario=parse_scenario(data), session_key="s"
                ).pk
            )
        )
    response = client.get(reverse("planner:saved-summary-csv"), {"ids": ids})
    assert response.status_code == 200
    rows = parse(response.content)
    header, body = rows[0], rows[1:]
    assert len(body) == 2
    records = [dict(zip(header, r, strict=True)) for r in body]
    for record, currency, rate in zip(records, ("CNY", "USD"), (28.0, 4.0), strict=True):
        data = {**scenario_data, "currency": currency}
        data["rent"] = {**data["rent"], "hourly_rate": rate}
        result = compare(parse_scenario(data))
        assert record["currency"] == currency
        assert record["name"] == f"'-{currency}"  # a text cell starting with '-' is neutralised
        assert Decimal(record["savings"]) == Decimal(repr(result["savings"])).quantize(
            Decimal("0.01")
        )
        assert record["horizon_months"] == "36"
        assert record["saved_at"]


def test_the_summary_rounds_each_row_in_its_own_currency(scenario_data):
    scenario = parse_scenario({**scenario_data, "currency": "JPY"})
    result = compare(scenario)
    entry = {
        "scenario": scenario,
        "result": result,
        "average_utilization": 0.8,
        "provenance": [{"effective_date": "2025-01-01"}, {"effective_date": "2026-02-01"}],
        "overrides": [],
        "saved_at": None,
        "link": "",
    }
    rows = parse(summary_csv([entry]).encode("utf-8"))
    record = dict(zip(rows[0], rows[1], strict=True))
    assert "." not in record["savings"]  # yen have no minor unit
    assert record["prices_as_of"] == "2026-02-01"


def test_a_bad_link_gives_no_csv(client):
    assert client.get(reverse("planner:results-csv", args=["garbage"])).status_code == 400


@pytest.mark.django_db
def test_a_saved_scenarios_csv_has_the_same_projection(client, scenario, permalink):
    saved = create_saved_scenario(name="s", scenario=scenario, session_key="s")
    from_saved = parse(client.get(reverse("planner:saved-csv", args=[saved.pk])).content)
    from_link = parse(client.get(reverse("planner:results-csv", args=[permalink])).content)
    assert section(from_saved, "Monthly projection") == section(from_link, "Monthly projection")


SKIPPED_BEFORE_A_FORMULA = [
    "\n",
    " ",
    "\t",
    "\r",
    "\u00a0",  # no-break space
    "\ufeff",  # byte-order mark / zero-width no-break space
    "\u200b",  # zero-width space
    "\u200e",  # left-to-right mark
    "\u2060",  # word joiner
    "\u3000",  # ideographic space
    "\u2028",  # line separator
    "\x00",
    "\x0b",
    " \u200b\u00a0\n",
]


@pytest.mark.parametrize("lead", SKIPPED_BEFORE_A_FORMULA, ids=repr)
@pytest.mark.parametrize("formula", ["=1+2", "+1", "-2", "@SUM(A1)", "\uff1dSUM(A1)"], ids=repr)
def test_a_formula_behind_characters_a_spreadsheet_skips_is_neutralised(lead, formula):
    assert neutralise(lead + formula) == "'" + lead + formula


@pytest.mark.parametrize("text", ["plain", "a=b", "4090 box", "单卡 RTX 4090", "x\u200b=1"])
def test_ordinary_text_is_left_alone(text):
    assert neutralise(text) == text


@pytest.mark.django_db
@pytest.mark.parametrize("lead", ["\n", " ", "\u00a0", "\ufeff", "\u200b", "\u200b \t"], ids=repr)
def test_names_sent_through_the_api_are_neutralised_in_both_csvs(client, scenario_data, lead):
    name = lead + '=HYPERLINK("http://evil.example","click")'
    ids = []
    for _ in range(2):
        body = {"name": name, "scenario": {**scenario_data, "name": name}}
        created = client.post("/api/v1/scenarios", body, content_type="application/json")
        assert created.status_code == 201, created.content
        ids.append(created.json()["id"])
    monthly = parse(client.get(reverse("planner:saved-csv", args=[ids[0]])).content)
    assert next(r for r in monthly if r and r[0] == "name")[2] == "'" + name
    summary = parse(client.get(reverse("planner:saved-summary-csv"), {"ids": ids}).content)
    header = summary[0]
    assert [row[header.index("name")] for row in summary[1:]] == ["'" + name] * 2


HEADLINE_FIGURES = {
    # key in the CSV: (path in the engine's result, decimal places)
    "break_even_month": (("break_even_month",), 2),
    "savings": (("savings",), 2),
    "build_total_net": (("build", "total_net"), 2),
    "rent_total": (("rent", "total"), 2),
    "build_resale_value": (("build", "resale_value"), 2),
    "build_present_value": (("build", "present_value"), 2),
    "rent_present_value": (("rent", "present_value"), 2),
    "build_cost_per_reference_gpu_hour": (("build", "cost_per_reference_gpu_hour"), 2),
    "rent_cost_per_reference_gpu_hour": (("rent", "cost_per_reference_gpu_hour"), 2),
    "break_even_utilization": (("break_even_utilization",), 4),
    "work_reference_gpu_hours": (("work_reference_gpu_hours",), 2),
}


@pytest.mark.parametrize(
    "change",
    [
        {},
        {"workload": {"kind": "steady", "utilization": 0.02}, "discount_rate_per_year": 0.12},
        {"workload": {"kind": "tidal", "active_days_per_month": 9}, "horizon_months": 60},
        {"currency": "USD", "horizon_months": 7},
    ],
    ids=["worked_example", "never_pays_back", "tidal_five_years", "usd_short"],
)
def test_every_headline_row_of_the_monthly_csv_is_the_engines_figure(client, scenario_data, change):
    scenario = parse_scenario({**scenario_data, **change})
    result = compare(scenario)
    response = client.get(reverse("planner:results-csv", args=[encode(scenario)]))
    rows = section(parse(response.content), "Headline")
    assert rows[0] == ["key", "Label", "Value"]
    headline = {row[0]: row[2] for row in rows[1:]}
    assert set(headline) == set(HEADLINE_FIGURES)  # all 11, nothing else
    for key, (path, places) in HEADLINE_FIGURES.items():
        value = result
        for part in path:
            value = value[part]
        if value is None:
            assert headline[key] == "", key
        else:
            quantum = Decimal(1).scaleb(-places)
            assert Decimal(headline[key]) == Decimal(repr(value)).quantize(quantum), key
    if change.get("workload", {}).get("utilization") == 0.02:  # the null case is covered
        assert result["break_even_month"] is None and headline["break_even_month"] == ""


NUMBER = re.compile(r"-?\d+(\.\d+)?")


def numeric_cells(rows: list[list[str]]):
    for row in rows:
        for cell in row:
            if NUMBER.fullmatch(cell):
                yield cell


def noisy_scenario(scenario_data: dict) -> dict:
    """Inputs with the float noise of the issue: sums and FX conversions in binary floats."""
    data = copy.deepcopy(scenario_data)
    data["build"]["capex"] = 91139.04000000001
    data["build"]["maintenance_rate_per_year"] = 0.1 + 0.2  # 0.30000000000000004
    data["build"]["electricity_price_per_kwh"] = 6 / 7.1  # a CNY price in USD
    data["rent"]["hourly_rate"] = 1500 / 7.1  # 211.26760563380282
    data["workload"] = {"kind": "steady", "utilization": 0.07 * 3}  # 0.21000000000000002
    return data


@pytest.mark.django_db
def test_no_numeric_cell_of_either_csv_carries_float_noise(client, scenario_data):
    data = noisy_scenario(scenario_data)
    scenario = parse_scenario(data)
    monthly = parse(client.get(reverse("planner:results-csv", args=[encode(scenario)])).content)
    saved = [
        str(create_saved_scenario(name=n, scenario=scenario, session_key="s").pk) for n in "ab"
    ]
    summary = parse(client.get(reverse("planner:saved-summary-csv"), {"ids": saved}).content)
    cells = list(numeric_cells(monthly)) + list(numeric_cells(summary))
    assert len(cells) > 500
    noisy = [c for c in cells if len(c.partition(".")[2]) > 6]
    assert not noisy, noisy[:10]

    assumptions = {r[0]: r[2] for r in section(monthly, "Assumptions")[1:]}
    assert assumptions["build.capex"] == "91139.04"
    assert assumptions["build.maintenance_rate_per_year"] == "0.3"
    assert assumptions["workload.utilization"] == "0.21"
    # prices per kWh and per hour to six decimals, half to even, trailing zeros dropped
    assert assumptions["rent.hourly_rate"] == "211.267606"
    assert assumptions["build.electricity_price_per_kwh"] == "0.84507"
    record = dict(zip(summary[0], summary[1], strict=True))
    assert record["rent_hourly_rate"] == "211.267606"
    assert record["build_capex"] == "91139.04"


def test_every_money_cell_of_the_monthly_projection_has_exactly_the_minor_unit(scenario_data):
    scenario = parse_scenario(noisy_scenario(scenario_data))
    rows = parse(monthly_csv(scenario, compare(scenario)).encode("utf-8"))
    for row in section(rows, "Monthly projection")[2:]:
        assert all(len(cell.partition(".")[2]) == 2 for cell in row[1:]), row


def money_cell(value: float) -> Decimal:
    return Decimal(repr(value)).quantize(Decimal("0.01"))


def test_the_monthly_csv_carries_the_decision_uncertainty_tornado_and_fleet(client, scenario):
    from costmodel.decision import decide
    from costmodel.operations import (
        fleet,
        parse_fleet,
        parse_tornado,
        parse_uncertainty,
        tornado,
        uncertainty,
    )
    from costmodel.ranges import default_drivers, default_ranges, fleet_size
    from costmodel.sensitivity import utilization_sweep

    data = scenario.model_dump(mode="json")
    ranges = default_ranges(scenario)
    draws = 10_000  # 36 months: the full budget of draws
    answer = uncertainty(
        parse_uncertainty(
            {
                "scenario": data,
                "distributions": {r.path: r.as_triangular() for r in ranges},
                "draws": draws,
                "seed": 0,
            }
        )
    )
    result = compare(scenario)
    decision = decide(scenario, result, utilization_sweep(scenario), answer)
    drivers = tornado(
        parse_tornado(
            {
                "scenario": data,
                "drivers": {r.path: r.as_driver() for r in default_drivers(scenario)},
            }
        )
    )
    boxes = fleet(parse_fleet({"scenario": data, "max_boxes": fleet_size(scenario)}))

    response = client.get(reverse("planner:results-csv", args=[encode(scenario)]))
    rows = parse(response.content)

    decided = {r[0]: r[2] for r in section(rows, "Decision")[1:]}
    assert decided["recommendation"] == decision.recommendation == "build"
    assert decided["verdict"] == decision.verdict == "build"
    assert decided["verdict_sentence"].startswith("Build: it saves ¥")
    assert decided["warning"] == ""
    assert Decimal(decided["cash_savings"]) == money_cell(decision.cash_savings)
    assert decided["late_payback"] == "false" and decided["resale_decides"] == "false"
    assert decided["close_call"] == "false" and decided["close_call_share"] == "0.01"
    assert decided["payback_limit_months"] == "36"
    assert Decimal(decided["instance_hours"]) == Decimal(repr(decision.instance_hours)).quantize(
        Decimal("0.01")
    )
    assert Decimal(decided["probability_recommendation_holds"]) == Decimal(
        repr(decision.probability_recommendation_holds)
    ).quantize(Decimal("0.0001"))
    assert decided["confidence"] == decision.confidence

    summary = {r[0]: r[2] for r in section(rows, "Uncertainty")[1:]}
    assert summary["draws"] == str(draws) and summary["seed"] == "0"
    for p in ("p10", "p50", "p90", "mean"):
        assert Decimal(summary[f"savings_{p}"]) == money_cell(answer["savings"][p])
    assert Decimal(summary["probability_build_cheaper"]) == Decimal(
        repr(answer["probability_build_cheaper"])
    ).quantize(Decimal("0.0001"))

    used = section(rows, "Uncertainty ranges")
    assert used[0] == ["field", "Input", "Low", "Likely", "High"]
    assert [r[0] for r in used[1:]] == [r.path for r in ranges]
    for row, r in zip(used[1:], ranges, strict=True):
        assert [float(v) for v in row[2:]] == pytest.approx([r.low, r.mode, r.high], abs=1e-6)

    bands = section(rows, "Advantage of building by month over the draws")
    assert bands[0] == ["month", "advantage_p10", "advantage_p50", "advantage_p90"]
    assert len(bands[2:]) == scenario.horizon_months + 1
    for row in bands[2:]:
        month = int(row[0])
        for cell, p in zip(row[1:], ("p10", "p50", "p90"), strict=True):
            assert Decimal(cell) == money_cell(answer["bands"][p][month])

    swings = section(rows, "Tornado: each input at its low and high value")
    assert [r[0] for r in swings[2:]] == [d["path"] for d in drivers["drivers"]]
    for row, d in zip(swings[2:], drivers["drivers"], strict=True):
        assert Decimal(row[3]) == money_cell(d["savings_low"])
        assert Decimal(row[4]) == money_cell(d["savings_high"])

    owned = section(rows, "Fleet: boxes owned, the rest rented")
    assert [int(r[0]) for r in owned[2:]] == [r["boxes"] for r in boxes["rows"]]
    for row, want in zip(owned[2:], boxes["rows"], strict=True):
        assert Decimal(row[2]) == money_cell(want["build_present_value"])
        assert row[5] == ("true" if want["boxes"] == boxes["best_boxes"] else "false")


def test_a_tidal_scenarios_csv_has_no_fleet_block(scenario_data):
    from webapp.planner.analysis import run_analyses
    from webapp.planner.permalink import Permalink

    scenario_data["workload"] = {"kind": "tidal", "active_days_per_month": 4}
    scenario = parse_scenario(scenario_data)
    analyses = run_analyses(Permalink(scenario))
    rows = parse(monthly_csv(scenario, analyses.result, analyses=analyses).encode("utf-8"))
    assert ["Fleet: boxes owned, the rest rented"] not in rows
    assert ["Tornado: each input at its low and high value"] in rows


def test_a_late_pay_back_warns_in_the_csv_as_on_the_page(client, scenario_data):
    # The worked example against a cheap cloud, over ten years: a pay-back after 51 months.
    scenario_data["rent"]["hourly_rate"] = 2.7
    scenario_data["horizon_months"] = 120
    code = encode(parse_scenario(scenario_data))
    rows = parse(
        client.get(reverse("planner:results-csv", args=[code]), HTTP_ACCEPT_LANGUAGE="en").content
    )
    decided = {r[0]: r[2] for r in section(rows, "Decision")[1:]}
    assert decided["verdict"] == "late_payback"
    assert decided["warning"].startswith("Late pay-back: building pays for itself in cash only")
    page = client.get(reverse("planner:results", args=[code]), HTTP_ACCEPT_LANGUAGE="en")
    html = page.content.decode()
    assert 'data-verdict="late_payback"' in html
    assert decided["warning"].replace("'", "&#x27;") in html

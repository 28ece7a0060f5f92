"""Finance CSVs: one tidy table per file, labels with units and currency, rounding per
currency, the tables together in a zip, no formula injection."""

import copy
import csv
import io
import re
import zipfile
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import translation

from costmodel import compare, parse_scenario
from costmodel.lines import lines_of
from costmodel.tables import monthly_table
from webapp.planner.export import monthly_csv, neutralise, summary_csv
from webapp.planner.permalink import encode
from webapp.scenarios.services import create_saved_scenario

MONTHLY_HEADER_CNY = [
    "Month",
    *(f"Build: {line.label} [CNY]" for line in lines_of("build")),
    "Build: total this month [CNY]",
    "Build: cumulative [CNY]",
    "Build: value if sold [CNY]",
    *(f"Rent: {line.label} [CNY]" for line in lines_of("rent")),
    "Rent: total this month [CNY]",
    "Rent: cumulative [CNY]",
    "Cumulative build minus rent [CNY]",
]
"""Each cost line labelled as declared (costmodel.lines), after its side: ``Build: Energy``."""


def parse(body: bytes) -> list[list[str]]:
    assert body.startswith("\ufeff".encode()), "UTF-8 byte-order mark first"
    return list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))


def unzip(body: bytes) -> dict[str, list[list[str]]]:
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        return {name: parse(archive.read(name)) for name in archive.namelist()}


def by_label(table: list[list[str]]) -> dict[str, list[str]]:
    """A Figure/Value/Unit table keyed by its first column."""
    return {row[0]: row[1:] for row in table[1:]}


def money_cell(value: float) -> Decimal:
    return Decimal(repr(value)).quantize(Decimal("0.01"))


def assert_tidy(table: list[list[str]]) -> None:
    """One header row, then rows as wide as it; no blank rows, no second header."""
    assert table and all(table[0]), table[:1]
    assert all(len(row) == len(table[0]) for row in table[1:]), table[:3]
    assert table[0] not in table[1:]


def test_the_monthly_csv_is_one_table_with_the_currency_in_each_money_label(
    client, scenario, permalink
):
    response = client.get(
        reverse("planner:results-csv", args=[permalink]), HTTP_ACCEPT_LANGUAGE="en"
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment" in response["Content-Disposition"]
    rows = parse(response.content)
    assert_tidy(rows)
    assert rows[0][: len(MONTHLY_HEADER_CNY)] == MONTHLY_HEADER_CNY
    assert scenario.discount_rate_per_year > 0  # the bands are of the verdict's measure
    assert rows[0][len(MONTHLY_HEADER_CNY) :] == [
        "Rent minus build so far in present value, P10 [CNY]",
        "Rent minus build so far in present value, P50 [CNY]",
        "Rent minus build so far in present value, P90 [CNY]",
    ]
    _header, expected = monthly_table(compare(scenario))
    body = rows[1:]
    assert len(body) == scenario.horizon_months + 1
    for got, want in zip(body, expected, strict=True):
        assert int(got[0]) == want[0]
        for cell, value in zip(got[1 : len(want)], want[1:], strict=True):
            assert Decimal(cell) == money_cell(value)
            assert len(cell.partition(".")[2]) == 2  # rounded to the fen


def test_the_zip_holds_each_table_in_a_file_of_its_own(client, scenario, permalink):
    response = client.get(
        reverse("planner:results-zip", args=[permalink]), HTTP_ACCEPT_LANGUAGE="en"
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"].startswith("attachment; filename=")
    files = unzip(response.content)
    assert set(files) == {
        "monthly.csv",
        "scenario.csv",
        "headline.csv",
        "assumptions.csv",
        "decision.csv",
        "uncertainty.csv",
        "uncertainty_ranges.csv",
        "tornado.csv",
        "fleet.csv",
        "fiscal_years.csv",
    }
    for name, table in files.items():
        assert_tidy(table), name
    monthly = client.get(reverse("planner:results-csv", args=[permalink]))
    assert files["monthly.csv"] == parse(monthly.content)


def test_the_headline_and_assumptions_travel_with_the_numbers(client, scenario, permalink):
    files = unzip(client.get(reverse("planner:results-zip", args=[permalink])).content)
    assert files["headline.csv"][0] == ["Figure", "Value", "Unit"]
    headline = by_label(files["headline.csv"])
    result = compare(scenario)
    assert headline["Savings of building over the horizon, in cash (resale credited)"] == [
        "320434.19",
        "CNY",
    ]
    assert headline["Break-even month"] == ["2.67", "months"]
    assert Decimal(headline["Rent: total"][0]) == money_cell(result["rent"]["total"])
    assumptions = files["assumptions.csv"]
    assert assumptions[0] == [
        "Input",
        "Value",
        "Unit",
        "Source",
        "As of",
        "Estimate",
        "Override",
    ]
    inputs = by_label(assumptions)
    assert inputs["Purchase price of the box"][:2] == ["25000.00", "CNY"]
    assert inputs["Electricity price"][:2] == ["0.8", "CNY/kWh"]
    assert inputs["Utilization"][:2] == ["80", "%"]  # a percentage, not the fraction 0.8
    assert inputs["Workload"][0] == "steady use all month"  # in words, not the code
    assert inputs["Cloud price per instance-hour"][5] == "false"
    about = files["scenario.csv"]
    assert about[0][:5] == [
        "Scenario",
        "Currency",
        "Horizon [months]",
        "Generated on",
        "Results page",
    ]
    assert about[1][1:3] == ["CNY", "36"]
    assert f"/r/{permalink}" in about[1][4]


def test_negative_amounts_stay_numeric(scenario):
    result = compare(scenario)
    rows = parse(monthly_csv(scenario, result).encode("utf-8"))
    difference = [r[-1] for r in rows[1:]]  # build minus rent: negative once building pays
    last = result["build"]["cumulative"][-1] - result["rent"]["cumulative"][-1]
    assert Decimal(difference[-1]) == money_cell(last)
    assert Decimal(difference[-1]) < 0
    assert all(not d.startswith("'") for d in difference)


@pytest.mark.parametrize("text", ["=1+2", "+1", "-2", "@SUM(A1)", "\tx", "\rx"])
def test_text_cells_that_look_like_formulas_are_neutralised(text):
    assert neutralise(text) == "'" + text
    assert neutralise("plain " + text) == "plain " + text


def test_a_malicious_scenario_name_cannot_become_a_formula(client, scenario_data):
    scenario_data["name"] = '=HYPERLINK("http://evil.example","click")'
    scenario = parse_scenario(scenario_data)
    files = unzip(client.get(reverse("planner:results-zip", args=[encode(scenario)])).content)
    assert files["scenario.csv"][1][0] == "'" + scenario_data["name"]
    for table in files.values():
        for row in table:
            for cell in row:
                if cell and cell[0] in "=+@\t\r":
                    pytest.fail(f"unneutralised cell {cell!r}")


def test_chinese_headers_name_the_currency_and_the_name_survives(client, scenario_data):
    scenario_data["name"] = "单卡入门级 RTX 4090"
    code = encode(parse_scenario(scenario_data))
    monthly = parse(
        client.get(
            reverse("planner:results-csv", args=[code]), HTTP_ACCEPT_LANGUAGE="zh-hans"
        ).content
    )
    assert monthly[0][0] == "月份"
    assert all(label.endswith("[CNY]") for label in monthly[0][1:])
    assert not any(re.search("[A-Za-z]{4,}", label.replace("CNY", "")) for label in monthly[0])
    files = unzip(
        client.get(
            reverse("planner:results-zip", args=[code]), HTTP_ACCEPT_LANGUAGE="zh-hans"
        ).content
    )
    assert files["scenario.csv"][1][0] == "单卡入门级 RTX 4090"
    assert "%" in files["assumptions.csv"][0] or any(
        row[2] == "%" for row in files["assumptions.csv"][1:]
    )


def saved(scenario_data: dict, name: str, currency: str = "CNY", rate: float = 28.0) -> str:
    data = {**scenario_data, "currency": currency, "name": "the scenario's own name"}
    data["rent"] = {**data["rent"], "hourly_rate": rate}
    return str(create_saved_scenario(name=name, scenario=parse_scenario(data), session_key="s").pk)


@pytest.mark.django_db
def test_the_summary_has_one_row_per_scenario_checked_against_the_engine(client, scenario_data):
    ids = [saved(scenario_data, "-CNY", "CNY", 28.0), saved(scenario_data, "-USD", "USD", 4.0)]
    response = client.get(
        reverse("planner:saved-summary-csv"), {"ids": ids}, HTTP_ACCEPT_LANGUAGE="en"
    )
    assert response.status_code == 200
    rows = parse(response.content)
    assert_tidy(rows)
    header, body = rows[0], rows[1:]
    assert len(body) == 2
    # two currencies: amounts are in each row's own, which the Currency column names
    assert (
        "Savings of building over the horizon, in cash (resale credited) [the row's currency]"
        in header
    )
    assert "Average utilization [%]" in header
    records = [dict(zip(header, r, strict=True)) for r in body]
    for record, currency, rate in zip(records, ("CNY", "USD"), (28.0, 4.0), strict=True):
        data = {**scenario_data, "currency": currency}
        data["rent"] = {**data["rent"], "hourly_rate": rate}
        result = compare(parse_scenario(data))
        assert record["Currency"] == currency
        # the name the user saved it under, not the scenario's; '-' neutralised
        assert record["Scenario"] == f"'-{currency}"
        savings = record[
            "Savings of building over the horizon, in cash (resale credited) [the row's currency]"
        ]
        assert Decimal(savings) == money_cell(result["savings"])
        assert record["Horizon [months]"] == "36"
        assert record["Average utilization [%]"] == "80.00"
        assert record["Workload"] == "steady use all month"
        assert record["Saved on"]


@pytest.mark.django_db
def test_a_summary_in_one_currency_names_it_in_the_headers(client, scenario_data):
    ids = [saved(scenario_data, "a"), saved(scenario_data, "b")]
    header = parse(client.get(reverse("planner:saved-summary-csv"), {"ids": ids}).content)[0]
    assert "Savings of building over the horizon, in cash (resale credited) [CNY]" in header
    assert "Cloud price per instance-hour [CNY/h]" in header
    assert "Break-even utilization [%]" in header


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
    with translation.override("en"):
        rows = parse(summary_csv([entry]).encode("utf-8"))
    record = dict(zip(rows[0], rows[1], strict=True))
    assert (
        "." not in record["Savings of building over the horizon, in cash (resale credited) [JPY]"]
    )  # no minor unit
    assert record["Prices as of"] == "2026-02-01"


def test_a_bad_link_gives_no_csv(client):
    assert client.get(reverse("planner:results-csv", args=["garbage"])).status_code == 400
    assert client.get(reverse("planner:results-zip", args=["garbage"])).status_code == 400


@pytest.mark.django_db
def test_a_saved_scenarios_csv_has_the_same_projection(client, scenario, permalink):
    item = create_saved_scenario(name="s", scenario=scenario, session_key="s")
    from_saved = parse(client.get(reverse("planner:saved-csv", args=[item.pk])).content)
    from_link = parse(client.get(reverse("planner:results-csv", args=[permalink])).content)
    assert from_saved == from_link
    files = unzip(client.get(reverse("planner:saved-zip", args=[item.pk])).content)
    assert files["monthly.csv"] == from_link
    assert files["scenario.csv"][1][0] == "s"  # the saved name


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
def test_names_sent_through_the_api_are_neutralised_in_every_csv(client, scenario_data, lead):
    name = lead + '=HYPERLINK("http://evil.example","click")'
    ids, names = [], []
    for _ in range(2):
        body = {"name": name, "scenario": {**scenario_data, "name": name}}
        created = client.post("/api/v1/scenarios", body, content_type="application/json")
        assert created.status_code == 201, created.content
        ids.append(created.json()["id"])
        names.append(created.json()["name"])  # the saved name, as the API stored it
    files = unzip(client.get(reverse("planner:saved-zip", args=[ids[0]])).content)
    assert files["scenario.csv"][1][0] == "'" + names[0]
    summary = parse(
        client.get(
            reverse("planner:saved-summary-csv"), {"ids": ids}, HTTP_ACCEPT_LANGUAGE="en"
        ).content
    )
    header = summary[0]
    assert [row[header.index("Scenario")] for row in summary[1:]] == ["'" + n for n in names]


HEADLINE_FIGURES = {
    # label in the CSV: (path in the engine's result, unit, decimal places, × for percent)
    "Break-even month": (("break_even_month",), "months", 2, 1),
    "Savings of building over the horizon, in cash (resale credited)": (("savings",), "CNY", 2, 1),
    "Present-value savings of building over the horizon (what the verdict weighs)": (
        ("present_value_savings",),
        "CNY",
        2,
        1,
    ),
    "Build: total net of resale": (("build", "total_net"), "CNY", 2, 1),
    "Rent: total": (("rent", "total"), "CNY", 2, 1),
    "Resale value at the end": (("build", "resale_value"), "CNY", 2, 1),
    "Build: present value": (("build", "present_value"), "CNY", 2, 1),
    "Rent: present value": (("rent", "present_value"), "CNY", 2, 1),
    "Build: cost per reference GPU-hour": (("build", "cost_per_reference_gpu_hour"), "CNY", 2, 1),
    "Rent: cost per reference GPU-hour": (("rent", "cost_per_reference_gpu_hour"), "CNY", 2, 1),
    "Break-even utilization": (("break_even_utilization",), "%", 2, 100),
    "Work done [reference GPU-hours]": (("work_reference_gpu_hours",), "", 2, 1),
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
def test_every_headline_row_is_the_engines_figure(client, scenario_data, change):
    scenario = parse_scenario({**scenario_data, **change})
    result = compare(scenario)
    response = client.get(
        reverse("planner:results-zip", args=[encode(scenario)]), HTTP_ACCEPT_LANGUAGE="en"
    )
    headline = by_label(unzip(response.content)["headline.csv"])
    assert set(headline) == set(HEADLINE_FIGURES)  # all 12, nothing else
    for label, (path, unit, places, scale) in HEADLINE_FIGURES.items():
        value = result
        for part in path:
            value = value[part]
        cell, shown_unit = headline[label]
        assert shown_unit == (scenario.currency if unit == "CNY" else unit), label
        if value is None:
            assert cell == "", label
        else:
            quantum = Decimal(1).scaleb(-places)
            assert Decimal(cell) == (Decimal(repr(value)) * scale).quantize(quantum), label
    if change.get("workload", {}).get("utilization") == 0.02:  # the null case is covered
        assert result["break_even_month"] is None and headline["Break-even month"][0] == ""


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
def test_no_numeric_cell_of_any_csv_carries_float_noise(client, scenario_data):
    data = noisy_scenario(scenario_data)
    scenario = parse_scenario(data)
    files = unzip(
        client.get(
            reverse("planner:results-zip", args=[encode(scenario)]), HTTP_ACCEPT_LANGUAGE="en"
        ).content
    )
    ids = [str(create_saved_scenario(name=n, scenario=scenario, session_key="s").pk) for n in "ab"]
    summary = parse(
        client.get(
            reverse("planner:saved-summary-csv"), {"ids": ids}, HTTP_ACCEPT_LANGUAGE="en"
        ).content
    )
    cells = [c for table in files.values() for c in numeric_cells(table)]
    cells += list(numeric_cells(summary))
    assert len(cells) > 500
    noisy = [c for c in cells if len(c.partition(".")[2]) > 6]
    assert not noisy, noisy[:10]

    inputs = {label: row[0] for label, row in by_label(files["assumptions.csv"]).items()}
    assert inputs["Purchase price of the box"] == "91139.04"
    assert inputs["Maintenance per year"] == "30"  # percent
    assert inputs["Utilization"] == "21"
    # prices per kWh and per hour to six decimals, half to even, trailing zeros dropped
    assert inputs["Cloud price per instance-hour"] == "211.267606"
    assert inputs["Electricity price"] == "0.84507"
    record = dict(zip(summary[0], summary[1], strict=True))
    assert record["Cloud price per instance-hour [CNY/h]"] == "211.267606"
    assert record["Purchase price of the box [CNY]"] == "91139.04"


def test_every_money_cell_of_the_monthly_projection_has_exactly_the_minor_unit(scenario_data):
    scenario = parse_scenario(noisy_scenario(scenario_data))
    rows = parse(monthly_csv(scenario, compare(scenario)).encode("utf-8"))
    for row in rows[1:]:
        assert all(len(cell.partition(".")[2]) == 2 for cell in row[1:]), row


def test_the_zip_carries_the_decision_uncertainty_tornado_and_fleet(client, scenario):
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
    from webapp.planner.fields import labels

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
                "measure": "present_value_savings",  # the verdict's measure
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
                "measure": "present_value_savings",  # the verdict's measure
            }
        )
    )
    boxes = fleet(parse_fleet({"scenario": data, "max_boxes": fleet_size(scenario)}))

    response = client.get(
        reverse("planner:results-zip", args=[encode(scenario)]), HTTP_ACCEPT_LANGUAGE="en"
    )
    files = unzip(response.content)
    with translation.override("en"):
        label = dict(labels())

    decided = by_label(files["decision.csv"])
    assert decided["Recommendation (build or rent)"] == ["Build", ""] and (
        decision.recommendation == "build"
    )
    cash = decided["Savings in cash alone, resale not counted"]
    assert cash == [str(money_cell(decision.cash_savings)), "CNY"]
    assert decided["Cash break-even later than the pay-back limit"][0] == "false"
    assert decided["Share of the larger total that makes a close call"] == ["1.00", "%"]
    assert decided["Pay-back limit [months]: the useful life, or 36"][0] == "36"
    assert decided["Average utilization of this plan"] == ["80.00", "%"]
    assert Decimal(decided["Instance-hours rented for the same work"][0]) == money_cell(
        decision.instance_hours
    )
    assert Decimal(decided["Share of draws in which the recommendation holds"][0]) == (
        Decimal(repr(decision.probability_recommendation_holds)) * 100
    ).quantize(Decimal("0.01"))
    assert decided["Confidence"][0] == "Very likely" and decision.confidence == "very_likely"

    summary = by_label(files["uncertainty.csv"])
    assert summary["Draws"][0] == str(draws) and summary["Seed of the random generator"][0] == "0"
    for p, text in (("p10", "P10"), ("p50", "P50 (median)"), ("p90", "P90"), ("mean", "mean")):
        assert summary[f"Present-value savings, {text}"] == [
            str(money_cell(answer["savings"][p])),
            "CNY",
        ]
    cheaper = summary["Share of draws in which building is cheaper"]
    assert Decimal(cheaper[0]) == (
        Decimal(repr(answer["probability_build_cheaper"])) * 100
    ).quantize(Decimal("0.01"))

    used = files["uncertainty_ranges.csv"]
    assert used[0] == ["Input", "Unit", "Low", "Likely", "High"]
    assert [r[0] for r in used[1:]] == [label[r.path] for r in ranges]
    for row, r in zip(used[1:], ranges, strict=True):
        scale = 100 if row[1] in ("%", "% per year") else 1
        assert [float(v) for v in row[2:]] == pytest.approx(
            [r.low * scale, r.mode * scale, r.high * scale], abs=1e-6
        )

    monthly = files["monthly.csv"]
    bands = [
        monthly[0].index(f"Rent minus build so far in present value, {p.upper()} [CNY]")
        for p in ("p10", "p50", "p90")
    ]
    for row in monthly[1:]:
        month = int(row[0])
        for column, p in zip(bands, ("p10", "p50", "p90"), strict=True):
            assert Decimal(row[column]) == money_cell(answer["bands"][p][month])

    swings = files["tornado.csv"]
    assert swings[0][4:6] == [
        "Present-value savings, input low [CNY]",
        "Present-value savings, input high [CNY]",
    ]
    assert [r[0] for r in swings[1:]] == [label[d["path"]] for d in drivers["drivers"]]
    for row, d in zip(swings[1:], drivers["drivers"], strict=True):
        assert Decimal(row[4]) == money_cell(d["savings_low"])
        assert Decimal(row[5]) == money_cell(d["savings_high"])

    owned = files["fleet.csv"]
    assert owned[0][2] == "Build: present value [CNY]"
    assert [int(r[0]) for r in owned[1:]] == [r["boxes"] for r in boxes["rows"]]
    for row, want in zip(owned[1:], boxes["rows"], strict=True):
        assert Decimal(row[2]) == money_cell(want["build_present_value"])
        assert row[5] == ("true" if want["boxes"] == boxes["best_boxes"] else "false")


def test_a_tidal_scenarios_zip_has_no_fleet_file(client, scenario_data):
    scenario_data["workload"] = {"kind": "tidal", "active_days_per_month": 4}
    scenario = parse_scenario(scenario_data)
    files = unzip(client.get(reverse("planner:results-zip", args=[encode(scenario)])).content)
    assert "fleet.csv" not in files
    assert "tornado.csv" in files


def test_a_late_pay_back_warns_in_the_csv_as_on_the_page(client, scenario_data):
    # The worked example against a cheap cloud, over ten years: a pay-back after 51 months.
    scenario_data["rent"]["hourly_rate"] = 2.7
    scenario_data["horizon_months"] = 120
    # Undiscounted: the cash savings are the verdict's measure, and most draws agree.
    scenario_data["discount_rate_per_year"] = 0.0
    code = encode(parse_scenario(scenario_data))
    files = unzip(
        client.get(reverse("planner:results-zip", args=[code]), HTTP_ACCEPT_LANGUAGE="en").content
    )
    decided = by_label(files["decision.csv"])
    warning = decided["Warning"][0]
    assert warning.startswith("Late pay-back: building pays for itself in cash only")
    page = client.get(reverse("planner:results", args=[code]), HTTP_ACCEPT_LANGUAGE="en")
    html = page.content.decode()
    assert 'data-verdict="late_payback"' in html
    assert warning.replace("'", "&#x27;") in html


@pytest.mark.parametrize(("rate", "in_present_value"), [(0.2, True), (0.0, False)])
def test_the_savings_at_the_reference_utilization_are_labelled_in_their_measure(
    client, scenario_data, rate, in_present_value
):
    # 60 % busy: the 80 % reference is not the plan's own figure
    data = {**scenario_data, "discount_rate_per_year": rate}
    data["workload"] = {"kind": "steady", "utilization": 0.6}
    scenario = parse_scenario(data)
    response = client.get(
        reverse("planner:results-zip", args=[encode(scenario)]), HTTP_ACCEPT_LANGUAGE="en"
    )
    decided = by_label(unzip(response.content)["decision.csv"])
    at_80 = compare(parse_scenario({**data, "workload": {"kind": "steady", "utilization": 0.8}}))
    if in_present_value:  # the verdict's measure, said so
        row = decided["Present-value savings at the reference utilization"]
        assert row == [str(money_cell(at_80["present_value_savings"])), "CNY"]
        assert "Savings at the reference utilization" not in decided
    else:
        row = decided["Savings at the reference utilization"]
        assert row == [str(money_cell(at_80["savings"])), "CNY"]
        assert "Present-value savings at the reference utilization" not in decided

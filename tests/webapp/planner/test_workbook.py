"""The workbook, recalculated by LibreOffice headless, equals the engine to the cent.

The workbook's Monthly, Summary and Fiscal years sheets are formulas over its
Inputs sheet; openpyxl writes them without results, so every figure read back
here was computed by LibreOffice Calc (Debian's ``libreoffice-calc-nogui``).

The recalculation tests download the workbook of an explicit scenario (a link, no catalog):
its view reads no database, so they carry no django_db mark (pytest-django would refuse a
query) and run once, not again in the PostgreSQL pass of `make test`.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from openpyxl import load_workbook
from openpyxl.workbook import Workbook

from costmodel import ScenarioError, compare, parse_scenario
from costmodel.accounting import AccountingOptions, accounting
from costmodel.lines import LINES, lines_of
from costmodel.projection import ProjectionOverflowError
from tests.costmodel.strategies import nonzero_scenarios
from webapp.planner.permalink import encode
from webapp.planner.workbook import scenario_workbook
from webapp.scenarios.services import create_saved_scenario

EXAMPLES = Path(__file__).parents[2] / "costmodel" / "examples"
V1 = ["steady-4090-vs-a100.json", "tidal-4060ti.json"]
V2 = [
    "v2/commitment-unused-3y.json",
    "v2/commitment-with-overflow.json",
    "v2/hybrid-burst-life-financing.json",
    "v2/spot-rework-escalation.json",
]
CENT = 0.005
SERIES = {
    "build": (*(line.key for line in lines_of("build")), "monthly", "cumulative", "value_if_sold"),
    "rent": (*(line.key for line in lines_of("rent")), "monthly", "cumulative"),
}
"""Every cost line (costmodel.lines) and each side's totals: each a column of Monthly."""
SUMMARY = {
    "build.total": ("build", "total"),
    "build.resale_value": ("build", "resale_value"),
    "build.total_net": ("build", "total_net"),
    "rent.total": ("rent", "total"),
    "savings": ("savings",),
    "break_even_month": ("break_even_month",),
    "build.present_value": ("build", "present_value"),
    "rent.present_value": ("rent", "present_value"),
    "work_reference_gpu_hours": ("work_reference_gpu_hours",),
}


def example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / name).read_text())
    return data


def recalculated(workbooks: dict[str, bytes], folder: Path) -> dict[str, Workbook]:
    """Each workbook opened, recalculated and saved by LibreOffice, read back with its values."""
    soffice = shutil.which("soffice")
    assert soffice, "LibreOffice Calc is needed: apt-get install libreoffice-calc-nogui"
    source, out = folder / "in", folder / "out"
    source.mkdir()
    paths = []
    for name, content in workbooks.items():
        path = source / f"{name}.xlsx"
        path.write_bytes(content)
        paths.append(str(path))
    subprocess.run(
        [
            soffice,
            f"-env:UserInstallation={(folder / 'profile').as_uri()}",
            "--headless",
            "--convert-to",
            "xlsx",
            "--outdir",
            str(out),
            *paths,
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return {name: load_workbook(out / f"{name}.xlsx", data_only=True) for name in workbooks}


def columns(sheet: Any) -> dict[str, int]:
    return {cell.value: cell.column for cell in sheet[1] if cell.value}


def figure(result: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = result
    for key in path:
        value = value[key]
    return value


def assert_workbook_is_the_engine(
    book: Workbook, scenario: Any, options: AccountingOptions
) -> None:
    result = compare(scenario)
    monthly = book["Monthly"]
    where = columns(monthly)
    for side, names in SERIES.items():
        for name in names:
            column = where[f"{side}_{name}"]
            got = [monthly.cell(row=3 + m, column=column).value for m in result["months"]]
            expected = result[side][name]
            worst = max(abs(g - e) for g, e in zip(got, expected, strict=True))
            assert worst < CENT, (side, name, worst)
    summary = {row[0]: row[2] for row in book["Summary"].iter_rows(min_row=2, values_only=True)}
    for name, path in SUMMARY.items():
        expected = figure(result, path)
        if expected is None:
            assert summary[name] == "does not pay back"
        else:
            assert summary[name] == pytest.approx(expected, abs=CENT), name
    accounts = accounting(scenario, result, options)
    fiscal = book["Fiscal years"]
    header = [cell.value for cell in fiscal[1]]
    for k, row in enumerate(accounts.fiscal_years):
        got = dict(zip(header, (cell.value for cell in fiscal[3 + k]), strict=True))
        for name, value in row.items():
            if name in got and name != "start_calendar_month":
                assert got[name] == pytest.approx(value, abs=CENT), (k, name)


def workbook_of(client: Any, data: dict[str, Any], query: str = "") -> bytes:
    code = encode(parse_scenario(data))
    response = client.get(reverse("planner:results-workbook", args=[code]) + query)
    assert response.status_code == 200, response.content[:300]
    content: bytes = response.content
    return content


def implied_profile(data: dict[str, Any]) -> dict[str, Any]:
    """A version-3 jobs scenario as the profile it computes exactly as (the methodology's
    version 3: ``u[m] = Σ runs × reference GPU-hours / (GPUs × throughput) / 730``)."""
    build, jobs = data["build"], data["workload"]["jobs"]
    per_box_hour = build["gpu_count"] * build["gpu_throughput"]

    def runs(job: dict[str, Any], m: int) -> float:
        r = job["runs_per_month"]
        return float(r[(m - 1) % len(r)] if isinstance(r, list) else r)

    profile = [
        sum(runs(j, m) * j["reference_gpu_hours"] for j in jobs) / per_box_hour / 730
        for m in range(1, data["horizon_months"] + 1)
    ]
    return {**data, "workload": {"kind": "profile", "monthly_utilization": profile}}


def test_the_workbooks_of_the_v1_and_v2_examples_recalculate_to_the_engine(client, tmp_path):
    query = "?fiscal_year_start_month=4&purchase_month=9"
    options = AccountingOptions(fiscal_year_start_month=4, purchase_month=9)
    # A depreciation period longer than the useful life: each replaced box leaves a write-off.
    longer = "?depreciation_months=48&fiscal_year_start_month=7"
    longer_options = AccountingOptions(depreciation_months=48, fiscal_year_start_month=7)
    hybrid = "v2/hybrid-burst-life-financing.json"
    names = V1 + V2
    workbooks = {Path(n).stem: workbook_of(client, example(n), query) for n in names}
    workbooks["written-off"] = workbook_of(client, example(hybrid), longer)
    books = recalculated(workbooks, tmp_path)
    for name in names:
        assert_workbook_is_the_engine(
            books[Path(name).stem], parse_scenario(example(name)), options
        )
    assert_workbook_is_the_engine(
        books["written-off"], parse_scenario(example(hybrid)), longer_options
    )
    fiscal = books["written-off"]["Fiscal years"]
    header = [cell.value for cell in fiscal[1]]
    written_off = [
        row[header.index("written_off")] for row in fiscal.iter_rows(min_row=3, values_only=True)
    ]
    assert sum(written_off) > 0


V3 = EXAMPLES / "v3"


def v3_scenario(data: dict[str, Any]) -> dict[str, Any]:
    """The scenario as this engine reads it: a jobs workload as is, or as its implied profile
    where the engine does not know jobs yet."""
    try:
        parse_scenario(data)
    except ScenarioError:
        return implied_profile(data)
    return data


@pytest.mark.skipif(not (V3 / "expected.json").is_file(), reason="no version-3 examples here")
def test_the_workbooks_of_the_v3_examples_give_their_expected_figures(client, tmp_path):
    expected = json.loads((V3 / "expected.json").read_text())
    names = [n for n in expected if (V3 / n).is_file()]
    data = {n: v3_scenario(json.loads((V3 / n).read_text())) for n in names}
    books = recalculated({Path(n).stem: workbook_of(client, data[n]) for n in names}, tmp_path)
    for name in names:
        sheet = books[Path(name).stem]["Summary"]
        summary = {row[0]: row[2] for row in sheet.iter_rows(min_row=2, values_only=True)}
        want = expected[name]
        for figure_name, key in (
            ("build.total", "build_total"),
            ("rent.total", "rent_total"),
            ("savings", "savings"),
            ("build.resale_value", "resale_value"),
            ("build.present_value", "build_present_value"),
            ("rent.present_value", "rent_present_value"),
            ("work_reference_gpu_hours", "work_reference_gpu_hours"),
        ):
            assert summary[figure_name] == pytest.approx(want[key], abs=CENT), (name, key)
        assert summary["break_even_month"] == pytest.approx(want["break_even_month"], abs=1e-6)


def edited(content: bytes, changes: dict[str, float]) -> bytes:
    """The workbook with Inputs values changed, as a person would in a spreadsheet."""
    book = load_workbook(io.BytesIO(content))
    inputs = book["Inputs"]
    rows = {row[0].value: row[0].row for row in inputs.iter_rows() if row[0].value}
    for path, value in changes.items():
        inputs.cell(row=rows[path], column=3, value=value)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_changing_the_inputs_moves_the_totals_as_the_engine_does(client, tmp_path):
    steady = example("v2/hybrid-burst-life-financing.json")
    tidal = example("tidal-4060ti.json")
    steady_changed = {"workload.utilization": 0.35, "build.electricity_price_per_kwh": 1.4}
    tidal_changed = {"workload.active_days_per_month": 20}
    books = recalculated(
        {
            "steady": edited(workbook_of(client, steady), steady_changed),
            "tidal": edited(workbook_of(client, tidal), tidal_changed),
        },
        tmp_path,
    )
    steady["workload"]["utilization"] = 0.35
    steady["build"]["electricity_price_per_kwh"] = 1.4
    tidal["workload"]["active_days_per_month"] = 20
    options = AccountingOptions()
    assert_workbook_is_the_engine(books["steady"], parse_scenario(steady), options)
    assert_workbook_is_the_engine(books["tidal"], parse_scenario(tidal), options)
    # The change did move them: the original totals are not what was found.
    before = compare(parse_scenario(example("v2/hybrid-burst-life-financing.json")))
    summary = {
        row[0]: row[2] for row in books["steady"]["Summary"].iter_rows(min_row=2, values_only=True)
    }
    assert abs(summary["savings"] - before["savings"]) > 1000


@settings(
    max_examples=4,  # each is a LibreOffice run of a few seconds
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(nonzero_scenarios(max_horizon=30), st.integers(1, 12), st.integers(1, 12))
def test_a_workbook_of_random_inputs_none_of_them_zero_recalculates_to_the_engine(
    data: dict[str, Any], start: int, purchase: int
) -> None:
    # Every input given and non-zero, so every fee, the replacement, the loan and the
    # commitments are at work in the formulas LibreOffice computes.
    scenario = parse_scenario(data)
    try:
        result = compare(scenario)
    except ProjectionOverflowError:
        assume(False)
    for line in LINES:
        if line.fee is not None or line.key in ("energy", "maintenance", "financing", "committed"):
            assert any(v != 0 for v in result[line.side][line.key]), line.key
    options = AccountingOptions(fiscal_year_start_month=start, purchase_month=purchase)
    content = scenario_workbook(scenario, result, accounting(scenario, result, options))
    with tempfile.TemporaryDirectory() as folder:
        book = recalculated({"random": content}, Path(folder))["random"]
    assert_workbook_is_the_engine(book, scenario, options)


def test_the_series_are_formulas_and_the_monte_carlo_is_labelled_as_values(client, scenario):
    code = encode(scenario)
    response = client.get(reverse("planner:results-workbook", args=[code]))
    assert response["Content-Type"] == (
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    )
    assert "attachment" in response["Content-Disposition"]
    book = load_workbook(io.BytesIO(response.content))
    assert book.sheetnames == [
        "Inputs",
        "Monthly",
        "Depreciation",
        "Fiscal years",
        "Summary",
        "Sources",
    ]
    monthly = book["Monthly"]
    where = columns(monthly)
    for name in ("build_energy", "build_monthly", "rent_compute", "rent_cumulative"):
        assert str(monthly.cell(row=10, column=where[name]).value).startswith("=")
    summary = book["Summary"]
    rows = {row[0]: row for row in summary.iter_rows(min_row=2, values_only=True) if row[0]}
    assert str(rows["savings"][2]).startswith("=")
    assert "Values, not formulas" in rows
    assert rows["uncertainty.savings.p50"][3] is not None
    assert rows["break_even_utilization"][2] is None  # no formula: a value only
    inputs = {row[0]: row for row in book["Inputs"].iter_rows(values_only=True) if row[0]}
    assert inputs["build.electricity_price_per_kwh"][2:4] == (0.8, "CNY/kWh")


def test_a_bad_accounting_option_is_a_400_naming_the_field(client, scenario):
    code = encode(scenario)
    response = client.get(
        reverse("planner:results-workbook", args=[code]) + "?fiscal_year_start_month=13",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 400
    assert "fiscal_year_start_month" in response.content.decode()


@pytest.mark.django_db
def test_a_saved_scenario_and_the_compare_page_have_workbooks(client, scenario):
    other = parse_scenario({**example("tidal-4060ti.json")})
    a = create_saved_scenario(name="steady", scenario=scenario, user=None, session_key="x")
    b = create_saved_scenario(name="tidal", scenario=other, user=None, session_key="x")

    one = client.get(reverse("planner:saved-workbook", args=[a.pk]))
    assert one.status_code == 200
    assert load_workbook(io.BytesIO(one.content))["Summary"]["D6"].value == pytest.approx(
        compare(scenario)["savings"]
    )

    both = client.get(reverse("planner:saved-compare-workbook"), {"ids": [a.pk, b.pk]})
    assert both.status_code == 200
    book = load_workbook(io.BytesIO(both.content))
    assert book.sheetnames[0] == "Compare"
    assert {"1 Monthly", "2 Monthly", "2 Fiscal years"} <= set(book.sheetnames)
    compare_sheet = book["Compare"]
    assert [compare_sheet["A2"].value, compare_sheet["A3"].value] == ["steady", "tidal"]
    assert compare_sheet["D3"].value == "='2 Summary'!C6"


@pytest.mark.django_db
def test_the_compare_workbook_needs_two_saved_scenarios(client, scenario):
    a = create_saved_scenario(name="alone", scenario=scenario, user=None, session_key="x")
    response = client.get(reverse("planner:saved-compare-workbook"), {"ids": [a.pk]})
    assert response.status_code == 400


@pytest.mark.django_db
def test_a_name_that_looks_like_a_formula_stays_text(client, scenario):
    name = '=HYPERLINK("http://example.com","click")'
    a = create_saved_scenario(name=name, scenario=scenario, user=None, session_key="x")
    b = create_saved_scenario(name="+1", scenario=scenario, user=None, session_key="x")
    response = client.get(reverse("planner:saved-compare-workbook"), {"ids": [a.pk, b.pk]})
    sheet = load_workbook(io.BytesIO(response.content))["Compare"]
    assert (sheet["A2"].value, sheet["A2"].data_type) == (name, "s")
    assert (sheet["A3"].value, sheet["A3"].data_type) == ("+1", "s")


def test_the_inputs_and_sources_sheets_name_the_catalog_rows(client, shipped_catalog):
    home = reverse("planner:home")
    form = client.get(home).context["form"]
    data = {n: form.initial.get(n, f.initial) for n, f in form.fields.items()}
    data = {k: ("on" if v is True else v) for k, v in data.items() if v not in (None, False)}
    code = client.post(home, data)["Location"].removeprefix("/r/")
    response = client.get(reverse("planner:results-workbook", args=[code]))
    book = load_workbook(io.BytesIO(response.content))

    inputs = {row[0]: row for row in book["Inputs"].iter_rows(values_only=True) if row[0]}
    assert inputs["build.capex"][4], "the box's price names its source"
    assert inputs["rent.hourly_rate"][4]
    sources = list(book["Sources"].iter_rows(min_row=2, values_only=True))
    fed = " ".join(str(row[6]) for row in sources if row[6])
    # the fields each row feeds, by the labels a reader knows them by
    assert "Purchase price of the box" in fed and "Cloud price per instance-hour" in fed
    catalog_rows = [row for row in sources if row[6]]
    dated = [row for row in catalog_rows if row[3]]
    assert dated and all(row[4] for row in dated)  # a dated price names where it is from


def test_the_sources_sheet_lists_what_the_catalog_chose_as_the_results_page_does(
    client, shipped_catalog
):
    from .test_chosen import chosen_rows, submit

    url = submit(client, preset="cluster-4x-hgx-h100", currency="USD")
    listed = chosen_rows(client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode())
    assert list(listed) == ["cloud_offering", "tariff", "hosting"]
    code = url.removeprefix("/r/")
    response = client.get(reverse("planner:results-workbook", args=[code]))
    rows = [
        [cell for cell in row if cell is not None]
        for row in load_workbook(io.BytesIO(response.content))["Sources"].iter_rows(
            values_only=True
        )
    ]
    start = rows.index(["Chosen for you"])
    assert rows[start + 1] == ["Input", "Used", "Why"]
    assert rows[start + 2 : start + 5] == [list(row) for row in listed.values()]


def test_an_input_typed_over_the_catalog_says_so_instead_of_the_catalogs_source(client, scenario):
    provenance = [
        {
            "role": "cloud",
            "label": "A100",
            "source": "vendor price list",
            "fields": ["rent.hourly_rate", "rent.fixed_monthly"],
        }
    ]
    code = encode(scenario, provenance, ["rent.hourly_rate"])
    response = client.get(reverse("planner:results-workbook", args=[code]))
    inputs = {
        row[0]: row
        for row in load_workbook(io.BytesIO(response.content))["Inputs"].iter_rows(values_only=True)
        if row[0]
    }
    assert inputs["rent.hourly_rate"][4] == "typed in: overrides the catalog"
    assert inputs["rent.fixed_monthly"][4] == "vendor price list"


def test_amounts_show_the_currencys_minor_unit(client, scenario_data):
    scenario_data["currency"] = "JPY"
    book = load_workbook(io.BytesIO(workbook_of(client, scenario_data)))
    monthly = book["Monthly"]
    energy = monthly.cell(row=5, column=columns(monthly)["build_energy"])
    assert energy.number_format == "#,##0"
    assert book["Summary"]["C7"].number_format == "0.00"  # the break-even month is months


def test_a_chinese_workbooks_sources_name_catalog_rows_and_fields_in_chinese(
    client, shipped_catalog
):
    from webapp.catalog.models import BuildPreset
    from webapp.catalog.resolver import resolve_data

    selection = {
        "preset": "cluster-4x-hgx-h100",
        "cloud_offering": "gcp-a3-highgpu-8g-commit-3y",
        "tariff": "cn-business-average",
        "hosting": "office-deskside",
        "benchmark": "resnet50-fp16",
        "workload": {"kind": "steady", "utilization": 0.6},
        "horizon_months": 36,
        "currency": "USD",
    }
    resolution = resolve_data(selection)
    code = encode(resolution.scenario, resolution.provenance, [], selection)
    response = client.get(
        reverse("planner:results-workbook", args=[code]), HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert response.status_code == 200
    book = load_workbook(io.BytesIO(response.content))
    sheet = book["Sources"]
    cells = [str(c) for row in sheet.iter_rows(values_only=True) for c in row if c is not None]
    text = "\n".join(cells)
    assert BuildPreset.objects.get(slug="cluster-4x-hgx-h100").name_zh in text
    assert "× 扩展效率 0.940（8 块 GPU）" in text
    assert "build.capex" not in text and "scaling efficiency" not in text
    # the preset's rationale and the price notes, in the rows' Chinese
    preset = BuildPreset.objects.get(slug="cluster-4x-hgx-h100")
    assert preset.defaults_rationale_zh in cells and preset.defaults_rationale not in text
    # (its resale retention is fitted from observed used prices, cited as published)
    assert preset.useful_life_source_zh in cells and preset.useful_life_source not in text


def test_the_workbook_of_the_v4_placement_example_rents_the_job_the_box_cannot_hold(
    client, tmp_path
):
    name = "v4/jobs-placement-4x4090-vs-8xa100.json"
    books = recalculated({"placement": workbook_of(client, example(name))}, tmp_path)
    scenario = parse_scenario(example(name))
    assert_workbook_is_the_engine(books["placement"], scenario, AccountingOptions())
    assert sum(compare(scenario)["build"]["offload"]) > 0

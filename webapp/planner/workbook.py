"""A spreadsheet finance can recalculate: the methodology written as formulas over the inputs.

:func:`scenario_workbook` writes one scenario as an ``.xlsx`` (openpyxl) with
these sheets:

* **Inputs** — every scenario input (column A the engine's field name, C its
  value, D its unit, E its source), then a few derived cells as formulas.
* **Monthly** — one row per month 0..H; every build and rent series is a
  formula over Inputs (row 1 the engine's series name, row 2 a label).
* **Depreciation** — each box bought within the horizon, written down
  straight-line (formulas over Inputs and Monthly).
* **Fiscal years** — CapEx, OpEx, depreciation, interest and principal per
  fiscal year (SUMIF over Monthly).
* **Summary** — totals, savings, break-even month and present values as
  formulas, beside the engine's own figures; what is not a formula (the
  break-even utilization, the Monte Carlo) is a value and says so.
* **Sources** — the catalog rows the inputs came from, what the catalog chose for the user
  and why ("Chosen for you"), and the methodology.

The workbook is a second statement of :mod:`costmodel.projection`'s arithmetic
in spreadsheet form, which is its purpose: a reviewer changes an input and
sees the totals move. Tests recalculate it in LibreOffice and compare it with
the engine cell by cell. Its shape (number of months, of boxes, of fiscal
years, the workload's kind) is that of the scenario it was written for.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.utils.translation import gettext as _
from openpyxl import Workbook
from openpyxl.cell.cell import Cell
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from costmodel import Scenario
from costmodel.accounting import Accounts
from costmodel.paths import get_path
from webapp.formatting import minor_unit
from webapp.planner.chosen import Chosen
from webapp.planner.fields import ALL_FIELDS, items_by_field
from webapp.planner.sources import shown_items

MONEY = "#,##0.00"
BOLD = Font(bold=True)
MONTH_ROW = 3
"""Row of month 0 in Monthly and Depreciation: row 1 holds names, row 2 labels."""

BOX_TABLE = (
    "box",
    "bought_in_month",
    "cost",
    "end_month",
    "traded_in",
    "monthly_depreciation",
    "written_off",
    "trade_in",
)
"""Columns of the Depreciation sheet's table of boxes, right of the monthly columns."""


def box_table_columns(boxes: int) -> dict[str, str]:
    """Column letter of each :data:`BOX_TABLE` column when ``boxes`` boxes fill B, C, D, …"""
    first = 2 * boxes + 3  # one empty column after the boxes' depreciation and book value
    return {name: get_column_letter(first + k) for k, name in enumerate(BOX_TABLE)}


def unit_text(unit: str, currency: str) -> str:
    """A field's unit as a reader sees it: ``money/kWh`` → ``CNY/kWh``."""
    if unit.startswith("money"):
        return currency + unit[len("money") :]
    return {
        "fraction": _("fraction (0.05 = 5 %)"),
        "signed_fraction": _("fraction per year (−0.1: ten percent cheaper each year)"),
        "ratio": _("ratio"),
        "int": _("count"),
        "months": _("months"),
        "profile": _("fraction of the box's 730 hours"),
        "h": _("hours"),
        "days": _("days"),
        "W": "W",
    }.get(unit, unit)


@dataclass
class Sheets:
    """The sheets of one scenario and the cell of each input, by field name."""

    prefix: str
    money: str = MONEY
    """Number format of an amount: the currency's minor unit (``#,##0`` for JPY)."""
    inputs: dict[str, str] = field(default_factory=dict)
    """``build.capex`` → ``'Inputs'!$C$7``."""
    monthly: dict[str, str] = field(default_factory=dict)
    """Series name → column letter in Monthly."""

    def name(self, sheet: str) -> str:
        return f"{self.prefix}{sheet}"

    def ref(self, sheet: str, cell: str) -> str:
        return f"'{self.name(sheet)}'!{cell}"


def _text(ws: Worksheet, row: int, column: int, value: Any) -> Cell:
    """Write ``value``; a string is always text, never a formula, whatever it starts with
    (names and sources come from users and the catalog)."""
    cell: Cell = ws.cell(row=row, column=column, value=value)
    if isinstance(value, str):
        cell.data_type = "s"
    return cell


def _header(ws: Worksheet, row: int, values: Sequence[Any]) -> None:
    for column, value in enumerate(values, start=1):
        _text(ws, row, column, value).font = BOLD


def _inputs_sheet(
    wb: Workbook,
    s: Sheets,
    scenario: Scenario,
    accounts: Accounts,
    provenance: list[dict[str, Any]],
    overrides: Sequence[str] = (),
) -> None:
    ws = wb.create_sheet(s.name("Inputs"))
    _header(ws, 1, [_("Field"), _("Input"), _("Value"), _("Unit"), _("Source")])
    data = scenario.model_dump(mode="json")
    sources = items_by_field(provenance)
    currency = scenario.currency
    row = 2

    def put(
        path: str, label: str, value: Any, unit: str, source: str = "", formula: bool = False
    ) -> str:
        nonlocal row
        _text(ws, row, 1, path)
        _text(ws, row, 2, label)
        if formula:
            ws.cell(row=row, column=3, value=value)
        else:
            _text(ws, row, 3, value)
        _text(ws, row, 4, unit)
        _text(ws, row, 5, source)
        address = s.ref("Inputs", f"$C${row}")
        s.inputs[path] = address
        row += 1
        return address

    loan = scenario.build.financing
    filled = {
        # An input the scenario leaves out, as the formulas read it.
        "build.useful_life_months": (0, _("0: never replaced within the horizon")),
        "build.financing.down_payment_fraction": (1, _("1: paid in cash, no loan")),
        "build.financing.annual_interest_rate": (0, _("no loan")),
        "build.financing.term_months": (0, _("0: no loan")),
    }
    for f in ALL_FIELDS:
        if f.path in ("workload.monthly_utilization",):
            continue
        value = get_path(data, f.path)
        note = ""
        if value is None:
            if f.path not in filled or (f.path.startswith("build.financing") and loan):
                continue
            value, note = filled[f.path]
        source = "; ".join(
            f"{item['source']} ({item['effective_date']})"
            if item.get("effective_date")
            else str(item["source"])
            for item in sources.get(f.path, [])
            if item.get("source")
        )
        if f.path in overrides:
            source = _("typed in: overrides the catalog")
        put(f.path, str(f.label), value, unit_text(f.unit, currency), note or source)

    workload = scenario.workload
    if workload.kind == "profile":
        values = workload.monthly_utilization
        put("workload.profile_length", _("Months in the profile"), len(values), _("months"))
        first = row
        for index, value in enumerate(values, start=1):
            put(
                f"workload.monthly_utilization.{index}",
                _("Profile month %(n)s") % {"n": index},
                value,
                unit_text("profile", currency),
            )
        s.inputs["workload.monthly_utilization"] = s.ref("Inputs", f"$C${first}:$C${row - 1}")

    kind: str = workload.kind  # "jobs" comes with version 3 of the methodology
    if kind == "jobs":  # version 3: work as jobs, each cell an input of its own
        for k, job in enumerate(data["workload"]["jobs"]):
            put(
                f"workload.jobs.{k}.reference_gpu_hours",
                _("%(job)s: reference GPU-hours per run") % {"job": job["name"]},
                job["reference_gpu_hours"],
                _("reference GPU-hours"),
            )
            runs = job["runs_per_month"]
            runs = runs if isinstance(runs, list) else [runs]
            put(f"workload.jobs.{k}.runs_length", _("Months in its cycle"), len(runs), _("months"))
            first = row
            for index, value in enumerate(runs, start=1):
                put(
                    f"workload.jobs.{k}.runs_per_month.{index}",
                    _("Runs in month %(n)s of the cycle") % {"n": index},
                    value,
                    _("runs"),
                )
            s.inputs[f"workload.jobs.{k}.runs_per_month"] = s.ref(
                "Inputs", f"$C${first}:$C${row - 1}"
            )

    row += 1
    ws.cell(row=row, column=1, value=_("Accounting")).font = BOLD
    row += 1
    put(
        "accounting.depreciation_months",
        _("Depreciation period"),
        accounts.depreciation_months,
        _("months"),
        _("default: the useful life, otherwise 60 months")
        if accounts.options.depreciation_months is None
        else _("set by you"),
    )
    put(
        "accounting.fiscal_year_start_month",
        _("Fiscal year starts in month"),
        accounts.options.fiscal_year_start_month,
        _("1 = January"),
    )
    put(
        "accounting.purchase_month",
        _("Box bought in month"),
        accounts.purchase_month,
        _("1 = January"),
        _("default: the fiscal year's first month")
        if accounts.options.purchase_month is None
        else _("set by you"),
    )

    row += 1
    ws.cell(row=row, column=1, value=_("Derived (formulas)")).font = BOLD
    row += 1
    i = s.inputs
    derived = {
        "capacity_ratio": (
            _("Instance-hours per box-hour"),
            f"=({i['build.gpu_count']}*{i['build.gpu_throughput']})"
            f"/({i['rent.gpu_count']}*{i['rent.gpu_throughput']})",
        ),
        "life": (
            _("Months between purchases (L)"),
            f"=IF({i['build.useful_life_months']}>0,{i['build.useful_life_months']},"
            f"{i['horizon_months']})",
        ),
        "loan_principal": (
            _("Borrowed"),
            f"={i['build.capex']}*(1-{i['build.financing.down_payment_fraction']})",
        ),
        "monthly_interest": (
            _("Loan interest per month"),
            f"={i['build.financing.annual_interest_rate']}/12",
        ),
    }
    for name, (label, formula) in derived.items():
        put(name, str(label), formula, "", formula=True)
    P, rate, n, H = (
        i["loan_principal"],
        i["monthly_interest"],
        i["build.financing.term_months"],
        i["horizon_months"],
    )
    put(
        "loan_payment",
        _("Loan payment per month"),
        f"=IF({n}=0,0,IF({rate}=0,{P}/{n},{P}*{rate}/(1-(1+{rate})^(-{n}))))",
        currency,
        formula=True,
    )
    pmt = i["loan_payment"]
    put(
        "loan_balance_at_horizon",
        _("Loan balance paid at the horizon"),
        f"=IF({n}>{H},IF({rate}=0,{P}-{pmt}*{H},"
        f"{P}*(1+{rate})^{H}-{pmt}*((1+{rate})^{H}-1)/{rate}),0)",
        currency,
        formula=True,
    )
    T = i["rent.commitment_term_months"]
    put(
        "commitment_terms",
        _("Commitment terms started"),
        f"=CEILING({H}/{T},1)",
        "",
        formula=True,
    )
    put(
        "fiscal_months_before",
        _("Months of the first fiscal year before the purchase"),
        f"=MOD({i['accounting.purchase_month']}-{i['accounting.fiscal_year_start_month']},12)",
        _("months"),
        formula=True,
    )
    ws.column_dimensions["A"].width = 40
    ws.column_dimensions["B"].width = 40
    ws.column_dimensions["C"].width = 16
    ws.column_dimensions["D"].width = 24


def _power(base: str, exponent: str) -> str:
    """``base^exponent`` with ``0^0 = 1`` (Excel's POWER(0, 0) is an error)."""
    return f"IF(AND({base}=0,{exponent}=0),1,({base})^({exponent}))"


def _monthly_sheet(wb: Workbook, s: Sheets, scenario: Scenario, boxes: int) -> None:
    ws = wb.create_sheet(s.name("Monthly"))
    i = s.inputs
    H = i["horizon_months"]
    L = i["life"]
    capex, g = i["build.capex"], i["build.capex_annual_price_change"]
    retention = i["build.residual_value_retention_per_year"]
    apc, T = i["rent.annual_price_change"], i["rent.commitment_term_months"]
    committed_hours = f"({i['rent.committed_instances']}*730)"
    workload = scenario.workload

    # name → (label, formula of month m ≥ 1, formula of month 0); {x} is this row's x,
    # {prev_x} the previous row's, {m} the month.
    if workload.kind == "steady":
        utilization = f"{i['workload.utilization']}"
    elif workload.kind == "tidal":
        days, hours = i["workload.active_days_per_month"], i["workload.hours_per_active_day"]
        utilization = f"MIN({days}*{hours},730)/730"
    elif str(workload.kind) == "jobs":  # version 3 of the methodology
        jobs = scenario.model_dump(mode="json")["workload"]["jobs"]
        work = "+".join(
            f"INDEX({i[f'workload.jobs.{k}.runs_per_month']},"
            f"MOD({{m}}-1,{i[f'workload.jobs.{k}.runs_length']})+1)"
            f"*{i[f'workload.jobs.{k}.reference_gpu_hours']}"
            for k in range(len(jobs))
        )
        box = f"({i['build.gpu_count']}*{i['build.gpu_throughput']})"
        utilization = f"({work})/{box}/730"
    else:
        profile, length = i["workload.monthly_utilization"], i["workload.profile_length"]
        utilization = f"INDEX({profile},MOD({{m}}-1,{length})+1)"
    depreciation = s.name("Depreciation")
    table = box_table_columns(boxes)

    def box_range(name: str) -> str:
        letter = table[name]
        return f"'{depreciation}'!${letter}${MONTH_ROW}:${letter}${MONTH_ROW + boxes - 1}"

    def boxes_sum(first_column: int) -> str:
        cells = ",".join(
            f"'{depreciation}'!{get_column_letter(first_column + 2 * j)}{{row}}"
            for j in range(boxes)
        )
        return f"SUM({cells})"

    columns: list[tuple[str, str, str, str]] = [
        ("month", _("Month"), "", ""),
        (
            "fiscal_year",
            _("Fiscal year"),
            f"INT(({i['fiscal_months_before']}+{{m}}-1)/12)+1",
            "1",
        ),
        ("utilization", _("Work wanted [× one box]"), utilization, "0"),
        ("demand_hours", _("Box-hours wanted [h]"), "{utilization}*730", "0"),
        ("busy_hours", _("Box busy [h]"), "MIN({demand_hours},730)", "0"),
        (
            "escalation",
            _("Running-cost factor"),
            f"(1+{i['build.running_cost_annual_change']})^(({{m}}-1)/12)",
            "0",
        ),
        (
            "build_energy",
            _("Energy"),
            f"({i['build.power_load_watts']}*{{busy_hours}}+{i['build.power_idle_watts']}"
            f"*(730-{{busy_hours}}))/1000*{i['build.pue']}*{i['build.electricity_price_per_kwh']}"
            "*{escalation}",
            "0",
        ),
        ("build_hosting", _("Hosting"), f"{i['build.hosting_monthly']}*{{escalation}}", "0"),
        ("box", _("Box in service (0 = first)"), f"INT(({{m}}-1)/{L})", "0"),
        (
            "build_maintenance",
            _("Maintenance"),
            f"{capex}*(1+{g})^({{box}}*{L}/12)*{i['build.maintenance_rate_per_year']}/12",
            "0",
        ),
        ("build_ops", _("Administration"), f"{i['build.ops_monthly']}*{{escalation}}", "0"),
        ("rate", _("On-demand rate"), f"{i['rent.hourly_rate']}*(1+{apc})^(({{m}}-1)/12)", "0"),
        (
            "build_burst",
            _("Burst to the cloud"),
            f"({{demand_hours}}-{{busy_hours}})*{i['capacity_ratio']}"
            f"*(1+{i['rent.rework_fraction']})*{{rate}}",
            "0",
        ),
        (
            "purchase",
            _("Purchase (CapEx)"),
            f"IF(AND(MOD({{m}},{L})=0,{{m}}<{H}),{capex}*(1+{g})^({{m}}/12),0)",
            f"{capex}",
        ),
        (
            "trade_in",
            _("Trade-in of the old box"),
            f"IF(AND(MOD({{m}},{L})=0,{{m}}<{H}),{capex}*(1+{g})^(({{m}}-{L})/12)*"
            + _power(retention, f"{L}/12")
            + ",0)",
            "0",
        ),
        ("build_replacement", _("Replacement"), "{purchase}-{trade_in}", "0"),
        (
            "build_financing",
            _("Loan payments"),
            f"IF({i['build.financing.term_months']}>0,"
            f"IF({{m}}<=MIN({i['build.financing.term_months']},{H}),{i['loan_payment']},0)"
            f"+IF({{m}}={H},{i['loan_balance_at_horizon']},0),0)",
            "0",
        ),
        (
            "build_monthly",
            _("Build cost of the month"),
            "{build_energy}+{build_hosting}+{build_maintenance}+{build_ops}+{build_burst}"
            "+{build_replacement}+{build_financing}",
            f"{capex}*{i['build.financing.down_payment_fraction']}",
        ),
        (
            "build_cumulative",
            _("Build cost so far"),
            "{prev_build_cumulative}+{build_monthly}",
            "{build_monthly}",
        ),
        (
            "box_if_sold",
            _("Box that would be sold"),
            f"INT(MIN({{m}},{H}-1)/{L})",
            "0",
        ),
        (
            "build_value_if_sold",
            _("Value if sold"),
            f"{capex}*(1+{g})^({{box_if_sold}}*{L}/12)*"
            + _power(retention, f"({{m}}-{{box_if_sold}}*{L})/12"),
            f"{capex}",
        ),
        (
            "rent_hours",
            _("Instance-hours"),
            f"{{demand_hours}}*{i['capacity_ratio']}*(1+{i['rent.rework_fraction']})",
            "0",
        ),
        (
            "rent_compute",
            _("On-demand compute"),
            f"MAX({{rent_hours}}-{committed_hours},0)*{{rate}}",
            "0",
        ),
        (
            "rent_committed",
            _("Committed instances"),
            f"{committed_hours}*{i['rent.committed_hourly_rate']}*(1+{apc})^(INT(({{m}}-1)/{T})*{T}/12)"
            f"+IF(AND(MOD({{m}},{T})=0,{{m}}<{H}),{i['rent.committed_instances']}"
            f"*{i['rent.commitment_upfront_per_instance']}*(1+{apc})^({{m}}/12),0)"
            f"+IF({{m}}={H},({i['commitment_terms']}*{T}-{H})*{committed_hours}"
            f"*{i['rent.committed_hourly_rate']}*(1+{apc})^(({i['commitment_terms']}-1)*{T}/12),0)",
            f"{i['rent.committed_instances']}*{i['rent.commitment_upfront_per_instance']}",
        ),
        ("rent_fixed", _("Fixed cloud fees"), f"{i['rent.fixed_monthly']}", "0"),
        (
            "rent_monthly",
            _("Rent cost of the month"),
            "{rent_compute}+{rent_committed}+{rent_fixed}",
            "{rent_committed}",
        ),
        (
            "rent_cumulative",
            _("Rent cost so far"),
            "{prev_rent_cumulative}+{rent_monthly}",
            "{rent_monthly}",
        ),
        (
            "cumulative_difference",
            _("Build minus rent so far"),
            "{build_cumulative}-{rent_cumulative}",
            "{build_cumulative}-{rent_cumulative}",
        ),
        (
            "paid_back",
            _("Paid back yet"),
            "OR({prev_paid_back},{cumulative_difference}<=0)",
            "{cumulative_difference}<=0",
        ),
        (
            "break_even_here",
            _("Break-even month, if in this month"),
            "IF(AND({paid_back},NOT({prev_paid_back})),{m}-1+{prev_cumulative_difference}"
            '/({prev_cumulative_difference}-{cumulative_difference}),"")',
            'IF({paid_back},0,"")',
        ),
        (
            "discount_factor",
            _("Discount factor"),
            f"(1+{i['discount_rate_per_year']})^(-{{m}}/12)",
            "1",
        ),
        (
            "interest",
            _("Loan interest"),
            f"IF(AND({i['monthly_interest']}>0,{{m}}<=MIN({i['build.financing.term_months']},{H})),"
            f"{i['monthly_interest']}*({i['loan_principal']}*(1+{i['monthly_interest']})^({{m}}-1)"
            f"-{i['loan_payment']}*((1+{i['monthly_interest']})^({{m}}-1)-1)/{i['monthly_interest']}),0)",
            "0",
        ),
        ("principal", _("Loan principal repaid"), "{build_financing}-{interest}", "0"),
        ("depreciation", _("Depreciation"), boxes_sum(2), boxes_sum(2)),
        ("book_value", _("Book value"), boxes_sum(3), boxes_sum(3)),
        (
            "written_off",
            _("Book value written off"),
            f"SUMIF({box_range('end_month')},{{m}},{box_range('written_off')})",
            "0",
        ),
    ]
    for index, (name, _label, _f, _f0) in enumerate(columns, start=1):
        s.monthly[name] = get_column_letter(index)
    _header(ws, 1, [c[0] for c in columns])
    _header(ws, 2, [str(c[1]) for c in columns])
    money = {
        "build_energy", "build_hosting", "build_maintenance", "build_ops", "build_burst",
        "purchase", "trade_in", "build_replacement", "build_financing", "build_monthly",
        "build_cumulative", "build_value_if_sold", "rent_compute", "rent_committed",
        "rent_fixed", "rent_monthly", "rent_cumulative", "cumulative_difference",
        "interest", "principal", "depreciation", "book_value", "written_off",
    }  # fmt: skip
    for month in range(scenario.horizon_months + 1):
        row = MONTH_ROW + month
        cells = {name: f"{letter}{row}" for name, letter in s.monthly.items()}
        cells |= {f"prev_{name}": f"{letter}{row - 1}" for name, letter in s.monthly.items()}
        cells |= {"m": f"$A{row}", "row": str(row)}
        for column, (name, _label, formula, formula_0) in enumerate(columns, start=1):
            cell = ws.cell(row=row, column=column)
            if name == "month":
                cell.value = month
                continue
            cell.value = "=" + (formula if month else formula_0).format(**cells)
            if name in money:
                cell.number_format = s.money
    ws.freeze_panes = "B3"


def _depreciation_sheet(wb: Workbook, s: Sheets, scenario: Scenario, accounts: Accounts) -> None:
    """Per box: depreciation and book value by month (columns B, C for box 0, D, E for box 1, …)
    and, from column M, the box table: bought in, price, months, per month, end, traded in,
    trade-in, written off."""
    ws = wb.create_sheet(s.name("Depreciation"))
    i = s.inputs
    H, L = i["horizon_months"], i["life"]
    capex, g = i["build.capex"], i["build.capex_annual_price_change"]
    D = i["accounting.depreciation_months"]
    boxes = len(accounts.purchases)
    monthly = s.name("Monthly")
    table_labels = [_("Box"), _("Bought in month"), _("Price"), _("Held until month"),
                    _("Traded in (1) or kept (0)"), _("Depreciation per month"),
                    _("Written off when traded in"), _("Trade-in")]  # fmt: skip
    names = ["month"]
    labels = [_("Month")]
    for j in range(boxes):
        names += [f"depreciation_{j}", f"book_value_{j}"]
        labels += [_("Box %(n)s depreciation") % {"n": j}, _("Box %(n)s book value") % {"n": j}]
    _header(ws, 1, names)
    _header(ws, 2, [str(x) for x in labels])
    col = box_table_columns(boxes)
    for (name, letter), label in zip(col.items(), table_labels, strict=True):
        ws[f"{letter}1"] = name
        ws[f"{letter}2"] = str(label)
        ws[f"{letter}1"].font = ws[f"{letter}2"].font = BOLD
    for j in range(boxes):
        row = MONTH_ROW + j
        c = {name: f"${letter}${row}" for name, letter in col.items()}
        ws[c["box"]] = j
        ws[c["bought_in_month"]] = f"={j}*{L}"
        ws[c["cost"]] = f"={capex}*(1+{g})^({c['bought_in_month']}/12)"
        ws[c["traded_in"]] = f"=IF({c['bought_in_month']}+{L}<{H},1,0)"
        ws[c["end_month"]] = f"=MIN({c['bought_in_month']}+{L},{H})"
        ws[c["monthly_depreciation"]] = f"={c['cost']}/{D}"
        dep_letter = get_column_letter(2 + 2 * j)
        ws[c["written_off"]] = (
            f"=IF({c['traded_in']}=1,ROUND({c['cost']}-SUM({dep_letter}{MONTH_ROW}:{dep_letter}"
            f"{MONTH_ROW + scenario.horizon_months}),9),0)"
        )
        last = MONTH_ROW + scenario.horizon_months
        trade_in = f"'{monthly}'!{s.monthly['trade_in']}{MONTH_ROW}:{s.monthly['trade_in']}{last}"
        months = f"'{monthly}'!$A${MONTH_ROW}:$A${MONTH_ROW + scenario.horizon_months}"
        ws[c["trade_in"]] = f"=IF({c['traded_in']}=1,SUMIF({months},{c['end_month']},{trade_in}),0)"
        for name in ("cost", "monthly_depreciation", "written_off", "trade_in"):
            ws[c[name]].number_format = s.money
    for month in range(scenario.horizon_months + 1):
        row = MONTH_ROW + month
        ws.cell(row=row, column=1, value=month)
        for j in range(boxes):
            c = {name: f"${letter}${MONTH_ROW + j}" for name, letter in col.items()}
            dep = get_column_letter(2 + 2 * j)
            s_, end = c["bought_in_month"], c["end_month"]
            dep_cell = ws.cell(row=row, column=2 + 2 * j)
            dep_cell.value = (
                f"=IF(AND($A{row}>{s_},$A{row}<=MIN({s_}+{D},{end})),{c['monthly_depreciation']},0)"
            )
            book = ws.cell(row=row, column=3 + 2 * j)
            book.value = (
                f"=IF(AND($A{row}>={s_},OR($A{row}<{end},{c['traded_in']}=0)),"
                f"{c['cost']}-SUM({dep}${MONTH_ROW}:{dep}{row}),0)"
            )
            dep_cell.number_format = book.number_format = s.money
    ws.freeze_panes = "B3"


def _fiscal_sheet(wb: Workbook, s: Sheets, scenario: Scenario, accounts: Accounts) -> None:
    ws = wb.create_sheet(s.name("Fiscal years"))
    i = s.inputs
    H = i["horizon_months"]
    before = i["fiscal_months_before"]
    monthly = s.name("Monthly")
    last = MONTH_ROW + scenario.horizon_months

    def rng(name: str) -> str:
        letter = s.monthly[name]
        return f"'{monthly}'!${letter}${MONTH_ROW}:${letter}${last}"

    sums = {
        "capex": "purchase",
        "energy": "build_energy",
        "hosting": "build_hosting",
        "maintenance": "build_maintenance",
        "ops": "build_ops",
        "burst": "build_burst",
    }
    after = {
        "depreciation": "depreciation",
        "written_off": "written_off",
        "interest": "interest",
        "principal": "principal",
        "trade_in": "trade_in",
    }
    names = [
        "fiscal_year",
        "first_month",
        "last_month",
        *sums,
        "opex",
        *after,
        "book_value",
        "rent",
    ]
    labels = [_("Fiscal year"), _("First month"), _("Last month"), _("CapEx: purchases"),
              _("Energy"), _("Hosting"), _("Maintenance"), _("Administration"), _("Burst"),
              _("OpEx: build"), _("Depreciation"), _("Written off"), _("Loan interest"),
              _("Loan principal"), _("Trade-in"), _("Book value at year end"),
              _("Renting instead (OpEx)")]  # fmt: skip
    _header(ws, 1, names)
    _header(ws, 2, [str(x) for x in labels])
    letter = {name: get_column_letter(k) for k, name in enumerate(names, start=1)}
    for year in range(1, len(accounts.fiscal_years) + 1):
        row = 2 + year
        c = {name: f"{col}{row}" for name, col in letter.items()}
        ws[c["fiscal_year"]] = year
        ws[c["first_month"]] = f"=MAX(12*({year}-1)-{before}+1,0)" if year > 1 else 0
        ws[c["last_month"]] = f"=MIN(12*{year}-{before},{H})"
        for name, series in (*sums.items(), *after.items(), ("rent", "rent_monthly")):
            ws[c[name]] = f"=SUMIF({rng('fiscal_year')},{c['fiscal_year']},{rng(series)})"
        ws[c["opex"]] = f"=SUM({c['energy']}:{c['burst']})"
        ws[c["book_value"]] = f"=INDEX({rng('book_value')},{c['last_month']}+1)"
        for name in names[3:]:
            ws[c[name]].number_format = s.money


def _summary_sheet(
    wb: Workbook,
    s: Sheets,
    scenario: Scenario,
    result: Mapping[str, Any],
    values: list[tuple[str, str, Any]],
) -> None:
    ws = wb.create_sheet(s.name("Summary"))
    i = s.inputs
    monthly = s.name("Monthly")
    last = MONTH_ROW + scenario.horizon_months

    def at_h(name: str) -> str:
        return f"'{monthly}'!{s.monthly[name]}{last}"

    def rng(name: str) -> str:
        letter = s.monthly[name]
        return f"'{monthly}'!{letter}{MONTH_ROW}:{letter}{last}"

    _header(ws, 1, [_("Figure"), _("Label"), _("Workbook (formula)"), _("Engine")])
    work = f"SUM({rng('demand_hours')})*{i['build.gpu_count']}*{i['build.gpu_throughput']}"
    build, rent = result["build"], result["rent"]
    never = _("does not pay back")
    be = rng("break_even_here")
    rows: list[tuple[str, str, str, Any]] = [
        ("build.total", _("Build: everything paid"), f"={at_h('build_cumulative')}",
         build["total"]),
        ("build.resale_value", _("Build: resale value at the horizon"),
         f"={at_h('build_value_if_sold')}", build["resale_value"]),
        ("build.total_net", _("Build: net of resale"), "=C2-C3", result["build"]["total_net"]),
        ("rent.total", _("Rent: everything paid"), f"={at_h('rent_cumulative')}", rent["total"]),
        ("savings", _("Savings of building over renting"), "=C5-C4", result["savings"]),
        (
            "break_even_month",
            _("Break-even month"),
            f'=IF(COUNT({be})=0,"{never}",MIN({be}))',
            result["break_even_month"],
        ),
        (
            "build.present_value",
            _("Build: present value"),
            f"=SUMPRODUCT({rng('build_monthly')},{rng('discount_factor')})-C3*{at_h('discount_factor')}",
            result["build"]["present_value"],
        ),
        (
            "rent.present_value",
            _("Rent: present value"),
            f"=SUMPRODUCT({rng('rent_monthly')},{rng('discount_factor')})",
            result["rent"]["present_value"],
        ),
        ("work_reference_gpu_hours", _("Work done [reference GPU-hours]"), f"={work}",
         result["work_reference_gpu_hours"]),
        ("build.cost_per_reference_gpu_hour", _("Build: cost per reference GPU-hour"),
         '=IF(C10>0,C4/C10,"")', build["cost_per_reference_gpu_hour"]),
        ("rent.cost_per_reference_gpu_hour", _("Rent: cost per reference GPU-hour"),
         '=IF(C10>0,C5/C10,"")', rent["cost_per_reference_gpu_hour"]),
    ]  # fmt: skip
    formats = {
        "break_even_month": "0.00",
        "work_reference_gpu_hours": "#,##0.00",
        "build.cost_per_reference_gpu_hour": "#,##0.0000",
        "rent.cost_per_reference_gpu_hour": "#,##0.0000",
    }
    for row, (name, label, formula, engine) in enumerate(rows, start=2):
        _text(ws, row, 1, name)
        _text(ws, row, 2, str(label))
        shown = formats.get(name, s.money)
        ws.cell(row=row, column=3, value=formula).number_format = shown
        ws.cell(row=row, column=4, value=engine).number_format = shown
    row = len(rows) + 3
    ws.cell(row=row, column=1, value=_("Values, not formulas")).font = BOLD
    ws.cell(
        row=row,
        column=2,
        value=_(
            "Computed by the engine for the inputs as written; they do not change when an "
            "input here is changed."
        ),
    )
    for name, label, value in values:
        row += 1
        _text(ws, row, 1, name)
        _text(ws, row, 2, label)
        ws.cell(row=row, column=4, value=value)
    ws.column_dimensions["A"].width = 34
    ws.column_dimensions["B"].width = 40
    ws.column_dimensions["C"].width = 20
    ws.column_dimensions["D"].width = 20


def _sources_sheet(
    wb: Workbook,
    s: Sheets,
    provenance: list[dict[str, Any]],
    link: str,
    chosen: Sequence[Chosen] = (),
) -> None:
    ws = wb.create_sheet(s.name("Sources"))
    _header(
        ws,
        1,
        [_("Role"), _("Item"), _("Price"), _("As of"), _("Source"), _("Notes"), _("Used for")],
    )
    row = 2
    for item in shown_items(provenance):  # names, notes and fields in the reader's language
        amount = item.get("amount")
        price = "" if amount is None else f"{amount} {item.get('currency', '')}".strip()
        for column, value in enumerate(
            (
                _(item["role"]) if item.get("role") else "",
                item.get("label") or "",
                price,
                item.get("effective_date") or "",
                item.get("source") or "",
                item.get("note") or "",
                "; ".join(item["feeds"]),
            ),
            start=1,
        ):
            _text(ws, row, column, str(value))
        row += 1
    row += 1
    if chosen:  # what the catalog chose for the user, as the results page lists it
        _text(ws, row, 1, _("Chosen for you")).font = BOLD
        _header(ws, row + 1, [_("Input"), _("Used"), _("Why")])
        row += 2
        for choice in chosen:
            for column, value in enumerate((choice.label, choice.value, choice.reason), start=1):
                _text(ws, row, column, value)
            row += 1
        row += 1
    for label, value in (
        (_("Results page"), link),
        (_("Generated on"), date.today().isoformat()),
        (
            _("Methodology"),
            _("docs/methodology.md in this product's source: every formula of the Monthly sheet"),
        ),
        (
            _("Straight-line depreciation"),
            _("IAS 16 Property, Plant and Equipment (IFRS Foundation); ASC 360 (FASB)"),
        ),
    ):
        _text(ws, row, 1, str(label)).font = BOLD
        _text(ws, row, 2, value)
        row += 1


def add_scenario(
    wb: Workbook,
    scenario: Scenario,
    result: Mapping[str, Any],
    accounts: Accounts,
    *,
    provenance: list[dict[str, Any]] | None = None,
    link: str = "",
    values: list[tuple[str, str, Any]] | None = None,
    prefix: str = "",
    overrides: Sequence[str] = (),
    chosen: Sequence[Chosen] = (),
) -> Sheets:
    """Add one scenario's sheets to ``wb``, their names starting with ``prefix`` (``chosen``:
    what the catalog chose for the user, listed on the Sources sheet)."""
    places = minor_unit(scenario.currency)
    s = Sheets(prefix=prefix, money="#,##0." + "0" * places if places else "#,##0")
    _inputs_sheet(wb, s, scenario, accounts, provenance or [], overrides)
    _monthly_sheet(wb, s, scenario, len(accounts.purchases))
    _depreciation_sheet(wb, s, scenario, accounts)
    _fiscal_sheet(wb, s, scenario, accounts)
    _summary_sheet(wb, s, scenario, result, values or [])
    _sources_sheet(wb, s, provenance or [], link, chosen)
    return s


def engine_values(analyses: Any) -> list[tuple[str, str, Any]]:
    """The figures a workbook shows as values: the break-even utilization and the Monte Carlo."""
    out: list[tuple[str, str, Any]] = [
        (
            "break_even_utilization",
            _("Break-even utilization (engine)"),
            analyses.result["break_even_utilization"],
        )
    ]
    uncertainty = analyses.uncertainty
    if uncertainty:
        for key in ("p10", "p50", "p90", "mean"):
            out.append(
                (
                    f"uncertainty.savings.{key}",
                    _("Savings, %(stat)s of %(draws)s Monte Carlo draws")
                    % {"stat": key.upper(), "draws": analyses.draws},
                    uncertainty["savings"][key],
                )
            )
        out.append(
            (
                "uncertainty.probability_build_cheaper",
                _("Share of draws in which building is cheaper"),
                uncertainty["probability_build_cheaper"],
            )
        )
    return out


def to_bytes(wb: Workbook) -> bytes:
    buffer = io.BytesIO()
    wb.save(buffer)
    return buffer.getvalue()


def scenario_workbook(
    scenario: Scenario,
    result: Mapping[str, Any],
    accounts: Accounts,
    *,
    provenance: list[dict[str, Any]] | None = None,
    link: str = "",
    values: list[tuple[str, str, Any]] | None = None,
    overrides: Sequence[str] = (),
    chosen: Sequence[Chosen] = (),
) -> bytes:
    """One scenario's workbook as ``.xlsx`` bytes (see the module's docstring)."""
    wb = Workbook()
    wb.remove(wb.worksheets[0])  # the empty default sheet
    add_scenario(
        wb,
        scenario,
        result,
        accounts,
        provenance=provenance,
        link=link,
        values=values,
        overrides=overrides,
        chosen=chosen,
    )
    return to_bytes(wb)


@dataclass(frozen=True)
class Entry:
    """One scenario of a comparison workbook."""

    name: str
    scenario: Scenario
    result: Mapping[str, Any]
    accounts: Accounts
    link: str = ""
    provenance: list[dict[str, Any]] = field(default_factory=list)
    overrides: Sequence[str] = ()


SUMMARY_ROWS = {"build.total_net": 4, "rent.total": 5, "savings": 6, "break_even_month": 7}
"""Rows of the Summary sheet's figures that the Compare sheet shows."""


def comparison_workbook(entries: Sequence[Entry]) -> bytes:
    """Several scenarios in one workbook: a Compare sheet, then each scenario's sheets
    prefixed with its number (``1 Inputs``, ``1 Monthly``, …)."""
    wb = Workbook()
    wb.remove(wb.worksheets[0])  # the empty default sheet
    compare = wb.create_sheet(_("Compare"))
    _header(compare, 1, [_("Scenario"), *SUMMARY_ROWS])
    for n, entry in enumerate(entries, start=1):
        s = add_scenario(
            wb,
            entry.scenario,
            entry.result,
            entry.accounts,
            provenance=entry.provenance,
            link=entry.link,
            prefix=f"{n} ",
            overrides=entry.overrides,
        )
        _text(compare, 1 + n, 1, entry.name)
        for column, (figure, row) in enumerate(SUMMARY_ROWS.items(), start=2):
            cell = compare.cell(row=1 + n, column=column, value=f"={s.ref('Summary', f'C{row}')}")
            cell.number_format = "0.00" if figure == "break_even_month" else s.money
    return to_bytes(wb)

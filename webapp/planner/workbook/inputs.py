"""The Inputs sheet: every scenario input with its unit and source, then derived formulas."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext as _
from openpyxl import Workbook

from costmodel import Scenario
from costmodel.accounting import Accounts
from costmodel.paths import get_path
from webapp.planner.fields import ALL_FIELDS, items_by_field
from webapp.planner.workbook.base import BOLD, Sheets, header, text, unit_text


def inputs_sheet(
    wb: Workbook,
    s: Sheets,
    scenario: Scenario,
    accounts: Accounts,
    provenance: list[dict[str, Any]],
    overrides: Sequence[str] = (),
) -> None:
    ws = wb.create_sheet(s.name("Inputs"))
    header(ws, 1, [_("Field"), _("Input"), _("Value"), _("Unit"), _("Source")])
    data = scenario.model_dump(mode="json")
    sources = items_by_field(provenance)
    currency = scenario.currency
    row = 2

    def put(
        path: str, label: str, value: Any, unit: str, source: str = "", formula: bool = False
    ) -> str:
        nonlocal row
        text(ws, row, 1, path)
        text(ws, row, 2, label)
        if formula:
            ws.cell(row=row, column=3, value=value)
        else:
            text(ws, row, 3, value)
        text(ws, row, 4, unit)
        text(ws, row, 5, source)
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

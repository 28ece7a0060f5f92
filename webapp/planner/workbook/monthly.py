"""The Monthly sheet: one row per month, every cost line a formula over the Inputs sheet."""

from __future__ import annotations

from django.utils.translation import gettext as _
from openpyxl import Workbook
from openpyxl.utils import get_column_letter

from costmodel import Scenario
from costmodel.lines import LINES, SideName, lines_of
from costmodel.scenario import placements
from webapp.planner.workbook.base import MONTH_ROW, Sheets, box_table_columns, header


def _power(base: str, exponent: str) -> str:
    """``base^exponent`` with ``0^0 = 1`` (Excel's POWER(0, 0) is an error)."""
    return f"IF(AND({base}=0,{exponent}=0),1,({base})^({exponent}))"


def monthly_sheet(wb: Workbook, s: Sheets, scenario: Scenario, boxes: int) -> None:
    ws = wb.create_sheet(s.name("Monthly"))
    i = s.inputs
    H = i["horizon_months"]
    L = i["life"]
    capex, g = i["build.capex"], i["build.capex_annual_price_change"]
    retention = i["build.residual_value_retention_per_year"]
    apc, T = i["rent.annual_price_change"], i["rent.commitment_term_months"]
    committed_hours = f"({i['rent.committed_instances']}*730)"
    workload = scenario.workload
    rented_work = "0"  # reference GPU-hours of the jobs the box cannot hold (version 4)
    offload_hours = (
        f"{{rented_work}}/({i['rent.gpu_count']}*{i['rent.gpu_throughput']})"
        f"*(1+{i['rent.rework_fraction']})"
    )

    # name → (label, formula of month m ≥ 1, formula of month 0); {x} is this row's x,
    # {prev_x} the previous row's, {m} the month.
    if workload.kind == "steady":
        utilization = f"{i['workload.utilization']}"
    elif workload.kind == "tidal":
        days, hours = i["workload.active_days_per_month"], i["workload.hours_per_active_day"]
        utilization = f"MIN({days}*{hours},730)/730"
    elif str(workload.kind) == "jobs":  # version 3 of the methodology
        where = placements(scenario)  # version 4: a job the box cannot hold is rented

        def work_of(placement: str) -> str:
            return (
                "+".join(
                    f"INDEX({i[f'workload.jobs.{k}.runs_per_month']},"
                    f"MOD({{m}}-1,{i[f'workload.jobs.{k}.runs_length']})+1)"
                    f"*{i[f'workload.jobs.{k}.reference_gpu_hours']}"
                    for k, placed in enumerate(where)
                    if placed == placement
                )
                or "0"
            )

        box = f"({i['build.gpu_count']}*{i['build.gpu_throughput']})"
        utilization = f"({work_of('box')})/{box}/730"
        rented_work = work_of("rent")
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

    # The cost lines' formulas: each fixed monthly fee (costmodel.lines.Fee) from its
    # declaration, every other line from its formula here.
    line_formulas: dict[str, tuple[str, str]] = {
        "energy": (
            f"({i['build.power_load_watts']}*{{busy_hours}}+{i['build.power_idle_watts']}"
            f"*(730-{{busy_hours}}))/1000*{i['build.pue']}*{i['build.electricity_price_per_kwh']}"
            "*{escalation}",
            "0",
        ),
        "maintenance": (
            f"{capex}*(1+{g})^({{box}}*{L}/12)*{i['build.maintenance_rate_per_year']}/12",
            "0",
        ),
        "burst": (
            f"({{demand_hours}}-{{busy_hours}})*{i['capacity_ratio']}"
            f"*(1+{i['rent.rework_fraction']})*{{rate}}",
            "0",
        ),
        "offload": (f"{offload_hours}*{{rate}}", "0"),
        "replacement": ("{purchase}-{trade_in}", "0"),
        "financing": (
            f"IF({i['build.financing.term_months']}>0,"
            f"IF({{m}}<=MIN({i['build.financing.term_months']},{H}),{i['loan_payment']},0)"
            f"+IF({{m}}={H},{i['loan_balance_at_horizon']},0),0)",
            "0",
        ),
        "compute": (f"MAX({{rent_hours}}-{committed_hours},0)*{{rate}}", "0"),
        "committed": (
            f"{committed_hours}*{i['rent.committed_hourly_rate']}*(1+{apc})^(INT(({{m}}-1)/{T})*{T}/12)"
            f"+IF(AND(MOD({{m}},{T})=0,{{m}}<{H}),{i['rent.committed_instances']}"
            f"*{i['rent.commitment_upfront_per_instance']}*(1+{apc})^({{m}}/12),0)"
            f"+IF({{m}}={H},({i['commitment_terms']}*{T}-{H})*{committed_hours}"
            f"*{i['rent.committed_hourly_rate']}*(1+{apc})^(({i['commitment_terms']}-1)*{T}/12),0)",
            f"{i['rent.committed_instances']}*{i['rent.commitment_upfront_per_instance']}",
        ),
    }

    def line_columns(side: SideName) -> list[tuple[str, str, str, str]]:
        out = []
        for line in lines_of(side):
            if line.fee is not None:
                fee = i[f"{side}.{line.fee.field}"]
                formula = (fee + "*{escalation}" if line.fee.escalates else fee, "0")
            elif line.key in line_formulas:
                formula = line_formulas[line.key]
            else:
                raise ValueError(f"the workbook has no formula for the cost line {line.key!r}")
            out.append((f"{side}_{line.key}", _(line.label), *formula))
        return out

    def total(side: SideName) -> str:
        return "+".join(f"{{{side}_{line.key}}}" for line in lines_of(side))

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
        ("rented_work", _("Rented jobs' work [reference GPU-h]"), rented_work, "0"),
        (
            "escalation",
            _("Running-cost factor"),
            f"(1+{i['build.running_cost_annual_change']})^(({{m}}-1)/12)",
            "0",
        ),
        ("box", _("Box in service (0 = first)"), f"INT(({{m}}-1)/{L})", "0"),
        ("rate", _("On-demand rate"), f"{i['rent.hourly_rate']}*(1+{apc})^(({{m}}-1)/12)", "0"),
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
        (
            "rent_hours",
            _("Instance-hours"),
            f"{{demand_hours}}*{i['capacity_ratio']}*(1+{i['rent.rework_fraction']})"
            f"+{offload_hours}",
            "0",
        ),
        *line_columns("build"),
        (
            "build_monthly",
            _("Build cost of the month"),
            total("build"),
            f"{capex}*{i['build.financing.down_payment_fraction']}+" + total("build"),
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
        *line_columns("rent"),
        ("rent_monthly", _("Rent cost of the month"), total("rent"), total("rent")),
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
    header(ws, 1, [c[0] for c in columns])
    header(ws, 2, [str(c[1]) for c in columns])
    money = {f"{line.side}_{line.key}" for line in LINES} | {
        "purchase", "trade_in", "build_monthly", "build_cumulative", "build_value_if_sold",
        "rent_monthly", "rent_cumulative", "cumulative_difference", "interest", "principal",
        "depreciation", "book_value", "written_off",
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

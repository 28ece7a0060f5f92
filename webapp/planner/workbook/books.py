"""The Depreciation and Fiscal years sheets: the books, as formulas over the Monthly sheet."""

from __future__ import annotations

from django.utils.translation import gettext as _
from openpyxl import Workbook
from openpyxl.utils import get_column_letter

from costmodel import Scenario
from costmodel.accounting import FISCAL_YEAR_FIELDS, OPEX_LINES, Accounts
from webapp.planner.finance import FISCAL_YEAR_LABELS
from webapp.planner.workbook.base import BOLD, MONTH_ROW, Sheets, box_table_columns, header


def depreciation_sheet(wb: Workbook, s: Sheets, scenario: Scenario, accounts: Accounts) -> None:
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
    header(ws, 1, names)
    header(ws, 2, [str(x) for x in labels])
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


def fiscal_sheet(wb: Workbook, s: Sheets, scenario: Scenario, accounts: Accounts) -> None:
    ws = wb.create_sheet(s.name("Fiscal years"))
    i = s.inputs
    H = i["horizon_months"]
    before = i["fiscal_months_before"]
    monthly = s.name("Monthly")
    last = MONTH_ROW + scenario.horizon_months

    def rng(name: str) -> str:
        letter = s.monthly[name]
        return f"'{monthly}'!${letter}${MONTH_ROW}:${letter}${last}"

    sums = {"capex": "purchase", **{key: f"build_{key}" for key in OPEX_LINES}}
    after = {
        "depreciation": "depreciation",
        "written_off": "written_off",
        "interest": "interest",
        "principal": "principal",
        "trade_in": "trade_in",
    }
    names = ["fiscal_year", "first_month", "last_month", *FISCAL_YEAR_FIELDS]
    labels = [_("Fiscal year"), _("First month"), _("Last month")]
    labels += [FISCAL_YEAR_LABELS[name] for name in FISCAL_YEAR_FIELDS]
    header(ws, 1, names)
    header(ws, 2, [str(x) for x in labels])
    letter = {name: get_column_letter(k) for k, name in enumerate(names, start=1)}
    for year in range(1, len(accounts.fiscal_years) + 1):
        row = 2 + year
        c = {name: f"{col}{row}" for name, col in letter.items()}
        ws[c["fiscal_year"]] = year
        ws[c["first_month"]] = f"=MAX(12*({year}-1)-{before}+1,0)" if year > 1 else 0
        ws[c["last_month"]] = f"=MIN(12*{year}-{before},{H})"
        for name, series in (*sums.items(), *after.items(), ("rent", "rent_monthly")):
            ws[c[name]] = f"=SUMIF({rng('fiscal_year')},{c['fiscal_year']},{rng(series)})"
        ws[c["opex"]] = f"=SUM({c[OPEX_LINES[0]]}:{c[OPEX_LINES[-1]]})"
        ws[c["book_value"]] = f"=INDEX({rng('book_value')},{c['last_month']}+1)"
        # The box held at the horizon is sold for its value then (costmodel.accounting.disposal).
        at_horizon = f"{c['last_month']}={H}"
        ws[c["disposal_proceeds"]] = (
            f"=IF({at_horizon},INDEX({rng('build_value_if_sold')},{H}+1),0)"
        )
        ws[c["disposal_gain"]] = (
            f"=IF({at_horizon},{c['disposal_proceeds']}-INDEX({rng('book_value')},{H}+1),0)"
        )
        for name in names[3:]:
            ws[c[name]].number_format = s.money

"""The finance view of a scenario: the accounting options a visitor sets, the CapEx/OpEx table
per fiscal year, and its CSV block.

The figures come from :func:`costmodel.accounting.accounting`; this module only
parses the options (from the query string: they change no cost, so a
permalink stays the same), labels and rounds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from costmodel import Scenario, compare
from costmodel.accounting import (
    FISCAL_YEAR_FIELDS,
    OPEX_LINES,
    AccountingOptions,
    Accounts,
    accounting,
)
from costmodel.lines import BY_KEY
from webapp import formatting
from webapp.formatting import round_money

MONTH_CHOICES = [(str(n), str(n)) for n in range(1, 13)]

FISCAL_YEAR_LABELS: dict[str, Any] = {
    "capex": gettext_lazy("CapEx: purchases"),
    **{key: gettext_lazy(BY_KEY[key].label) for key in OPEX_LINES},
    "opex": gettext_lazy("OpEx: build"),
    "depreciation": gettext_lazy("Depreciation"),
    "written_off": gettext_lazy("Written off"),
    "interest": gettext_lazy("Loan interest"),
    "principal": gettext_lazy("Loan principal"),
    "trade_in": gettext_lazy("Trade-in"),
    "disposal_proceeds": gettext_lazy("Sold at the horizon: proceeds"),
    "disposal_gain": gettext_lazy("Gain (loss) on the sale against book value"),
    "book_value": gettext_lazy("Book value at year end"),
    "rent": gettext_lazy("Renting instead (OpEx)"),
}
"""Column labels of the fiscal-year table, by :data:`costmodel.accounting.FISCAL_YEAR_FIELDS`
(each operating expense labelled as its cost line, :mod:`costmodel.lines`)."""

SHOWN_COLUMNS = (
    "capex",
    "opex",
    "depreciation",
    "interest",
    "principal",
    "book_value",
    "disposal_proceeds",
    "disposal_gain",
    "rent",
)
"""Columns the results page shows; the CSV and the workbook carry every one."""


class AccountingForm(forms.Form):
    """How finance books the box: read from the query string of the results page, the CSV and
    the workbook. Left empty, each has a default that the page names."""

    depreciation_months = forms.IntegerField(
        label=gettext_lazy("Depreciation period [months]"),
        required=False,
        min_value=1,
        max_value=240,
    )
    fiscal_year_start_month = forms.TypedChoiceField(
        label=gettext_lazy("Fiscal year starts in month"),
        choices=MONTH_CHOICES,  # no blank: calendar years (January) unless another is chosen
        coerce=int,
        required=False,
        empty_value=None,
        initial=AccountingOptions.model_fields["fiscal_year_start_month"].default,
    )
    purchase_month = forms.TypedChoiceField(
        label=gettext_lazy("Box bought in month"),
        choices=[("", "—"), *MONTH_CHOICES],
        coerce=int,
        required=False,
        empty_value=None,
    )

    def options(self) -> AccountingOptions | None:
        """The options of a valid form; None when a field is invalid."""
        if not self.is_valid():
            return None
        data = {k: v for k, v in self.cleaned_data.items() if v is not None}
        return AccountingOptions(**data)

    def problems(self) -> str:
        """Each invalid field with its message, on one line: ``field: message; …``."""
        return "; ".join(
            f"{name}: {' '.join(str(m) for m in messages)}"
            for name, messages in self.errors.items()
        )


def accounting_form(query: Mapping[str, Any]) -> AccountingForm:
    """The form bound to the options in ``query`` (unbound when none is given)."""
    given = {name: query[name] for name in AccountingForm.base_fields if name in query}
    return AccountingForm(given) if given else AccountingForm()


def options_of(form: AccountingForm) -> AccountingOptions | None:
    """Defaults for an unbound form, the form's options when valid, None when invalid."""
    return form.options() if form.is_bound else AccountingOptions()


def books(
    scenario: Scenario, options: AccountingOptions, result: dict[str, Any] | None = None
) -> tuple[dict[str, Any], Accounts]:
    """The scenario's result (``result``: its whole result, already projected) and its
    accounts."""
    result = compare(scenario) if result is None else result
    return result, accounting(scenario, result, options)


def defaults_said(accounts: Accounts) -> list[str]:
    """Sentences naming each option that was defaulted, and to what."""
    said = []
    options = accounts.options
    if options.depreciation_months is None:
        said.append(
            _("Depreciation over %(months)s months (not set: the useful life, otherwise 60).")
            % {"months": accounts.depreciation_months}
        )
    if "fiscal_year_start_month" not in options.model_fields_set:
        said.append(_("Fiscal years start in January (not set)."))
    if options.purchase_month is None:
        said.append(
            _("The box is bought in the fiscal year's first month (purchase month not set).")
        )
    return said


def year_label(row: Mapping[str, Any]) -> str:
    return _("Year %(n)s: months %(first)s–%(last)s") % {
        "n": row["fiscal_year"],
        "first": row["first_month"],
        "last": row["last_month"],
    }


def fiscal_table(accounts: Accounts, currency: str) -> dict[str, Any]:
    """The results page's CapEx/OpEx table: headers and formatted rows."""
    return {
        "headers": [str(FISCAL_YEAR_LABELS[name]) for name in SHOWN_COLUMNS],
        "rows": [
            {
                "label": year_label(row),
                "cells": [formatting.money(row[name], currency) for name in SHOWN_COLUMNS],
            }
            for row in accounts.fiscal_years
        ],
        "defaults": defaults_said(accounts),
        "depreciation_months": accounts.depreciation_months,
    }


def finance_context(
    scenario: Scenario, query: Mapping[str, Any], result: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Context of the results page's finance section: its option fields (label, value typed,
    errors) and, when the options are valid, the table (``result``: the scenario's whole
    result, when the page has projected it already).

    The template writes the three inputs itself: rendering them as Django widgets took
    3 ms, longer than the rest of the results page.
    """
    given = {name: query[name] for name in AccountingForm.base_fields if name in query}
    options: AccountingOptions | None = AccountingOptions()
    errors: Mapping[str, Any] = {}
    link_query = ""
    if given:  # most pages have none: no form to build
        form = AccountingForm(given)
        options, errors, link_query = form.options(), form.errors, options_query(form)
    fields = [
        {
            "name": name,
            "label": str(field.label),
            "value": str(given.get(name, field.initial if field.initial is not None else "")),
            "blank": name != "fiscal_year_start_month",
            "errors": " ".join(str(m) for m in errors.get(name, [])),
            "months": [] if name == "depreciation_months" else [str(n) for n in range(1, 13)],
        }
        for name, field in AccountingForm.base_fields.items()
    ]
    table = None
    if options is not None:
        _result, accounts = books(scenario, options, result)
        table = fiscal_table(accounts, scenario.currency)
    return {"fields": fields, "table": table, "query": link_query}


def options_query(form: AccountingForm) -> str:
    """``?name=value&…`` of a valid bound form's options, for the CSV and workbook links."""
    if not form.is_bound or not form.is_valid():
        return ""
    given = {k: v for k, v in form.cleaned_data.items() if v is not None}
    return "?" + urlencode(given) if given else ""


def fiscal_year_rows(accounts: Accounts, currency: str) -> list[list[Any]]:
    """The fiscal years as one tidy table: a header row whose amounts name the currency, one
    row per year (the booking options are in the scenario file beside it)."""
    return [
        [
            _("Fiscal year"),
            _("First month"),
            _("Last month"),
            *(f"{FISCAL_YEAR_LABELS[n]} [{currency}]" for n in FISCAL_YEAR_FIELDS),
        ],
        *(
            [
                row["fiscal_year"],
                row["first_month"],
                row["last_month"],
                *(round_money(row[n], currency) for n in FISCAL_YEAR_FIELDS),
            ]
            for row in accounts.fiscal_years
        ),
    ]

"""Workbook downloads (``.xlsx``) of a permalink, a saved scenario and the compare page.

Views parse, call one function, answer: the accounting options come from the
query string (:class:`webapp.planner.finance.AccountingForm`); an invalid one is
a 400 that names the field.
"""

from __future__ import annotations

import uuid
from datetime import date

from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_GET

from costmodel import project
from costmodel.accounting import AccountingOptions, accounting
from costmodel.projection import ProjectionOverflowError
from webapp.planner import downloads, workbook
from webapp.planner.analysis import run_analyses
from webapp.planner.chosen import chosen_for_you
from webapp.planner.finance import accounting_form, options_of
from webapp.planner.permalink import Permalink, PermalinkError, decode
from webapp.planner.views import bad_request, compare_form, compare_status, too_large
from webapp.scenarios import selectors as saved_selectors
from webapp.scenarios import services as saved_services

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _xlsx_response(content: bytes, filename: str) -> HttpResponse:
    return downloads.attachment(HttpResponse(content, content_type=XLSX), filename)


def _options(request: HttpRequest) -> AccountingOptions | str:
    """The accounting options of the query string, or what is wrong with them."""
    form = accounting_form(request.GET)
    options = options_of(form)
    return form.problems() if options is None else options


def _link_workbook(request: HttpRequest, link: Permalink, url: str, name: str = "") -> HttpResponse:
    options = _options(request)
    if isinstance(options, str):
        return bad_request(request, options)
    try:
        analyses = run_analyses(link)
    except ProjectionOverflowError:
        return too_large(request)
    result = analyses.result
    content = workbook.scenario_workbook(
        link.scenario,
        result,
        accounting(link.scenario, result, options),
        provenance=link.provenance,
        link=url,
        values=workbook.engine_values(analyses),
        overrides=link.overrides,
        chosen=chosen_for_you(link),
    )
    filename = downloads.download_name(link.scenario, "xlsx", provenance=link.provenance, name=name)
    return _xlsx_response(content, filename)


@require_GET
def results_workbook(request: HttpRequest, code: str) -> HttpResponse:
    """The workbook of a permalink's scenario."""
    try:
        link = decode(code)
    except PermalinkError as exc:
        return bad_request(request, str(exc))
    url = request.build_absolute_uri(reverse("planner:results", args=[code]))
    return _link_workbook(request, link, url)


@require_GET
def saved_workbook(request: HttpRequest, pk: uuid.UUID) -> HttpResponse:
    """The workbook of a saved scenario, for those who may see its page."""
    item = saved_selectors.viewable(pk, request.user)
    if item is None:
        raise Http404
    scenario = saved_services.stored_scenario(item)
    link = Permalink(
        scenario=scenario,
        provenance=item.provenance,
        overrides=item.overrides,
        selection=item.selection,
        ranges=saved_services.stored_ranges(item, scenario),
    )
    url = request.build_absolute_uri(reverse("planner:saved-detail", args=[item.pk]))
    return _link_workbook(request, link, url, item.name)


@require_GET
def compare_workbook(request: HttpRequest) -> HttpResponse:
    """One workbook of the saved scenarios on the compare page (``?ids=…&ids=…``)."""
    form = compare_form(request)
    if not form.is_valid():
        return bad_request(request, "; ".join(form.errors_as_text()), compare_status(form, 400))
    options = _options(request)
    if isinstance(options, str):
        return bad_request(request, options)
    chosen = form.cleaned_data["ids"]
    scenarios = [saved_services.stored_scenario(item) for item in chosen]
    try:
        results = project(scenarios).results()
    except ProjectionOverflowError:
        return too_large(request)
    entries = [
        workbook.Entry(
            name=item.name,
            scenario=scenario,
            result=result,
            accounts=accounting(scenario, result, options),
            link=request.build_absolute_uri(reverse("planner:saved-detail", args=[item.pk])),
            provenance=item.provenance,
            overrides=item.overrides,
        )
        for item, scenario, result in zip(chosen, scenarios, results, strict=True)
    ]
    day = date.today().isoformat()
    return _xlsx_response(workbook.comparison_workbook(entries), f"comparison-{day}.xlsx")

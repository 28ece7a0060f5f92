"""Planner pages. Views parse, call one function, render."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from costmodel import Scenario, ScenarioError
from costmodel.accounting import accounting
from costmodel.projection import ProjectionOverflowError
from webapp.planner import downloads, export, ranking, services
from webapp.planner.analysis import analysis_document, run_analyses
from webapp.planner.choices import catalog_choices
from webapp.planner.chosen import chosen_for_you
from webapp.planner.comparison import comparison_context, evaluate
from webapp.planner.finance import accounting_form, options_of
from webapp.planner.form_fields import committed_text
from webapp.planner.forms import CompareForm, PlannerForm, RenameForm, SaveForm
from webapp.planner.permalink import (
    Permalink,
    PermalinkError,
    decode,
    encode_link,
    fits_in_link,
)
from webapp.planner.results import results_page
from webapp.scenarios import selectors as saved_selectors
from webapp.scenarios import services as saved_services
from webapp.scenarios.forms import SavedListForm
from webapp.scenarios.models import SavedScenario
from webapp.security import NOT_VISIBLE_CODE, NOT_VISIBLE_STATUS


@require_GET
def health(request: HttpRequest) -> HttpResponse:
    """Trivial view: the baseline that other routes' latency is compared with."""
    return JsonResponse({"status": "ok"})


@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    """``/favicon.ico``, which browsers and crawlers ask for on their own: the static icon."""
    return redirect(static("favicon.ico"), permanent=True)


def bad_request(request: HttpRequest, message: str, status: int = 400) -> HttpResponse:
    return render(request, "planner/bad_link.html", {"message": message}, status=status)


def too_large(request: HttpRequest) -> HttpResponse:
    """The answer for a valid scenario whose results overflow (the engine's float64)."""
    return bad_request(request, _("The scenario's numbers are too large to compute."))


def _session_key(request: HttpRequest) -> str | None:
    return request.session.session_key


def _owner_key(request: HttpRequest) -> str | None:
    """The session key a new save of this visitor is stored under (None when logged in)."""
    if request.user.is_authenticated:
        return None
    return saved_services.anonymous_owner_key(request.session)


def _saved_or_404(request: HttpRequest, pk: uuid.UUID) -> SavedScenario:
    """The saved scenario if this visitor may see it; 404 (as if unknown) otherwise."""
    item = saved_selectors.viewable(pk, request.user)
    if item is None:
        raise Http404
    return item


def compare_form(request: HttpRequest) -> CompareForm:
    """The compare form of the query string; any scenario this visitor may not see is refused
    as an unknown id is, in words and status (webapp.security), so it reveals nothing."""
    return CompareForm(request.GET, viewer=request.user)


def compare_status(form: CompareForm, otherwise: int) -> int:
    """The status of a refused compare form: :data:`NOT_VISIBLE_STATUS` when it names a
    scenario the visitor may not see (on the page, summary.csv and workbook.xlsx alike)."""
    return NOT_VISIBLE_STATUS if form.has_error("ids", NOT_VISIBLE_CODE) else otherwise


def _csv_response(text: str, filename: str) -> HttpResponse:
    response = HttpResponse(text.encode("utf-8"), content_type="text/csv; charset=utf-8")
    return downloads.attachment(response, filename)


@require_http_methods(["GET", "POST"])
def home(request: HttpRequest) -> HttpResponse:
    """The planner form; a valid submission redirects to the results permalink."""
    catalog = catalog_choices()
    if request.method == "POST":
        form = PlannerForm(request.POST, catalog=catalog)
        plan = services.plan_from_form(form)
        if plan is not None:
            code = encode_link(plan)
            if fits_in_link(code):
                return redirect("planner:results", code=code)
            return _saved_instead(request, plan)
    else:
        form = services.planner_form(request.GET, catalog)
    context = {"form": form, "hosting_hints": services.hosting_hints(form)}
    return render(request, "planner/home.html", context)


def _saved_instead(request: HttpRequest, plan: Permalink) -> HttpResponse:
    """A plan too large for a link the server accepts, saved: its page's address is its link."""
    try:
        item = saved_services.create_saved_scenario(
            name=plan.scenario.name or _("Scenario too large for a link"),
            scenario=plan.scenario,
            provenance=plan.provenance,
            overrides=plan.overrides,
            selection=plan.selection,
            ranges=plan.ranges,
            user=request.user,
            session_key=_owner_key(request),
        )
    except ScenarioError:
        return too_large(request)
    messages.info(
        request,
        _(
            "This scenario holds too much for a link the server accepts, so it was saved "
            "instead as “%(name)s”: the address of this page is its link. Rename or delete it "
            "below."
        )
        % {"name": item.name},
    )
    return redirect("planner:saved-detail", pk=item.pk)


@require_GET
def committed_default(request: HttpRequest) -> HttpResponse:
    """The default count of committed instances for the planner form's current choices (JSON,
    for the form's script): ``{"committed_instances": 2, "text": "…"}``, null when none."""
    form = PlannerForm(request.GET, catalog=catalog_choices())
    count = services.committed_default(form)
    return JsonResponse({"committed_instances": count, "text": committed_text(count)})


@require_GET
def results(request: HttpRequest, code: str) -> HttpResponse:
    """The results page of a permalink: the verdict, figures, inputs and provenance; its
    script fetches the charts' data from :func:`results_analysis`."""
    try:
        context = results_page(request, decode(code), code)
    except PermalinkError as exc:
        return bad_request(request, str(exc))
    except ProjectionOverflowError:
        return too_large(request)
    return render(request, "planner/results.html", context)


@require_GET
def results_option(request: HttpRequest) -> HttpResponse:
    """A row of "Every way to do this work" opened as its own results page: the plan
    (``?from=<code>`` or ``?saved=<id>``) with the row's box (``preset``) and offering."""
    link = services.link_from(request.GET)
    if link is None or not link.selection:
        return bad_request(request, _("This link does not name a plan made from the catalog."))
    found = ranking.variant(
        link, preset=request.GET.get("preset") or None, offering=request.GET.get("offering") or None
    )
    if found is None:
        return bad_request(request, _("The catalog can no longer price this option."))
    code = encode_link(found)
    return redirect("planner:results", code=code)


@require_GET
def results_csv(request: HttpRequest, code: str) -> HttpResponse:
    """The monthly projection of a permalink's scenario as a finance CSV."""
    try:
        link = decode(code)
    except PermalinkError as exc:
        return bad_request(request, str(exc))
    return _monthly_csv_response(request, link)


@require_GET
def results_zip(request: HttpRequest, code: str) -> HttpResponse:
    """Every finance table of a permalink's scenario, one CSV each, in a zip."""
    try:
        link = decode(code)
    except PermalinkError as exc:
        return bad_request(request, str(exc))
    url = request.build_absolute_uri(reverse("planner:results", args=[code]))
    return _finance_zip_response(request, link, url)


def _monthly_csv_response(request: HttpRequest, link: Permalink, name: str = "") -> HttpResponse:
    """The monthly projection of a link, with the uncertainty's bands by month."""
    try:
        analyses = run_analyses(link)
    except ProjectionOverflowError:
        return too_large(request)
    text = export.monthly_csv(link.scenario, analyses.result, analyses)
    filename = downloads.download_name(link.scenario, "csv", provenance=link.provenance, name=name)
    return _csv_response(text, filename)


def _finance_zip_response(
    request: HttpRequest, link: Permalink, url: str, name: str = ""
) -> HttpResponse:
    """The finance tables of a link as a zip: its decision, uncertainty, tornado, fleet and
    fiscal years (booked with the query string's accounting options) beside the months."""
    form = accounting_form(request.GET)
    options = options_of(form)
    if options is None:
        return bad_request(request, form.problems())
    try:
        analyses = run_analyses(link)
    except ProjectionOverflowError:
        return too_large(request)
    files = export.finance_files(
        link.scenario,
        analyses.result,
        provenance=link.provenance,
        overrides=link.overrides,
        link=url,
        name=name,
        analyses=analyses,
        accounts=accounting(link.scenario, analyses.result, options),
        chosen=chosen_for_you(link),
    )
    response = HttpResponse(export.zipped(files), content_type="application/zip")
    filename = downloads.download_name(link.scenario, "zip", provenance=link.provenance, name=name)
    return downloads.attachment(response, filename)


def _scenario_response(scenario: Scenario) -> HttpResponse:
    """The explicit scenario as JSON, as ``manage.py compare`` and ``POST /api/v1/compare``
    read it: every input, defaults filled in."""
    response = JsonResponse(scenario.model_dump(mode="json"), json_dumps_params={"indent": 2})
    response["Content-Disposition"] = 'inline; filename="scenario.json"'
    return response


@require_GET
def results_scenario(request: HttpRequest, code: str) -> HttpResponse:
    """The explicit scenario behind a permalink's results page, to rerun it elsewhere."""
    try:
        link = decode(code)
    except PermalinkError as exc:
        return JsonResponse({"errors": [{"field": "code", "message": str(exc)}]}, status=400)
    return _scenario_response(link.scenario)


@require_GET
def saved_scenario(request: HttpRequest, pk: uuid.UUID) -> HttpResponse:
    """The explicit scenario behind a saved scenario's page, to rerun it elsewhere."""
    return _scenario_response(saved_services.stored_scenario(_saved_or_404(request, pk)))


ANALYSIS_MAX_AGE = 24 * 3600
"""How long a browser may reuse an analysis document [s]: a link's figures never change."""


def _analysis_response(link: Permalink) -> HttpResponse:
    """The analysis JSON of a link; a scenario too large to compute gets a JSON 400."""
    try:
        document = analysis_document(link)
    except ProjectionOverflowError:
        return JsonResponse(
            {"error": _("The scenario's numbers are too large to compute.")}, status=400
        )
    response = JsonResponse(document)
    patch_cache_control(response, private=True, max_age=ANALYSIS_MAX_AGE)
    patch_vary_headers(response, ("Cookie", "Accept-Language"))  # the labels' language
    return response


@require_GET
def results_analysis(request: HttpRequest, code: str) -> HttpResponse:
    """The charts' data and the "how sure" sentence of a permalink's results page."""
    try:
        link = decode(code)
    except PermalinkError as exc:
        return JsonResponse({"error": str(exc)}, status=400)
    return _analysis_response(link)


@require_POST
def save(request: HttpRequest) -> HttpResponse:
    """Save a results permalink under a name; it then belongs to this user or browser session."""
    form = SaveForm(request.POST)
    if not form.is_valid():
        return bad_request(request, "; ".join(form.errors_as_text()))
    link: Permalink = form.cleaned_data["link"]
    try:
        item = saved_services.create_saved_scenario(
            name=form.cleaned_data["name"],
            scenario=link.scenario,
            provenance=link.provenance,
            overrides=link.overrides,
            selection=link.selection,
            ranges=link.ranges,
            user=request.user,
            session_key=_owner_key(request),
        )
    except ScenarioError:
        return too_large(request)
    messages.success(request, _("Saved as “%(name)s”.") % {"name": item.name})
    return redirect("planner:saved-detail", pk=item.pk)


SAVED_PAGE_SIZE = 50
"""Saved scenarios on one page of the saved list (and its compare picker)."""


def _saved_list_page(request: HttpRequest, form: CompareForm, status: int = 200) -> HttpResponse:
    """One page of the saved list, filtered and ordered as asked, each row with the decision
    stored with it (no engine run); a compare form with errors shows them here, its ticks
    kept. A page number out of range shows the last page, one that is not a number the first.
    """
    filters = SavedListForm(request.GET, user=request.user)
    items = saved_selectors.listed(request.user, _session_key(request), filters.list_filter())
    page = Paginator(items, SAVED_PAGE_SIZE).get_page(request.GET.get("page"))
    chosen = set(request.GET.getlist("ids")) if form.is_bound else set()
    context = {"page": page, "rows": page.object_list, "form": form, "chosen": chosen}
    context["filters"] = filters
    return render(request, "planner/saved_list.html", context, status=status)


@require_GET
def saved_list(request: HttpRequest) -> HttpResponse:
    return _saved_list_page(request, CompareForm())


@require_GET
def saved_detail(request: HttpRequest, pk: uuid.UUID) -> HttpResponse:
    """A saved scenario's results, for those who may see it (webapp.scenarios.selectors)."""
    item = _saved_or_404(request, pk)
    link = services.saved_link(item)
    try:
        context = results_page(request, link, encode_link(link), str(item.pk))
    except ProjectionOverflowError:  # a row saved before saves were checked
        return too_large(request)
    context["saved"] = item
    context["can_modify"] = saved_selectors.can_modify(item, request.user, _session_key(request))
    context["can_share"] = saved_selectors.can_share(item, request.user)
    context["rename_form"] = RenameForm(initial={"name": item.name})
    return render(request, "planner/results.html", context)


def _modifiable(request: HttpRequest, pk: uuid.UUID) -> SavedScenario:
    item = _saved_or_404(request, pk)
    if not saved_selectors.can_modify(item, request.user, _session_key(request)):
        raise Http404  # do not reveal more than a viewer may know
    return item


@require_GET
def saved_analysis(request: HttpRequest, pk: uuid.UUID) -> HttpResponse:
    """The charts' data and the "how sure" sentence of a saved scenario's results page."""
    return _analysis_response(services.saved_link(_saved_or_404(request, pk)))


@require_POST
def saved_rename(request: HttpRequest, pk: uuid.UUID) -> HttpResponse:
    item = _modifiable(request, pk)
    form = RenameForm(request.POST)
    if not form.is_valid():
        return bad_request(request, "; ".join(form.errors_as_text()))
    saved_services.rename(item, form.cleaned_data["name"])
    messages.success(request, _("Renamed to “%(name)s”.") % {"name": item.name})
    return redirect("planner:saved-detail", pk=item.pk)


@require_POST
def saved_delete(request: HttpRequest, pk: uuid.UUID) -> HttpResponse:
    item = _modifiable(request, pk)
    name = item.name
    saved_services.delete(item)
    messages.success(request, _("Deleted “%(name)s”.") % {"name": name})
    return redirect("planner:saved-list")


@require_GET
def saved_csv(request: HttpRequest, pk: uuid.UUID) -> HttpResponse:
    # a row saved before saves were checked may overflow: a 400
    item = _saved_or_404(request, pk)
    return _monthly_csv_response(request, services.saved_link(item), item.name)


@require_GET
def saved_zip(request: HttpRequest, pk: uuid.UUID) -> HttpResponse:
    """Every finance table of a saved scenario in a zip, named by its saved name."""
    item = _saved_or_404(request, pk)
    url = request.build_absolute_uri(reverse("planner:saved-detail", args=[item.pk]))
    return _finance_zip_response(request, services.saved_link(item), url, item.name)


def _compared(request: HttpRequest) -> list[SavedScenario] | CompareForm:
    """The saved scenarios chosen, or the compare form with its errors."""
    form = compare_form(request)
    if not form.is_valid():
        return form
    chosen: list[SavedScenario] = form.cleaned_data["ids"]
    return chosen


@require_GET
def saved_compare(request: HttpRequest) -> HttpResponse:
    """Two to four saved scenarios side by side; any other choice is explained on the list."""
    chosen = _compared(request)
    if isinstance(chosen, CompareForm):
        return _saved_list_page(request, chosen, compare_status(chosen, 200))
    try:
        context = comparison_context(chosen)
    except ProjectionOverflowError:
        return too_large(request)
    return render(request, "planner/compare.html", context)


@require_GET
def saved_summary_csv(request: HttpRequest) -> HttpResponse:
    """One summary row per chosen saved scenario."""
    chosen = _compared(request)
    if isinstance(chosen, CompareForm):
        return _saved_list_page(request, chosen, compare_status(chosen, 200))
    try:
        entries = evaluate(chosen)
    except ProjectionOverflowError:
        return too_large(request)
    for e in entries:
        e["link"] = request.build_absolute_uri(
            reverse("planner:saved-detail", args=[e["saved"].pk])
        )
    return _csv_response(export.summary_csv(entries), "summary.csv")


@require_POST
def saved_rerun(request: HttpRequest, pk: uuid.UUID) -> HttpResponse:
    """Resolve a saved scenario's catalog selection again at today's prices, as a new scenario."""
    item = _saved_or_404(request, pk)
    try:
        new = saved_services.rerun_at_todays_prices(
            item, user=request.user, session_key=_owner_key(request)
        )
    except ScenarioError as exc:
        return bad_request(request, str(exc))
    messages.success(request, _("Re-run at today's prices as “%(name)s”.") % {"name": new.name})
    return redirect("planner:saved-detail", pk=new.pk)

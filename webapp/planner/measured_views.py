"""The "Use measured usage" pages: upload a file, see its months, get the profile and verdict.

Views parse, call one function, render (:mod:`webapp.planner.measured` does the work).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from costmodel.usage import MeasuredUsage
from webapp.notices import notice_texts
from webapp.planner import measured
from webapp.planner.choices import catalog_choices

TEMPLATE = "planner/usage.html"


def _page(request: HttpRequest, context: dict[str, Any], status: int = 200) -> HttpResponse:
    catalog = catalog_choices()
    context = {
        "limit": measured.limit_text(),
        "limit_bytes": measured.upload_limit(),
        "too_large": measured.too_large_message(),
        "catalog": catalog,
        **context,
    }
    return render(request, TEMPLATE, context, status=status)


def _months_step(
    request: HttpRequest, format: str, usage: MeasuredUsage, form: Any
) -> dict[str, Any]:
    return {
        "upload": measured.UploadForm(
            initial={"format": format, "columns": request.POST.get("columns", "")}
        ),
        "usage": usage,
        "format_label": measured.FORMAT_LABELS[format],
        "chart": measured.chart_data(usage),
        "notes": notice_texts(usage.notices),
        "form": form,
    }


@require_http_methods(["GET", "POST"])
def usage(request: HttpRequest) -> HttpResponse:
    """Step 1: the upload form; a readable file shows its months and step 2's form."""
    if request.method != "POST":
        return _page(request, {"upload": measured.UploadForm()})
    if int(request.META.get("CONTENT_LENGTH") or 0) > measured.upload_limit() + 64 * 1024:
        # Refused on its declared size: nothing of it is read into the form.
        upload = measured.UploadForm()
        return _page(request, {"upload": upload, "refused": measured.too_large_message()}, 413)
    upload = measured.UploadForm(request.POST, request.FILES)
    catalog = catalog_choices()
    if not upload.is_valid() or catalog is None:
        return _page(request, {"upload": upload}, 200 if catalog is None else 400)
    format, usage = upload.cleaned_data["format"], upload.cleaned_data["usage"]
    form = measured.ProfileForm(
        initial={"usage": measured.sign_usage(format, usage)}, catalog=catalog
    )
    form.preselect_gpu(usage)
    return _page(request, _months_step(request, format, usage, form))


@require_POST
def usage_profile(request: HttpRequest) -> HttpResponse:
    """Step 2: the profile for the chosen box, with links to its verdict and the planner."""
    catalog = catalog_choices()
    if catalog is None:
        return _page(request, {"upload": measured.UploadForm()})
    form = measured.ProfileForm(request.POST, catalog=catalog)
    plan = measured.plan_from_usage(form)
    carried = form.usage_data()
    if carried is None:
        return _page(
            request, {"upload": measured.UploadForm(), "refused": form.non_field_errors()}, 400
        )
    format, usage = carried
    context = _months_step(request, format, usage, form)
    if plan is None:
        return _page(request, context, 400)
    context.update(
        {
            "profile": measured.profile_rows(plan.profile),
            "any_filled": any(plan.profile.filled),
            "results_url": reverse("planner:results", args=[plan.code]),
            "planner_url": reverse("planner:home") + "?from=" + plan.code,
            "chosen": plan.chosen,
        }
    )
    return _page(request, context)

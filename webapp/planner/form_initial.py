"""What the planner form starts from: a permalink's inputs, a draft's values, the uncertainty
ranges and the job rows, as the form's initial values; and the link that reopens it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from webapp.planner.form_fields import RANGE_BY_PATH, range_name

if TYPE_CHECKING:
    from webapp.planner.forms import PlannerForm

from typing import Any

from django.urls import reverse
from django.utils.http import urlencode

from costmodel.ranges import Range
from webapp.planner.fields import (
    RANGE_ENDS,
    form_values,
    tidy,
    to_form,
)
from webapp.planner.jobs import (
    JOB_ROWS,
    DescribedJob,
    described_jobs,
    runs_text,
)
from webapp.planner.permalink import Permalink


def range_initial(ranges: list[Range]) -> dict[str, Any]:
    """Form values (percentages where the row is one) of each range with a form row."""
    values: dict[str, Any] = {}
    for r in ranges:
        row = RANGE_BY_PATH.get(r.path)
        if row is None:
            continue
        for suffix, attr in RANGE_ENDS:
            value = getattr(r, attr)
            values[range_name(row, suffix)] = (
                to_form(row.field, value) if row.field.percent else tidy(value)
            )
    return values


def range_basis(ranges: list[Range]) -> dict[str, float]:
    """``ranges.<path>.<low|mode|high> → value`` (scenario units): what the form showed."""
    return {
        f"ranges.{r.path}.{attr}": getattr(r, attr) for r in ranges for _suffix, attr in RANGE_ENDS
    }


def initial_from_link(link: Permalink) -> dict[str, Any]:
    """The planner form's initial values that reproduce a permalink's inputs (the registry's
    :func:`~webapp.planner.fields.form_values`, with the box and the uncertainty ranges)."""
    s = link.scenario
    sel = link.selection or {}
    initial = form_values(s.model_dump(mode="json"), link.selection)
    initial["name"] = s.name or ""
    initial["use_catalog"] = link.selection is not None
    if sel.get("parts"):
        initial["box"] = "custom"
        for line in sel["parts"]:
            initial[f"part__{line['part']}"] = line["quantity"]
    elif sel.get("preset"):
        initial["box"] = "preset"
    if link.ranges:
        initial.update(range_initial(link.ranges))
    jobs = described_jobs(link.provenance)
    initial.update(jobs_initial(jobs))
    initial["jobs"] = jobs
    return initial


REOPEN_SKIPPED = ("csrfmiddlewaretoken", "basis", "preset", "box", "build__", "rent__", "range_")
"""What a reopen link leaves out: the token, the figures that follow the catalog's box (the new
preset brings its own) and the ranges (they follow the plan)."""


def reopen_url(data: Any, preset: str) -> str:
    """The planner form reopened with ``preset`` and everything else typed as in ``data``."""
    items = [
        (name, value)
        for name in data
        if not name.startswith(REOPEN_SKIPPED)
        for value in data.getlist(name)
    ]
    return f"{reverse('planner:home')}?{urlencode([('preset', preset), *items])}"


def draft_initial(draft: PlannerForm) -> dict[str, Any]:
    """The initial values a reopen link (:func:`reopen_url`) carries: what its bound form
    cleaned, in the form's units (a value it refused is left out)."""
    draft.is_valid()
    return {
        name: tidy(value) if isinstance(value, float) else value
        for name, value in draft.cleaned_data.items()
        if name in draft.fields and value not in (None, "") and not name.startswith(REOPEN_SKIPPED)
    }


def jobs_initial(jobs: list[DescribedJob]) -> dict[str, Any]:
    """The job rows' initial values of described jobs (the form reopened on a plan)."""
    values: dict[str, Any] = {}
    for i, job in enumerate(jobs[:JOB_ROWS], start=1):
        for key, value in job.model_dump().items():
            if key == "runs_per_month":
                values[f"job_runs_{i}"] = runs_text(value)
            elif value is not None:
                values[f"job_{key}_{i}"] = tidy(value) if isinstance(value, float) else value
    return values

"""Engine and resolver errors put beside the planner form's fields, in the active language.

The engine names a field by its path (``build.gpu_count``) and a problem by its
code; here a code becomes a message and a path the form field it belongs beside.
"""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext_lazy as _

from costmodel import FieldError
from webapp import formatting
from webapp.planner.fields import (
    FINANCING_FIELDS,
    RANGE_ENDS,
    RANGE_ROWS,
    form_field_of,
)
from webapp.planner.form_fields import range_name
from webapp.planner.jobs import (
    JOB_ROWS,
)

ENGINE_MESSAGES: dict[str, tuple[Any, str]] = {
    "missing": (_("is required"), ""),
    "finite_number": (_("must be a finite number"), ""),
    "greater_than_equal": (_("must be greater than or equal to %(limit)s"), "ge"),
    "greater_than": (_("must be greater than %(limit)s"), "gt"),
    "less_than_equal": (_("must be less than or equal to %(limit)s"), "le"),
    "less_than": (_("must be less than %(limit)s"), "lt"),
    "idle_above_load": (_("Keep the power draw while idle at or below the one while busy."), ""),
    "low_above_high": (_("Keep the low value at or below the high one."), ""),
    "mode_outside_range": (_("Keep the most likely value between the low and the high one."), ""),
    "overflow": (_("The scenario's numbers are too large to compute."), ""),
    "jobs_month_above_limit": (
        _(
            "Month %(month)s asks for %(utilization)s times what the box does in 730 hours "
            "(at most %(limit)s): plan fewer runs, or choose a bigger box."
        ),
        "*",
    ),
    "no_reference_peak": (
        _(
            "The benchmark's reference GPU has no peak TFLOPS in the catalog: describe this job "
            "in reference GPU-hours, or choose another benchmark."
        ),
        "",
    ),
    "no_reference_throughput": (
        _(
            "The benchmark's reference GPU has no measured throughput in the catalog: describe "
            "this job in reference GPU-hours, or choose another benchmark."
        ),
        "",
    ),
}
"""The engine's error codes (its own, and pydantic's error types) in the active language, and
the error parameter (pydantic's ``ctx`` key) that is the limit, if the message quotes one
(``"*"``: it quotes several of the error's parameters by name)."""

BOUND_CODES = frozenset({"greater_than_equal", "greater_than", "less_than_equal", "less_than"})
"""The codes of a value outside its field's bounds: the field's "what to type" message says
more."""


def engine_message(error: FieldError) -> str:
    """The engine's message for a field, in the active language when its code is a known one
    (the engine's own words otherwise)."""
    known = ENGINE_MESSAGES.get(error.code)
    if known is None:
        return error.message
    text, limit = known
    if limit == "*":  # the message quotes several of the error's figures by name
        try:
            return str(text) % {
                k: formatting.number(v, 2) if isinstance(v, float) else v
                for k, v in error.params.items()
            }
        except (KeyError, TypeError):
            return error.message
    if not limit:
        return str(text)
    if limit not in error.params:
        return error.message
    return str(text) % {"limit": error.params[limit]}


def form_field_for(error: FieldError) -> str | None:
    """The planner form field an engine or resolver error belongs beside (``None``: the form):
    the registry's input it names, one end of an uncertainty range, or the part of the form
    (the workload, the box, the loan) a whole-object error is about."""
    path = error.field
    job = re.match(r"workload\.jobs\.(\d+)(?:\.(\w+))?", path)
    if job and int(job.group(1)) < JOB_ROWS:
        key = {"reference_gpu_hours": "kind", "runs_per_month": "runs"}.get(job.group(2) or "")
        return f"job_{key or 'kind'}_{int(job.group(1)) + 1}"
    if path.startswith(("distributions.", "ranges.")):
        return _range_field_for(path.split(".", 1)[1])
    named = form_field_of(path)
    if named is not None:
        return named
    if path.startswith("build.financing"):
        return FINANCING_FIELDS[-1].name
    if path.startswith("workload"):
        return "workload_kind"
    if path.startswith(("parts", "gpu_model", "gpu_count")):
        return "box"
    return None


def _range_field_for(rest: str) -> str | None:
    """``workload.utilization.low`` (a range's path and end) → ``range_utilization_low``."""
    for row in RANGE_ROWS:
        if rest == row.path or rest.startswith(row.path + "."):
            attr = rest[len(row.path) + 1 :] or "low"
            suffix = {a: s for s, a in RANGE_ENDS}.get(attr, "low")
            return range_name(row, suffix)
    return None

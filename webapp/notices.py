"""The measured-usage readers' notices and errors in words: one sentence per code, translated.

:mod:`costmodel.usage` says *what* a reader skipped or did not see (a notice's
``code``) and *with which figures* (line, count, month, hours); this module is
the only place that says it in words, in the active language. The planner's
"Use measured usage" page shows :func:`notice_texts` in the visitor's language;
``POST /api/v1/usage`` and ``manage.py usage`` give :func:`english_warnings`,
the same sentences in English (the API's ``warnings``, worded as before the
notices existed), beside the notices themselves.

A file a reader refuses raises errors on ``content`` with a code of
:data:`costmodel.usage.READER_CODES`; :func:`reader_error_text` words them for
the page (the API keeps the engine's English message, as for every error).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from costmodel import FieldError
from costmodel.usage import (
    MAX_PLACES,
    Gap,
    GpuRef,
    GpusWithoutUtilization,
    InstanceTypeUnknown,
    JobStepsSkipped,
    JobsWithoutGpu,
    MigGpusSkipped,
    MonthNotObserved,
    MonthPartlyObserved,
    MoreGaps,
    MoreRowsSkipped,
    RowSkipped,
    SamplesSkipped,
    SingleSampleGpus,
    UnfinishedJobsSkipped,
    UsageNotice,
)
from webapp.formatting import number


def _short(value: float) -> str:
    """A figure with up to six significant digits and no trailing zeros (``2``, ``2.5``),
    grouped in the active language."""
    text = f"{value:.6g}"
    decimals = len(text.partition(".")[2]) if "e" not in text else 0
    return number(float(text), decimals)


def gpu_text(gpu: GpuRef) -> str:
    """A GPU as the file names it: ``node-3 GPU 1``, or ``log 2 GPU 1`` (the second of the
    concatenated logs) when the file names no host."""
    if gpu.host is not None:
        return _("%(host)s GPU %(index)s") % {"host": gpu.host, "index": gpu.index}
    if gpu.log is not None:
        return _("log %(log)s GPU %(index)s") % {"log": number(gpu.log), "index": gpu.index}
    return _("GPU %(index)s") % {"index": gpu.index}


def _row_skipped(notice: RowSkipped) -> str:
    line = number(notice.line)
    if notice.reason == "field_count":
        return _("line %(line)s: skipped, %(fields)s fields, not %(expected)s") % {
            "line": line,
            "fields": number(notice.field_count or 0),
            "expected": number(notice.expected_field_count or 0),
        }
    if notice.reason == "unreadable_timestamp":
        return _("line %(line)s: skipped, unreadable timestamp") % {"line": line}
    if notice.reason == "unreadable_utilization":
        return _("line %(line)s: skipped, unreadable utilization") % {"line": line}
    return _("line %(line)s: skipped, unreadable date or amount") % {"line": line}


def _gap(notice: Gap) -> str:
    values = {"hours": number(notice.hours, 2), "gpu": gpu_text(notice.gpu)}
    if notice.line is not None:
        return _(
            "gap of %(hours)s h without samples of %(gpu)s after line %(line)s (not observed)"
        ) % {**values, "line": number(notice.line)}
    return _("gap of %(hours)s h without samples of %(gpu)s after %(path)s (not observed)") % {
        **values,
        "path": notice.path or "",
    }


def notice_text(notice: UsageNotice) -> str:
    """One notice as a sentence in the active language."""
    match notice:
        case RowSkipped():
            return _row_skipped(notice)
        case MoreRowsSkipped():
            return _("… and %(count)s more rows skipped") % {"count": number(notice.count)}
        case Gap():
            return _gap(notice)
        case MoreGaps():
            return _("… and %(count)s more gaps") % {"count": number(notice.count)}
        case SingleSampleGpus():
            return _(
                "%(count)s GPU(s) with one sample (or one instant) only: counted with the "
                "median interval of the others, %(seconds)s s"
            ) % {"count": number(notice.count), "seconds": _short(notice.seconds)}
        case SamplesSkipped():
            return _(
                "%(count)s samples skipped, not a utilization within 0–100 %% (the first: "
                "%(value)s at %(path)s); their time counts as not observed"
            ) % {"count": number(notice.count), "value": notice.value, "path": notice.path}
        case GpusWithoutUtilization():
            values = {
                "count": number(notice.count),
                "gpus": _places([gpu_text(g) for g in notice.gpus], notice.count),
            }
            if notice.mig:
                return (
                    _(
                        "%(count)s GPUs in MIG mode report no utilization, not counted: %(gpus)s "
                        "(measure them by their allocation: Slurm's sacct, the cloud bill)"
                    )
                    % values
                )
            return (
                _(
                    "%(count)s GPUs report no utilization ([N/A] in every row), not counted: "
                    "%(gpus)s"
                )
                % values
            )
        case MigGpusSkipped():
            return _(
                "%(count)s GPUs in MIG mode not counted: the activity of their %(instances)s "
                "MIG instances does not add up to the GPU's: %(gpus)s (measure them by their "
                "allocation: Slurm's sacct, the cloud bill)"
            ) % {
                "count": number(notice.count),
                "instances": number(notice.instances),
                "gpus": _places([gpu_text(g) for g in notice.gpus], notice.count),
            }
        case JobStepsSkipped():
            return _("%(count)s job steps skipped (only whole jobs count; use sacct -X)") % {
                "count": number(notice.count)
            }
        case JobsWithoutGpu():
            return _(
                "%(count)s jobs without a GPU (no gres/gpu in AllocTRES): they count no GPU-hours"
            ) % {"count": number(notice.count)}
        case UnfinishedJobsSkipped():
            return _("%(count)s jobs without a start or an end skipped (still running?)") % {
                "count": number(notice.count)
            }
        case InstanceTypeUnknown():
            return _(
                "%(instance_type)s: %(hours)s instance-hours not counted, the catalog has no "
                "GPU count for it"
            ) % {"instance_type": notice.instance_type, "hours": _short(notice.hours)}
        case MonthNotObserved():
            return _("%(month)s: not observed") % {"month": notice.month}
        case MonthPartlyObserved():
            return _("%(month)s: partly observed, %(observed)s of %(hours)s hours") % {
                "month": notice.month,
                "observed": number(notice.observed_hours, 1),
                "hours": number(notice.month_hours),
            }


_ROW_REASONS = {
    "field_count": gettext_lazy("wrong number of fields"),
    "unreadable_timestamp": gettext_lazy("unreadable timestamp"),
    "unreadable_utilization": gettext_lazy("unreadable utilization"),
    "unreadable_date_or_amount": gettext_lazy("unreadable date or amount"),
}


def _places(places: list[str], count: int) -> str:
    """The first :data:`MAX_PLACES` places, and how many more there are."""
    shown = ", ".join(places[:MAX_PLACES])
    if count > MAX_PLACES:
        return _("%(places)s and %(more)s more") % {
            "places": shown,
            "more": number(count - MAX_PLACES),
        }
    return shown


def _group_text(kind: tuple[str, str], group: list[UsageNotice]) -> str:
    """Notices of one kind (skipped rows for one reason, gaps) as one line: a count and
    the first places."""
    if kind[0] == "gap":
        gaps = [n for n in group if isinstance(n, Gap)]
        count = len(gaps) + sum(n.count for n in group if isinstance(n, MoreGaps))
        places = [
            _("%(gpu)s after %(where)s")
            % {
                "gpu": gpu_text(g.gpu),
                "where": _("line %(line)s") % {"line": number(g.line)}
                if g.line is not None
                else g.path or "",
            }
            for g in gaps
        ]
        return _(
            "%(count)s gaps without samples (not observed), the longest listed %(hours)s h: "
            "%(places)s"
        ) % {
            "count": number(count),
            "hours": number(max((g.hours for g in gaps), default=0.0), 2),
            "places": _places(places, count),
        }
    rows = [n for n in group if isinstance(n, RowSkipped)]
    lines = [number(r.line) for r in rows]
    return _("%(count)s rows skipped, %(reason)s: lines %(lines)s") % {
        "count": number(len(rows)),
        "reason": _ROW_REASONS[kind[1]],
        "lines": _places(lines, len(rows)),
    }


def notice_texts(notices: Sequence[UsageNotice]) -> list[str]:
    """The notices as sentences in the active language, in the reader's order, one line
    per kind: skipped rows of one reason, and gaps, become one line with their count and
    the first three places (a kind with one notice keeps its own sentence)."""
    groups: dict[object, list[UsageNotice]] = {}
    for k, notice in enumerate(notices):
        if isinstance(notice, RowSkipped):
            key: object = ("row", notice.reason)
        elif isinstance(notice, Gap | MoreGaps):
            key = ("gap", "")
        else:
            key = k
        groups.setdefault(key, []).append(notice)
    texts = []
    for key, group in groups.items():
        if len(group) == 1 or not isinstance(key, tuple):
            texts += [notice_text(n) for n in group]
        else:
            texts.append(_group_text(key, group))
    return texts


def english_warnings(notices: Sequence[UsageNotice]) -> list[str]:
    """The notices in English: the ``warnings`` of ``POST /api/v1/usage`` and ``manage.py
    usage``, whatever language the request asked for."""
    with translation.override("en"):
        return notice_texts(notices)


READER_MESSAGES: dict[str, Promise] = {
    "empty": gettext_lazy("is empty"),
    "holds_nul": gettext_lazy(
        "line %(line)s: is not text (it holds NUL bytes): upload the log itself, not an archive"
    ),
    "not_text": gettext_lazy(
        "line %(line)s: is not text (binary or not UTF-8): upload the log itself, not an "
        "archive or a spreadsheet"
    ),
    "bad_gzip": gettext_lazy("is a gzip archive that cannot be inflated (cut short or damaged)"),
    "inflates_too_far": gettext_lazy(
        "the gzip archive inflates to more than the limit of %(limit)s bytes: send a shorter period"
    ),
    "too_many_keys": gettext_lazy(
        "holds %(keys)s keys, more than the limit of %(limit)s: query fewer series or a "
        "shorter range"
    ),
    "nested_too_deep": gettext_lazy(
        "line %(line)s column %(column)s: nested more than %(limit)s levels deep; a "
        "Prometheus answer has five"
    ),
    "number_too_long": gettext_lazy(
        "line %(line)s column %(column)s: a number too long or too large to read (at most "
        "%(limit)s characters, and finite)"
    ),
    "too_many_months": gettext_lazy(
        "covers %(months)s months, %(first)s to %(last)s; at most %(limit)s are read (is a "
        "timestamp wrong?)"
    ),
    "utilization_out_of_range": gettext_lazy(
        "%(where)s: utilization %(value)s %% is outside 0–100"
    ),
    "timestamp_out_of_order": gettext_lazy(
        "%(where)s: timestamp is earlier than the previous sample of %(gpu)s; the log must be "
        "in time order"
    ),
    "too_few_samples": gettext_lazy("needs at least two samples of one GPU at different times"),
    "not_nvidia_smi": gettext_lazy(
        "line %(line)s: is not an nvidia-smi CSV with a header: give its %(count)s "
        "--query-gpu fields in order (--columns on the command, the columns field on the page "
        "and in the API)"
    ),
    "no_row_with_columns": gettext_lazy(
        "line %(line)s: no row of the nvidia-smi log has the %(count)s columns %(columns)s"
    ),
    "no_utilization": gettext_lazy(
        "line %(line)s: no GPU in the log reports a utilization (all [N/A]: MIG mode? "
        "measure MIG GPUs by their allocation: Slurm's sacct, the cloud bill)"
    ),
    "query_fields_missing": gettext_lazy(
        "has no %(columns)s: name the --query-gpu fields in the order the log has them "
        "(timestamp,index,name,utilization.gpu,…)"
    ),
    "no_readable_row": gettext_lazy(
        "line %(line)s: is not an nvidia-smi CSV: no row has a readable timestamp and utilization"
    ),
    "not_json": gettext_lazy("line %(line)s: is not JSON, so not a Prometheus answer"),
    "instant_query": gettext_lazy(
        'data.resultType: is "%(kind)s", the answer of an instant query (/api/v1/query): ask '
        "for a range instead: %(hint)s"
    ),
    "prometheus_error": gettext_lazy(
        "status: Prometheus answered an error, not samples (%(kind)s: %(error)s): ask again, "
        "for instance %(hint)s"
    ),
    "only_mig_gpus": gettext_lazy(
        "%(path)s: every GPU of the answer is in MIG mode, its series are of MIG instances, "
        "whose activity does not add up to the GPU's: measure these GPUs by their allocation "
        "(Slurm's sacct, the cloud bill)"
    ),
    "metric_name_missing": gettext_lazy(
        "%(path)s: has no __name__: query the metric itself (DCGM_FI_DEV_GPU_UTIL, "
        "DCGM_FI_PROF_GR_ENGINE_ACTIVE, DCGM_FI_PROF_SM_ACTIVE), not an expression over it"
    ),
    "metric_not_read": gettext_lazy(
        "%(path)s: %(metric)s is not a utilization metric; query DCGM_FI_DEV_GPU_UTIL, "
        "DCGM_FI_PROF_GR_ENGINE_ACTIVE or DCGM_FI_PROF_SM_ACTIVE"
    ),
    "two_metrics": gettext_lazy(
        "%(path)s: %(metric)s beside %(other)s: both measure the same GPUs; query one metric"
    ),
    "not_query_range": gettext_lazy(
        'is not a Prometheus query_range answer: expected {"data": {"resultType": "matrix", '
        '"result": [...]}}'
    ),
    "no_series": gettext_lazy("data.result: holds no series (did the query match any GPU?)"),
    "bad_series": gettext_lazy("%(path)s: needs a metric object and a values list"),
    "bad_sample": gettext_lazy('%(path)s: every sample must be [time, "number"]'),
    "not_unix_seconds": gettext_lazy("%(path)s: times must be Unix seconds (1970 to 2100)"),
    "no_samples": gettext_lazy("data.result: the series hold no samples"),
    "missing_columns": gettext_lazy(
        "line %(line)s: the header has no %(columns)s column; run sacct -a -X -P "
        "--format=JobID,Start,End,AllocTRES"
    ),
    "not_sacct": gettext_lazy(
        "line %(line)s: is not sacct -P output with a header: give the order of its "
        "%(count)s fields "
        "(--columns on the command, the columns field on the page and in the API), or xdmod "
        "for Open XDMoD's export"
    ),
    "no_gpu_job": gettext_lazy(
        "no job in this file allocated a GPU: none of its %(jobs)s finished jobs has gres/gpu "
        "in AllocTRES (is GPU accounting on? AccountingStorageTRES=gres/gpu)"
    ),
    "columns_missing": gettext_lazy(
        "has no %(columns)s: name the fields in the order sacct printed them (its --format), "
        "or a preset: xdmod"
    ),
    "no_finished_job": gettext_lazy("line %(line)s: no finished job in the sacct output"),
    "unreadable_job_time": gettext_lazy("line %(line)s: unreadable Start or End time"),
    "end_before_start": gettext_lazy("line %(line)s: End is before Start"),
    "not_cur": gettext_lazy(
        "line %(line)s: is not a Cost and Usage Report header: needs lineItem/UsageStartDate, "
        "lineItem/UsageAmount and product/instanceType or lineItem/UsageType"
    ),
    "no_instance_usage": gettext_lazy("line %(line)s: the report has no instance usage rows"),
    "negative_amount": gettext_lazy("line %(line)s: UsageAmount must not be negative"),
    "no_known_gpu_instance": gettext_lazy(
        "the bill has no usage of a GPU instance type the catalog knows; it holds %(count)s "
        "instance types: %(listed)s"
    ),
    "not_focus": gettext_lazy(
        "line %(line)s: is not a FOCUS header: it has no %(columns)s column (export the "
        "provider's FOCUS 1.x cost and usage data)"
    ),
    "no_focus_usage": gettext_lazy(
        "line %(line)s: the bill has no usage in hours of an instance type (ChargeCategory "
        "Usage, ConsumedUnit Hours)"
    ),
    "unreadable_bill_dates": gettext_lazy(
        "line %(line)s: the start %(date)s is not a date and time (ISO 8601, "
        "2026-10-01T00:00:00Z or +00:00)"
    ),
    "time_too_early": gettext_lazy(
        "%(where)s: %(field)s %(time)s is before 2000: was the clock of the machine that wrote "
        "it set? Correct the date or leave the record out"
    ),
    "time_in_future": gettext_lazy(
        "%(where)s: %(field)s %(time)s is later than the time of reading (%(now)s UTC): is the "
        "clock of the machine that wrote it right? Correct the date or leave the record out"
    ),
    "gpus_above_limit": gettext_lazy(
        "%(where)s: %(field)s gres/gpu=%(gpus)s is more GPUs than any machine holds (at most "
        "%(limit)s per job): correct the export or leave the job out"
    ),
    "usage_above_limit": gettext_lazy(
        "%(where)s: %(field)s %(amount)s hours of %(instance_type)s in %(hours)s h is "
        "%(gpus)s GPUs at once, more than any account runs (at most %(limit)s): correct the "
        "bill or leave the row out"
    ),
}
"""Each code of :data:`costmodel.usage.READER_CODES` in the active language."""


def _error_values(params: Mapping[str, Any]) -> dict[str, Any]:
    """An error's params as the message shows them: figures grouped, the GPU and the place
    in the file (``line 12`` or a JSON path) in words."""
    values: dict[str, Any] = dict(params)
    for key in ("line", "column", "months", "limit", "count", "keys", "jobs"):
        if key in params:
            values[key] = number(params[key])
    if "value" in params:
        values["value"] = _short(params["value"])
    if "gpu" in params:
        values["gpu"] = gpu_text(GpuRef.model_validate(params["gpu"]))
    if "line" in params:
        values["where"] = _("line %(line)s") % {"line": values["line"]}
    elif "path" in params:
        values["where"] = params["path"]
    return values


def month_above_limit_text(error: FieldError) -> str:
    """A plan month the measured work asks more than the limit of boxes for, in the active
    language (``profile_month_above_limit``; the engine's message for another code)."""
    if error.code != "profile_month_above_limit":
        return error.message
    return _("%(month)s needs %(boxes)s boxes' work, more than %(limit)s") % {
        "month": error.params["month"],
        "boxes": number(error.params["boxes"], 1),
        "limit": _short(error.params["limit"]),
    }


def reader_error_text(error: FieldError) -> str:
    """A reader's error in the active language (the engine's English message for a code this
    module does not know)."""
    text = READER_MESSAGES.get(error.code)
    if text is None:
        return error.message
    try:
        return str(text) % _error_values(error.params)
    except (KeyError, TypeError, ValueError):
        return error.message

"""The measured-usage readers' notices in words: one sentence per code, translated.

:mod:`costmodel.usage` says *what* a reader skipped or did not see (a notice's
``code``) and *with which figures* (line, count, month, hours); this module is
the only place that says it in words, in the active language. The planner's
"Use measured usage" page shows :func:`notice_texts` in the visitor's language;
``POST /api/v1/usage`` and ``manage.py usage`` give :func:`english_warnings`,
the same sentences in English (the API's ``warnings``, worded as before the
notices existed), beside the notices themselves.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils import translation
from django.utils.translation import gettext as _

from costmodel.usage import (
    Gap,
    GpuRef,
    InstanceTypeUnknown,
    JobStepsSkipped,
    MonthNotObserved,
    MonthPartlyObserved,
    MoreGaps,
    MoreRowsSkipped,
    RowSkipped,
    SingleSampleGpus,
    UnfinishedJobsSkipped,
    UsageNotice,
)
from webapp.planner.formatting import number


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
        case JobStepsSkipped():
            return _("%(count)s job steps skipped (only whole jobs count; use sacct -X)") % {
                "count": number(notice.count)
            }
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


def notice_texts(notices: Sequence[UsageNotice]) -> list[str]:
    """Each notice as a sentence in the active language, in the reader's order."""
    return [notice_text(notice) for notice in notices]


def english_warnings(notices: Sequence[UsageNotice]) -> list[str]:
    """The notices in English: the ``warnings`` of ``POST /api/v1/usage`` and ``manage.py
    usage``, whatever language the request asked for."""
    with translation.override("en"):
        return notice_texts(notices)

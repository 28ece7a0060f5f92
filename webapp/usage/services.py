"""Reading measured usage for the API, the planner and the command.

:func:`measured_usage` calls the reader of :mod:`costmodel.usage` once; a
cloud bill's instance types get their GPUs from the catalog's offerings
(:func:`gpus_per_instance`), every other format needs no database.
:func:`file_content` checks an upload's bytes (plain or gzip) as text within the
request body limit. :func:`usage_answer` is what the API and the command print: the reader's
result with its notices also worded in English (``warnings``).
"""

from __future__ import annotations

from django.conf import settings
from pydantic import Field

from costmodel.usage import MeasuredUsage, file_bytes, read_usage
from webapp.catalog.models import CloudOffering
from webapp.notices import english_warnings


class UsageAnswer(MeasuredUsage):
    """What ``POST /api/v1/usage`` and ``manage.py usage`` answer: the reader's result and
    its notices in English."""

    warnings: list[str] = Field(
        description="the notices as English sentences (line 16: skipped, unreadable "
        "utilization; 2026-10: partly observed, 2.0 of 744 hours …), one per notice, in "
        "the same order; to word them in another language, use notices"
    )


def usage_answer(usage: MeasuredUsage) -> UsageAnswer:
    """``usage`` with its notices worded in English as ``warnings``."""
    return UsageAnswer(**dict(usage), warnings=english_warnings(usage.notices))


def gpus_per_instance(provider: str | None = "AWS") -> dict[str, tuple[int, str]]:
    """Instance type → (GPUs per instance, GPU model name) of the catalog's offerings of
    ``provider`` (``None``: every provider's, for a FOCUS bill)."""
    rows = CloudOffering.objects.select_related("gpu_model")
    if provider is not None:
        rows = rows.filter(provider=provider)
    return {row.instance_type: (row.gpu_count, str(row.gpu_model)) for row in rows}


def measured_usage(format: str, content: str | bytes, columns: str | None = None) -> MeasuredUsage:
    """Read ``content`` in ``format``; a bill's instance types are looked up in the catalog;
    ``columns`` names the fields of a headerless file (:func:`costmodel.usage.read_usage`).

    Raises :class:`costmodel.ScenarioError` naming ``format``, ``columns`` or ``content``.
    """
    mapping = gpus_per_instance() if format == "aws-cur" else None
    if format == "focus":
        mapping = gpus_per_instance(None)
    return read_usage(format, content, mapping, columns or None)


def body_limit() -> int:
    """Largest file accepted, and largest a gzip file may inflate to [bytes]: the request
    body limit, ``DJANGO_MAX_BODY_BYTES``."""
    return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0)


def file_content(data: bytes) -> bytes:
    """An uploaded file's bytes checked as UTF-8 text, inflated first when it is gzip
    (``.csv.gz``), to at most :func:`body_limit` bytes; :func:`measured_usage` reads them
    without a text-sized copy.

    Raises :class:`costmodel.usage.UsageError` on ``content`` (empty, binary, a damaged
    archive or one that inflates past the limit).
    """
    return file_bytes(data, body_limit())

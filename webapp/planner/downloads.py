"""What a download is called: the file name of a scenario's workbook, zip or CSV, and the
``Content-Disposition`` that carries it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from django.http import HttpResponse
from django.utils.http import content_disposition_header
from django.utils.text import slugify

from costmodel import Scenario


def _short_gpu(slug: str | None) -> str | None:
    """A GPU's catalog slug as a file name says it: its first part with a digit
    (``rtx-4090`` → ``4090``, ``a800-80gb`` → ``a800``)."""
    if not slug:
        return None
    return next((part for part in slug.split("-") if any(c.isdigit() for c in part)), slug)


def _gpu_slug(provenance: Sequence[Mapping[str, Any]], roles: tuple[str, ...]) -> str | None:
    for role in roles:
        for item in provenance:
            key = item.get("natural_key")
            if item.get("role") == role and isinstance(key, list) and key:
                return str(key[0])
    return None


def download_name(
    scenario: Scenario,
    extension: str,
    *,
    provenance: Sequence[Mapping[str, Any]] = (),
    name: str = "",
    day: date | None = None,
) -> str:
    """The file name of a scenario's download: what it compares, then the day.

    The name a scenario was saved under; otherwise the box's GPUs against the cloud's, from
    the catalog rows it came from (``4x4090-vs-a800``); otherwise the scenario's own name, or
    ``scenario``. Then the date: ``4x4090-vs-a800-2026-12-07.xlsx``.
    """
    base = slugify(name, allow_unicode=True)
    if not base:
        build = _short_gpu(_gpu_slug(provenance, ("build GPU", "build throughput")))
        rent = _short_gpu(_gpu_slug(provenance, ("rent throughput",)))
        if build and rent:
            base = slugify(f"{scenario.build.gpu_count}x{build}-vs-{rent}")
    base = base or slugify(scenario.name or "", allow_unicode=True) or "scenario"
    return f"{base}-{(day or date.today()).isoformat()}.{extension}"


def attachment(response: HttpResponse, filename: str, inline: bool = False) -> HttpResponse:
    """``response`` with its Content-Disposition naming ``filename`` (non-ASCII names as
    RFC 6266's ``filename*``)."""
    header = content_disposition_header(not inline, filename)
    if header is not None:  # None only for an inline response without a name
        response["Content-Disposition"] = header
    return response

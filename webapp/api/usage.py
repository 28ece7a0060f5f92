"""``/usage``: a GPU log, scheduler accounting dump or cloud bill in, GPU-hours per month out.

The view parses, calls the usage service (:mod:`webapp.usage.services`) once, encodes.
The answer carries the reader's notices as data (``notices``) and, as before
they existed, as English sentences (``warnings``).
"""

from __future__ import annotations

import base64
import binascii
from typing import Literal

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from ninja import Router
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from costmodel import FieldError, ScenarioError
from costmodel.usage import FORMATS
from webapp.api.schemas import ErrorsOut
from webapp.errors import ApiError, error, json_response, read_body
from webapp.usage.services import UsageAnswer, file_content, measured_usage, usage_answer

router = Router(tags=["usage"])

ERRORS = {400: ErrorsOut, 411: ErrorsOut, 413: ErrorsOut, 422: ErrorsOut}


class UsageRequest(BaseModel):
    """A file's text and its format."""

    model_config = ConfigDict(extra="forbid", strict=True)

    format: Literal["nvidia-smi", "dcgm-prometheus", "slurm-sacct", "aws-cur", "focus"] = Field(
        description="nvidia-smi CSV, DCGM utilization from Prometheus query_range, "
        "sacct -a -X -P output (JobID, Start, End, AllocTRES), an AWS Cost and Usage Report "
        "CSV, or a FOCUS 1.x cost and usage CSV of any cloud (AWS, Azure, Google Cloud, OCI)"
    )
    content: str = Field(
        description="the file's text (UTF-8); with encoding base64, the file's bytes in "
        "base64, plain or gzip (.csv.gz, .json.gz)"
    )
    columns: str | None = Field(
        default=None,
        description="the field order of a file without a header line: for slurm-sacct the "
        'sacct --format fields ("jobid,start,end,alloctres") or "xdmod" (Open XDMoD\'s '
        "--parsable2 --noheader export); for nvidia-smi the --query-gpu fields "
        '("timestamp,index,name,utilization.gpu,memory.used")',
    )
    encoding: Literal["text", "base64"] = Field(
        default="text",
        description="text: content is the file's text; base64: content is the file's bytes "
        "in base64 (a gzip file is inflated, to at most the body limit)",
    )


def _request(body: bytes) -> UsageRequest:
    try:
        return UsageRequest.model_validate_json(body)
    except ValidationError as exc:
        problems = []
        for e in exc.errors():
            field = ".".join(str(p) for p in e["loc"]) or "(body)"
            if e["type"] == "missing":
                message = _("is required")
            elif field == "format":
                message = _("must be one of %(formats)s") % {"formats": ", ".join(FORMATS)}
            elif e["type"] == "json_invalid":
                raise error(400, "(body)", _("is not valid JSON")) from None
            else:
                message = str(e["msg"])
            problems.append(FieldError(field, message))
        raise ApiError(422, problems) from None


def _base64(content: str) -> bytes:
    try:
        return base64.b64decode(content, validate=True)
    except (binascii.Error, ValueError):
        raise error(422, "content", _("is not base64 (encoding is base64)")) from None


@router.post(
    "/usage",
    response={200: UsageAnswer, **ERRORS},
    summary="GPU-hours per month from a GPU log, Slurm accounting or an AWS bill",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/UsageRequest"}}
            },
        }
    },
)
def usage_view(request: HttpRequest) -> HttpResponse:
    """Read a file's text and return busy GPU-hours per calendar month (UTC), the hours of
    each month it observed, the GPUs seen and what the reader skipped or did not see (rows
    skipped with their line, gaps, months not or only partly observed): as data in `notices`
    (a `code` and its figures, to word in any language) and as English sentences in
    `warnings`. A bad file is a 422 on `content` naming the line.
    The body is limited to `DJANGO_MAX_BODY_BYTES` (16 MiB by default); a larger one is a 413."""
    usage_request = _request(read_body(request))
    try:
        content: str | bytes = usage_request.content
        if usage_request.encoding == "base64":
            content = file_content(_base64(usage_request.content))
        answer = measured_usage(usage_request.format, content, usage_request.columns)
    except ScenarioError as exc:
        raise ApiError(422, exc.errors) from None
    return json_response(usage_answer(answer).model_dump())

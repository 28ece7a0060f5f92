"""JSON API under ``/api/v1/`` (django-ninja); see docs/api.md.

The OpenAPI document is at ``/api/v1/openapi.json`` and interactive docs at
``/api/v1/docs``, served from local static files (no CDN).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe
from ninja import NinjaAPI
from ninja.openapi.schema import REF_TEMPLATE

from costmodel import Scenario
from costmodel.commitment import CommitmentRequest
from costmodel.operations import FleetRequest, TornadoRequest, UncertaintyRequest
from costmodel.options import OptionsRequest
from webapp.api import catalog, compare, operations, resolve, scenarios, usage
from webapp.catalog.resolver import Selection
from webapp.errors import install_handlers, json_response


class Api(NinjaAPI):
    """NinjaAPI whose OpenAPI document also describes bodies read by hand."""

    request_models: tuple[Any, ...] = (
        Scenario,
        Selection,
        TornadoRequest,
        UncertaintyRequest,
        FleetRequest,
        CommitmentRequest,
        OptionsRequest,
        usage.UsageRequest,
    )

    def get_openapi_schema(self, *args: Any, **kwargs: Any) -> Any:
        schema = super().get_openapi_schema(*args, **kwargs)
        components = schema["components"]["schemas"]
        for model in self.request_models:
            definition = model.model_json_schema(ref_template=REF_TEMPLATE, mode="validation")
            components.update(definition.pop("$defs", {}))
            components.setdefault(model.__name__, definition)
        return schema


def read_only(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A view that only reads (GET, HEAD): any other method is a 405 in the API's error
    shape (webapp.api.middleware), not the CSRF check's HTML 403 page, since there is
    nothing to protect."""
    return csrf_exempt(require_safe(view))


@read_only
def index(request: HttpRequest) -> HttpResponse:
    """``/api/v1/``: where the API's description and its interactive docs are."""
    return json_response(
        {"openapi": reverse("api:openapi-json"), "docs": reverse("api:openapi-view")}
    )


api = Api(
    title="Build or rent GPUs",
    version="1",
    description=(
        "Month-by-month build-vs-rent cost projections. Every error response is "
        '`{"errors": [{"field": "build.capex", "message": "…"}]}`.'
    ),
    urls_namespace="api",
    docs_decorator=read_only,
)
install_handlers(api)
api.add_router("", compare.router)
api.add_router("", operations.router)
api.add_router("", resolve.router)
api.add_router("", catalog.router)
api.add_router("", scenarios.router)
api.add_router("", usage.router)

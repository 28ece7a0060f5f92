"""What the user picked, by catalog slug: the resolver's input, validated once."""

from __future__ import annotations

import datetime
import re
from typing import Annotated, Literal, Self

from django.utils.translation import gettext
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from costmodel import FieldError, ScenarioError, Workload, field_errors
from costmodel.scenario import MAX_HORIZON_MONTHS


class PartLine(BaseModel):
    """One line of a custom parts list."""

    model_config = ConfigDict(extra="forbid", strict=True)

    part: str
    quantity: Annotated[int, Field(ge=1, le=1000)] = 1


_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _iso_date_only(value: object) -> object:
    """JSON has no date type: take a date or a ``YYYY-MM-DD`` string, nothing else.

    (Lax date parsing would also read the number 0 or "1700000000" as a date.)
    """
    if value is None or isinstance(value, datetime.date):
        return value
    if isinstance(value, str) and _ISO_DATE.match(value):
        return value
    raise ValueError(gettext("must be a date written as YYYY-MM-DD"))


Efficiency = Annotated[float, Field(gt=0, le=1)]


class Selection(BaseModel):
    """What the user picked, by catalog slug; the resolver's input.

    ``cloud_offering``, ``tariff``, ``hosting`` and ``committed_instances`` may be left out:
    the resolver then picks them (see :data:`DEFAULTS` and :func:`commitment_rule`) and
    says so in :attr:`Resolution.defaulted`.
    """

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    preset: str | None = None
    parts: Annotated[list[PartLine], Field(min_length=1, max_length=100)] | None = None
    gpu_model: str | None = None
    gpu_count: Annotated[int, Field(ge=1, le=1000)] | None = None
    scaling_efficiency: Efficiency | None = None
    multi_node_scaling_efficiency: Efficiency | None = None
    cloud_offering: str | None = None
    all_markets: bool = False
    """The planner's ranking weighs the offerings of every market, their prices converted at
    the exchange rate in effect on the plan's day, not only those of the currency's market (a
    CNY plan: mainland China). The resolver's own default offering stays the market's."""
    committed_instances: Annotated[int, Field(ge=0, le=100_000)] | None = None
    tariff: str | None = None
    hosting: str | None = None
    benchmark: str
    workload: Workload
    horizon_months: Annotated[int, Field(ge=1, le=MAX_HORIZON_MONTHS)]
    currency: Literal["CNY", "USD"]
    discount_rate_per_year: Annotated[float, Field(ge=0, le=1)] = 0.0
    as_of: Annotated[datetime.date, Field(strict=False), BeforeValidator(_iso_date_only)] | None = (
        None
    )

    @model_validator(mode="after")
    def _preset_or_custom_box(self) -> Self:
        if self.preset is not None:
            if self.parts is not None or self.gpu_model is not None or self.gpu_count is not None:
                raise ValueError(
                    "preset: "
                    + gettext(
                        "give either a preset or a custom parts list "
                        "(parts, gpu_model, gpu_count), not both"
                    )
                )
        elif self.parts is None:
            raise ValueError("preset: " + gettext("is required (or a custom box in parts)"))
        return self

    @property
    def day(self) -> datetime.date:
        """The date of the prices: ``as_of``, or today."""
        return self.as_of or datetime.date.today()


def parse_selection(data: object) -> Selection:
    """Validate decoded JSON as a :class:`Selection` or raise :class:`ScenarioError`."""
    if not isinstance(data, dict):
        raise ScenarioError([FieldError("(selection)", gettext("must be a JSON object"))])
    try:
        return Selection.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(field_errors(exc)) from None

"""The planner form's fields: how each registry input becomes a form field, its hint, its
bounds' messages and its widget, and the labels of the form's catalog choices."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from webapp.planner.forms import PlannerForm

from typing import Any, cast

from django import forms
from django.core.validators import BaseValidator
from django.forms.renderers import DjangoTemplates as TemplateRenderer
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from webapp import formatting
from webapp.catalog.pricing_modes import data_attributes
from webapp.planner.fields import (
    CATALOG_FIELDS,
    RANGE_ROWS,
    RangeRow,
    ScenarioField,
)

ADVANCED_UNITS = {
    "money": _("In the chosen currency."),
    "money/kWh": _("Per kWh, in the chosen currency."),
    "money/h": _("Per instance-hour, in the chosen currency."),
    "money/month": _("Per month, in the chosen currency."),
    "W": _("Watts at the wall."),
}


MAX_COUNT = 2**53
"""Largest GPU or instance count the form takes: float64, the engine's number, holds every
integer up to here exactly; a larger one (``2**1100``) is not even a finite float."""


def _bound(value: float) -> str:
    return formatting.number(value, 0 if float(value).is_integer() else 2)


def percent_hint(low: float, high: float, example: object) -> str:
    """What to type into a percentage field ("Enter a percentage between 0 and 100, e.g. 3 …")."""
    return _("Enter a percentage between %(low)s and %(high)s, e.g. %(example)s.") % {
        "low": _bound(low),
        "high": _bound(high),
        "example": example,
    }


def number_hint(low: float, high: float | None, example: object) -> str:
    if high is None:
        return _("Enter a number of %(low)s or more, e.g. %(example)s.") % {
            "low": _bound(low),
            "example": example,
        }
    return _("Enter a number between %(low)s and %(high)s, e.g. %(example)s.") % {
        "low": _bound(low),
        "high": _bound(high),
        "example": example,
    }


def months_hint(low: float, high: float) -> str:
    return _("Enter a whole number of months between %(low)s and %(high)s.") % {
        "low": _bound(low),
        "high": _bound(high),
    }


def above_hint(low: float, high: float | None, example: object, percent: bool) -> str:
    """What to type into a field whose low bound itself is refused (a speed-up of 0 %)."""
    if high is None:
        return _("Enter a number above %(low)s.") % {"low": _bound(low)}
    text = (
        _("Enter a percentage above %(low)s and up to %(high)s, e.g. %(example)s.")
        if percent
        else _("Enter a number above %(low)s and up to %(high)s, e.g. %(example)s.")
    )
    return text % {"low": _bound(low), "high": _bound(high), "example": example}


def field_hint(field: ScenarioField) -> str | None:
    """The "what to type" message of an input, from its bounds (None: Django's messages)."""
    if field.hint:
        return str(field.hint)
    low, high = field.low, field.high
    if low is None:
        return None
    if field.bounds.low_open:
        return above_hint(low, high, field.example, field.percent)
    if high is None:
        return number_hint(low, None, field.example) if field.example else None
    if field.unit == "months":
        return months_hint(low, high)
    if field.percent:
        return percent_hint(low, high, field.example)
    return number_hint(low, high, field.example) if field.example else None


def number_field(f: ScenarioField, label: str, help_text: str) -> forms.Field:
    """A form field typed as a number, bounded as the engine bounds ``f`` (in the form's unit)."""
    bounds = f.bounds
    low = None if bounds.low_open else f.low
    validators = [AboveValidator(f.low)] if bounds.low_open and f.low is not None else []
    options: dict[str, Any] = {
        "label": label,
        "help_text": help_text,
        "required": f.required,
        "initial": f.initial,
        "validators": validators,
    }
    if f.whole:
        return forms.IntegerField(
            min_value=None if low is None else int(low),
            max_value=MAX_COUNT if f.high is None else int(f.high),
            **options,
        )
    return forms.FloatField(min_value=low, max_value=f.high, **options)


class AboveValidator(BaseValidator):
    """The value must be greater than the limit (an engine bound declared with ``gt``)."""

    message = _("Enter a number above %(limit_value)s.")
    code = "min_value"  # the field's own "what to type" message replaces it

    def compare(self, a: Any, b: Any) -> bool:
        return bool(a <= b)


def bound_messages(hint: str) -> dict[str, str]:
    """A field's error messages, all saying what to type.

    Django %-formats a bound's message with the limit, so a literal % is doubled there.
    """
    escaped = hint.replace("%", "%%")
    return {"min_value": escaped, "max_value": escaped, "invalid": hint}


def range_name(row: RangeRow, suffix: str) -> str:
    """Form field name of one end of an uncertainty range: ``range_utilization_low``."""
    return f"range_{row.key}_{suffix}"


RANGE_BY_PATH: dict[str, RangeRow] = {row.path: row for row in RANGE_ROWS}


class FieldRenderer(TemplateRenderer):
    """Renders ``{{ field.as_field_group }}`` as the planner's form row: label (with the
    override flag), widget, help text and errors."""

    field_template_name = "planner/field.html"


class PlannerBoundField(forms.BoundField):
    form: PlannerForm

    @property
    def overridden(self) -> bool:
        return self.form.is_overridden(self.name)

    @property
    def defaulted(self) -> str:
        """What the catalog chose for this field because it was left to it, and why ("")."""
        return self.form.defaulted.get(self.name, "")


class OfferingSelect(forms.Select):
    """The cloud offerings, each ``<option>`` marked with its pricing mode (``data-pricing-mode``)
    so the page's script can filter them and show the commitment's count."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.modes: dict[str, str] = {}

    def create_option(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        option: dict[str, Any] = super().create_option(*args, **kwargs)
        mode = self.modes.get(str(option["value"]))
        if mode:
            option["attrs"].update(data_attributes(mode))
        return option


def committed_text(count: int | None) -> str:
    """``For the choices above the default is 2 instances.`` ("" when unknown)."""
    if count is None:
        return ""
    return ngettext(
        "For the choices above the default is %(count)s instance.",
        "For the choices above the default is %(count)s instances.",
        count,
    ) % {"count": formatting.number(count)}


DEFAULTED_CHOICES = ("cloud_offering", "tariff", "hosting")
"""Choices the form leaves to the resolver unless the user picks one: it chooses the ones that
fit the box and the currency (a colocation for a cluster, a tariff of the currency's region, an
offering of its market)."""
DEFAULT_CHOICE = _("Default for this box and currency")


def listed_choices(field: forms.ChoiceField) -> list[tuple[Any, Any]]:
    """A choice field's choices, as the list the form set."""
    return cast(list[tuple[Any, Any]], list(cast(Any, field.choices)))


def choice_label(field: forms.ChoiceField, value: Any) -> str:
    """The label of ``value`` among a choice field's (possibly grouped) choices."""
    for key, label in listed_choices(field):
        if isinstance(label, list | tuple):
            for inner_key, inner_label in label:
                if inner_key == value:
                    return str(inner_label)
        elif key == value:
            return str(label)
    return str(value)


CATALOG_PATHS = frozenset(f.path for f in CATALOG_FIELDS)

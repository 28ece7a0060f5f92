"""Forms of the planner pages. Validation of what was typed only: no database, no engine.

The planner form checks each field and which ones the chosen workload and
box need; turning its data into a plan (resolving the catalog, validating the
explicit scenario) is :func:`webapp.planner.services.plan_from_form`, which
puts any error that names a field back beside that field.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any, cast

from django import forms
from django.core.validators import BaseValidator
from django.forms.renderers import DjangoTemplates as TemplateRenderer
from django.http import QueryDict
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from costmodel import FieldError, ScenarioError, UnreadableInput, ranges
from costmodel.errors import load_json
from costmodel.ranges import Range
from costmodel.training import DEFAULT_MFU
from webapp import formatting
from webapp.catalog.pricing_modes import COMMITMENT_MODES, data_attributes
from webapp.planner.choices import CatalogChoices
from webapp.planner.comparison import MAX_COMPARED, MIN_COMPARED
from webapp.planner.fields import (
    BY_PATH,
    CATALOG_FIELDS,
    FINANCING_FIELDS,
    JOB_FIELDS,
    RANGE_ENDS,
    RANGE_ROWS,
    REGISTRY,
    TYPED_FIELDS,
    RangeRow,
    ScenarioField,
    form_field_of,
    form_values,
    tidy,
    to_form,
)
from webapp.planner.jobs import (
    JOB_ROWS,
    KIND_NEEDS,
    SHOWN_JOB_ROWS,
    DescribedJob,
    MemoryRefusal,
    described_jobs,
    parse_runs,
    runs_text,
)
from webapp.planner.permalink import Permalink, PermalinkError, decode
from webapp.scenarios.models import SavedScenario
from webapp.scenarios.selectors import all_saved, can_view
from webapp.security import not_visible_error

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


class ErrorTextMixin:
    errors: Any

    def errors_as_text(self) -> list[str]:
        return [f"{field}: {message}" for field, msgs in self.errors.items() for message in msgs]


class SaveForm(ErrorTextMixin, forms.Form):
    code = forms.CharField(widget=forms.HiddenInput)
    name = forms.CharField(label=_("Name"), max_length=200)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if "code" in data:
            try:
                data["link"] = decode(data["code"])
            except PermalinkError as exc:
                self.add_error("code", str(exc))
        return data


class RenameForm(ErrorTextMixin, forms.Form):
    name = forms.CharField(label=_("New name"), max_length=200)


class SavedScenariosField(forms.ModelMultipleChoiceField):
    """Saved scenarios by id, each one ``viewer`` may see. An id that names none (unknown,
    deleted, malformed) and one of a scenario ``viewer`` may not see are refused alike, before
    anything else is checked, with the words of webapp.security: the answer tells an
    outsider nothing."""

    viewer: Any = None

    def _check_values(self, value: Any) -> Any:
        valid = []
        for given in value:
            try:
                valid.append(uuid.UUID(str(given)))
            except ValueError:
                pass
        found = {str(item.pk): item for item in self.queryset.filter(pk__in=valid)}
        for given in value:  # the first unseen in the order given, whatever makes it unseen
            try:
                item = found.get(str(uuid.UUID(str(given))))
            except ValueError:
                item = None
            if item is None or not can_view(item, self.viewer):
                raise not_visible_error(given)
        return self.queryset.filter(pk__in=valid)


class CompareForm(ErrorTextMixin, forms.Form):
    """The saved scenarios ticked on the saved list (two to four); the list shows its errors."""

    # Any saved scenario may be compared by whoever has its link.
    ids = SavedScenariosField(label=_("Scenarios"), queryset=all_saved(), required=False)

    def __init__(self, *args: Any, viewer: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(SavedScenariosField, self.fields["ids"]).viewer = viewer

    def clean_ids(self) -> list[SavedScenario]:
        chosen = list(self.cleaned_data["ids"])
        if len(chosen) < MIN_COMPARED:
            raise forms.ValidationError(
                _(
                    "Tick at least %(min)d scenarios to compare them (you ticked %(count)d): "
                    "a comparison needs two."
                ),
                params={"min": MIN_COMPARED, "count": len(chosen)},
            )
        if len(chosen) > MAX_COMPARED:
            raise forms.ValidationError(
                _("Tick at most %(max)d scenarios to compare them (you ticked %(count)d)."),
                params={"max": MAX_COMPARED, "count": len(chosen)},
            )
        order = {str(pk): i for i, pk in enumerate(cast(QueryDict, self.data).getlist("ids"))}
        return sorted(chosen, key=lambda s: order.get(str(s.pk), 0))


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


def _number_field(f: ScenarioField, label: str, help_text: str) -> forms.Field:
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


def _messages(hint: str) -> dict[str, str]:
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


class PlannerForm(ErrorTextMixin, forms.Form):
    """The planner: a catalog selection, the workload, and every explicit field under Advanced.

    ``catalog`` is :func:`webapp.planner.choices.catalog_choices` (``None``
    when the catalog is empty: then every Advanced field is required).
    Percentages are typed as percentages (3 for 3 %) and converted to the
    engine's fractions by :func:`webapp.planner.fields.from_form`.
    """

    name = forms.CharField(label=_("Name of this comparison"), max_length=200, required=False)
    currency = forms.ChoiceField(
        label=_("Currency"), choices=[("CNY", _("CNY (¥)")), ("USD", _("USD ($)"))], initial="CNY"
    )
    workload_kind = forms.ChoiceField(
        label=_("How busy will the box be?"),
        choices=[
            ("steady", _("Steady: the same share of every month")),
            ("tidal", _("Tidal: a few busy days a month")),
            ("profile", _("A 12-month profile")),
            ("jobs", _("Training jobs: the runs you plan")),
        ],
        widget=forms.RadioSelect,
        initial="steady",
    )
    use_catalog = forms.BooleanField(label=_("Use catalog prices"), required=False, initial=True)
    box = forms.ChoiceField(
        label=_("The box to build"),
        choices=[("preset", _("A tier preset")), ("custom", _("My own parts list"))],
        widget=forms.RadioSelect,
        initial="preset",
        required=False,
    )
    preset = forms.ChoiceField(label=_("Preset"), required=False)
    cloud_offering = forms.ChoiceField(
        label=_("Cloud offering"), required=False, widget=OfferingSelect
    )
    tariff = forms.ChoiceField(label=_("Electricity tariff"), required=False)
    hosting = forms.ChoiceField(label=_("Hosting"), required=False)
    benchmark = forms.ChoiceField(
        label=_("Benchmark for throughput"),
        required=False,
        help_text=_("Throughput of both GPUs relative to the reference GPU on this benchmark."),
    )
    basis = forms.CharField(widget=forms.HiddenInput, required=False)

    default_renderer = FieldRenderer
    bound_field_class = PlannerBoundField

    def __init__(self, *args: Any, catalog: CatalogChoices | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.catalog = catalog
        self.committed_default: int | None = None
        self.defaulted: dict[str, str] = {}
        """Form field → what the resolver picked for it, and why (see :meth:`show_defaults`)."""
        self.hints: dict[str, str] = {}
        self.part_names: list[tuple[str, list[str]]] = []
        if catalog is not None:
            for name, listed in (
                ("preset", catalog.presets),
                ("cloud_offering", catalog.offerings),
                ("tariff", catalog.tariffs),
                ("hosting", catalog.hostings),
                ("benchmark", catalog.benchmarks),
            ):
                cast(forms.ChoiceField, self.fields[name]).choices = listed
            cast(OfferingSelect, self.fields["cloud_offering"].widget).modes = dict(
                catalog.offering_modes
            )
            self.fields["preset"].initial = catalog.presets[0][0]
            for name in DEFAULTED_CHOICES:  # left to the resolver: it fits box and currency
                field = cast(forms.ChoiceField, self.fields[name])
                field.choices = [("", str(DEFAULT_CHOICE)), *_listed(field)]
                field.initial = ""
            self.fields["benchmark"].initial = catalog.default_benchmark or (
                catalog.benchmarks[0][0] if catalog.benchmarks else None
            )
            for kind, parts in catalog.parts:
                names = []
                for slug, label in parts:
                    name = f"part__{slug}"
                    self.fields[name] = forms.IntegerField(
                        label=label, min_value=0, max_value=64, required=False
                    )
                    names.append(name)
                self.part_names.append((kind, names))
        else:
            self.fields["use_catalog"].initial = False
            self.fields["use_catalog"].disabled = True
        for f in TYPED_FIELDS:
            self._add_input(f)
        for f in JOB_FIELDS:
            self._add_job_input(f)
        for row in RANGE_ROWS:
            self._add_range(row)
        for name, hint in self.hints.items():
            self.fields[name].error_messages.update(_messages(hint))
        self.overrides: list[str] = []
        self.memory_refusal: dict[str, Any] | None = None

    def _add_input(self, f: ScenarioField) -> None:
        """The form field(s) of one registry input: bounds from the engine, its unit in the
        label, its help text and its "what to type" message."""
        label = str(f.label)
        if f.percent:
            label += " [%]"
        elif f.unit == "months":
            label += " " + str(_("[months]"))
        help_text = str(f.help or ADVANCED_UNITS.get(f.unit, ""))
        hint = field_hint(f)
        for i, name in enumerate(f.form_names(), start=1):
            if f.unit == "profile":
                label, help_text = _("Month %(n)d [%%]") % {"n": i}, ""
            self.fields[name] = _number_field(f, label, help_text)
            if hint:
                self.hints[name] = hint

    def _add_job_input(self, f: ScenarioField) -> None:
        """The form fields of one input of a job, one per job row (all optional: a row is
        a job when anything in it is filled in)."""
        hint = field_hint(f)
        for name in f.form_names():
            field: forms.Field
            if f.unit == "choice":
                field = forms.ChoiceField(
                    label=str(f.label), choices=JOB_CHOICES[f.name], required=False
                )
            elif f.unit in ("text", "runs"):
                field = forms.CharField(
                    label=str(f.label), help_text=str(f.help), max_length=200, required=False
                )
            else:
                field = _number_field(f, str(f.label), str(f.help))
                if hint:
                    self.hints[name] = hint
            self.fields[name] = field

    def _add_range(self, row: RangeRow) -> None:
        hint = (
            percent_hint(row.low or 0, row.high or 0, row.example)
            if row.field.percent
            else number_hint(row.low or 0, row.high, row.example)
        )
        for suffix, label in (
            ("low", _("Low")),
            ("likely", _("Most likely")),
            ("high", _("High")),
        ):
            name = range_name(row, suffix)
            self.fields[name] = forms.FloatField(
                label=label, required=False, min_value=row.low, max_value=row.high
            )
            self.hints[name] = hint

    # -- layout helpers for the template ----------------------------------------------------
    def section(self, name: str) -> list[forms.BoundField]:
        """The form fields of the registry's typed inputs in one section of the form, in order."""
        return [self[n] for f in TYPED_FIELDS if f.section == name for n in f.form_names()]

    def general_fields(self) -> list[forms.BoundField]:
        """The typed inputs of "Money and time" (the horizon, the discount rate …)."""
        return self.section("general")

    def workload_fields(self) -> dict[str, list[forms.BoundField]]:
        """The typed inputs of each workload kind: ``{"steady": [utilization], …}``."""
        grouped: dict[str, list[forms.BoundField]] = {}
        for f in TYPED_FIELDS:
            if f.section == "workload":
                grouped.setdefault(f.workload, []).extend(self[n] for n in f.form_names())
        return grouped

    def part_groups(self) -> list[tuple[str, list[forms.BoundField]]]:
        return [(kind, [self[n] for n in names]) for kind, names in self.part_names]

    def advanced_groups(self) -> list[tuple[str, list[forms.BoundField]]]:
        """Build and rent fields; without a catalog the rent group holds the committed count."""
        groups = [
            (str(title), self.section(name))
            for title, name in ((_("Build"), "build"), (_("Rent"), "rent"))
        ]
        if self.catalog is None:
            groups[1][1].append(self["committed_instances"])
        return groups

    def job_rows(self) -> list[dict[str, Any]]:
        """The job rows of the form: their number, whether they start hidden (the page's
        script shows them one by one) and their fields by key (``kind``, ``runs`` …)."""
        rows = []
        for i in range(1, JOB_ROWS + 1):
            fields = {f.name.removeprefix("job_"): self[f"{f.name}_{i}"] for f in JOB_FIELDS}
            used = any(self._row_value(bf) for key, bf in fields.items() if key not in CHOICE_KEYS)
            rows.append(
                {
                    "number": i,
                    "fields": fields,
                    "extra": i > SHOWN_JOB_ROWS and not used,
                    "errors": any(bf.errors for bf in fields.values()),
                }
            )
        return rows

    def _row_value(self, bf: forms.BoundField) -> bool:
        value = bf.value()
        return value not in (None, "")

    def life_fields(self) -> list[forms.BoundField]:
        return self.section("life")

    def financing_fields(self) -> list[forms.BoundField]:
        return self.section("financing")

    def range_groups(self) -> list[dict[str, Any]]:
        """One entry per uncertain input: its label, the workload it belongs to, three fields."""
        return [
            {
                "key": row.key,
                "label": row.label,
                "workload": row.workload,
                "fields": [self[range_name(row, suffix)] for suffix, _attr in RANGE_ENDS],
            }
            for row in RANGE_ROWS
        ]

    def default_mfu_percent(self) -> str:
        """The engine's default model-FLOPs utilization, as the jobs' help text quotes it."""
        return formatting.number(DEFAULT_MFU * 100)

    def committed_default_text(self) -> str:
        """The default count of committed instances for the choices shown, in words."""
        return committed_text(self.committed_default)

    def range_help(self) -> str:
        """How the default ranges are set, from the engine's constants."""
        return _(
            "Prefilled around your plan, which stays the most likely value: utilization from "
            "%(u_low)s to %(u_high)s of the planned figure, the cloud price trend from "
            "%(t_low)s to %(t_high)s a year, electricity from %(e_low)s to %(e_high)s of "
            "today's price, resale %(r_low)s points lower to %(r_high)s points higher. Values "
            "left as shown follow the plan when you change it; a value you type is kept."
        ) % {
            "u_low": formatting.percent(ranges.UTILIZATION_LOW_FACTOR),
            "u_high": formatting.percent(ranges.UTILIZATION_HIGH_FACTOR),
            "t_low": formatting.percent(ranges.PRICE_TREND_LOW),
            "t_high": "+" + formatting.percent(ranges.PRICE_TREND_HIGH),
            "e_low": formatting.percent(ranges.ELECTRICITY_LOW_FACTOR),
            "e_high": formatting.percent(ranges.ELECTRICITY_HIGH_FACTOR),
            "r_low": formatting.number(ranges.RETENTION_LOW_POINTS * 100),
            "r_high": formatting.number(ranges.RETENTION_HIGH_POINTS * 100),
        }

    def is_overridden(self, name: str) -> bool:
        """Whether the field ``name`` holds a value the user typed over the catalog's."""
        return name in {BY_PATH[path].name for path in self.overrides if path in CATALOG_PATHS}

    def is_commitment(self, offering: str | None) -> bool:
        """Whether the catalog offering ``offering`` is a 1- or 3-year commitment."""
        return (
            self.catalog is not None
            and dict(self.catalog.offering_modes).get(offering or "") in COMMITMENT_MODES
        )

    # -- validation -------------------------------------------------------------------------
    def shown_values(self) -> dict[str, Any]:
        """The hidden field's ``path → value`` map; anything else in it is ignored.

        The field only tells which Advanced values (and uncertainty ranges) were
        prefilled, so a tampered one (not JSON, nested 100 000 deep, a list) costs
        the visitor nothing but that hint: it is read as empty.
        """
        try:
            data = load_json(self.cleaned_data.get("basis") or "{}")
        except UnreadableInput:
            return {}
        return data if isinstance(data, dict) else {}

    def uses_catalog(self) -> bool:
        return bool(self.cleaned_data.get("use_catalog")) and self.catalog is not None

    def parts_list(self, values: dict[str, Any]) -> list[dict[str, Any]]:
        """The custom parts list: one line per part with a quantity."""
        return [
            {"part": name.removeprefix("part__"), "quantity": values[name]}
            for _kind, names in self.part_names
            for name in names
            if values.get(name)
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data
        kind = data.get("workload_kind")
        if kind == "jobs":
            data["jobs"] = self._clean_jobs(data)
        for f in REGISTRY:
            if f.rows:
                continue  # an input of a job row: checked by _clean_jobs
            if kind and f.workload == kind and f.path != "workload.hours_per_active_day":
                for name in f.form_names():
                    if data.get(name) is None:
                        self.add_error(name, _("Enter a value for this workload."))
        loan = [f.name for f in FINANCING_FIELDS]
        if any(data.get(name) is not None for name in loan):
            for name in loan[1:]:  # the down payment may stay empty: 0 %
                if data.get(name) is None:
                    self.add_error(
                        name,
                        _("Enter this too to pay for the box with a loan, or empty the loan."),
                    )
        if bool(data.get("use_catalog")) and self.catalog is not None:
            if not data.get("benchmark"):
                self.add_error("benchmark", _("Choose one."))
            if not self.is_commitment(data.get("cloud_offering")):
                data["committed_instances"] = None  # typed, then another offering chosen
            if data.get("box") == "custom":
                data["parts"] = self.parts_list(data)
                if not data["parts"]:
                    self.add_error("box", _("Enter a quantity for at least one part."))
            elif not data.get("preset"):
                self.add_error("preset", _("Choose a preset."))
        return data

    def _clean_jobs(self, data: dict[str, Any]) -> list[DescribedJob]:
        """The described jobs of the rows filled in; each error beside its field."""
        jobs = []
        for i in range(1, JOB_ROWS + 1):
            row = {f.name.removeprefix("job_"): data.get(f"{f.name}_{i}") for f in JOB_FIELDS}
            if not any(row[k] not in (None, "") for k in row if k not in CHOICE_KEYS):
                continue
            kind = row["kind"] or "transformer"
            missing = [k for k in KIND_NEEDS[kind] if row[k] is None]
            for key in missing:
                self.add_error(f"job_{key}_{i}", _("Enter this for this kind of job."))
            runs = parse_runs(row["runs"] or "")
            if runs is None:
                self.add_error(
                    f"job_runs_{i}",
                    _("Enter one number of runs a month, or twelve separated by commas."),
                )
            if missing or runs is None:
                continue
            values = {k: row[k] for k in KIND_NEEDS[kind]}
            jobs.append(
                DescribedJob(
                    name=row["name"] or str(_("Job %(n)d") % {"n": i}),
                    kind=kind,
                    method=row["method"] or "full",
                    precision=row["precision"] or "bf16",
                    runs_per_month=runs,
                    **values,
                )
            )
        if not jobs and not self.errors:
            self.add_error("job_name_1", _("Describe at least one job."))
        return jobs

    def refuse_for_memory(self, refusal: MemoryRefusal) -> None:
        """Refuse the box for a job it cannot hold: the reason and figures beside the job, and
        the smallest preset that holds it offered as a link that reopens this form with it."""
        values = {
            "job": refusal.job.name,
            "needed": formatting.number(
                refusal.fit.needed_gb, 0 if refusal.fit.needed_gb.is_integer() else 1
            ),
            "capacity": formatting.number(refusal.fit.capacity_gb),
        }
        message = (
            _(
                "“%(job)s” needs about %(needed)s GB of GPU memory to train; this box has "
                "%(capacity)s GB. Building this box is refused for this job."
            )
            % values
        )
        self.add_error(f"job_parameters_billion_{refusal.index + 1}", message)
        offer = None
        if refusal.next_preset is not None and self.catalog is not None:
            names = dict(self.catalog.presets)
            offer = {
                "slug": refusal.next_preset,
                "name": names.get(refusal.next_preset, refusal.next_preset),
                "capacity": formatting.number(refusal.next_capacity_gb),
                "url": reopen_url(self.data, refusal.next_preset),
            }
        self.memory_refusal = {"message": message, "offer": offer}

    def add_engine_errors(self, exc: ScenarioError) -> None:
        """Put each error of the resolver or the engine beside the field it names, in the
        active language by its code, saying what to type when it is a bound the field has a
        message for (never "must be less than or equal to 1")."""
        for error in exc.errors:
            target = form_field_for(error)
            if target in self.hints and error.code in BOUND_CODES:
                message = self.hints[target]
            else:
                message = engine_message(error)
            if not target or target not in self.fields:
                message = f"{error.field}: {message}"
            self.add_error(target if target in self.fields else None, message)

    # -- prefilling an unbound form ---------------------------------------------------------
    def initial_selection(self) -> dict[str, Any] | None:
        """The initial values as cleaned data would hold them, when they name a catalog
        selection (``None`` when the form does not use the catalog)."""
        values = {name: self.get_initial_for_field(f, name) for name, f in self.fields.items()}
        if self.catalog is None or not values.get("use_catalog"):
            return None
        if values.get("box") == "custom":
            values["parts"] = self.parts_list(values)
        if not self.is_commitment(values.get("cloud_offering")):
            values["committed_instances"] = None
        if values.get("workload_kind") == "jobs":
            values["jobs"] = self.initial.get("jobs") or []
        return values

    def prefill(self, values: dict[str, Any]) -> None:
        """Show the catalog's ``path → value`` in the explicit fields, except overridden ones."""
        overridden = set(self.overrides)
        for path, value in values.items():
            if path not in overridden:
                self.initial[BY_PATH[path].name] = to_form(BY_PATH[path], value)

    def show_defaults(self, defaulted: list[tuple[str, Any, str]]) -> None:
        """Say beside each choice left to the catalog what it picked and why
        (``(field, value, reason)`` of the resolver's defaulted fields)."""
        for name, value, reason in defaulted:
            if name in DEFAULTED_CHOICES and name in self.fields:
                shown = _choice_label(cast(forms.ChoiceField, self.fields[name]), value)
                self.defaulted[name] = _("Default: %(choice)s — %(reason)s") % {
                    "choice": shown,
                    "reason": reason,
                }

    def prefill_ranges(self, ranges: list[Range]) -> None:
        """Show ``ranges`` in the uncertainty fields (in the form's units)."""
        self.initial.update(range_initial(ranges))

    def set_basis(self, basis: dict[str, Any]) -> None:
        """Remember what was prefilled (``path → value``, scenario units) in the hidden field."""
        self.initial["basis"] = json.dumps(basis)


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


def _listed(field: forms.ChoiceField) -> list[tuple[Any, Any]]:
    """A choice field's choices, as the list the form set."""
    return cast(list[tuple[Any, Any]], list(cast(Any, field.choices)))


def _choice_label(field: forms.ChoiceField, value: Any) -> str:
    """The label of ``value`` among a choice field's (possibly grouped) choices."""
    for key, label in _listed(field):
        if isinstance(label, list | tuple):
            for inner_key, inner_label in label:
                if inner_key == value:
                    return str(inner_label)
        elif key == value:
            return str(label)
    return str(value)


CATALOG_PATHS = frozenset(f.path for f in CATALOG_FIELDS)


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


JOB_CHOICES: dict[str, list[tuple[str, Any]]] = {
    "job_kind": [
        ("transformer", _("A transformer: model size and tokens")),
        ("dataset", _("A dataset: samples × epochs on the benchmark")),
        ("gpu_hours", _("Reference GPU-hours per run")),
    ],
    "job_method": [
        ("full", _("Full training or fine-tuning")),
        ("adapter", _("Adapters only (LoRA)")),
    ],
    "job_precision": [
        ("bf16", _("BF16 mixed precision")),
        ("fp16", _("FP16 mixed precision")),
        ("fp32", _("FP32")),
        ("int8", _("8-bit: base weights (adapters, QLoRA-style) or optimizer states (full)")),
    ],
}
"""The choices of a job row's selects (the values are the engine's)."""

CHOICE_KEYS = frozenset({"kind", "method", "precision"})

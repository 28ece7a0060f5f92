"""Forms of the planner pages. Validation of what was typed only: no database, no engine.

The planner form checks each field and which ones the chosen workload and
box need; turning its data into a plan (resolving the catalog, validating the
explicit scenario) is :func:`webapp.planner.services.plan_from_form`, which
puts any error that names a field back beside that field.
"""

from __future__ import annotations

import json
import re
from typing import Any, cast

from django import forms
from django.forms.renderers import DjangoTemplates as TemplateRenderer
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from costmodel import FieldError, ScenarioError, UnreadableInput, ranges
from costmodel.errors import load_json
from costmodel.paths import get_path
from costmodel.ranges import Range
from costmodel.scenario import MAX_DEMAND_MULTIPLE
from webapp.catalog.pricing_modes import COMMITMENT_MODES, data_attributes
from webapp.planner import formatting
from webapp.planner.choices import CatalogChoices
from webapp.planner.comparison import MAX_COMPARED, MIN_COMPARED
from webapp.planner.fields import (
    BUILD_FIELDS,
    BY_PATH,
    CATALOG_FIELDS,
    EXPLICIT_FIELDS,
    FINANCING_FIELDS,
    LIFE_FIELDS,
    RANGE_ENDS,
    RANGE_ROWS,
    RENT_FIELDS,
    RangeRow,
    ScenarioField,
    tidy,
    to_form,
)
from webapp.planner.permalink import Permalink, PermalinkError, decode
from webapp.scenarios.models import SavedScenario
from webapp.scenarios.selectors import all_saved

ADVANCED_PATHS: tuple[str, ...] = tuple(f.path for f in EXPLICIT_FIELDS)
"""Every scenario field the form has a field of its own for (Advanced, life, loan)."""
PROFILE_MONTHS = 12
MAX_DEMAND_PERCENT = MAX_DEMAND_MULTIPLE * 100
"""Largest utilization the form takes [%]: 800 %, eight boxes' work (hybrid burst)."""

EFFICIENCY = ScenarioField("scaling_efficiency", _("Multi-GPU scaling efficiency"), "fraction")
"""The custom box's scaling efficiency: a fraction in the selection, a percentage in the form."""


def form_name(path: str) -> str:
    """Form field name of an explicit scenario field: ``build.capex`` → ``build__capex``."""
    return path.replace(".", "__")


_ENGINE_BOUNDS = [
    (
        re.compile(r"must be greater than or equal to (\S+)"),
        _("must be greater than or equal to %(limit)s"),
    ),
    (re.compile(r"must be greater than (\S+)"), _("must be greater than %(limit)s")),
    (
        re.compile(r"must be less than or equal to (\S+)"),
        _("must be less than or equal to %(limit)s"),
    ),
    (re.compile(r"must be less than (\S+)"), _("must be less than %(limit)s")),
]
_ENGINE_TEXTS = {
    "is required": _("is required"),
    "must be a finite number": _("must be a finite number"),
}


def _engine_message(message: str) -> str:
    """The engine's English message for a field, in the active language when it is a known one."""
    for pattern, text in _ENGINE_BOUNDS:
        match = pattern.fullmatch(message)
        if match:
            return str(text) % {"limit": match.group(1)}
    return str(_ENGINE_TEXTS.get(message, message))


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


class CompareForm(ErrorTextMixin, forms.Form):
    """The saved scenarios ticked on the saved list (two to four); the list shows its errors."""

    # Any saved scenario may be compared by whoever has its link.
    ids = forms.ModelMultipleChoiceField(
        label=_("Scenarios"),
        queryset=all_saved(),
        required=False,
        error_messages={
            "invalid_choice": _("A ticked scenario no longer exists: %(value)s."),
            "invalid_pk_value": _("“%(pk)s” is not the id of a saved scenario."),
        },
    )

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

MAX_COMMITTED = 100_000
"""Most committed instances a selection may ask for (the resolver's bound)."""


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


def field_hint(field: ScenarioField) -> str | None:
    """The "what to type" message of an explicit field with known bounds (None: the engine's)."""
    if field.low is None or field.high is None:
        return None
    if field.percent:
        return percent_hint(field.low, field.high, field.example)
    if field.unit == "months":
        return months_hint(field.low, field.high)
    return None


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


WORKLOAD_EXAMPLE = _(
    # xgettext:no-python-format (the % is literal, never formatted)
    "80 for a box busy 80 % of the time, 150 for one box busy all the time and half a box "
    "more rented"
)


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
    horizon_months = forms.IntegerField(
        label=_("Horizon [months]"), min_value=1, max_value=240, initial=36
    )
    discount_rate_percent = forms.FloatField(
        label=_("Discount rate per year [%]"),
        min_value=0,
        max_value=100,
        initial=0,
        required=False,
        help_text=_("Only for the present values."),
    )
    workload_kind = forms.ChoiceField(
        label=_("How busy will the box be?"),
        choices=[
            ("steady", _("Steady: the same share of every month")),
            ("tidal", _("Tidal: a few busy days a month")),
            ("profile", _("A 12-month profile")),
        ],
        widget=forms.RadioSelect,
        initial="steady",
    )
    utilization_percent = forms.FloatField(
        label=_("Utilization [%]"),
        min_value=0,
        max_value=MAX_DEMAND_PERCENT,
        initial=80,
        required=False,
        help_text=_(
            "Share of the month the box is busy. Above 100 % the work is more than one box "
            "does: the box runs all month and the rest is rented by the hour (a hybrid plan); "
            "200 % is twice one box's work."
        ),
    )
    active_days_per_month = forms.FloatField(
        label=_("Active days per month"), min_value=0, max_value=31, initial=8, required=False
    )
    hours_per_active_day = forms.FloatField(
        label=_("Busy hours per active day"),
        min_value=0.1,
        max_value=24,
        initial=24,
        required=False,
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
    scaling_efficiency = forms.FloatField(
        label=_("Multi-GPU scaling efficiency [%]"),
        min_value=1,
        max_value=100,
        required=False,
        help_text=_(
            "Speed-up of all GPUs ÷ number of GPUs, in percent; needed for two or more GPUs."
        ),
    )
    cloud_offering = forms.ChoiceField(
        label=_("Cloud offering"), required=False, widget=OfferingSelect
    )
    committed_instances = forms.IntegerField(
        label=_("Committed instances"),
        min_value=0,
        max_value=MAX_COMMITTED,
        required=False,
        help_text=_(
            "Only for a 1- or 3-year commitment: how many instances you reserve, paid for every "
            "hour of the term. Leave empty for the fewest whose hours cover the work."
        ),
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
        workload_hint = percent_hint(0, MAX_DEMAND_PERCENT, WORKLOAD_EXAMPLE)
        for i in range(1, PROFILE_MONTHS + 1):
            self.fields[f"profile_percent_{i}"] = forms.FloatField(
                label=_("Month %(n)d [%%]") % {"n": i},
                min_value=0,
                max_value=MAX_DEMAND_PERCENT,
                initial=80,
                required=False,
                error_messages=_messages(workload_hint),
            )
        self.hints: dict[str, str] = {
            "utilization_percent": workload_hint,
            # xgettext:no-python-format (the % is literal, never formatted)
            "discount_rate_percent": percent_hint(0, 100, _("8 for 8 % a year")),
            # xgettext:no-python-format (the % is literal, never formatted)
            "scaling_efficiency": percent_hint(1, 100, _("90 for 90 %")),
            "horizon_months": months_hint(1, 240),
            "active_days_per_month": number_hint(0, 31, _("8 for eight days")),
            "hours_per_active_day": number_hint(0.1, 24, _("10 for ten hours")),
            "committed_instances": str(
                _(
                    "Enter a whole number of instances, 0 or more (leave it empty for the fewest "
                    "that cover the work)."
                )
            ),
        }
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
            self.fields["cloud_offering"].initial = (
                catalog.default_offering or catalog.offerings[0][1][0][0]
            )
            for name, choices, default in (
                ("tariff", catalog.tariffs, None),
                ("hosting", catalog.hostings, catalog.default_hosting),
                ("benchmark", catalog.benchmarks, catalog.default_benchmark),
            ):
                self.fields[name].initial = default or (choices[0][0] if choices else None)
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
        for f in EXPLICIT_FIELDS:
            self._add_explicit(f)
        for row in RANGE_ROWS:
            self._add_range(row)
        for name, hint in self.hints.items():
            self.fields[name].error_messages.update(_messages(hint))
        self.overrides: list[str] = []

    def _add_explicit(self, f: ScenarioField) -> None:
        name = form_name(f.path)
        label = str(f.label)
        if f.percent:
            label += " [%]"
        elif f.unit == "months":
            label += " " + str(_("[months]"))
        help_text = str(f.help or ADVANCED_UNITS.get(f.unit, ""))
        if f.whole:
            self.fields[name] = forms.IntegerField(
                label=label,
                required=False,
                help_text=help_text,
                min_value=None if f.low is None else int(f.low),
                max_value=MAX_COUNT if f.high is None else int(f.high),
            )
        else:
            self.fields[name] = forms.FloatField(
                label=label,
                required=False,
                help_text=help_text,
                min_value=f.low,
                max_value=f.high,
            )
        hint = field_hint(f)
        if hint:
            self.hints[name] = hint

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
    def profile_fields(self) -> list[forms.BoundField]:
        return [self[f"profile_percent_{i}"] for i in range(1, PROFILE_MONTHS + 1)]

    def part_groups(self) -> list[tuple[str, list[forms.BoundField]]]:
        return [(kind, [self[n] for n in names]) for kind, names in self.part_names]

    def advanced_groups(self) -> list[tuple[str, list[forms.BoundField]]]:
        """Build and rent fields; without a catalog the rent group holds the committed count."""
        groups = [
            (str(title), [self[form_name(f.path)] for f in fields])
            for title, fields in ((_("Build"), BUILD_FIELDS), (_("Rent"), RENT_FIELDS))
        ]
        if self.catalog is None:
            groups[1][1].append(self["committed_instances"])
        return groups

    def life_fields(self) -> list[forms.BoundField]:
        return [self[form_name(f.path)] for f in LIFE_FIELDS]

    def financing_fields(self) -> list[forms.BoundField]:
        return [self[form_name(f.path)] for f in FINANCING_FIELDS]

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
        return name in {form_name(path) for path in self.overrides if path in CATALOG_PATHS}

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
        required = {
            "steady": ["utilization_percent"],
            "tidal": ["active_days_per_month"],
            "profile": [f"profile_percent_{i}" for i in range(1, PROFILE_MONTHS + 1)],
        }.get(kind or "", [])
        for name in required:
            if data.get(name) is None:
                self.add_error(name, _("Enter a value for this workload."))
        loan = [form_name(f.path) for f in FINANCING_FIELDS]
        if any(data.get(name) is not None for name in loan):
            for name in loan[1:]:  # the down payment may stay empty: 0 %
                if data.get(name) is None:
                    self.add_error(
                        name,
                        _("Enter this too to pay for the box with a loan, or empty the loan."),
                    )
        if bool(data.get("use_catalog")) and self.catalog is not None:
            for name in ("cloud_offering", "tariff", "hosting", "benchmark"):
                if not data.get(name):
                    self.add_error(name, _("Choose one."))
            if not self.is_commitment(data.get("cloud_offering")):
                data["committed_instances"] = None  # typed, then another offering chosen
            if data.get("box") == "custom":
                data["parts"] = self.parts_list(data)
                if not data["parts"]:
                    self.add_error("box", _("Enter a quantity for at least one part."))
            elif not data.get("preset"):
                self.add_error("preset", _("Choose a preset."))
        return data

    def add_engine_errors(self, exc: ScenarioError) -> None:
        """Put each error of the resolver or the engine beside the field it names, saying what
        to type when the field has a known range (never "must be less than or equal to 1")."""
        for error in exc.errors:
            target = form_field_for(error)
            if target is not None and target.startswith("range_"):
                message = _range_message(error, self.hints.get(target))
            elif target in self.hints and _BOUND_MESSAGE.search(error.message):
                message = self.hints[target]
            else:
                message = _engine_message(error.message)
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
        return values

    def prefill(self, values: dict[str, Any]) -> None:
        """Show the catalog's ``path → value`` in the explicit fields, except overridden ones."""
        overridden = set(self.overrides)
        for path, value in values.items():
            if path not in overridden:
                self.initial[form_name(path)] = to_form(BY_PATH.get(path), value)

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


CATALOG_PATHS = frozenset(f.path for f in CATALOG_FIELDS)

_BOUND_MESSAGE = re.compile(r"^must be (greater|less) than")


def _range_message(error: FieldError, hint: str | None) -> str:
    """The message beside one end of an uncertainty range."""
    if "must be less than or equal to high" in error.message:
        return str(_("Keep the low value at or below the high one."))
    if "must lie between low and high" in error.message:
        return str(_("Keep the most likely value between the low and the high one."))
    if hint and _BOUND_MESSAGE.search(error.message):
        return hint
    return _engine_message(error.message)


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


_SAME_NAME = {
    "preset",
    "cloud_offering",
    "tariff",
    "hosting",
    "benchmark",
    "horizon_months",
    "currency",
    "scaling_efficiency",
    "committed_instances",
    "workload.active_days_per_month",
    "workload.hours_per_active_day",
}


def form_field_for(error: FieldError) -> str | None:
    """The planner form field an engine or resolver error belongs beside (``None``: the form)."""
    path = error.field
    if path.startswith(("build.", "rent.")) and path in ADVANCED_PATHS:
        return form_name(path)
    if path.startswith("build.financing"):
        return form_name(FINANCING_FIELDS[-1].path)
    if path.startswith(("distributions.", "ranges.")):
        return _range_field_for(path.split(".", 1)[1])
    if path in _SAME_NAME:
        return path.removeprefix("workload.")
    if path == "discount_rate_per_year":
        return "discount_rate_percent"
    if path == "workload.utilization":
        return "utilization_percent"
    if path.startswith("workload.monthly_utilization."):
        index = path.rsplit(".", 1)[-1]
        if index.isdigit() and int(index) < PROFILE_MONTHS:
            return f"profile_percent_{int(index) + 1}"
        return "workload_kind"
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
    """The planner form's initial values that reproduce a permalink's inputs."""
    s = link.scenario
    initial: dict[str, Any] = {
        "name": s.name or "",
        "currency": s.currency,
        "horizon_months": s.horizon_months,
        "discount_rate_percent": s.discount_rate_per_year * 100,
        "workload_kind": s.workload.kind,
        "use_catalog": link.selection is not None,
    }
    w = s.workload.model_dump()
    if w["kind"] == "steady":
        initial["utilization_percent"] = w["utilization"] * 100
    elif w["kind"] == "tidal":
        initial["active_days_per_month"] = w["active_days_per_month"]
        initial["hours_per_active_day"] = w["hours_per_active_day"]
    else:
        values = w["monthly_utilization"]
        for i in range(PROFILE_MONTHS):
            initial[f"profile_percent_{i + 1}"] = values[i % len(values)] * 100
    sel = link.selection or {}
    for name in ("cloud_offering", "tariff", "hosting", "benchmark", "committed_instances"):
        if sel.get(name) is not None:
            initial[name] = sel[name]
    if sel.get("scaling_efficiency") is not None:
        initial["scaling_efficiency"] = to_form(EFFICIENCY, sel["scaling_efficiency"])
    if sel.get("parts"):
        initial["box"] = "custom"
        for line in sel["parts"]:
            initial[f"part__{line['part']}"] = line["quantity"]
    elif sel.get("preset"):
        initial["box"] = "preset"
        initial["preset"] = sel["preset"]
    data = s.model_dump(mode="json")
    for path in ADVANCED_PATHS:
        initial[form_name(path)] = to_form(BY_PATH[path], get_path(data, path))
    if link.ranges:
        initial.update(range_initial(link.ranges))
    return initial

"""Forms of the planner pages. Validation of what was typed only: no database, no engine.

The planner form checks each field and which ones the chosen workload and
box need; turning its data into a plan (resolving the catalog, validating the
explicit scenario) is :func:`webapp.planner.services.plan_from_form`, which
puts any error that names a field back beside that field.
"""

from __future__ import annotations

import re
from typing import Any, cast

from django import forms
from django.forms.renderers import DjangoTemplates as TemplateRenderer
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _

from costmodel import FieldError, ScenarioError, UnreadableInput
from costmodel.errors import load_json
from costmodel.paths import get_path
from webapp.planner.choices import CatalogChoices
from webapp.planner.comparison import MAX_COMPARED, MIN_COMPARED
from webapp.planner.fields import BUILD_FIELDS, RENT_FIELDS
from webapp.planner.permalink import Permalink, PermalinkError, decode
from webapp.scenarios.models import SavedScenario
from webapp.scenarios.selectors import all_saved

ADVANCED_PATHS: tuple[str, ...] = tuple(f.path for f in BUILD_FIELDS + RENT_FIELDS)
PROFILE_MONTHS = 12


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
    # Any saved scenario may be compared by whoever has its link.
    ids = forms.ModelMultipleChoiceField(label=_("Scenarios"), queryset=all_saved())

    def clean_ids(self) -> list[SavedScenario]:
        chosen = list(self.cleaned_data["ids"])
        if not MIN_COMPARED <= len(chosen) <= MAX_COMPARED:
            raise forms.ValidationError(
                _("Choose between %(min)d and %(max)d scenarios to compare."),
                params={"min": MIN_COMPARED, "max": MAX_COMPARED},
            )
        order = {str(pk): i for i, pk in enumerate(cast(QueryDict, self.data).getlist("ids"))}
        return sorted(chosen, key=lambda s: order.get(str(s.pk), 0))


ADVANCED_UNITS = {
    "money": _("In the chosen currency."),
    "money/kWh": _("Per kWh, in the chosen currency."),
    "money/h": _("Per instance-hour, in the chosen currency."),
    "money/month": _("Per month, in the chosen currency."),
    "W": _("Watts at the wall."),
    "fraction": _("A fraction between 0 and 1."),
}


MAX_COUNT = 2**53
"""Largest GPU or instance count the form takes: float64, the engine's number, holds every
integer up to here exactly; a larger one (``2**1100``) is not even a finite float."""


class FieldRenderer(TemplateRenderer):
    """Renders ``{{ field.as_field_group }}`` as the planner's form row: label (with the
    override flag), widget, help text and errors."""

    field_template_name = "planner/field.html"


class PlannerBoundField(forms.BoundField):
    form: PlannerForm

    @property
    def overridden(self) -> bool:
        return self.form.is_overridden(self.name)


class PlannerForm(ErrorTextMixin, forms.Form):
    """The planner: a catalog selection, the workload, and every explicit field under Advanced.

    ``catalog`` is :func:`webapp.planner.choices.catalog_choices` (``None``
    when the catalog is empty: then every Advanced field is required).
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
        label=_("Utilization [%]"), min_value=0, max_value=100, initial=80, required=False
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
        label=_("Multi-GPU scaling efficiency"),
        min_value=0.01,
        max_value=1,
        required=False,
        help_text=_("Speed-up of all GPUs ÷ number of GPUs; needed for two or more GPUs."),
    )
    cloud_offering = forms.ChoiceField(label=_("Cloud offering"), required=False)
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
        for i in range(1, PROFILE_MONTHS + 1):
            self.fields[f"profile_percent_{i}"] = forms.FloatField(
                label=_("Month %(n)d [%%]") % {"n": i},
                min_value=0,
                max_value=100,
                initial=80,
                required=False,
            )
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
        for f in BUILD_FIELDS + RENT_FIELDS:
            unit = f.unit
            label, help_text = str(f.label), str(f.help or ADVANCED_UNITS.get(unit, ""))
            self.fields[form_name(f.path)] = (
                forms.IntegerField(
                    label=label, required=False, help_text=help_text, max_value=MAX_COUNT
                )
                if unit == "int"
                else forms.FloatField(label=label, required=False, help_text=help_text)
            )
        self.overrides: list[str] = []

    # -- layout helpers for the template ----------------------------------------------------
    def profile_fields(self) -> list[forms.BoundField]:
        return [self[f"profile_percent_{i}"] for i in range(1, PROFILE_MONTHS + 1)]

    def part_groups(self) -> list[tuple[str, list[forms.BoundField]]]:
        return [(kind, [self[n] for n in names]) for kind, names in self.part_names]

    def advanced_groups(self) -> list[tuple[str, list[forms.BoundField]]]:
        return [
            (str(title), [self[form_name(f.path)] for f in fields])
            for title, fields in ((_("Build"), BUILD_FIELDS), (_("Rent"), RENT_FIELDS))
        ]

    def is_overridden(self, name: str) -> bool:
        """Whether the field ``name`` holds a value the user typed over the catalog's."""
        return name in {form_name(path) for path in self.overrides}

    # -- validation -------------------------------------------------------------------------
    def shown_values(self) -> dict[str, Any]:
        """The hidden field's ``path → value`` map; anything else in it is ignored.

        The field only tells which Advanced values were prefilled, so a
        tampered one (not JSON, nested 100 000 deep, a list) costs the visitor
        nothing but that hint: it is read as empty.
        """
        try:
            data = load_json(self.cleaned_data.get("basis") or "{}")
        except UnreadableInput:
            return {}
        return data if isinstance(data, dict) else {}

    def uses_catalog(self) -> bool:
        return bool(self.cleaned_data.get("use_catalog")) and self.catalog is not None

    def _parts(self, values: dict[str, Any]) -> list[dict[str, Any]]:
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
        if bool(data.get("use_catalog")) and self.catalog is not None:
            for name in ("cloud_offering", "tariff", "hosting", "benchmark"):
                if not data.get(name):
                    self.add_error(name, _("Choose one."))
            if data.get("box") == "custom":
                data["parts"] = self._parts(data)
                if not data["parts"]:
                    self.add_error("box", _("Enter a quantity for at least one part."))
            elif not data.get("preset"):
                self.add_error("preset", _("Choose a preset."))
        return data

    def add_engine_errors(self, exc: ScenarioError) -> None:
        """Put each error of the resolver or the engine beside the field it names."""
        for error in exc.errors:
            target = form_field_for(error)
            message = _engine_message(error.message)
            if not target:
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
            values["parts"] = self._parts(values)
        return values

    def prefill(self, values: dict[str, Any], basis: str) -> None:
        """Show the catalog's ``path → value`` in the Advanced fields, except overridden ones."""
        self.initial["basis"] = basis
        overridden = set(self.overrides)
        for path, value in values.items():
            if path not in overridden:
                self.initial[form_name(path)] = value


_SAME_NAME = {
    "preset",
    "cloud_offering",
    "tariff",
    "hosting",
    "benchmark",
    "horizon_months",
    "currency",
    "scaling_efficiency",
    "workload.active_days_per_month",
    "workload.hours_per_active_day",
}


def form_field_for(error: FieldError) -> str | None:
    """The planner form field an engine or resolver error belongs beside (``None``: the form)."""
    path = error.field
    if path.startswith(("build.", "rent.")) and path in ADVANCED_PATHS:
        return form_name(path)
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
    for name in ("cloud_offering", "tariff", "hosting", "benchmark", "scaling_efficiency"):
        if sel.get(name) is not None:
            initial[name] = sel[name]
    if sel.get("parts"):
        initial["box"] = "custom"
        for line in sel["parts"]:
            initial[f"part__{line['part']}"] = line["quantity"]
    elif sel.get("preset"):
        initial["box"] = "preset"
        initial["preset"] = sel["preset"]
    data = s.model_dump(mode="json")
    for path in ADVANCED_PATHS:
        initial[form_name(path)] = get_path(data, path)
    return initial

"""Forms of the planner pages. Validation of what was typed only: no database, no engine.

The planner form checks each field and which ones the chosen workload and
box need; turning its data into a plan (resolving the catalog, validating the
explicit scenario) is :func:`webapp.planner.services.plan_from_form`, which
puts any error that names a field back beside that field.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any, cast

from django import forms
from django.db.models import QuerySet
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _

from costmodel import ScenarioError, UnreadableInput, ranges
from costmodel.errors import load_json
from costmodel.ranges import Range
from costmodel.training import DEFAULT_MFU
from webapp import formatting
from webapp.catalog.pricing_modes import COMMITMENT_MODES
from webapp.planner.choices import CatalogChoices
from webapp.planner.comparison import MAX_COMPARED, MIN_COMPARED
from webapp.planner.fields import (
    BY_PATH,
    FINANCING_FIELDS,
    JOB_FIELDS,
    RANGE_ENDS,
    RANGE_ROWS,
    REGISTRY,
    TYPED_FIELDS,
    RangeRow,
    ScenarioField,
    to_form,
)
from webapp.planner.form_errors import BOUND_CODES, engine_message, form_field_for
from webapp.planner.form_fields import (
    ADVANCED_UNITS,
    CATALOG_PATHS,
    DEFAULT_CHOICE,
    DEFAULTED_CHOICES,
    FieldRenderer,
    OfferingSelect,
    PlannerBoundField,
    bound_messages,
    choice_label,
    committed_text,
    field_hint,
    listed_choices,
    number_field,
    number_hint,
    percent_hint,
    range_name,
)
from webapp.planner.form_initial import range_initial, reopen_url
from webapp.planner.jobs import (
    JOB_ROWS,
    KIND_NEEDS,
    SHOWN_JOB_ROWS,
    DescribedJob,
    MemoryRefusal,
    parse_runs,
)
from webapp.planner.permalink import PermalinkError, decode
from webapp.scenarios.models import SavedScenario
from webapp.scenarios.selectors import all_saved, can_view
from webapp.security import not_visible_error


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

    def clean(self, value: Any) -> Any:
        if isinstance(value, list | tuple) and self.queryset is not None:
            self.refuse_unseen(value, self.queryset)
        return super().clean(value)

    def refuse_unseen(self, value: Sequence[Any], queryset: QuerySet[SavedScenario]) -> None:
        """Refuse the first id given (in order) that names nothing this viewer may see."""
        valid = []
        for given in value:
            try:
                valid.append(uuid.UUID(str(given)))
            except ValueError:
                pass
        found = {str(item.pk): item for item in queryset.filter(pk__in=valid)}
        for given in value:  # the first unseen in the order given, whatever makes it unseen
            try:
                item = found.get(str(uuid.UUID(str(given))))
            except ValueError:
                item = None
            if item is None or not can_view(item, self.viewer):
                raise not_visible_error(given)


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
                field.choices = [("", str(DEFAULT_CHOICE)), *listed_choices(field)]
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
        for f in REGISTRY:
            if f.unit == "bool":  # a tick box of the registry
                self.fields[f.name] = forms.BooleanField(
                    label=str(f.label), help_text=str(f.help), required=False, initial=f.initial
                )
        for f in JOB_FIELDS:
            self._add_job_input(f)
        for row in RANGE_ROWS:
            self._add_range(row)
        for name, hint in self.hints.items():
            self.fields[name].error_messages.update(bound_messages(hint))
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
            self.fields[name] = number_field(f, label, help_text)
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
                field = number_field(f, str(f.label), str(f.help))
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
        if refusal.rent_capacity_gb is None:
            message = (
                _(
                    "“%(job)s” needs about %(needed)s GB of GPU memory to train; this box has "
                    "%(capacity)s GB. Building this box is refused for this job."
                )
                % values
            )
        else:  # nothing the plan may use holds it: not the box, not the cloud instance
            values["rent"] = formatting.number(refusal.rent_capacity_gb)
            message = (
                _(
                    "“%(job)s” needs about %(needed)s GB of GPU memory to train; this box has "
                    "%(capacity)s GB and the cloud instance %(rent)s GB. Nothing this plan may "
                    "use holds it."
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
        offering = None
        if refusal.next_offering is not None:
            offering = {
                "slug": refusal.next_offering,
                "name": refusal.next_offering_name,
                "capacity": formatting.number(refusal.next_offering_capacity_gb),
            }
        self.memory_refusal = {"message": message, "offer": offer, "offering": offering}

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
        return {
            **values,
            "parts": self.parts_list(values) if values.get("box") == "custom" else None,
            "committed_instances": (
                values.get("committed_instances")
                if self.is_commitment(values.get("cloud_offering"))
                else None
            ),
            "jobs": self.initial.get("jobs") or [],
        }

    def selection_data(self) -> dict[str, Any]:
        """The cleaned data as the catalog selection reads it, with a custom box's parts list
        also when another field is invalid (:meth:`clean` then stops before making it)."""
        data = self.cleaned_data
        if data.get("box") != "custom":
            return data
        return {**data, "parts": self.parts_list(data)}

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
                self.defaulted[name] = self.defaulted_hint(name, value, reason)

    def defaulted_hint(self, name: str, value: Any, reason: str) -> str:
        """``Default: <the choice's label> — <why>``: what a choice left to the catalog says."""
        shown = choice_label(cast(forms.ChoiceField, self.fields[name]), value)
        return _("Default: %(choice)s — %(reason)s") % {"choice": shown, "reason": reason}

    def prefill_ranges(self, ranges: list[Range]) -> None:
        """Show ``ranges`` in the uncertainty fields (in the form's units)."""
        self.initial.update(range_initial(ranges))

    def set_basis(self, basis: dict[str, Any]) -> None:
        """Remember what was prefilled (``path → value``, scenario units) in the hidden field."""
        self.initial["basis"] = json.dumps(basis)


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

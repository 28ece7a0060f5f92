"""Measured usage in the planner: an uploaded log becomes the plan's 12-month profile.

Step 1, :class:`UploadForm`: a file and its format, read by
:mod:`costmodel.usage` into GPU-hours per month. Step 2, :class:`ProfileForm`:
which GPU did the measured work, the box to build, the cloud offering and an
optional yearly growth; :func:`plan_from_usage` turns the months into the
profile workload for that box (:func:`costmodel.usage.profile_from_usage`),
resolves the catalog selection like the planner form does
(:func:`webapp.planner.services.make_plan`) and records where the workload
came from in the plan's provenance, so the results page says so.

Nothing of the uploaded file is kept: between the steps the page carries the
monthly totals only, signed (:mod:`django.core.signing`), and the plan keeps
the profile; a scenario is stored only when the user saves it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, cast

from django import forms
from django.core import signing
from django.core.files.uploadedfile import UploadedFile
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from costmodel import FieldError, ScenarioError
from costmodel.usage import MeasuredUsage, UsageProfile, profile_from_usage
from webapp import formatting
from webapp.catalog.models import GpuModel, GpuThroughput
from webapp.notices import month_above_limit_text, reader_error_text
from webapp.planner import usage_box
from webapp.planner.choices import CatalogChoices
from webapp.planner.chosen import Chosen, chosen_for_you
from webapp.planner.fields import DEFAULT_COST_OF_CAPITAL, PROFILE_MONTHS
from webapp.planner.form_fields import DEFAULT_CHOICE, FieldRenderer
from webapp.planner.permalink import Permalink, encode_link
from webapp.planner.plan_input import PlanInput, read_plan_input
from webapp.planner.services import make_plan
from webapp.planner.usage_box import UsageBox, box_for_usage
from webapp.usage.services import body_limit, file_content, measured_usage

SALT = "planner.usage.v1"
CUSTOM_BOX_LABEL = _("A custom box of the measured GPUs (model and count from the file)")

FORMAT_CHOICES = [
    ("nvidia-smi", _("nvidia-smi log (CSV)")),
    ("dcgm-prometheus", _("DCGM GPU utilization from Prometheus (query_range JSON)")),
    ("slurm-sacct", _("Slurm accounting (sacct -a -X -P --format=JobID,Start,End,AllocTRES)")),
    ("aws-cur", _("AWS Cost and Usage Report (CSV)")),
    ("focus", _("FOCUS cost and usage export of any cloud: AWS, Azure, Google Cloud (CSV)")),
]
FORMAT_LABELS = dict(FORMAT_CHOICES)


def upload_limit() -> int:
    """Largest file accepted [bytes]: the request body limit, ``DJANGO_MAX_BODY_BYTES``."""
    return body_limit()


def limit_text() -> str:
    """The upload limit in words: ``16 MB``."""
    return gettext("%(size)s MB") % {"size": formatting.number(upload_limit() / 1024 / 1024)}


def too_large_message() -> str:
    return gettext("The file is larger than the limit of %(limit)s.") % {"limit": limit_text()}


def unreadable_message(exc: ScenarioError, skip: str = "") -> str:
    """What the reader could not read (naming the line), in the active language; errors on
    the field ``skip`` left out (they are shown beside it)."""
    details = gettext("; ").join(reader_error_text(e) for e in exc.errors if e.field != skip)
    return gettext("The file could not be read: %(details)s") % {"details": details}


class UploadForm(forms.Form):
    default_renderer = FieldRenderer
    format = forms.ChoiceField(label=_("What the file is"), choices=FORMAT_CHOICES)
    file = forms.FileField(label=_("File"), allow_empty_file=True)
    columns = forms.CharField(
        label=_("Fields, for a file without a header line"),
        required=False,
        max_length=2000,
        help_text=_(
            "In the order the file has them: sacct's --format fields "
            "(jobid,start,end,alloctres) or xdmod for Open XDMoD's export; nvidia-smi's "
            "--query-gpu fields (timestamp,index,name,utilization.gpu)."
        ),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        upload = cast(UploadedFile | None, data.get("file"))
        if upload is None or "format" not in data:
            return data
        if (upload.size or 0) > upload_limit():
            self.add_error("file", too_large_message())
            return data
        try:
            text = file_content(upload.read())
            data["usage"] = measured_usage(data["format"], text, data.get("columns"))
        except ScenarioError as exc:
            on_columns = [e for e in exc.errors if e.field == "columns"]
            if on_columns:
                self.add_error("columns", "; ".join(reader_error_text(e) for e in on_columns))
            if len(on_columns) < len(exc.errors):
                self.add_error("file", unreadable_message(exc, skip="columns"))
        return data


def sign_usage(format: str, usage: MeasuredUsage) -> str:
    return signing.dumps({"f": format, "u": usage.model_dump()}, salt=SALT, compress=True)


def unsign_usage(token: str) -> tuple[str, MeasuredUsage]:
    """Raises :class:`django.core.signing.BadSignature` for a token this app did not make."""
    data = signing.loads(token, salt=SALT)
    return str(data["f"]), MeasuredUsage.model_validate(data["u"])


def _tokens(name: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", name.lower())) - {"nvidia", "geforce", "tesla"}


def guess_gpu(names: list[str], gpus: list[tuple[str, str]]) -> str | None:
    """The catalog GPU (slug) whose name best matches the file's GPU names, if one does.

    ``NVIDIA A100-SXM4-80GB`` matches ``A100 80GB SXM4``; ``NVIDIA GeForce RTX 4090``
    matches ``RTX 4090 24GB``. The model number (the first word with a digit)
    must match; then the most words in common, then the fewest words left over.
    """
    best: tuple[int, int] | None = None
    choice = None
    for name in names:
        found = _tokens(name)
        for slug, label in gpus:
            wanted = _tokens(label)
            number = next(
                (t for t in sorted(wanted, key=label.lower().find) if re.search(r"\d", t)), None
            )
            if number is None or number not in found:
                continue
            score = (len(wanted & found), -len(wanted - found))
            if best is None or score > best:
                best, choice = score, slug
    return choice


def gpu_choices() -> list[tuple[str, str]]:
    return [(g.slug, g.localized_name()) for g in GpuModel.objects.order_by("vendor", "name")]


class ProfileForm(forms.Form):
    default_renderer = FieldRenderer
    usage = forms.CharField(widget=forms.HiddenInput)
    measured_gpu = forms.ChoiceField(
        label=_("GPU that did the measured work"),
        help_text=_("Its throughput on the benchmark converts the GPU-hours into your box's."),
    )
    growth_percent = forms.FloatField(
        label=_("Yearly growth of the work [%]"),
        min_value=-90,
        max_value=300,
        initial=0,
        required=False,
        help_text=_("20 for 20 % more work each year; 0 to plan for what was measured."),
    )
    preset = forms.ChoiceField(label=_("Box to build"))
    benchmark = forms.ChoiceField(label=_("Benchmark for throughput"))
    cloud_offering = forms.ChoiceField(label=_("Cloud offering"))
    currency = forms.ChoiceField(
        label=_("Currency"), choices=[("CNY", _("CNY (¥)")), ("USD", _("USD ($)"))], initial="CNY"
    )
    horizon_months = forms.IntegerField(
        label=_("Horizon [months]"), min_value=1, max_value=240, initial=36
    )

    def __init__(self, *args: Any, catalog: CatalogChoices, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.catalog = catalog
        self.guessed: str | None = None
        fields = self.fields
        self.gpus = gpu_choices()
        cast(forms.ChoiceField, fields["measured_gpu"]).choices = self.gpus
        cast(forms.ChoiceField, fields["preset"]).choices = catalog.presets
        cast(forms.ChoiceField, fields["benchmark"]).choices = catalog.benchmarks
        # Left to the resolver, as on the planner form: it fits the box and the currency.
        cast(forms.ChoiceField, fields["cloud_offering"]).choices = [
            ("", str(DEFAULT_CHOICE)),
            *catalog.offerings,
        ]
        fields["preset"].initial = catalog.presets[0][0]
        fields["benchmark"].initial = catalog.default_benchmark or catalog.benchmarks[0][0]
        fields["cloud_offering"].initial = ""
        fields["cloud_offering"].required = False
        self._custom_choice(str(CUSTOM_BOX_LABEL))

    def _custom_choice(self, label: str) -> None:
        """The custom box of the file's GPUs, first among the boxes."""
        field = cast(forms.ChoiceField, self.fields["preset"])
        field.choices = [(usage_box.CUSTOM, label), *self.catalog.presets]

    def preselect_gpu(self, usage: MeasuredUsage) -> None:
        """Pre-select the GPU the file names, when the catalog has it, and the box of that GPU
        model and count (:func:`webapp.planner.usage_box.box_for_usage`): its preset, or a
        custom box of those GPUs."""
        self.guessed = guess_gpu(usage.gpu_models, self.gpus)
        if self.guessed:
            self.initial["measured_gpu"] = self.guessed
        box = box_for_usage(self.guessed, usage.gpus)
        if box is None:
            return
        self.initial["preset"] = box.preset or usage_box.CUSTOM
        if box.preset is None:
            self._custom_choice(box.label())

    def usage_data(self) -> tuple[str, MeasuredUsage] | None:
        """The signed months the form carries (``None`` if missing or altered)."""
        token = self.data.get("usage") if self.is_bound else self.initial.get("usage")
        try:
            return unsign_usage(str(token or ""))
        except (signing.BadSignature, KeyError, TypeError, ValueError):
            return None


@dataclass(frozen=True)
class MeasuredPlan:
    profile: UsageProfile
    code: str
    """The results permalink of the plan."""
    chosen: list[Chosen]
    """What the catalog chose for the plan (the tariff and hosting), and why."""


def _planner_input(
    data: dict[str, Any], monthly_utilization: list[float], box: UsageBox | None = None
) -> PlanInput:
    """The planner's input for this choice and profile, read as from the planner form's
    cleaned data (tariff and hosting left to the catalog, which picks them for the box and
    the currency); ``box``: the custom box of the file's GPUs, when that is the choice."""
    values: dict[str, Any] = {
        "box": "preset",
        "preset": data["preset"],
        "cloud_offering": data["cloud_offering"],
        "tariff": "",
        "hosting": "",
        "benchmark": data["benchmark"],
        "currency": data["currency"],
        "horizon_months": data["horizon_months"],
        "discount_rate_percent": DEFAULT_COST_OF_CAPITAL * 100,  # the planner's default
        "committed_instances": None,
        "workload_kind": "profile",
        "name": "",
    }
    for i in range(PROFILE_MONTHS):
        values[f"profile_percent_{i + 1}"] = monthly_utilization[i] * 100
    if box is not None and box.preset is None:
        values.update({"box": "custom", "parts": box.parts})
        if box.scaling_efficiency is not None:
            values["scaling_efficiency"] = box.scaling_efficiency * 100
    return read_plan_input(values, use_catalog=True)


def _throughput(gpu: str, benchmark: str) -> float:
    row = GpuThroughput.objects.filter(gpu_model__slug=gpu, benchmark__slug=benchmark).first()
    if row is None:
        raise ScenarioError(
            [
                FieldError(
                    "measured_gpu",
                    gettext(
                        "The catalog has no throughput of this GPU on this benchmark; choose "
                        "another benchmark or GPU."
                    ),
                )
            ]
        )
    return float(row.relative_throughput)


def _provenance(
    format: str, usage: MeasuredUsage, profile: UsageProfile, gpu: str, growth: float
) -> dict[str, Any]:
    """The plan's record of where its workload came from (shown with the inputs)."""
    filled = [m for m, f in zip(profile.months, profile.filled, strict=True) if f]
    days = sum(usage.observed_hours) / 24.0
    label = gettext("Measured usage: %(format)s, %(first)s to %(last)s, %(gpus)d GPUs") % {
        "format": FORMAT_LABELS[format],
        "first": usage.months[0],
        "last": usage.months[-1],
        "gpus": usage.gpus,
    }
    note = gettext(
        "GPU-hours per calendar month measured on %(gpu)s, converted to this box's throughput; "
        "growth %(growth)s a year."
    ) % {"gpu": gpu, "growth": formatting.percent(growth)}
    if filled:
        note += " " + gettext(
            "Months not measured, filled with the measured average: %(months)s."
        ) % {"months": ", ".join(filled)}
    return {
        "role": "measured usage",
        "label": label,
        "model": "usage",
        "natural_key": [],
        "fields": ["workload.monthly_utilization"],
        "source": gettext("the uploaded file (not kept)"),
        "estimate": bool(filled),
        "note": note,
        # how little is known: the decision (webapp.decided) and the page read these
        "observed_days": days,
        "filled_months": len(filled),
        "profile_months": len(profile.months),
    }


def plan_from_usage(form: ProfileForm) -> MeasuredPlan | None:
    """The profile and results permalink of a valid :class:`ProfileForm`, or ``None`` with
    the errors put on the form."""
    if not form.is_valid():
        return None
    carried = form.usage_data()
    if carried is None:
        form.add_error(None, gettext("The measured months were altered; upload the file again."))
        return None
    format, usage = carried
    data = form.cleaned_data
    growth = (data.get("growth_percent") or 0.0) / 100
    custom = None
    if data["preset"] == usage_box.CUSTOM:
        custom = box_for_usage(data["measured_gpu"], usage.gpus)
        if custom is None:
            form.add_error(
                "preset",
                gettext("The catalog has no GPU card of this model: choose a preset."),
            )
            return None
    try:
        box = make_plan(_planner_input(data, [1.0] * PROFILE_MONTHS, custom))
        profile = profile_from_usage(
            usage,
            measured_gpu_throughput=_throughput(data["measured_gpu"], data["benchmark"]),
            box_gpu_count=box.scenario.build.gpu_count,
            box_gpu_throughput=box.scenario.build.gpu_throughput,
            growth_per_year=growth,
        )
        plan = make_plan(_planner_input(data, profile.monthly_utilization, custom))
    except ScenarioError as exc:
        for error in exc.errors:
            field = {"growth_per_year": "growth_percent"}.get(error.field, error.field)
            message = error.message if field in form.fields else str(error)
            if field.startswith("workload."):
                field = "preset"  # more work than eight boxes: a bigger box is the fix
                message = gettext(
                    "More work in a month than eight of these boxes do: choose a bigger box "
                    "(%(details)s)."
                ) % {"details": month_above_limit_text(error)}
            form.add_error(field if field in form.fields else None, message)
        return None
    gpu_name = dict(form.gpus)[data["measured_gpu"]]
    provenance = [*plan.provenance, _provenance(format, usage, profile, str(gpu_name), growth)]
    link = Permalink(plan.scenario, provenance, plan.overrides, plan.selection, plan.ranges)
    return MeasuredPlan(profile=profile, code=encode_link(link), chosen=chosen_for_you(link))


def chart_data(usage: MeasuredUsage) -> dict[str, Any]:
    """What the page's chart shows, with its labels in the active language."""
    return {
        "months": usage.months,
        "gpu_hours": usage.gpu_hours,
        "observed_hours": usage.observed_hours,
        "labels": {
            "title": gettext("Busy GPU-hours per month, and hours observed"),
            "gpu_hours": gettext("Busy GPU-hours"),
            "observed_hours": gettext("Hours observed"),
            "hours": gettext("Hours"),
        },
    }


def profile_rows(profile: UsageProfile) -> list[dict[str, Any]]:
    return [
        {
            "month": month,
            "utilization": formatting.percent(value, 1),
            "filled": filled,
            "measured": measured,
        }
        for month, value, filled, measured in zip(
            profile.months,
            profile.monthly_utilization,
            profile.filled,
            profile.measured_months,
            strict=True,
        )
    ]

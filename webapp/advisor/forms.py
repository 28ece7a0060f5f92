"""The sizing advisor's form: the fields a person knows about a training job.

Bounds and choices come from :class:`costmodel.sizing.AdvisorInput`; the form
validates through it and puts each message beside the field it names.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from pydantic import ValidationError

from costmodel import field_errors
from costmodel.sizing import AdvisorInput

PRECISION_CHOICES = [
    ("fp16", _("FP16 mixed precision")),
    ("bf16", _("BF16 mixed precision")),
    ("fp32", _("FP32")),
    ("int8", _("INT8 (8-bit optimizer states)")),
]


class AdvisorForm(forms.Form):
    parameters_billion = forms.FloatField(
        label=_("Model size [billion parameters]"),
        help_text=_("ResNet-50 ≈ 0.025, BERT-base ≈ 0.11, a 7B language model = 7."),
        widget=forms.NumberInput(attrs={"step": "any", "min": "0"}),
    )
    dataset_gb = forms.FloatField(
        label=_("Dataset size [GB]"),
        widget=forms.NumberInput(attrs={"step": "any", "min": "0"}),
    )
    precision = forms.ChoiceField(label=_("Training precision"), choices=PRECISION_CHOICES)
    multi_gpu = forms.BooleanField(label=_("We want several GPUs in one box"), required=False)
    nvlink = forms.BooleanField(label=_("We want NVLink between the GPUs"), required=False)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.errors:
            return cleaned
        try:
            self.job = AdvisorInput.model_validate(cleaned)
        except ValidationError as exc:
            for error in field_errors(exc):
                name = error.field if error.field in self.fields else None
                self.add_error(name, _message(error.message))
        return cleaned


def _message(message: str) -> str:
    if message == "must be greater than 0":
        return str(_("Must be greater than 0."))
    if message == "must be greater than or equal to 0":
        return str(_("Must be 0 or more."))
    if message.startswith("must be less than or equal to"):
        return str(_("This is too large."))
    return message

"""Forms of the planner pages. Validation only: figures come from the engine."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from webapp.planner.comparison import MAX_COMPARED, MIN_COMPARED
from webapp.planner.models import SavedScenario
from webapp.planner.permalink import PermalinkError, decode


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
    ids = forms.ModelMultipleChoiceField(label=_("Scenarios"), queryset=SavedScenario.objects.all())

    def clean_ids(self) -> list[SavedScenario]:
        chosen = list(self.cleaned_data["ids"])
        if not MIN_COMPARED <= len(chosen) <= MAX_COMPARED:
            raise forms.ValidationError(
                _("Choose between %(min)d and %(max)d scenarios to compare."),
                params={"min": MIN_COMPARED, "max": MAX_COMPARED},
            )
        order = {str(pk): i for i, pk in enumerate(self.data.getlist("ids"))}
        return sorted(chosen, key=lambda s: order.get(str(s.pk), 0))

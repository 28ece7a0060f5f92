from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from webapp.accounts.models import Team
from webapp.accounts.selectors import teams_of


class ShareForm(forms.Form):
    """The team a saved scenario is shared with: one of its owner's teams, or none."""

    team = forms.ModelChoiceField(
        label=_("Shared with"),
        queryset=Team.objects.none(),
        required=False,
        empty_label=_("Only me (not shared)"),
    )

    def __init__(self, *args: Any, owner: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["team"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = teams_of(owner)

from __future__ import annotations

from typing import Any, get_args

from django import forms
from django.utils.translation import gettext_lazy as _

from webapp.accounts.models import Team
from webapp.accounts.selectors import teams_of
from webapp.scenarios.selectors import ListFilter, Sort


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


SORT_CHOICES = [
    ("-date", _("Newest first")),
    ("date", _("Oldest first")),
    ("name", _("Name, A to Z")),
    ("-name", _("Name, Z to A")),
]


class SavedListForm(forms.Form):
    """The saved list's filters and order (a GET form); a value that does not validate is
    shown as an error and left out, the list shown as if it were not given."""

    mine = forms.BooleanField(label=_("Mine only"), required=False)
    team = forms.TypedChoiceField(label=_("Team"), coerce=int, required=False, empty_value=None)
    changed = forms.BooleanField(label=_("Changed at today's prices"), required=False)
    sort = forms.ChoiceField(label=_("Order"), choices=SORT_CHOICES, required=False)

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # the user's teams by name, read once (one may be in hundreds of them)
        teams = list(teams_of(user).order_by("group__name").values_list("pk", "group__name"))
        field = self.fields["team"]
        assert isinstance(field, forms.TypedChoiceField)
        field.choices = [("", _("Any")), *teams]
        self.has_teams = bool(teams)
        self.signed_in = bool(user is not None and user.is_authenticated)

    def list_filter(self) -> ListFilter:
        """The filter of the valid fields (the others at their defaults)."""
        self.is_valid()
        data = getattr(self, "cleaned_data", {})
        team: int | None = data.get("team")
        sort: Sort = "-date"
        for choice in get_args(Sort):
            if data.get("sort") == choice:
                sort = choice
        return ListFilter(
            mine=bool(data.get("mine")),
            team_id=team,
            changed=bool(data.get("changed")),
            sort=sort,
        )

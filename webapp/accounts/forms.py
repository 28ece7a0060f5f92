"""Forms of the account pages (sign-up is Django's UserCreationForm with an email)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import Group, User
from django.utils.translation import gettext_lazy as _

from webapp.accounts.models import Invitation, Team
from webapp.accounts.selectors import pending_invitations


class SignUpForm(UserCreationForm):
    """Username, email (for password reset) and password twice, checked by Django's validators."""

    email = forms.EmailField(
        label=_("Email"), help_text=_("Used only to send you a password reset link.")
    )

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def clean_email(self) -> str:
        # One account per address: a password reset link goes to every account that has it.
        email: str = self.cleaned_data["email"]
        if User.objects.filter(email__iexact=email).exists():
            raise forms.ValidationError(_("An account with this email address already exists."))
        return email


class TeamForm(forms.Form):
    name = forms.CharField(label=_("Team name"), max_length=150)

    def clean_name(self) -> str:
        name: str = self.cleaned_data["name"].strip()
        if not name:
            raise forms.ValidationError(_("Enter a name."))
        if Group.objects.filter(name=name).exists():
            raise forms.ValidationError(_("A team with this name already exists."))
        return name


class InvitationForm(forms.Form):
    """A new invitation link; with an address, it is also sent there by email, in the language
    chosen (the page's unless another is)."""

    email = forms.EmailField(
        label=_("Send it to (optional)"),
        required=False,
        help_text=_("Leave empty to only show the link here."),
    )
    language = forms.ChoiceField(
        label=_("Language of the email"), choices=settings.LANGUAGES, required=False
    )


class TokenForm(forms.Form):
    name = forms.CharField(
        label=_("Token name"),
        max_length=100,
        help_text=_("What the token is for, e.g. “nightly report script”."),
    )


class MemberForm(forms.Form):
    """One member of ``team``: whom a team admin removes, or gives or takes admin rights."""

    member = forms.ModelChoiceField(queryset=User.objects.none(), label=_("Member"))

    def __init__(self, *args: Any, team: Team, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["member"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = team.group.user_set.all()


class InvitationRevokeForm(forms.Form):
    """One unused invitation into ``team``, to revoke."""

    invitation = forms.ModelChoiceField(queryset=Invitation.objects.none(), label=_("Invitation"))

    def __init__(self, *args: Any, team: Team, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["invitation"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = pending_invitations(team)

"""Saved scenarios: an explicit scenario frozen with its provenance.

A saved scenario stores the explicit scenario (the engine's input) rather than
catalog references, so later price changes in the catalog never alter it;
re-running at today's prices makes a new one.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class SavedScenario(models.Model):
    """One named build-vs-rent comparison, owned by a user or an anonymous browser session.

    A user's scenario is seen by its owner, the members of its team (if shared
    with one) and staff; an anonymous one by whoever has its link.
    """

    # A random UUID: the link is the capability to view, so it must be unguessable.
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(_("name"), max_length=200)
    scenario = models.JSONField(
        _("explicit scenario"),
        help_text=_("The engine input, as Scenario.model_dump(mode='json')."),
    )
    provenance = models.JSONField(
        _("provenance"),
        default=list,
        blank=True,
        help_text=_("Catalog rows, prices, sources and dates behind each scenario field."),
    )
    overrides = models.JSONField(
        _("overrides"),
        default=list,
        blank=True,
        help_text=_("Dotted scenario field paths whose value the user typed in."),
    )
    selection = models.JSONField(
        _("catalog selection"),
        null=True,
        blank=True,
        help_text=_(
            "The catalog choices the scenario was resolved from (presets, offering, tariff…), "
            "so it can be re-run at later prices; empty for scenarios entered by hand."
        ),
    )
    ranges = models.JSONField(
        _("uncertainty ranges"),
        null=True,
        blank=True,
        help_text=_(
            "The low / most likely / high values the user chose for the uncertainty analysis, "
            "as a list of {path, low, mode, high}; only those that differ from the scenario's "
            "defaults. Empty: the defaults."
        ),
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("owner"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="saved_scenarios",
    )
    team = models.ForeignKey(
        "accounts.Team",
        verbose_name=_("team"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="saved_scenarios",
        help_text=_("The team whose members see and compare it; empty: only its owner."),
    )
    session_key = models.CharField(_("session key"), max_length=40, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("saved scenario")
        verbose_name_plural = _("saved scenarios")
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["session_key"], name="scenarios_saved_session_idx")]

    def __str__(self) -> str:
        return self.name

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

    # The decision its results page states, kept so that lists never run the engine per row
    # (webapp.scenarios.decisions); computed when it is saved and when its analyses have run.
    decision_code = models.CharField(
        _("verdict"),
        max_length=20,
        blank=True,
        help_text=_("The verdict code of its results page (build, rent, close_call…)."),
    )
    decision_present_value_savings = models.FloatField(
        _("present value of the savings"), null=True, blank=True
    )
    decision_savings = models.FloatField(_("savings of building"), null=True, blank=True)
    decision_probability_agreeing = models.FloatField(
        _("share of draws agreeing"),
        null=True,
        blank=True,
        help_text=_("Share of the uncertainty analysis' draws in which the verdict holds."),
    )
    decision_computed_at = models.DateTimeField(_("decision computed at"), null=True, blank=True)

    analysed_at = models.DateTimeField(
        _("analyses run at"),
        null=True,
        blank=True,
        help_text=_("When the analyses of its results page (the Monte Carlo…) last ran."),
    )

    # The same decision at today's catalog prices (re-priced by a background task after the
    # catalog changes); only for a scenario resolved from the catalog.
    today_code = models.CharField(_("verdict at today's prices"), max_length=20, blank=True)
    today_present_value_savings = models.FloatField(
        _("present value of the savings at today's prices"), null=True, blank=True
    )
    today_savings = models.FloatField(
        _("savings of building at today's prices"), null=True, blank=True
    )
    today_problem = models.TextField(
        _("why it cannot be priced today"),
        blank=True,
        help_text=_("Set when the catalog can no longer price it (an offering withdrawn…)."),
    )
    today_computed_at = models.DateTimeField(
        _("re-priced at"), null=True, blank=True, db_index=True
    )
    today_catalog_version = models.CharField(
        _("catalog version re-priced at"),
        max_length=40,
        blank=True,
        help_text=_("The catalog's version when it was last re-priced; another: due again."),
    )
    today_inputs = models.CharField(
        _("inputs re-priced"),
        max_length=32,
        blank=True,
        editable=False,
        help_text=_(
            "Digest of the scenario at today's prices and of the release that decided it: "
            "while both are the same, the decision stored is kept, not computed again."
        ),
    )
    changed_today = models.BooleanField(
        _("changed at today's prices"),
        default=False,
        help_text=_("Today's prices would give another verdict (build, rent, close call)."),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("saved scenario")
        verbose_name_plural = _("saved scenarios")
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["session_key"], name="scenarios_saved_session_idx"),
            models.Index(fields=["owner", "-created_at"], name="scenarios_saved_owner_idx"),
            models.Index(fields=["team", "-created_at"], name="scenarios_saved_team_idx"),
            models.Index(fields=["changed_today"], name="scenarios_saved_changed_idx"),
            # the saved list's orders (selectors.SORTS): a page is read in index order and
            # stops after its rows, rather than sorting everything one may see
            models.Index(fields=["-created_at", "-id"], name="scenarios_saved_date_idx"),
            models.Index(fields=["name", "-created_at", "id"], name="scenarios_saved_name_idx"),
        ]

    def __str__(self) -> str:
        return self.name

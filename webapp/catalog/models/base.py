"""What every catalog model shares: slugs as natural keys, texts in two languages, dated
prices that are recorded, never edited, and the age of a price.

Dated rows (prices, rates, tariffs, hosting fees, FX rates) are :class:`PricePoint` rows:
they carry their ``source`` and an ``estimate`` flag (:func:`sourced_fields`), and "the
price" of an item on a date is the latest live row effective on or before it
(:meth:`PricePointQuerySet.effective_on`).
"""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any, ClassVar, Self

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

STALE_AFTER_DAYS = 180
"""A price older than this many days is flagged "stale" in the admin, by ``catalog_check`` and
on a results page (for the prices its plan used, on the plan's date)."""


def is_stale_on(effective: datetime.date, day: datetime.date) -> bool:
    """Whether a price in effect from ``effective`` is stale on ``day``
    (older than :data:`STALE_AFTER_DAYS`)."""
    return (day - effective).days > STALE_AFTER_DAYS


def months_between(earlier: datetime.date, later: datetime.date) -> int:
    """Whole calendar months from ``earlier`` to ``later`` (2024-08-22 → 2026-12-05: 27)."""
    months = (later.year - earlier.year) * 12 + later.month - earlier.month
    return months - 1 if later.day < earlier.day else months


# --- natural keys ---------------------------------------------------------------------------


class SlugManager(models.Manager):
    """Default manager of slug-keyed models: ``get_by_natural_key(slug)``."""

    def get_by_natural_key(self, slug: str) -> Any:
        return self.get(slug=slug)


class SlugModel(models.Model):
    slug = models.SlugField(
        _("slug"),
        max_length=80,
        unique=True,
        help_text=_("Stable identifier used in fixtures, the API and the command line."),
    )

    objects = SlugManager()

    class Meta:
        abstract = True
        ordering = ["slug"]

    def natural_key(self) -> tuple[str]:
        return (self.slug,)


def is_chinese(language: str | None = None) -> bool:
    """Whether ``language`` (default: the active one) is Chinese."""
    return (language or get_language() or "").lower().startswith("zh")


class TranslatedTextMixin:
    """A row whose explanatory texts come in English and, optionally, Simplified Chinese.

    ``TRANSLATED`` names the English fields of prose a user reads (notes, descriptions,
    rationales, sources that explain rather than cite); each has a Chinese companion
    ``<field>_zh`` (:func:`chinese_text_field`), blank when nobody translated it yet.
    Citations (a price's ``source``, titles, URLs) stay as published and have none.
    """

    TRANSLATED: ClassVar[tuple[str, ...]] = ()

    def localized(self, field: str, language: str | None = None) -> str:
        """The text of ``field`` in ``language`` (default: the active one): its Chinese
        companion under Chinese when it has one, else the English."""
        if is_chinese(language):
            chinese = getattr(self, f"{field}_zh", "")
            if chinese:
                return str(chinese)
        return str(getattr(self, field))

    def translation_of(self, english: str, language: str | None = None) -> str | None:
        """``english`` in ``language`` when it is the English of one of the row's texts as
        stored now (else ``None``: a text the row no longer holds has no translation here)."""
        for field in self.TRANSLATED:
            if english and getattr(self, field) == english:
                return self.localized(field, language)
        return None

    def untranslated(self) -> list[str]:
        """The row's texts that have English but no Chinese."""
        return [f for f in self.TRANSLATED if getattr(self, f) and not getattr(self, f"{f}_zh")]


class LocalizedNameMixin(TranslatedTextMixin):
    """A row with an English ``name`` and an optional Chinese ``name_zh`` (blank: English).

    :meth:`localized_name` is the name in the active language, falling back to English.
    """

    name_zh: str

    def english_name(self) -> str:
        return str(getattr(self, "name", "") or self)

    def localized_name(self, language: str | None = None) -> str:
        if is_chinese(language) and self.name_zh:
            return self.name_zh
        return self.english_name()


def name_zh_field() -> models.CharField:
    return models.CharField(
        _("Chinese name"),
        max_length=200,
        blank=True,
        help_text=_("Shown in the Chinese interface; blank shows the English name."),
    )


def chinese_text_field(verbose_name: Any) -> models.TextField:
    """The Simplified Chinese companion of an English text (see :class:`TranslatedTextMixin`)."""
    return models.TextField(
        verbose_name,
        blank=True,
        help_text=_(
            "Shown in the Chinese interface; blank shows the English. Keep figures and units "
            "as in the English; leave product names, titles and URLs as published."
        ),
    )


def sourced_fields() -> tuple[
    models.CharField, models.TextField, models.TextField, models.BooleanField
]:
    """Where a figure comes from: a URL or citation, a note (and its Chinese), and whether it
    is an estimate.

    A function rather than an abstract base so the fields come last in each model
    (and so in each fixture row), after the figures they describe.
    """
    return (
        models.CharField(
            _("source"),
            max_length=500,
            blank=True,
            help_text=_(
                "URL or citation of the public source; required unless this is an estimate."
            ),
        ),
        models.TextField(_("note"), blank=True),
        chinese_text_field(_("Chinese note")),
        models.BooleanField(
            _("estimate"),
            default=False,
            help_text=_("The figure has no direct public source and is shown as an estimate."),
        ),
    )


# --- prices with history --------------------------------------------------------------------


class PricePointQuerySet(models.QuerySet):
    def live(self) -> Self:
        """Rows that count: approved (not pending review) and not superseded by an approved
        correction. A pending row, and the row a pending correction would replace, are
        left as they were until a staff user approves it."""
        return self.filter(pending=False).exclude(superseded_by__pending=False)

    def effective_on(self, day: datetime.date) -> Self:
        """Live points in effect on ``day``, newest first: ``.first()`` is "the price" on that
        day (of one item: filter by item first)."""
        return self.live().filter(effective_date__lte=day).order_by("-effective_date", "-revision")


class PricePoint(models.Model):
    """One dated figure of one item (a price, a rate, a tariff, a hosting fee, an FX rate).

    Never edited in place: a new price is a new row with its own ``effective_date``; a
    correction (a typo, a wrong date) is a new row that ``supersedes`` the wrong one, whose
    ``revision`` is one more than the row it corrects, and both stay in the history. Each
    row records who recorded it and when, and whether it waits for review (``pending``):
    a pending row is ignored by every reader of prices until a staff user approves it.

    The subclass declares ``effective_date`` itself, so that its fields keep their order
    in the fixture files.
    """

    effective_date: datetime.date

    revision = models.PositiveSmallIntegerField(
        _("revision"),
        default=0,
        editable=False,
        help_text=_("0: as first recorded; n: the n-th correction of it."),
    )
    supersedes = models.OneToOneField(
        "self",
        # A row that was corrected stays in the history: it cannot be deleted while its
        # correction exists (unless both go, with their item).
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="superseded_by",
        verbose_name=_("supersedes (correction of)"),
    )
    pending = models.BooleanField(
        _("pending review"),
        default=False,
        help_text=_("Held for review: not used until a staff user approves it."),
    )
    recorded_at = models.DateTimeField(_("recorded at"), default=timezone.now, editable=False)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
        verbose_name=_("recorded by"),
    )
    approved_at = models.DateTimeField(_("approved at"), null=True, blank=True, editable=False)
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
        verbose_name=_("approved by"),
    )

    class Meta:
        abstract = True

    @property
    def is_stale(self) -> bool:
        return is_stale_on(self.effective_date, datetime.date.today())

    def item_lookup(self) -> dict[str, Any]:
        """Filter arguments that select every row of this row's item (its history)."""
        raise NotImplementedError

    def clean(self) -> None:
        super().clean()
        corrected = self.supersedes
        if corrected is None:
            return
        if corrected.item_lookup() != self.item_lookup():
            raise ValidationError(
                {"supersedes": _("A correction replaces a row of the same item.")}
            )

    def review_figures(self) -> dict[str, Decimal | None]:
        """The figures a reviewer compares with the row before: field name → value."""
        raise NotImplementedError

    @property
    def review_currency(self) -> str | None:
        """The currency of :meth:`review_figures` (``None``: the row has none of its own)."""
        return getattr(self, "currency", None)

    def revision_key(self) -> tuple[str, ...]:
        """The revision as the last part of a natural key: nothing for the row as first
        recorded (so the shipped fixtures' keys stay as they were), else its number."""
        return () if not self.revision else (str(self.revision),)


HISTORY_FIELDS = (
    "revision",
    "supersedes",
    "pending",
    "recorded_at",
    "recorded_by",
    "approved_at",
    "approved_by",
)
"""Fields of :class:`PricePoint` that record the history of a row rather than the figure."""


def history_constraints(prefix: str, item_fields: list[str]) -> list[models.BaseConstraint]:
    """One row per item, date and revision; a correction (and only one) has a revision ≥ 1."""
    return [
        models.UniqueConstraint(
            fields=[*item_fields, "effective_date", "revision"],
            name=f"{prefix}_one_per_date_and_revision",
        ),
        models.CheckConstraint(
            condition=Q(supersedes__isnull=True, revision=0)
            | Q(supersedes__isnull=False, revision__gte=1),
            name=f"{prefix}_revision_iff_correction",
        ),
    ]


class DatedSlugManager(models.Manager.from_queryset(PricePointQuerySet)):  # type: ignore[misc]
    """Manager of items whose every row is one dated version (tariffs, hosting options):
    the slug names the item, ``(slug, effective date[, revision])`` one row of it."""

    def get_by_natural_key(self, slug: str, effective_date: str, revision: str = "0") -> Any:
        return self.get(slug=slug, effective_date=effective_date, revision=int(revision))


def dated_slug_field() -> models.SlugField:
    return models.SlugField(
        _("slug"),
        max_length=80,
        help_text=_(
            "Stable identifier used in fixtures, the API and the command line; every dated "
            "row of the same item has the same slug."
        ),
    )

"""The resale retention per year of a GPU model, fitted from observed used-card prices.

A card's resale value is modelled as falling by the same share every year:
``price(age) = price(0) × retention^age``. Taking logarithms makes that a straight line,
``ln price = a + b × age``, and the retention per year is ``exp(b)``. :func:`fit_retention`
finds ``b`` by ordinary least squares over the observations of one GPU model
(:class:`~webapp.catalog.models.UsedGpuPrice`) observed on or before the day asked about,
with a stated age, in the currency most of them use::

    b = Σ (ageᵢ − mean age)(ln priceᵢ − mean ln price) / Σ (ageᵢ − mean age)²
    retention per year = exp(b)

The resolver uses the fitted figure only when it can stand:

- at least :data:`MIN_OBSERVATIONS` observations with an age (and more than one age);
- a retention from :data:`MIN_RETENTION` to :data:`MAX_RETENTION` a year. Above 1 the
  fitted line says cards gain value with age, below 0.2 that they lose more than four
  fifths a year: a negative or absurd slope, a sign of mixed-up observations (a new
  price among used ones of another variant, a typo), refused with the reason.

Otherwise the preset's stated retention stays, marked as an estimate, with the reason.
"""

from __future__ import annotations

import datetime
import math
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal

from webapp.catalog.models import GpuModel, UsedGpuPrice

MIN_OBSERVATIONS = 3
MIN_RETENTION = 0.2
MAX_RETENTION = 1.0


class FitRefused(ValueError):
    """The observations give no usable retention; the message says why, and ``code`` with
    ``params`` say it for a page in any language (the resolver's ``fit_<code>`` note)."""

    def __init__(self, message: str, code: str, **params: str | int) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


def fit_retention(ages: list[float], prices: list[float]) -> float:
    """exp(slope) of the least-squares line of ln price on age (see the module's notes).

    Raises
    ------
    FitRefused
        Fewer than :data:`MIN_OBSERVATIONS` points, a single age, a price that is not
        positive, or a retention outside [:data:`MIN_RETENTION`, :data:`MAX_RETENTION`].
    """
    if len(ages) != len(prices):
        raise ValueError("ages and prices differ in length")
    if len(ages) < MIN_OBSERVATIONS:
        raise FitRefused(
            f"{len(ages)} observation(s) with an age; a fit needs at least {MIN_OBSERVATIONS}",
            "too_few",
            count=len(ages),
            minimum=MIN_OBSERVATIONS,
        )
    if any(p <= 0 for p in prices):
        raise FitRefused("a price is not positive", "not_positive")
    mean_age = sum(ages) / len(ages)
    logs = [math.log(p) for p in prices]
    mean_log = sum(logs) / len(logs)
    spread = sum((a - mean_age) ** 2 for a in ages)
    if spread == 0:
        raise FitRefused("every observation has the same age: no slope to fit", "one_age")
    slope = sum((a - mean_age) * (y - mean_log) for a, y in zip(ages, logs, strict=True)) / spread
    retention = math.exp(slope)
    if retention > MAX_RETENTION:
        raise FitRefused(
            f"the fitted retention {retention:.3f} a year is above {MAX_RETENTION:g}: the "
            "observations say the card gains value with age",
            "gains",
            retention=f"{retention:.3f}",
            maximum=f"{MAX_RETENTION:g}",
        )
    if retention < MIN_RETENTION:
        raise FitRefused(
            f"the fitted retention {retention:.3f} a year is below {MIN_RETENTION:g}: the "
            "card would lose more than four fifths of its value a year",
            "loses",
            retention=f"{retention:.3f}",
            minimum=f"{MIN_RETENTION:g}",
        )
    return retention


@dataclass
class RetentionFit:
    """The fit for one GPU model as of one day, with what it rests on."""

    gpu: GpuModel
    day: datetime.date
    fitted: list[UsedGpuPrice] = field(default_factory=list)
    """The observations the fit uses (with an age, in :attr:`currency`)."""
    left_out: list[tuple[UsedGpuPrice, str]] = field(default_factory=list)
    """Observations shown but not fitted, each with the reason."""
    currency: str = ""
    retention: float | None = None
    refused: str = ""
    """Why there is no usable retention ('' when there is)."""
    refused_code: str = ""
    refused_params: dict[str, str | int] = field(default_factory=dict)
    """:attr:`refused` as the code and figures of :class:`FitRefused`."""

    @property
    def usable(self) -> bool:
        return self.retention is not None

    @property
    def estimate(self) -> bool:
        """Whether the fit rests on an observation marked as an estimate."""
        return any(o.estimate for o in self.fitted)

    @property
    def as_of(self) -> datetime.date | None:
        """The date of the newest observation the fit uses."""
        return max((o.effective_date for o in self.fitted), default=None)

    @property
    def retention_decimal(self) -> Decimal | None:
        """The retention as the catalog states figures (3 places)."""
        return None if self.retention is None else Decimal(f"{self.retention:.3f}")

    def summary(self) -> str:
        """One line for the admin, the check and a plan's provenance."""
        if self.retention is None:
            return f"no fit for {self.gpu.slug}: {self.refused}"
        return (
            f"fitted from {len(self.fitted)} used-price observation(s) of {self.gpu.slug} "
            f"in {self.currency} (least squares of ln price on age, newest {self.as_of}): "
            f"{self.retention:.3f} a year"
        )


def retention_fit(
    gpu: GpuModel, day: datetime.date, observations: list[UsedGpuPrice] | None = None
) -> RetentionFit:
    """The retention of ``gpu`` fitted from its live observations of ``day`` or before
    (``observations``: those already read, e.g. by a catalog snapshot)."""
    if observations is None:
        observations = list(
            UsedGpuPrice.objects.live()
            .filter(gpu_model=gpu, effective_date__lte=day)
            .order_by("effective_date", "slug")
        )
    fit = RetentionFit(gpu=gpu, day=day)
    current = _latest_per_slug(observations)
    aged = [o for o in current if o.age_years is not None]
    fit.left_out = [(o, "its age is not stated") for o in current if o.age_years is None]
    if aged:
        fit.currency = Counter(o.currency for o in aged).most_common(1)[0][0]
    for o in aged:
        if o.currency == fit.currency:
            fit.fitted.append(o)
        else:
            fit.left_out.append((o, f"in {o.currency}; the fit is in {fit.currency}"))
    try:
        fit.retention = fit_retention(
            [float(o.age_years or 0) for o in fit.fitted], [float(o.amount) for o in fit.fitted]
        )
    except FitRefused as exc:
        fit.refused, fit.refused_code, fit.refused_params = str(exc), exc.code, exc.params
    return fit


def _latest_per_slug(observations: list[UsedGpuPrice]) -> list[UsedGpuPrice]:
    """Each observation's newest reading (a later row of the same slug replaces it)."""
    latest: dict[str, UsedGpuPrice] = {}
    for o in sorted(observations, key=lambda o: (o.effective_date, o.revision)):
        latest[o.slug] = o
    return sorted(latest.values(), key=lambda o: (o.effective_date, o.slug))

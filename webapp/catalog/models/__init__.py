"""The price catalog: hardware, prices with history, clouds, places, presets.

Every row a user can pick is identified by a ``slug`` (its natural key), so the
shipped fixtures in ``fixtures/`` carry no database ids and an admin's change
shows up as a readable diff. Dated rows (prices, rates, tariffs, hosting fees,
FX rates) carry their ``source`` and an ``estimate`` flag; prices are never
overwritten: a new price is a new row with a later ``effective_date``, and
"the price" of an item on a date is the latest row effective on or before it
(:meth:`PricePointQuerySet.effective_on`).

One module per part of the catalog: :mod:`.base` (slugs, texts in two languages, price
history), :mod:`.currency` (currencies and FX rates), :mod:`.hardware` (GPU models,
benchmarks, parts and their prices), :mod:`.energy` (electricity tariffs and hosting),
:mod:`.cloud` (offerings and their rates), :mod:`.presets` (ready-made boxes) and
:mod:`.resale` (observed prices of used GPUs). This
package exposes the names the rest of the project uses.

Money is ``DecimalField``; conversion between currencies happens only in the resolver
(:mod:`webapp.catalog.resolver`), never in the engine.
"""

from webapp.catalog.models.base import (
    HISTORY_FIELDS,
    STALE_AFTER_DAYS,
    LocalizedNameMixin,
    PricePoint,
    PricePointQuerySet,
    SlugModel,
    TranslatedTextMixin,
    is_chinese,
    is_stale_on,
    months_between,
)
from webapp.catalog.models.cloud import CloudOffering, CloudRate
from webapp.catalog.models.currency import CURRENCY_CODES, Currency, FxRate
from webapp.catalog.models.energy import (
    HostingKind,
    HostingOption,
    Tariff,
    TariffKind,
    TariffPeriod,
)
from webapp.catalog.models.hardware import (
    GPU_CARRYING_KINDS,
    RACK_KINDS,
    Benchmark,
    EfficiencyGrade,
    GpuModel,
    GpuThroughput,
    Part,
    PartKind,
    PartPrice,
)
from webapp.catalog.models.presets import BuildPreset, PresetPart, Tier
from webapp.catalog.models.resale import UsedGpuPrice
from webapp.catalog.pricing_modes import PricingMode

__all__ = [
    "CURRENCY_CODES",
    "GPU_CARRYING_KINDS",
    "HISTORY_FIELDS",
    "RACK_KINDS",
    "STALE_AFTER_DAYS",
    "Benchmark",
    "BuildPreset",
    "CloudOffering",
    "CloudRate",
    "Currency",
    "EfficiencyGrade",
    "FxRate",
    "GpuModel",
    "GpuThroughput",
    "HostingKind",
    "HostingOption",
    "LocalizedNameMixin",
    "Part",
    "PartKind",
    "PartPrice",
    "PresetPart",
    "PricePoint",
    "PricePointQuerySet",
    "PricingMode",
    "SlugModel",
    "Tariff",
    "TariffKind",
    "TariffPeriod",
    "Tier",
    "TranslatedTextMixin",
    "UsedGpuPrice",
    "is_chinese",
    "is_stale_on",
    "months_between",
]

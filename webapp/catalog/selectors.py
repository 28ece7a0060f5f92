"""Every query of the price catalog, by what it is for.

The resolver, the catalog API, the planner's form choices, the advisor and the
checks read the catalog through these functions, so a reader finds each query
in one place and a change of the schema touches one module. Nothing here
computes: a selector returns rows (or plain values read from rows), never a sum
or a conversion.
"""

from __future__ import annotations

import datetime
import time
import uuid
from collections.abc import Iterable, Mapping
from decimal import Decimal
from functools import cached_property, lru_cache
from typing import Any, TypeVar

from django.apps import apps
from django.core.cache import caches
from django.db.models import Max, Model, Prefetch, Q, QuerySet

from webapp.catalog.models import (
    Benchmark,
    BuildPreset,
    CloudOffering,
    CloudRate,
    FxRate,
    GpuModel,
    GpuThroughput,
    HostingOption,
    Part,
    PartPrice,
    PresetPart,
    PricePoint,
    Tariff,
    TariffPeriod,
    UsedGpuPrice,
)

M = TypeVar("M", bound=Model)

VERSION_CACHE = "versions"
"""The cache alias every process shares (the database, also where "shared" is Redis): where
the catalog's version lives, written in the transaction of the rows it versions."""
VERSION_KEY = "catalog:version"
VERSION_SECONDS = 2.0
"""How long a process trusts the version it last read [s] before reading it again.

Reading it is a database query (and, as each request opens its own database
connection, a connection: ~1 ms on SQLite, more on PostgreSQL), which a page
asking for every request paid for to learn, nearly always, that nothing changed. A catalog change
therefore reaches the other processes within this many seconds; the process
that made it sees it at once.
"""

_last_read: tuple[float, str] | None = None
"""(monotonic time of the read, version) in this process; None: read it at the next call."""


def catalog_version() -> str:
    """A token that changes whenever the catalog does: part of the key of anything cached
    from catalog rows (``f"guide:{catalog_version()}:{language}"``).

    Every save or delete of a catalog row, ``load_catalog`` and ``catalog_import``
    replace it (:func:`webapp.catalog.services.bump_catalog_version`), so an
    entry cached under the old token is never read again: at once in the
    process that made the change, within :data:`VERSION_SECONDS` in the others.
    """
    global _last_read
    now = time.monotonic()
    if _last_read is not None and now - _last_read[0] < VERSION_SECONDS:
        return _last_read[1]
    cache = caches[VERSION_CACHE]
    version = cache.get(VERSION_KEY)
    if version is None:
        cache.add(VERSION_KEY, uuid.uuid4().hex, timeout=None)
        version = cache.get(VERSION_KEY)
    _last_read = (now, str(version))
    return _last_read[1]


def forget_catalog_version() -> None:
    """Read the version from the database cache at the next :func:`catalog_version` (after a
    change, which may yet be rolled back, and when a test starts with a fresh database)."""
    global _last_read
    _last_read = None


def by_slug(model: type[M], slug: str) -> M | None:
    """The row of ``model`` with ``slug``, or ``None``."""
    return model._default_manager.filter(slug=slug).first()


def rows_by_slug(model: type[M], row_slugs: Iterable[str]) -> dict[str, M]:
    """The rows of ``model`` with these slugs, by slug (unknown slugs are simply absent).

    Of an item with dated rows (a tariff, a hosting option), the live row in effect today.
    """
    if issubclass(model, DATED_ITEMS):
        wanted = set(row_slugs)
        current: QuerySet[Any] = current_per_slug(model, datetime.date.today())
        return {row.slug: row for row in current if row.slug in wanted}
    rows = model._default_manager.filter(slug__in=sorted(set(row_slugs)))
    return {row.slug: row for row in rows}  # type: ignore[attr-defined]


def slugs(model: type[Model]) -> list[str]:
    """Every slug of ``model``, sorted, once (a tariff's dated rows share theirs)."""
    rows = model._default_manager.order_by("slug").values_list("slug", flat=True)
    return list(rows.distinct())


def rows_in_order(model: type[M], ordering: list[str]) -> QuerySet[M]:
    """Every row of a catalog ``model`` but those pending review, sorted by ``ordering``
    (the fixture files' order)."""
    rows = model._default_manager.order_by(*ordering)
    return rows.filter(pending=False) if issubclass(model, PricePoint) else rows


def stored_row(row: M) -> M | None:
    """The stored row with ``row``'s primary key, if any."""
    return type(row)._default_manager.filter(pk=row.pk).first()


def lines_not_in(label: str, owner_field: str, owners: set[int], keep: set[int]) -> QuerySet[Any]:
    """The rows of ``label`` owned by ``owners`` whose key is not in ``keep``."""
    model = apps.get_model(label)
    lines: QuerySet[Any] = model._default_manager.filter(**{f"{owner_field}__in": owners})
    return lines.exclude(pk__in=keep)


def stored_keys(label: str) -> set[int]:
    """Primary keys of every stored row of a catalog model (``catalog.buildpreset``)."""
    model = apps.get_model(label)
    return set(model._default_manager.values_list("pk", flat=True))


def previous_live_row(row: PricePoint) -> PricePoint | None:
    """The live row of ``row``'s item in effect on ``row``'s date, other than ``row``."""
    rows: Any = type(row)._default_manager.filter(**row.item_lookup())
    if row.pk is not None:
        rows = rows.exclude(pk=row.pk)
    previous: PricePoint | None = rows.effective_on(row.effective_date).first()
    return previous


# --- dated items: tariffs and hosting options ------------------------------------------------

DATED_ITEMS = (Tariff, HostingOption)
"""Items whose every row is one dated version: the slug names the item."""

D = TypeVar("D", Tariff, HostingOption)


def dated_item_on(model: type[D], slug: str, day: datetime.date) -> D | None:
    """The live row of the item ``slug`` in effect on ``day``."""
    row: D | None = model.objects.filter(slug=slug).effective_on(day).first()
    return row


def dated_item_versions(model: type[D], slug: str) -> QuerySet[D]:
    """Every live row of the item ``slug``, oldest first (to say when it starts)."""
    rows: QuerySet[D] = model.objects.filter(slug=slug).live()
    return rows.order_by("effective_date", "revision")


def in_effect_per_slug(model: type[D], day: datetime.date) -> list[int]:
    """Primary keys of the live row in effect on ``day`` of each item of ``model``."""
    rows = model.objects.effective_on(day).order_by("slug", "-effective_date", "-revision")
    keys: dict[str, int] = {}
    for slug, pk in rows.values_list("slug", "pk"):
        keys.setdefault(slug, pk)
    return list(keys.values())


def current_per_slug(model: type[D], day: datetime.date) -> QuerySet[D]:
    """One row per item: the live one in effect on ``day``, or, for an item that starts
    later, its first live row (so it can still be chosen for a later date)."""
    keys = set(in_effect_per_slug(model, day))
    later = (
        model.objects.live()
        .filter(effective_date__gt=day)
        .order_by("slug", "effective_date", "revision")
    )
    seen = set(model.objects.filter(pk__in=keys).values_list("slug", flat=True))
    for slug, pk in later.values_list("slug", "pk"):
        if slug not in seen:
            seen.add(slug)
            keys.add(pk)
    rows: QuerySet[D] = model.objects.filter(pk__in=keys)
    return rows


# --- the rows in effect on a date: one function per kind --------------------------------------
#
# "The row in effect on a day" is decided here, once per kind, and nowhere else: the resolver
# reads every kind through :class:`CatalogSnapshot`, which calls these. A kind that gains a
# dated history changes its one function.


def presets_on(
    day: datetime.date, parts: Mapping[int, Part] | None = None
) -> dict[str, BuildPreset]:
    """Every preset with its GPU model and parts list (each part with its GPU model), by slug.

    Presets carry no date: every stored preset is in effect. ``parts`` (every part with its
    GPU model, by id: a snapshot's :func:`parts_on`) are the lines' parts, not read again.
    """
    lines = PresetPart.objects.order_by("part__slug")
    if parts is None:
        lines = lines.select_related("part", "part__gpu_model")
    rows = BuildPreset.objects.select_related("gpu_model").prefetch_related(
        Prefetch("lines", queryset=lines)
    )
    presets = {preset.slug: preset for preset in rows}
    if parts is not None:
        for preset in presets.values():
            for line in preset.lines.all():
                line.part = parts[line.part_id]
    return presets


def parts_on(day: datetime.date) -> dict[str, Part]:
    """Every part with its GPU model, by slug (parts carry no date; their prices do)."""
    return {part.slug: part for part in Part.objects.select_related("gpu_model")}


def part_prices_on(
    day: datetime.date, parts: Mapping[int, Part] | None = None
) -> dict[int, PartPrice]:
    """The price in effect on ``day`` of each part that has one, by part id.

    ``parts`` (every part, by id: a snapshot's :func:`parts_on`) are the prices' parts, not
    read again.
    """
    prices: dict[int, PartPrice] = {}
    rows = PartPrice.objects.effective_on(day).order_by("-effective_date", "-revision")
    if parts is None:
        rows = rows.select_related("part")
    for point in rows:
        if parts is not None:
            point.part = parts[point.part_id]
        prices.setdefault(point.part_id, point)  # newest first: keep the first seen
    return prices


def offerings_on(day: datetime.date) -> dict[str, CloudOffering]:
    """Every cloud offering with its GPU model and on-demand sibling, by slug (the sibling is
    one of the rows read, not joined in again)."""
    by_id = {row.pk: row for row in CloudOffering.objects.select_related("gpu_model")}
    for offering in by_id.values():
        if offering.on_demand_sibling_id is not None:
            offering.on_demand_sibling = by_id[offering.on_demand_sibling_id]
    return {offering.slug: offering for offering in by_id.values()}


def cloud_rates_on(
    day: datetime.date, offerings: Mapping[int, CloudOffering] | None = None
) -> dict[int, CloudRate]:
    """The hourly rate in effect on ``day`` of each offering that has one, by offering id.

    ``offerings`` (every offering, by id: a snapshot's :func:`offerings_on`) are the rates'
    offerings, not read again.
    """
    rates: dict[int, CloudRate] = {}
    rows = CloudRate.objects.effective_on(day).order_by("-effective_date", "-revision")
    if offerings is None:
        rows = rows.select_related("offering")
    for rate in rows:
        if offerings is not None:
            rate.offering = offerings[rate.offering_id]
        rates.setdefault(rate.offering_id, rate)
    return rates


def tariffs_on(day: datetime.date) -> dict[str, Tariff]:
    """The version of each tariff in effect on ``day`` (live, the newest effective on or
    before it) with its periods, by slug."""
    periods = TariffPeriod.objects.order_by("name")
    rows = (
        Tariff.objects.effective_on(day)
        .order_by("slug", "-effective_date", "-revision")
        .prefetch_related(Prefetch("periods", queryset=periods))
    )
    tariffs: dict[str, Tariff] = {}
    for tariff in rows:
        tariffs.setdefault(tariff.slug, tariff)
    return tariffs


def hosting_options_on(day: datetime.date) -> dict[str, HostingOption]:
    """The version of each hosting option in effect on ``day`` (live, the newest effective
    on or before it), by slug."""
    rows = HostingOption.objects.effective_on(day).order_by("slug", "-effective_date", "-revision")
    options: dict[str, HostingOption] = {}
    for row in rows:
        options.setdefault(row.slug, row)
    return options


def benchmarks_on(day: datetime.date) -> dict[str, Benchmark]:
    """Every benchmark, by slug (benchmarks carry no date)."""
    return {row.slug: row for row in Benchmark.objects.all()}


def throughputs_on(day: datetime.date) -> dict[tuple[int, int], GpuThroughput]:
    """Every throughput figure, by (GPU model id, benchmark id)."""
    rows = GpuThroughput.objects.select_related("gpu_model", "benchmark")
    return {(row.gpu_model_id, row.benchmark_id): row for row in rows}


def fx_rates_on(day: datetime.date) -> dict[tuple[str, str], FxRate]:
    """The rate in effect on ``day`` of each currency pair, by (base, quote) as stored."""
    rates: dict[tuple[str, str], FxRate] = {}
    for row in FxRate.objects.effective_on(day).order_by("-effective_date", "-revision"):
        rates.setdefault((row.base_currency, row.quote_currency), row)
    return rates


def newest_price_date() -> datetime.date | None:
    """The newest effective date of any live price row (the catalog's, and its fixtures', date)."""
    dates = [
        model.objects.live().aggregate(newest=Max("effective_date"))["newest"]
        for model in (PartPrice, CloudRate, FxRate, Tariff, HostingOption)
    ]
    present = [d for d in dates if d is not None]
    return max(present) if present else None


def used_prices_on(day: datetime.date) -> dict[int, list[UsedGpuPrice]]:
    """Live used-GPU price observations of ``day`` or before, by GPU model id."""
    found: dict[int, list[UsedGpuPrice]] = {}
    rows = UsedGpuPrice.objects.live().filter(effective_date__lte=day)
    for row in rows.order_by("effective_date", "slug", "revision"):
        found.setdefault(row.gpu_model_id, []).append(row)
    return found


class CatalogSnapshot:
    """The catalog as it stood on ``day``, read once: each kind of row in one query (with its
    related rows), the first time a resolution asks for it.

    One snapshot serves every :func:`webapp.catalog.resolver.resolve` of a request (the
    guide's hundred cases read the catalog once). Lookups return rows or ``None``; nothing
    is computed here.
    """

    def __init__(self, day: datetime.date) -> None:
        self.day = day

    @cached_property
    def presets(self) -> dict[str, BuildPreset]:
        return presets_on(self.day, self.parts_by_id)

    @cached_property
    def parts(self) -> dict[str, Part]:
        return parts_on(self.day)

    @cached_property
    def parts_by_id(self) -> dict[int, Part]:
        """:attr:`parts` by id: the rows the presets' lines and the part prices point to."""
        return {part.pk: part for part in self.parts.values()}

    @cached_property
    def part_prices(self) -> dict[int, PartPrice]:
        return part_prices_on(self.day, self.parts_by_id)

    @cached_property
    def offerings(self) -> dict[str, CloudOffering]:
        return offerings_on(self.day)

    @cached_property
    def cloud_rates(self) -> dict[int, CloudRate]:
        return cloud_rates_on(self.day, {o.pk: o for o in self.offerings.values()})

    @cached_property
    def tariffs(self) -> dict[str, Tariff]:
        return tariffs_on(self.day)

    @cached_property
    def hosting_options(self) -> dict[str, HostingOption]:
        return hosting_options_on(self.day)

    @cached_property
    def benchmarks(self) -> dict[str, Benchmark]:
        return benchmarks_on(self.day)

    @cached_property
    def throughputs(self) -> dict[tuple[int, int], GpuThroughput]:
        return throughputs_on(self.day)

    @cached_property
    def fx_rates(self) -> dict[tuple[str, str], FxRate]:
        return fx_rates_on(self.day)

    @cached_property
    def used_prices(self) -> dict[int, list[UsedGpuPrice]]:
        return used_prices_on(self.day)

    KINDS = (
        "presets",
        "parts",
        "part_prices",
        "offerings",
        "cloud_rates",
        "tariffs",
        "hosting_options",
        "benchmarks",
        "throughputs",
        "fx_rates",
        "used_prices",
    )
    """Every kind of row a snapshot reads, by its attribute."""

    def read_all(self) -> CatalogSnapshot:
        """Every kind of row read now rather than when first asked for (a worker's warm-up,
        :mod:`webapp.warmup`)."""
        for kind in self.KINDS:
            getattr(self, kind)
        return self

    def part_price(self, part: Part) -> PartPrice | None:
        return self.part_prices.get(part.pk)

    def rate(self, offering: CloudOffering) -> CloudRate | None:
        return self.cloud_rates.get(offering.pk)

    def throughput(self, gpu: GpuModel, benchmark: Benchmark) -> GpuThroughput | None:
        return self.throughputs.get((gpu.pk, benchmark.pk))

    @cached_property
    def gpu_models(self) -> dict[str, GpuModel]:
        """Every GPU model a preset, part, offering or throughput figure names, by slug: read
        from those rows, not queried on their own."""
        named = [
            *(preset.gpu_model for preset in self.presets.values()),
            *(part.gpu_model for part in self.parts.values()),
            *(offering.gpu_model for offering in self.offerings.values()),
            *(row.gpu_model for row in self.throughputs.values()),
        ]
        return {gpu.slug: gpu for gpu in named if gpu is not None}

    def reference_gpu(self, benchmark: Benchmark) -> GpuModel | None:
        """The GPU a benchmark's throughputs are relative to: its figure there is exactly
        1.000. A measured row comes before an estimated one, then by slug; ``None`` when no GPU
        has the figure 1.000 on the benchmark. The one rule that names it (the planner's job
        conversion and the compared names read it from the plan's snapshot)."""
        rows = [
            row
            for row in self.throughputs.values()
            if row.benchmark_id == benchmark.pk and row.relative_throughput == Decimal(1)
        ]
        rows.sort(key=lambda row: (row.estimate, row.gpu_model.slug))
        return rows[0].gpu_model if rows else None

    def fx_rate(self, currency: str, target: str) -> FxRate | None:
        """The newer of the pair's two directions in effect on the day (the base currency's
        order breaks a tie)."""
        rows = [
            row
            for row in (
                self.fx_rates.get((currency, target)),
                self.fx_rates.get((target, currency)),
            )
            if row is not None
        ]
        rows.sort(key=lambda row: (-row.effective_date.toordinal(), row.base_currency))
        return rows[0] if rows else None


SHARED_SNAPSHOTS = 4
"""Days whose catalog :func:`snapshot` keeps per process (today's, and a few a plan dates)."""


@lru_cache(maxsize=SHARED_SNAPSHOTS)
def _shared_snapshot(day: datetime.date, version: str) -> CatalogSnapshot:
    return CatalogSnapshot(day)


def snapshot(day: datetime.date) -> CatalogSnapshot:
    """The catalog as it stood on ``day``, one :class:`CatalogSnapshot` shared by every request
    of this process until the catalog changes (its :func:`catalog_version` is part of the key,
    so a change is seen as every catalog-derived cache sees it: at once here, within
    :data:`VERSION_SECONDS` in other processes). A plan's form, its ranking (a resolution per
    offering and preset) and its page then read each kind of row once, not once per step.
    Read-only: the rows are shared."""
    return _shared_snapshot(day, catalog_version())


def fx_rate_on(currency: str, target: str, day: datetime.date) -> FxRate | None:
    """The latest rate of the pair (either direction) in effect on ``day`` (one query: for a
    page that converts one figure; a resolution reads :meth:`CatalogSnapshot.fx_rate`)."""
    rate: FxRate | None = (
        FxRate.objects.effective_on(day)
        .filter(
            Q(base_currency=currency, quote_currency=target)
            | Q(base_currency=target, quote_currency=currency)
        )
        .order_by("-effective_date", "base_currency", "-revision")
        .first()
    )
    return rate


def not_yet_in_effect(model: type[M], slug: str) -> M | None:
    """The first live row of a dated ``model`` with ``slug`` when it exists but is not in a
    snapshot's day (to say from when it is); ``None`` when there is no such row."""
    if model in DATED_ITEMS:
        first: M | None = dated_item_versions(model, slug).first()  # type: ignore[type-var]
        return first
    return by_slug(model, slug)


# --- lists: the API and the planner's choices -----------------------------------------------


def gpus_with_throughputs() -> QuerySet[GpuModel]:
    throughputs = GpuThroughput.objects.select_related("benchmark").order_by("benchmark__slug")
    return GpuModel.objects.prefetch_related(Prefetch("throughputs", queryset=throughputs))


def presets_with_parts_and_prices() -> QuerySet[BuildPreset]:
    """Presets with their parts and each part's price history (oldest first)."""
    prices = PartPrice.objects.live().order_by("effective_date", "revision")
    lines = PresetPart.objects.select_related("part").prefetch_related(
        Prefetch("part__prices", queryset=prices)
    )
    return BuildPreset.objects.select_related("gpu_model").prefetch_related(
        Prefetch("lines", queryset=lines)
    )


def presets_with_parts() -> QuerySet[BuildPreset]:
    """Presets with their GPU model and parts, by slug (the advisor's and the checks' view)."""
    return (
        BuildPreset.objects.select_related("gpu_model")
        .prefetch_related("lines__part")
        .order_by("slug")
    )


def preset_by_slug(slug: str) -> BuildPreset | None:
    return BuildPreset.objects.filter(slug=slug).select_related("gpu_model").first()


def offerings_with_rates(provider: str | None = None) -> QuerySet[CloudOffering]:
    """Offerings with their GPU model, sibling and rate history (oldest first)."""
    offerings = CloudOffering.objects.select_related(
        "gpu_model", "on_demand_sibling"
    ).prefetch_related(
        Prefetch("rates", queryset=CloudRate.objects.live().order_by("effective_date", "revision"))
    )
    if provider:
        offerings = offerings.filter(provider__iexact=provider)
    return offerings


def offerings_with_rate_on(day: datetime.date) -> list[tuple[CloudOffering, CloudRate]]:
    """Each offering that has a rate in effect on ``day``, with that rate."""
    found = []
    for offering in offerings_with_rates():
        rates = [rate for rate in offering.rates.all() if rate.effective_date <= day]
        if rates:
            found.append((offering, rates[-1]))  # oldest first: the last is in effect
    return found


def tariffs_in_effect(day: datetime.date, currency: str | None = None) -> QuerySet[Tariff]:
    """Each tariff's live row in effect on ``day`` (with its periods), by slug."""
    tariffs: QuerySet[Tariff] = Tariff.objects.prefetch_related("periods").filter(
        pk__in=in_effect_per_slug(Tariff, day)
    )
    return tariffs.filter(currency=currency) if currency else tariffs


def hosting_in_effect(day: datetime.date, currency: str | None = None) -> QuerySet[HostingOption]:
    """Each hosting option's live row in effect on ``day``, by slug."""
    options: QuerySet[HostingOption] = HostingOption.objects.filter(
        pk__in=in_effect_per_slug(HostingOption, day)
    )
    return options.filter(currency=currency) if currency else options


def fx_rates_until(day: datetime.date, currency: str | None = None) -> QuerySet[FxRate]:
    """FX rates effective on or before ``day``, oldest first (either side of the pair)."""
    rates: QuerySet[FxRate] = (
        FxRate.objects.live().filter(effective_date__lte=day).order_by("effective_date")
    )
    if currency:
        rates = rates.filter(Q(base_currency=currency) | Q(quote_currency=currency))
    return rates


def presets_for_choice() -> QuerySet[BuildPreset]:
    return BuildPreset.objects.order_by("tier", "name")


def parts_for_choice() -> QuerySet[Part]:
    return Part.objects.order_by("kind", "name")


def tariffs_for_choice() -> QuerySet[Tariff]:
    """One row per tariff: today's (see :func:`current_per_slug`)."""
    return current_per_slug(Tariff, datetime.date.today()).order_by("country", "name")


def hostings_for_choice() -> QuerySet[HostingOption]:
    """One row per hosting option: today's (see :func:`current_per_slug`)."""
    return current_per_slug(HostingOption, datetime.date.today()).order_by("kind", "name")


def benchmarks_for_choice() -> QuerySet[Benchmark]:
    return Benchmark.objects.order_by("name")


def offerings_by_provider_and_type(provider: str) -> dict[tuple[str, str], list[CloudOffering]]:
    """A provider's offerings keyed by (instance type, pricing mode), case-insensitive."""
    found: dict[tuple[str, str], list[CloudOffering]] = {}
    for offering in CloudOffering.objects.filter(provider__iexact=provider).order_by("slug"):
        key = (offering.instance_type.lower(), offering.pricing_mode)
        found.setdefault(key, []).append(offering)
    return found


def gpu_models_by_skypilot_name() -> dict[str, list[GpuModel]]:
    found: dict[str, list[GpuModel]] = {}
    for gpu in GpuModel.objects.exclude(skypilot_name="").order_by("slug"):
        found.setdefault(gpu.skypilot_name.lower(), []).append(gpu)
    return found


def scaling_efficiency_of_like_offerings(gpu: GpuModel, gpu_count: int) -> Decimal | None:
    """The scaling efficiency the catalog already uses for this GPU model and count, if any."""
    row = (
        CloudOffering.objects.filter(gpu_model=gpu, gpu_count=gpu_count)
        .order_by("slug")
        .values_list("scaling_efficiency", flat=True)
        .first()
    )
    return row


def rate_on(offering: CloudOffering, day: datetime.date) -> CloudRate | None:
    """The offering's hourly rate in effect on ``day`` (for an import that compares one row)."""
    rate: CloudRate | None = CloudRate.objects.filter(offering=offering).effective_on(day).first()
    return rate


def rate_on_date(offering: CloudOffering, day: datetime.date) -> CloudRate | None:
    """The offering's rate point dated exactly ``day``."""
    rate: CloudRate | None = (
        CloudRate.objects.live().filter(offering=offering, effective_date=day).first()
    )
    return rate


def recorded_rate_on_date(offering: CloudOffering, day: datetime.date) -> CloudRate | None:
    """The offering's rate dated exactly ``day`` as last recorded, live or waiting for review
    (an import that finds it records nothing again)."""
    rate: CloudRate | None = (
        CloudRate.objects.filter(offering=offering, effective_date=day)
        .exclude(superseded_by__pending=False)
        .order_by("-revision")
        .first()
    )
    return rate


def part_price_on_date(part: Part, day: datetime.date) -> PartPrice | None:
    """The part's price point dated exactly ``day``."""
    price: PartPrice | None = PartPrice.objects.live().filter(part=part, effective_date=day).first()
    return price


def fx_rate_on_date(base: str, quote: str, day: datetime.date) -> FxRate | None:
    """The rate of the pair ``base``/``quote`` (this direction) dated exactly ``day``."""
    rate: FxRate | None = (
        FxRate.objects.live()
        .filter(base_currency=base, quote_currency=quote, effective_date=day)
        .first()
    )
    return rate


# --- what the sizing advisor and "the guide, checked" read ------------------------------------


def presets_by_slug(preset_slugs: Iterable[str]) -> dict[str, BuildPreset]:
    """The presets named, with their GPU model, by slug (unknown slugs are simply absent)."""
    rows = BuildPreset.objects.filter(slug__in=list(preset_slugs)).select_related("gpu_model")
    return {preset.slug: preset for preset in rows}


def cloud_offerings(
    gpu_name_regex: str | None = None,
    vram_gb: int | None = None,
    pricing_modes: Iterable[str] | None = None,
    gpu_count: int | None = None,
) -> list[CloudOffering]:
    """Offerings whose GPU model's name matches ``gpu_name_regex`` (case-insensitive), of that
    much GPU memory, in those pricing modes, with that many GPUs per instance; by provider.

    The pattern is matched by the database (SQLite and PostgreSQL): keep to the syntax both
    share (no ``\\b``).
    """
    offerings = CloudOffering.objects.select_related("gpu_model", "on_demand_sibling")
    if gpu_name_regex is not None:
        offerings = offerings.filter(gpu_model__name__iregex=gpu_name_regex)
    if vram_gb is not None:
        offerings = offerings.filter(gpu_model__vram_gb=vram_gb)
    if pricing_modes is not None:
        offerings = offerings.filter(pricing_mode__in=list(pricing_modes))
    if gpu_count is not None:
        offerings = offerings.filter(gpu_count=gpu_count)
    return list(offerings.order_by("provider", "slug"))


def gpu_models_named(gpu_name_regex: str) -> list[GpuModel]:
    """GPU models whose name matches the pattern (case-insensitive), by slug."""
    return list(GpuModel.objects.filter(name__iregex=gpu_name_regex).order_by("slug"))


def gpu_models_by_slug(gpu_slugs: Iterable[str]) -> dict[str, GpuModel]:
    """GPU models by slug (those that exist)."""
    return {gpu.slug: gpu for gpu in GpuModel.objects.filter(slug__in=list(gpu_slugs))}

"""Shipped fixtures: loading is idempotent, exporting reproduces the files byte for byte."""

from decimal import Decimal

from webapp.catalog.fixtures_io import (
    FIXTURE_FILES,
    FIXTURES_DIR,
    catalog_models,
    export_catalog,
    load_catalog,
)
from webapp.catalog.models import CloudOffering, Part, PartPrice


def counts() -> dict[str, int]:
    return {m._meta.label: m._default_manager.count() for m in catalog_models()}


def test_every_fixture_file_is_shipped():
    assert sorted(p.name for p in FIXTURES_DIR.glob("*.json")) == sorted(FIXTURE_FILES)


def test_exporting_the_loaded_catalog_reproduces_the_shipped_files(shipped, tmp_path):
    export_catalog(tmp_path)
    for name in FIXTURE_FILES:
        assert (tmp_path / name).read_bytes() == (FIXTURES_DIR / name).read_bytes(), name


def test_loading_twice_duplicates_nothing(shipped):
    before = counts()
    assert all(before.values()), before
    load_catalog()
    assert counts() == before


def test_loading_again_restores_an_edited_row_in_place(shipped):
    price = PartPrice.objects.get(part__slug="gpu-rtx-4090", effective_date="2025-01-01")
    price.amount = Decimal(1)
    price.save()
    load_catalog()
    price.refresh_from_db()
    assert price.amount == 18000


def test_keeping_existing_rows_leaves_an_admin_edit_alone(shipped):
    price = PartPrice.objects.get(part__slug="gpu-rtx-4090", effective_date="2025-01-01")
    price.amount = Decimal(17500)
    price.save()
    before = counts()
    load_catalog(keep_existing=True)
    price.refresh_from_db()
    assert price.amount == 17500
    assert counts() == before


def test_keeping_existing_rows_still_adds_rows_that_are_missing(shipped):
    PartPrice.objects.get(part__slug="gpu-rtx-4090", effective_date="2025-01-01").delete()
    offering = CloudOffering.objects.order_by("slug").first()
    offering_slug = offering.slug
    offering.delete()  # its rates go with it
    load_catalog(keep_existing=True)
    assert (
        PartPrice.objects.get(part__slug="gpu-rtx-4090", effective_date="2025-01-01").amount
        == 18000
    )
    restored = CloudOffering.objects.get(slug=offering_slug)
    assert restored.rates.exists()


def test_keeping_existing_rows_on_an_empty_database_loads_everything(db):
    load_catalog(keep_existing=True)
    loaded = counts()
    load_catalog()
    assert counts() == loaded


def test_an_admin_change_shows_up_as_a_small_diff(shipped, tmp_path):
    Part.objects.filter(slug="gpu-rtx-4090").update(name="RTX 4090 (edited)")
    export_catalog(tmp_path)
    shipped_lines = (FIXTURES_DIR / "02-parts.json").read_text().splitlines()
    exported_lines = (tmp_path / "02-parts.json").read_text().splitlines()
    assert len(shipped_lines) == len(exported_lines)
    changed = [(a, b) for a, b in zip(shipped_lines, exported_lines, strict=True) if a != b]
    assert len(changed) == 1
    assert "RTX 4090 (edited)" in changed[0][1]


def test_export_leaves_unchanged_files_alone(shipped, tmp_path):
    first = export_catalog(tmp_path)
    assert all(changed for _, changed in first)
    second = export_catalog(tmp_path)
    assert not any(changed for _, changed in second)


def test_fixtures_carry_natural_keys_not_database_ids():
    for name in FIXTURE_FILES:
        text = (FIXTURES_DIR / name).read_text()
        assert '"pk"' not in text, name


def test_fixtures_hold_the_required_presets_and_offerings(shipped):
    from webapp.catalog.models import BuildPreset

    tiers = {(p.tier, p.gpu_model.slug, p.gpu_count) for p in BuildPreset.objects.all()}
    assert {
        ("budget", "rtx-4060-ti-16gb", 1),
        ("entry", "rtx-4090", 1),
        ("entry", "rtx-4080", 1),
        ("multi", "rtx-4090", 4),
        ("multi", "rtx-4090", 8),
    } <= tiers
    a100 = CloudOffering.objects.filter(gpu_model__slug__startswith="a100-80gb")
    assert a100.values("provider").distinct().count() >= 4
    currencies = set(PartPrice.objects.values_list("currency", flat=True).distinct()) | set(
        a100.values_list("rates__currency", flat=True)
    )
    assert currencies == {"CNY", "USD"}
    modes = set(a100.values_list("pricing_mode", flat=True))
    assert {"on-demand", "spot"} <= modes


def test_loading_again_drops_a_preset_line_the_fixtures_no_longer_hold(shipped, tmp_path):
    # A database loaded from an older catalog whose preset held one more part:
    # reloading must not leave that part in the preset's capex.
    from webapp.catalog.models import BuildPreset, PresetPart, TariffPeriod

    preset = BuildPreset.objects.get(slug="entry-rtx4090")
    shipped_lines = set(preset.lines.values_list("part__slug", flat=True))
    extra = Part.objects.exclude(slug__in=shipped_lines).exclude(kind="gpu").first()
    PresetPart.objects.create(preset=preset, part=extra, quantity=1)
    tariff_period = TariffPeriod.objects.first()
    stale = TariffPeriod.objects.create(
        tariff=tariff_period.tariff, name="old band", hours_per_day=1, price_per_kwh=9
    )
    load_catalog()
    assert set(preset.lines.values_list("part__slug", flat=True)) == shipped_lines
    assert not TariffPeriod.objects.filter(pk=stale.pk).exists()
    export_catalog(tmp_path)
    assert (tmp_path / "07-presets.json").read_bytes() == (
        FIXTURES_DIR / "07-presets.json"
    ).read_bytes()


def test_keeping_existing_rows_leaves_an_admins_parts_list_as_it_stands(shipped):
    from webapp.catalog.models import BuildPreset

    preset = BuildPreset.objects.get(slug="entry-rtx4090")
    removed = preset.lines.exclude(part__kind="gpu").first()
    removed_slug = removed.part.slug
    removed.delete()
    load_catalog(keep_existing=True)
    assert removed_slug not in set(preset.lines.values_list("part__slug", flat=True))
    load_catalog()  # without keep_existing the shipped list comes back
    assert removed_slug in set(preset.lines.values_list("part__slug", flat=True))

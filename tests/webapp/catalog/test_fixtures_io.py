"""Shipped fixtures: loading is idempotent, exporting reproduces the files byte for byte."""

from decimal import Decimal

from django.db import connection
from django.test.utils import CaptureQueriesContext

from webapp.catalog.fixtures_io import (
    FIXTURE_FILES,
    FIXTURES_DIR,
    catalog_models,
    export_catalog,
    load_catalog,
)
from webapp.catalog.models import CloudOffering, Part, PartPrice
from webapp.catalog.selectors import catalog_version


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


def test_loading_a_catalog_the_database_already_holds_writes_nothing(shipped):
    # each start of `make run` loads the catalog: with nothing to add it must take no write
    # lock (SQLite has one, and saves would wait for it) and keep the catalog's version (a
    # new one makes every worker read the catalog again)
    version = catalog_version()
    with CaptureQueriesContext(connection) as queries:
        report = load_catalog()
    writes = [
        q["sql"]
        for q in queries
        if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))
    ]
    assert report.files == len(FIXTURE_FILES) and report.added == [] and report.translated == []
    assert len(queries) > 100  # it did read and compare every shipped row
    assert writes == []
    assert catalog_version() == version


def test_a_missing_chinese_text_alone_makes_loading_write_it_and_give_a_new_version(shipped):
    Part.objects.filter(slug="gpu-rtx-4090").update(name_zh="")
    version = catalog_version()
    report = load_catalog()
    assert report.translated == ["catalog.part gpu-rtx-4090: name_zh"]
    assert Part.objects.get(slug="gpu-rtx-4090").name_zh
    assert catalog_version() != version


def test_loading_again_keeps_a_stored_row_and_reports_what_differs(shipped):
    price = PartPrice.objects.get(part__slug="gpu-rtx-4090", effective_date="2025-01-01")
    PartPrice.objects.filter(pk=price.pk).update(amount=Decimal(17500))  # e.g. an older catalog
    before = counts()
    report = load_catalog()
    price.refresh_from_db()
    assert price.amount == 17500
    assert counts() == before
    assert report.added == []
    assert report.differences == [
        "catalog.partprice gpu-rtx-4090/2025-01-01: amount: shipped '18000.00', "
        "stored '17500.00' (kept)"
    ]


def test_loading_again_adds_rows_that_are_missing(shipped):
    PartPrice.objects.get(part__slug="gpu-rtx-4090", effective_date="2025-01-01").delete()
    offering = CloudOffering.objects.order_by("slug").first()
    offering_slug = offering.slug
    offering.delete()  # its rates go with it
    report = load_catalog()
    assert (
        PartPrice.objects.get(part__slug="gpu-rtx-4090", effective_date="2025-01-01").amount
        == 18000
    )
    restored = CloudOffering.objects.get(slug=offering_slug)
    assert restored.rates.exists()
    assert "catalog.partprice gpu-rtx-4090/2025-01-01" in report.added
    assert f"catalog.cloudoffering {offering_slug}" in report.added
    assert report.differences == []


def test_loading_an_empty_database_loads_every_row_once(db):
    report = load_catalog()
    loaded = counts()
    assert len(report.added) == sum(loaded.values())
    assert load_catalog().added == []
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


def test_loading_again_keeps_a_stored_list_and_reports_its_lines_either_side(shipped):
    # A preset's parts and a tariff's periods are added up by the resolver: a stored
    # list is kept as it stands, neither gaining the shipped lines nor losing its own.
    from webapp.catalog.models import BuildPreset, PresetPart, TariffPeriod

    preset = BuildPreset.objects.get(slug="entry-rtx4090")
    shipped_lines = set(preset.lines.values_list("part__slug", flat=True))
    removed = preset.lines.exclude(part__kind="gpu").order_by("part__slug").first()
    removed_slug = removed.part.slug
    removed.delete()
    extra = Part.objects.exclude(slug__in=shipped_lines).exclude(kind="gpu").order_by("slug")[0]
    PresetPart.objects.create(preset=preset, part=extra, quantity=1)
    period = TariffPeriod.objects.order_by("pk").first()
    added_band = TariffPeriod.objects.create(
        tariff=period.tariff, name="old band", hours_per_day=1, price_per_kwh=9
    )
    report = load_catalog()
    assert set(preset.lines.values_list("part__slug", flat=True)) == (
        shipped_lines - {removed_slug} | {extra.slug}
    )
    assert TariffPeriod.objects.filter(pk=added_band.pk).exists()
    assert set(report.differences) == {
        f"catalog.presetpart entry-rtx4090/{removed_slug}: shipped, not in the stored list "
        "(kept as it stands)",
        f"catalog.presetpart entry-rtx4090/{extra.slug}: stored, not shipped (kept)",
        f"catalog.tariffperiod {'/'.join(added_band.natural_key())}: stored, not shipped (kept)",
    }

"""The catalog's notes, descriptions and rationales in Chinese: each text's ``*_zh`` companion,
English when it is blank; shipped translations reach a database that lacks them, never
replacing one it holds; the admin edits a price row's Chinese note without touching the price;
catalog_check warns about a text nobody translated."""

import json
from io import StringIO

import pytest
from django.apps import apps
from django.core.management import call_command
from django.urls import reverse
from django.utils import translation

from webapp.catalog.fixtures_io import FIXTURES_DIR, load_catalog
from webapp.catalog.models import BuildPreset, PartPrice, TranslatedTextMixin

RETENTION = "Used RTX 4090s sold for about 950 – 1 100 USD in 2026"
RETENTION_ZH = "二手 RTX 4090 在 2026 年售价约 950 – 1 100 USD"
CONVERTED = "US retail excl. tax, converted; China prices may differ."
CONVERTED_ZH = "美国零售价（不含税），已换算；中国价格可能不同。"


@pytest.fixture
def staff_client(client, django_user_model):
    user = django_user_model.objects.create_superuser("admin", "admin@example.com", "pw")
    client.force_login(user)
    return client


def converted_price() -> PartPrice:
    """A shipped part price whose note says it was converted from a US price."""
    return PartPrice.objects.filter(note=CONVERTED).order_by("pk").first()


def test_a_row_shows_its_chinese_text_under_chinese_and_its_english_otherwise(shipped):
    preset = BuildPreset.objects.get(slug="multi-4x-rtx4090")
    assert preset.localized("retention_source", "zh-hans").startswith(RETENTION_ZH)
    assert preset.localized("retention_source", "en").startswith(RETENTION)
    with translation.override("zh-hans"):
        assert preset.localized("defaults_rationale").startswith("维护每年 8 %")


def test_a_blank_chinese_text_shows_the_english(shipped):
    price = converted_price()
    price.note_zh = ""
    assert price.localized("note", "zh-hans") == CONVERTED


def test_only_the_english_the_row_holds_now_has_its_translation(shipped):
    price = converted_price()
    assert price.translation_of(CONVERTED, "zh-hans") == CONVERTED_ZH
    assert price.translation_of("US retail excl. tax.", "zh-hans") is None


def test_every_text_of_every_shipped_row_has_chinese_in_the_files(shipped):
    missing = [
        f"{model._meta.label_lower} {row.pk}: {name}"
        for model in apps.get_app_config("catalog").get_models()
        if issubclass(model, TranslatedTextMixin)
        for row in model._default_manager.all()
        for name in row.untranslated()
    ]
    assert missing == []


def test_loading_again_fills_an_empty_chinese_text_and_reports_it(shipped):
    price = converted_price()
    PartPrice.objects.filter(pk=price.pk).update(note_zh="")  # a database from before
    out = StringIO()
    call_command("load_catalog", stdout=out)
    price.refresh_from_db()
    assert price.note_zh == CONVERTED_ZH
    assert price.note == CONVERTED  # the English, the amount and the date are as they were
    key = "/".join(price.natural_key())
    assert f"translation added: catalog.partprice {key}: note_zh\n" in out.getvalue()
    assert "filled 1 empty Chinese text(s), 0 shipped values differ" in out.getvalue()


def test_loading_again_keeps_a_chinese_text_the_database_holds(shipped):
    preset = BuildPreset.objects.get(slug="multi-4x-rtx4090")
    BuildPreset.objects.filter(pk=preset.pk).update(retention_source_zh="管理员改写的说明")
    report = load_catalog()
    preset.refresh_from_db()
    assert preset.retention_source_zh == "管理员改写的说明"
    assert report.translated == []
    assert [line for line in report.differences if "retention_source_zh" in line] == [
        "catalog.buildpreset multi-4x-rtx4090: retention_source_zh: shipped "
        f"{shipped_text('catalog.buildpreset', 'multi-4x-rtx4090', 'retention_source_zh')!r}, "
        "stored '管理员改写的说明' (kept)"
    ]


def shipped_text(model: str, slug: str, field: str) -> str:
    """A text of a row as the fixture files ship it."""
    for path in sorted(FIXTURES_DIR.glob("*.json")):
        for row in json.loads(path.read_text(encoding="utf-8")):
            if row["model"] == model and row["fields"].get("slug") == slug:
                return str(row["fields"][field])
    raise AssertionError(f"{model} {slug} is not shipped")


def test_the_admin_edits_the_chinese_note_of_a_stored_price_and_nothing_else(staff_client, shipped):
    price = converted_price()
    url = reverse("admin:catalog_partprice_change", args=[price.pk])
    form = staff_client.get(url).context["adminform"].form
    assert list(form.fields) == ["note_zh"]  # amount, currency, date, source, note: read-only
    response = staff_client.post(
        url, {"note_zh": "美国零售价，已换算。", "amount": "1", "note": "changed"}
    )
    assert response.status_code == 302
    stored = PartPrice.objects.get(pk=price.pk)
    assert stored.note_zh == "美国零售价，已换算。"
    assert (stored.amount, stored.note, stored.revision) == (price.amount, CONVERTED, 0)


def test_a_new_price_has_its_own_note_and_a_correction_starts_from_the_one_it_corrects(
    staff_client, shipped
):
    price = converted_price()
    add = reverse("admin:catalog_partprice_add")
    new = staff_client.get(add, {"record_from": price.pk}).context["adminform"].form.initial
    correction = staff_client.get(add, {"supersedes": price.pk}).context["adminform"].form
    assert "note_zh" not in new and "note" not in new
    assert correction.initial["note_zh"] == CONVERTED_ZH


def test_catalog_check_warns_about_a_text_without_chinese_and_not_about_the_shipped_ones(shipped):
    out = StringIO()
    call_command("catalog_check", stdout=out)
    assert "no Chinese for" not in out.getvalue()

    preset = BuildPreset.objects.get(slug="multi-4x-rtx4090")
    preset.hosting_rationale_zh = ""
    preset.save()
    out = StringIO()
    call_command("catalog_check", stdout=out)  # a warning: the check still passes
    assert (
        "warning: catalog.buildpreset multi-4x-rtx4090: no Chinese for hosting_rationale "
        "(the English is shown)\n"
    ) in out.getvalue()
    assert out.getvalue().startswith("warning") and "catalog OK" in out.getvalue()


def test_each_declared_text_has_its_chinese_companion_and_each_companion_is_declared():
    """``TRANSLATED`` is the one declaration of a row's translated texts: every name in it has
    a ``<name>_zh`` column, and every Chinese text column (``name_zh`` aside: names have
    their own mixin) belongs to a declared text, so no pair is added or read by hand."""
    models = [
        model
        for model in apps.get_app_config("catalog").get_models()
        if issubclass(model, TranslatedTextMixin)
    ]
    assert models
    for model in models:
        columns = {field.name for field in model._meta.get_fields()}
        companions = {
            name.removesuffix("_zh")
            for name in columns
            if name.endswith("_zh") and name != "name_zh"
        }
        assert set(model.TRANSLATED) == companions, model._meta.label_lower
        assert set(model.TRANSLATED) <= columns, model._meta.label_lower

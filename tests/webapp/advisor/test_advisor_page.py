"""The sizing advisor page: form, recommendation from the catalog, the advice in words."""

from html import escape

import pytest
from django.urls import reverse

from costmodel.sizing import AdvisorInput, advise, check_psu
from webapp.catalog.specs import preset_specs

pytestmark = pytest.mark.django_db

URL = "/advisor/"


def post(client, language="en", **data):
    form = {"parameters_billion": "0.025", "dataset_gb": "5", "precision": "fp16"}
    form.update({k: str(v) for k, v in data.items()})
    return client.post(URL, form, HTTP_ACCEPT_LANGUAGE=language)


def test_the_route_is_named_in_the_advisor_namespace():
    assert reverse("advisor:advisor") == URL
    assert reverse("advisor:guide") == "/guide/"


def test_it_shows_the_form_on_get(client):
    response = client.get(URL)
    assert response.status_code == 200
    html = response.content.decode()
    for name in ("parameters_billion", "dataset_gb", "precision", "multi_gpu", "nvlink"):
        assert f'name="{name}"' in html
    assert 'data-tier="' not in html


def test_every_page_links_to_the_advisor_and_the_guide(client):
    html = client.get("/").content.decode()
    assert 'href="/advisor/"' in html
    assert 'href="/guide/"' in html


def test_it_recommends_a_catalog_preset_and_links_to_the_planner_form(client, catalog):
    response = post(client, parameters_billion="0.11", dataset_gb="20")
    assert response.status_code == 200
    page = response.context["page"]
    assert page.advice.tier == "entry"
    assert page.preset.tier == "entry"
    assert page.planner_url.endswith(f"?preset={page.preset.slug}")
    assert page.guide_url is None
    html = response.content.decode()
    assert 'data-tier="entry"' in html
    assert f'href="{page.planner_url}"' in html


def test_the_recommended_preset_comes_from_the_catalog_and_holds_the_job(client, catalog):
    response = post(client, parameters_billion="3", dataset_gb="200", multi_gpu="on")
    page = response.context["page"]
    assert page.advice.tier == "multi"
    assert page.preset.gpu_count * page.preset.gpu_model.vram_gb >= page.advice.training_memory_gb
    assert page.advice.preset_slug in {s.slug for s in preset_specs() if s.tier == "multi"}


def test_it_shows_the_reasons_and_the_nvlink_warning_for_a_multi_4090_box(client, catalog):
    response = post(client, parameters_billion="3", dataset_gb="200", multi_gpu="on")
    page = response.context["page"]
    assert "no_nvlink_geforce_40" in [w.code for w in page.advice.warnings]
    html = response.content.decode()
    assert "have no NVLink" in html
    assert "num_parallel_calls" in html
    assert "80 Plus Gold" in html
    # The preset and its GPU by their catalog names, never by slug.
    assert "Multi-GPU: 4 × RTX 4090 dual-Xeon server" in html
    assert "“multi-4x-rtx4090”" not in html


def test_it_checks_the_catalog_psu_against_the_peak_draw(catalog):
    specs = {s.slug: s for s in preset_specs()}
    assert specs, "the shipped catalog has presets"
    for spec in specs.values():
        assert spec.psu_rated_watts is not None
        assert spec.peak_power_watts is not None and spec.peak_power_watts > 0
    advice = advise(AdvisorInput(parameters_billion=0.5, dataset_gb=10), list(specs.values()))
    psu = next(r for r in advice.reasons if r.code == "psu_headroom_known_peak")
    assert psu.params["peak_watts"] == pytest.approx(specs[advice.preset_slug].peak_power_watts)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("parameters_billion", "0"),
        ("parameters_billion", "-3"),
        ("parameters_billion", "lots"),
        ("parameters_billion", "nan"),
        ("dataset_gb", "-1"),
        ("dataset_gb", ""),
        ("precision", "fp8"),
    ],
)
def test_it_puts_bad_input_errors_beside_the_field(client, field, value):
    response = post(client, **{field: value})
    assert response.status_code == 200
    form = response.context["form"]
    assert list(form.errors) == [field]
    assert response.context["page"] is None
    html = response.content.decode()
    assert f'id="id_{field}-errors"' in html
    # What the user typed is kept.
    if field != "precision" and value:
        assert f'value="{value}"' in html


def test_it_refuses_other_methods(client):
    assert client.put(URL).status_code == 405


def test_the_shipped_presets_power_supplies_meet_the_headroom_rule(catalog):
    for spec in preset_specs():
        check = check_psu(spec.psu_rated_watts, spec.peak_power_watts, spec.psu_efficiency)
        assert check.ok, (spec.slug, check)


def test_several_power_supplies_in_a_preset_add_up(catalog):
    specs = {s.slug: s for s in preset_specs()}
    # two SilverStone HELA 2050 supplies
    assert specs["multi-4x-rtx4090"].psu_rated_watts == 2 * 2050


def test_the_planner_form_opens_with_the_recommended_preset(client, catalog):
    page = post(client, parameters_billion="0.11", dataset_gb="20").context["page"]
    response = client.get(page.planner_url)
    assert response.status_code == 200
    assert response.context["form"]["preset"].value() == page.preset.slug


def test_the_advisor_answers_in_chinese_with_the_catalogs_chinese_names(client, catalog):
    response = post(client, "zh-hans", parameters_billion="3", dataset_gb="200")
    assert response.status_code == 200
    assert response.headers["Content-Language"] == "zh-hans"
    page = response.context["page"]
    assert page.advice.tier == "multi"
    html = response.content.decode()
    assert "推荐档位：多卡并行级" in html
    assert page.preset.name_zh and page.preset.name_zh in html
    assert page.preset.name not in html
    # Every reason is a Chinese sentence: none is left in English.
    for text in page.reasons + page.warnings:
        assert not text.startswith(("GPU memory", "The ", "A ", "Give", "Keep", "Below")), text


def test_the_advisor_describes_the_recommended_preset_in_the_page_language(client, catalog):
    for language in ("en", "zh-hans"):
        response = post(client, language, parameters_billion="3", dataset_gb="200")
        preset = response.context["page"].preset
        html = response.content.decode()
        assert preset.description and preset.description_zh
        shown, hidden = (
            (preset.description_zh, preset.description)
            if language == "zh-hans"
            else (preset.description, preset.description_zh)
        )
        assert f'<p class="help advice-description">{escape(shown)}</p>' in html
        assert escape(hidden) not in html

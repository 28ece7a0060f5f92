"""The sizing advisor page: form, recommendation from the catalog, translated reasons."""

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import translation

from costmodel.sizing import AdvisorInput, Reason, advise, check_psu
from webapp.planner.advisor import REASON_TEXTS, preset_specs, translate_reason

pytestmark = pytest.mark.django_db

URL = "/advisor/"


@pytest.fixture
def catalog(db):
    call_command("load_catalog", verbosity=0)


def post(client, **data):
    form = {"parameters_billion": "0.025", "dataset_gb": "5", "precision": "fp16"}
    form.update({k: str(v) for k, v in data.items()})
    return client.post(URL, form)


def test_the_route_is_named_in_the_planner_namespace():
    assert reverse("planner:advisor") == URL


def test_it_shows_the_form_on_get(client):
    response = client.get(URL)
    assert response.status_code == 200
    html = response.content.decode()
    for name in ("parameters_billion", "dataset_gb", "precision", "multi_gpu", "nvlink"):
        assert f'name="{name}"' in html
    assert 'data-tier="' not in html


def test_it_recommends_a_catalog_preset_and_links_to_the_planner_form(client, catalog):
    response = post(client, parameters_billion="0.11", dataset_gb="20")
    assert response.status_code == 200
    page = response.context["page"]
    assert page.advice.tier == "entry"
    assert page.preset.tier == "entry"
    assert page.planner_url.endswith(f"?preset={page.preset.slug}")
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


def test_it_sends_a_huge_model_to_renting_without_a_preset_link(client, catalog):
    response = post(client, parameters_billion="175", dataset_gb="1000")
    page = response.context["page"]
    assert (page.advice.tier, page.preset, page.planner_url) == ("cluster", None, None)
    assert 'id="advice-plan"' not in response.content.decode()
    assert "managed cluster" in response.content.decode()


def test_it_checks_the_catalog_psu_against_the_peak_draw(catalog):
    specs = {s.slug: s for s in preset_specs()}
    assert specs, "the shipped catalog has presets"
    for spec in specs.values():
        assert spec.psu_rated_watts is not None
        assert spec.peak_power_watts is not None and spec.peak_power_watts > 0
    advice = advise(AdvisorInput(parameters_billion=0.5, dataset_gb=10), list(specs.values()))
    psu = next(r for r in advice.reasons if r.code == "psu_headroom")
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


def test_every_reason_code_the_advisor_emits_has_a_translation_entry():
    emitted = set()
    for job in [
        {"parameters_billion": 0.025, "dataset_gb": 1},
        {"parameters_billion": 0.5, "dataset_gb": 20, "precision": "int8", "nvlink": True},
        {"parameters_billion": 3, "dataset_gb": 200, "multi_gpu": True},
        {"parameters_billion": 0.9, "dataset_gb": 0, "multi_gpu": True},
        {"parameters_billion": 500, "dataset_gb": 1},
        {"parameters_billion": 13, "dataset_gb": 1},
    ]:
        advice = advise(AdvisorInput(**job))
        emitted |= {r.code for r in advice.reasons + advice.warnings}
    assert emitted <= set(REASON_TEXTS) | {"psu_insufficient"}


def test_a_translated_reason_interpolates_its_params_and_translates_the_tier():
    reason = Reason(code="memory_needs_tier", params={"memory_gb": 22.2, "band": "multi"}, text="x")
    with translation.override("en"):
        assert translate_reason(reason) == (
            "About 22.2 GB of training memory needs at least the multi-GPU tier."
        )


def test_an_unknown_reason_code_falls_back_to_the_engines_english_text():
    reason = Reason(code="something_new", params={}, text="A new rule.")
    assert translate_reason(reason) == "A new rule."


def test_the_translated_text_matches_the_engines_english_for_every_reason():
    advice = advise(AdvisorInput(parameters_billion=3, dataset_gb=200, multi_gpu=True))
    with translation.override("en"):
        for reason in advice.reasons + advice.warnings:
            if {"band", "tier"} & set(reason.params):
                continue  # these name the tier by its catalog label
            assert translate_reason(reason) == reason.text


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


def test_the_advisor_answers_in_chinese_too(client, catalog):
    response = client.post(
        URL,
        {"parameters_billion": "3", "dataset_gb": "200", "precision": "fp16"},
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert response.status_code == 200
    assert response.headers["Content-Language"] == "zh-hans"
    assert response.context["page"].advice.tier == "multi"

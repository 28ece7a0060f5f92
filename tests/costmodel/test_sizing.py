"""The sizing advisor: each rule, each tier boundary, the guide's known errors."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from pydantic import ValidationError

from costmodel.sizing import (
    BYTES_PER_PARAMETER,
    DEFAULT_PRESETS,
    REASON_CODES,
    TIERS,
    AdvisorInput,
    PresetSpec,
    advise,
    check_psu,
    is_geforce_40_series,
    nodes_needed,
    training_memory_gb,
)


def advice_for(parameters_billion=0.025, dataset_gb=1.0, **kwargs):
    return advise(
        AdvisorInput(parameters_billion=parameters_billion, dataset_gb=dataset_gb, **kwargs)
    )


def codes(reasons):
    return [r.code for r in reasons]


def preset(slug, tier, gpu_name="RTX 4090", gpu_count=1, vram_gb=24.0, **kwargs):
    return PresetSpec(
        slug=slug, tier=tier, gpu_name=gpu_name, gpu_count=gpu_count, vram_gb=vram_gb, **kwargs
    )


# --- training memory --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("precision", "bytes_per_parameter"),
    [("fp32", 16.0), ("fp16", 18.0), ("bf16", 18.0), ("int8", 12.0)],
)
def test_it_counts_weights_gradients_and_adam_states_per_parameter(precision, bytes_per_parameter):
    assert BYTES_PER_PARAMETER[precision] == bytes_per_parameter
    # 7 B parameters: 7 × b GB of states, +25 % activations, +2 GB framework.
    assert_allclose(
        training_memory_gb(7.0, precision), 7 * bytes_per_parameter * 1.25 + 2, rtol=1e-12
    )


def test_it_never_estimates_less_than_the_12_gb_floor():
    assert training_memory_gb(0.001, "fp32") == 12.0


def test_it_reports_the_memory_estimate_in_the_advice():
    advice = advice_for(parameters_billion=7.0, precision="fp16")
    assert_allclose(advice.training_memory_gb, 7 * 18 * 1.25 + 2, rtol=1e-12)
    vram = next(r for r in advice.reasons if r.code == "vram_priority")
    assert vram.params["bytes_per_parameter"] == 18.0
    assert vram.params["memory_gb"] == advice.training_memory_gb  # unrounded: the web rounds


# --- tiers --------------------------------------------------------------------------------------


def test_it_recommends_the_budget_tier_for_a_resnet50_class_job():
    advice = advice_for(parameters_billion=0.025, dataset_gb=5)
    assert advice.tier == "budget"
    assert advice.preset_slug == "budget-rtx4060ti"


def test_it_recommends_the_entry_tier_for_bert_base_fine_tuning():
    advice = advice_for(parameters_billion=0.11, dataset_gb=5)
    assert advice.tier == "entry"
    assert "model_size_band" in codes(advice.reasons)


ROOMY = [
    preset("b", "budget", vram_gb=1000),
    preset("e", "entry", vram_gb=1000),
    preset("m", "multi", gpu_count=8, vram_gb=1000),
]
"""Presets so large that memory never decides: only the other rules do."""


@pytest.mark.parametrize(
    ("parameters_billion", "tier"),
    [(0.1, "budget"), (0.1001, "entry"), (0.999, "entry"), (1.0, "multi"), (100.0, "multi")],
)
def test_it_follows_the_guides_model_size_bands(parameters_billion, tier):
    job = AdvisorInput(parameters_billion=parameters_billion, dataset_gb=0)
    assert advise(job, ROOMY).tier == tier


def test_it_moves_to_the_cluster_tier_above_100_b_parameters_even_if_memory_would_fit():
    roomy = [preset("huge", "multi", gpu_count=8, vram_gb=100_000)]
    assert advise(AdvisorInput(parameters_billion=100, dataset_gb=1), roomy).tier == "multi"
    assert advise(AdvisorInput(parameters_billion=100.5, dataset_gb=1), roomy).tier == "cluster"


@pytest.mark.parametrize(
    ("dataset_gb", "tier"),
    [
        (0, "budget"),
        (9.99, "budget"),
        (10, "entry"),
        (49.99, "entry"),
        (50, "multi"),
        (500, "multi"),
    ],
)
def test_it_follows_the_guides_dataset_bands(dataset_gb, tier):
    advice = advice_for(parameters_billion=0.025, dataset_gb=dataset_gb)
    assert advice.tier == tier
    assert ("dataset_band" in codes(advice.reasons)) == (tier != "budget")


def test_it_recommends_the_multi_tier_when_several_gpus_are_wanted():
    advice = advice_for(parameters_billion=0.025, multi_gpu=True)
    assert advice.tier == "multi"
    assert "multi_gpu_requested" in codes(advice.reasons)


def test_it_moves_up_a_tier_when_the_memory_estimate_exceeds_the_gpu():
    presets = [
        preset("b", "budget", gpu_name="RTX 4060 Ti", vram_gb=16),
        preset("e", "entry", gpu_name="RTX 4080", vram_gb=16),
        preset("m", "multi", gpu_count=4),
    ]
    # 0.6 B at fp16: 0.6 × 18 × 1.25 + 2 = 15.5 GB fits the 16 GB entry card.
    assert advise(AdvisorInput(parameters_billion=0.6, dataset_gb=0), presets).tier == "entry"
    # 0.9 B: 22.25 GB does not; the size band says entry, memory says multi.
    advice = advise(AdvisorInput(parameters_billion=0.9, dataset_gb=0), presets)
    assert advice.tier == "multi"
    reason = next(r for r in advice.reasons if r.code == "memory_needs_tier")
    assert reason.params == {"memory_gb": 0.9 * 18 * 1.25 + 2, "tier": "multi"}


def test_it_never_recommends_a_gpu_below_the_12_gb_floor():
    presets = [preset("tiny", "budget", gpu_name="RTX 3050", vram_gb=8), preset("big", "entry")]
    advice = advise(AdvisorInput(parameters_billion=0.01, dataset_gb=0), presets)
    assert advice.tier == "entry"
    assert advice.preset_slug == "big"
    assert "vram_floor" in codes(advice.reasons)


def test_it_picks_the_smallest_multi_preset_that_holds_the_job():
    # 3 B at fp16: 3 × 18 × 1.25 + 2 = 69.5 GB → 4 × 24 = 96 GB is enough.
    assert advice_for(parameters_billion=3.0).preset_slug == "multi-4x-rtx4090"
    # 7 B: 159.5 GB → needs 8 × 24 = 192 GB.
    assert advice_for(parameters_billion=7.0).preset_slug == "multi-8x-rtx4090"


def test_the_guides_4x_a100_box_holds_a_13_b_model():
    # 13 B at fp16: 294.5 GB > 192 GB of 8 × RTX 4090, < 320 GB of 4 × A100 80GB.
    advice = advice_for(parameters_billion=13.0)
    assert (advice.tier, advice.preset_slug) == ("multi", "multi-4x-a100-80gb")


def test_it_recommends_the_smallest_cluster_preset_for_a_job_beyond_one_box():
    # 20 B at fp16: 20 × 18 × 1.25 + 2 = 452 GB > 320 GB, the largest box; 2 × 8 × 80 = 1 280 GB.
    advice = advice_for(parameters_billion=20.0)
    assert (advice.tier, advice.preset_slug) == ("cluster", "cluster-2x-hgx-h100")
    assert codes(advice.reasons) == [
        "vram_priority",
        "vram_floor",
        "model_size_band",
        "memory_beyond_one_box",
        "cluster_beyond_one_box",
        "cluster_preset_fits",
        "nvme_for_data",
        "managed_alternatives",
    ]
    beyond = next(r for r in advice.reasons if r.code == "memory_beyond_one_box")
    assert beyond.params == {"memory_gb": 452.0, "largest_gb": 320.0}
    fits = next(r for r in advice.reasons if r.code == "cluster_preset_fits")
    assert fits.params == {
        "preset": "cluster-2x-hgx-h100",
        "node_count": 2,
        "gpus_per_node": 8,
        "gpu_name": "H100 80GB SXM5",
        "capacity_gb": 1280.0,
        "memory_gb": 452.0,
    }
    assert not {"cluster_too_small", "preset_too_small"} & set(codes(advice.warnings))


def test_it_sends_a_model_above_100_b_to_the_cluster_tier_and_picks_the_cluster_that_holds_it():
    # 101 B at fp16: 101 × 22.5 + 2 = 2 274.5 GB: more than 2 nodes (1 280), less than 4 (2 560).
    advice = advice_for(parameters_billion=101.0)
    assert (advice.tier, advice.preset_slug) == ("cluster", "cluster-4x-hgx-h100")
    band = next(r for r in advice.reasons if r.code == "model_size_band")
    assert band.params["tier"] == "cluster"


def test_it_says_how_many_nodes_a_job_beyond_the_largest_cluster_needs():
    # 175 B at fp16: 175 × 22.5 + 2 = 3 939.5 GB > 4 × 8 × 80 = 2 560 GB; 8 × 80 GB per node.
    advice = advice_for(parameters_billion=175.0)
    assert (advice.tier, advice.preset_slug) == ("cluster", "cluster-4x-hgx-h100")
    warning = next(w for w in advice.warnings if w.code == "cluster_too_small")
    assert warning.params["nodes_needed"] == math.ceil(3939.5 / 640) == 7
    assert warning.params["capacity_gb"] == 2560.0
    assert nodes_needed(2560.0, DEFAULT_PRESETS[-1]) == 4


def test_it_gives_the_clusters_power_in_kw_for_colocation():
    cluster = preset(
        "c",
        "cluster",
        gpu_name="H100",
        gpu_count=32,
        node_count=4,
        vram_gb=80,
        peak_power_watts=40_800,
    )
    advice = advise(AdvisorInput(parameters_billion=150, dataset_gb=0), [cluster])
    power = next(r for r in advice.reasons if r.code == "cluster_power")
    assert power.params == {"peak_kw": 40.8, "node_kw": 10.2}


def test_without_a_cluster_preset_it_recommends_the_cluster_tier_and_the_managed_alternatives():
    boxes = [p for p in DEFAULT_PRESETS if p.tier != "cluster"]
    advice = advise(AdvisorInput(parameters_billion=20.0, dataset_gb=0), boxes)
    assert (advice.tier, advice.preset_slug) == ("cluster", None)
    assert codes(advice.reasons)[-3:] == [
        "cluster_beyond_one_box",
        "cluster_no_preset",
        "managed_alternatives",
    ]
    assert not {"cluster_preset_fits", "cluster_power"} & set(codes(advice.reasons))


def test_it_skips_a_tier_the_catalog_has_no_preset_for():
    advice = advise(AdvisorInput(parameters_billion=0.01, dataset_gb=0), [preset("e", "entry")])
    assert (advice.tier, advice.preset_slug) == ("entry", "e")


def test_it_warns_when_the_chosen_preset_is_smaller_than_the_job():
    # A catalog whose only multi box has less memory than its entry box.
    presets = [preset("e", "entry"), preset("m", "multi", gpu_name="RTX 4080", vram_gb=16)]
    # 0.9 B at fp16 = 22.25 GB: fits the entry card; the multi-GPU wish forces multi.
    job = AdvisorInput(parameters_billion=0.9, dataset_gb=0, multi_gpu=True)
    advice = advise(job, presets)
    assert (advice.tier, advice.preset_slug) == ("multi", "m")
    warning = next(w for w in advice.warnings if w.code == "preset_too_small")
    assert warning.params == {"preset": "m", "capacity_gb": 16.0, "memory_gb": 22.25}
    # Without the wish the entry card holds it and nothing is said.
    advice = advise(AdvisorInput(parameters_billion=0.9, dataset_gb=0), presets)
    assert advice.tier == "entry"
    assert "preset_too_small" not in codes(advice.warnings)


@settings(max_examples=60, deadline=None)
@given(
    small=st.floats(min_value=1e-4, max_value=500, allow_nan=False),
    factor=st.floats(min_value=1.0, max_value=100, allow_nan=False),
    dataset_gb=st.floats(min_value=0, max_value=500, allow_nan=False),
    precision=st.sampled_from(["fp32", "fp16", "bf16", "int8"]),
    multi_gpu=st.booleans(),
)
def test_a_bigger_model_never_gets_a_smaller_tier(small, factor, dataset_gb, precision, multi_gpu):
    common = {"dataset_gb": dataset_gb, "precision": precision, "multi_gpu": multi_gpu}
    lower = advice_for(parameters_billion=small, **common).tier
    higher = advice_for(parameters_billion=small * factor, **common).tier
    assert TIERS.index(higher) >= TIERS.index(lower)


# --- box rules ----------------------------------------------------------------------------------


def test_it_explains_cpu_cores_for_the_input_pipeline_per_tier():
    for parameters_billion, cores in [(0.025, 6), (0.5, 8), (3.0, 32)]:
        reason = next(
            r
            for r in advice_for(parameters_billion=parameters_billion).reasons
            if r.code == "cpu_cores_pipeline"
        )
        assert reason.params["cores"] == cores


def test_it_sizes_nvme_for_the_training_data():
    reason = next(r for r in advice_for(dataset_gb=40).reasons if r.code == "nvme_for_data")
    assert reason.params == {"nvme_gb": 500.0, "dataset_gb": 40.0}
    reason = next(r for r in advice_for(dataset_gb=400).reasons if r.code == "nvme_for_data")
    assert reason.params["nvme_gb"] == 800


def test_it_requires_30_percent_psu_headroom():
    assert check_psu(1105, 850, "gold").ok
    assert not check_psu(1104, 850, "gold").ok
    assert_allclose(check_psu(1200, 1000, "gold").headroom, 0.2, rtol=1e-12)
    assert_allclose(check_psu(1200, 1000, "gold").required_watts, 1300, rtol=1e-12)


@pytest.mark.parametrize(
    ("grade", "ok"),
    [
        ("bronze", False),
        ("silver", False),
        ("gold", True),
        ("80 Plus Platinum", True),
        (None, False),
    ],
)
def test_it_requires_an_80_plus_gold_psu(grade, ok):
    check = check_psu(2000, 1000, grade)
    assert check.efficiency_ok is ok
    assert check.ok is ok


@pytest.mark.parametrize(("rated", "peak"), [(0, 100), (100, 0), (math.inf, 100), (100, math.nan)])
def test_it_rejects_nonsense_psu_figures(rated, peak):
    with pytest.raises(ValueError, match="rated_watts"):
        check_psu(rated, peak)


def test_it_quotes_the_required_psu_rating_for_a_known_peak_draw():
    presets = [
        preset("e", "entry", peak_power_watts=850, psu_rated_watts=1000, psu_efficiency="gold")
    ]
    advice = advise(AdvisorInput(parameters_billion=0.5, dataset_gb=0), presets)
    psu = next(r for r in advice.reasons if r.code == "psu_headroom_known_peak")
    assert psu.params["required_watts"] == 1105
    warning = next(w for w in advice.warnings if w.code == "psu_insufficient")
    assert warning.params["rated_watts"] == 1000


def test_it_does_not_warn_about_a_psu_that_meets_the_rule():
    presets = [
        preset("e", "entry", peak_power_watts=850, psu_rated_watts=1200, psu_efficiency="gold")
    ]
    advice = advise(AdvisorInput(parameters_billion=0.5, dataset_gb=0), presets)
    assert "psu_insufficient" not in codes(advice.warnings)


# --- the guide's known errors -------------------------------------------------------------------


def test_it_warns_that_a_multi_gpu_geforce_40_box_has_no_nvlink():
    advice = advice_for(parameters_billion=3.0)
    assert advice.preset_slug == "multi-4x-rtx4090"
    warning = next(w for w in advice.warnings if w.code == "no_nvlink_geforce_40")
    assert warning.params == {"gpu_name": "RTX 4090"}


def test_it_does_not_warn_about_nvlink_for_a_single_gpu_box_nobody_asked_nvlink_for():
    assert "no_nvlink_geforce_40" not in codes(advice_for(parameters_billion=0.5).warnings)


def test_it_warns_when_nvlink_is_asked_for_a_geforce_40_box():
    advice = advice_for(parameters_billion=0.5, nvlink=True)
    assert codes(advice.warnings).count("no_nvlink_geforce_40") == 1


def test_it_does_not_warn_about_nvlink_on_a_multi_a100_box():
    presets = [
        preset("a100x4", "multi", gpu_name="A100 80GB", gpu_count=4, vram_gb=80, nvlink=True)
    ]
    advice = advise(AdvisorInput(parameters_billion=3, dataset_gb=0, nvlink=True), presets)
    assert advice.preset_slug == "a100x4"
    assert "no_nvlink_geforce_40" not in codes(advice.warnings)


def test_it_says_when_the_gpu_of_a_non_geforce_box_has_no_nvlink():
    presets = [preset("l40s", "multi", gpu_name="L40S 48GB", gpu_count=4, vram_gb=48)]
    advice = advise(AdvisorInput(parameters_billion=3, dataset_gb=0, nvlink=True), presets)
    assert [w.params for w in advice.warnings if w.code == "no_nvlink"] == [
        {"gpu_name": "L40S 48GB"}
    ]
    assert "no_nvlink_geforce_40" not in codes(advice.warnings)


def test_it_corrects_the_guides_tensorflow_linux_gpu_claim_for_every_job():
    for job in ({}, {"parameters_billion": 20.0}, {"parameters_billion": 3.0, "multi_gpu": True}):
        assert codes(advice_for(**job).warnings)[-1] == "tensorflow_linux_gpu"


@pytest.mark.parametrize(
    ("name", "geforce_40"),
    [
        ("RTX 4090", True),
        ("GeForce RTX 4060 Ti 16GB", True),
        ("rtx4080", True),
        ("RTX 3060 12GB", False),
        ("A100 80GB PCIe", False),
        ("RTX A4000", False),
    ],
)
def test_it_recognises_geforce_40_series_names(name, geforce_40):
    assert is_geforce_40_series(name) is geforce_40


# --- input --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"parameters_billion": 0, "dataset_gb": 1}, "parameters_billion"),
        ({"parameters_billion": -1, "dataset_gb": 1}, "parameters_billion"),
        ({"parameters_billion": math.nan, "dataset_gb": 1}, "parameters_billion"),
        ({"parameters_billion": 1, "dataset_gb": -1}, "dataset_gb"),
        ({"parameters_billion": 1, "dataset_gb": 1, "precision": "fp8"}, "precision"),
        ({"parameters_billion": "1", "dataset_gb": 1}, "parameters_billion"),
        ({"parameters_billion": 1, "dataset_gb": 1, "gpus": 2}, "gpus"),
    ],
)
def test_it_rejects_bad_input_naming_the_field(data, field):
    with pytest.raises(ValidationError) as info:
        AdvisorInput.model_validate(data)
    assert info.value.errors()[0]["loc"][0] == field


def test_every_reason_is_a_known_code_with_figures_and_no_prose():
    for job in [
        {"parameters_billion": 0.025, "dataset_gb": 1},
        {"parameters_billion": 3, "dataset_gb": 200, "multi_gpu": True, "nvlink": True},
        {"parameters_billion": 500, "dataset_gb": 1, "precision": "int8"},
    ]:
        advice = advise(AdvisorInput(**job))
        for reason in advice.reasons + advice.warnings:
            assert reason.code in REASON_CODES
            assert set(reason.model_dump()) == {"code", "params"}


def test_the_default_presets_cover_every_tier():
    assert {p.tier for p in DEFAULT_PRESETS} == set(TIERS)

"""From a training run to reference GPU-hours, and whether its model fits a box."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from costmodel import compare, parse_scenario
from costmodel.sizing import DEFAULT_PRESETS, smallest_preset_that_fits, training_memory_gb
from costmodel.training import (
    dataset_reference_gpu_hours,
    memory_fit,
    transformer_reference_gpu_hours,
)

V3 = Path(__file__).resolve().parent / "examples" / "v3"
RUNS = json.loads((V3 / "operations.json").read_text())["training_reference_gpu_hours"]


@pytest.mark.parametrize("run", RUNS, ids=[f"{r['method']}-{r['parameters']:.0e}" for r in RUNS])
def test_it_gives_the_methodologys_reference_gpu_hours(run):
    hours = transformer_reference_gpu_hours(
        run["parameters"],
        run["tokens"],
        run["method"],
        run["reference_peak_tflops"],
        run["mfu"],
    )

    assert hours == pytest.approx(run["expected"], rel=1e-12)


def test_the_worked_example_by_hand():
    # 4 × 7e9 × 2e9 = 5.6e19 FLOP; / (312e12 × 0.4) = 448 718 s = 124.64 h.
    assert transformer_reference_gpu_hours(7e9, 2e9, "adapter", 312, 0.4) == pytest.approx(
        5.6e19 / (312e12 * 0.4) / 3600
    )


def test_the_examples_jobs_carry_the_converted_hours():
    lora = json.loads((V3 / "jobs-lora-4090-vs-a100.json").read_text())
    pretraining = json.loads((V3 / "jobs-seasonal-burst-commitment.json").read_text())

    assert lora["workload"]["jobs"][0]["reference_gpu_hours"] == pytest.approx(
        transformer_reference_gpu_hours(7e9, 2e9, "adapter", 312, 0.4), abs=1e-4
    )
    assert pretraining["workload"]["jobs"][0]["reference_gpu_hours"] == pytest.approx(
        transformer_reference_gpu_hours(1.3e9, 100e9, "full", 312, 0.4), abs=1e-4
    )


def test_full_training_costs_half_again_as_much_as_adapters():
    full = transformer_reference_gpu_hours(7e9, 2e9, "full", 312, 0.4)
    adapter = transformer_reference_gpu_hours(7e9, 2e9, "adapter", 312, 0.4)

    assert full == pytest.approx(1.5 * adapter)


def test_it_works_on_arrays_of_runs():
    hours = transformer_reference_gpu_hours(
        np.array([7e9, 1.3e9]), np.array([2e9, 100e9]), "adapter", 312, np.array([0.4, 0.5])
    )

    assert_allclose(
        hours,
        [
            transformer_reference_gpu_hours(7e9, 2e9, "adapter", 312, 0.4),
            transformer_reference_gpu_hours(1.3e9, 100e9, "adapter", 312, 0.5),
        ],
        rtol=1e-15,
    )


def test_a_dataset_run_is_samples_times_epochs_at_the_reference_rate():
    # ImageNet-1k (1 281 167 images), 90 epochs, at 2 500 images/s on the reference GPU.
    assert dataset_reference_gpu_hours(1_281_167, 90, 2_500.0) == pytest.approx(
        1_281_167 * 90 / 2_500.0 / 3600
    )
    assert dataset_reference_gpu_hours(1_000, 2, 1.0) == pytest.approx(2_000 / 3600)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ((0, 2e9, "full", 312, 0.4), "parameters: must be a finite number greater than 0"),
        ((7e9, -1, "full", 312, 0.4), "tokens: must be a finite number greater than 0"),
        ((7e9, 2e9, "full", float("inf"), 0.4), "reference_peak_tflops: must be a finite"),
        ((7e9, 2e9, "full", 312, 1.5), "mfu: must be less than or equal to 1"),
        ((7e9, 2e9, "full", 312, 0.0), "mfu: must be a finite number greater than 0"),
        ((7e9, 2e9, "lora", 312, 0.4), "method: must be 'full', 'adapter' or 'qlora'"),
    ],
)
def test_it_refuses_inputs_that_are_not_a_run(arguments, message):
    with pytest.raises(ValueError, match=message):
        transformer_reference_gpu_hours(*arguments)


def test_a_dataset_run_refuses_a_zero_rate():
    with pytest.raises(ValueError, match="reference_samples_per_second"):
        dataset_reference_gpu_hours(1_000, 1, 0)


# --- memory fit ------------------------------------------------------------------------------

BUDGET = next(p for p in DEFAULT_PRESETS if p.slug == "budget-rtx4060ti")


def test_a_7b_full_fine_tune_does_not_fit_the_budget_box():
    fit = memory_fit(7.0, "bf16", "full", BUDGET.gpu_count, BUDGET.vram_gb)

    assert not fit.fits
    assert fit.needed_gb == pytest.approx(7 * 18 * 1.25 + 2)  # the advisor's rule
    assert fit.needed_gb == training_memory_gb(7.0, "bf16")
    assert fit.capacity_gb == 16.0


def test_a_7b_adapter_fine_tune_on_8_bit_weights_fits_the_budget_box():
    fit = memory_fit(7.0, "int8", "adapter", BUDGET.gpu_count, BUDGET.vram_gb)

    assert fit.needed_gb == max(7 * 1 * 1.25 + 2, 12.0)  # frozen weights only, the guide's floor
    assert fit.fits


def test_adapters_need_only_the_frozen_weights_at_their_precision():
    assert training_memory_gb(7.0, "bf16", "adapter") == pytest.approx(7 * 2 * 1.25 + 2)
    assert training_memory_gb(7.0, "fp32", "adapter") == pytest.approx(7 * 4 * 1.25 + 2)
    assert training_memory_gb(0.1, "bf16", "adapter") == 12.0  # the guide's floor


def test_memory_is_sharded_across_the_gpus_of_one_box():
    needed = training_memory_gb(7.0, "bf16")  # 159.5 GB

    assert not memory_fit(7.0, "bf16", "full", 1, 80.0).fits
    assert memory_fit(7.0, "bf16", "full", 2, 80.0).fits
    assert memory_fit(7.0, "bf16", "full", 8, 24.0).capacity_gb == 192.0
    assert memory_fit(7.0, "bf16", "full", 8, 24.0).needed_gb == needed


def test_qlora_keeps_4_bit_base_weights_whatever_the_precision_of_the_computation():
    # 4-bit NormalFloat plus double-quantized constants: 4.127 bits a parameter.
    for precision in ("fp32", "bf16", "int8"):
        assert training_memory_gb(70.0, precision, "qlora") == pytest.approx(
            70 * 4.127 / 8 * 1.25 + 2
        )
    # The QLoRA paper's claim: a 65 B model fine-tuned on one 48 GB GPU.
    assert memory_fit(65.0, "bf16", "qlora", 1, 48.0).fits
    assert not memory_fit(65.0, "bf16", "adapter", 1, 48.0).fits
    assert training_memory_gb(7.0, "bf16", "qlora") == 12.0  # the guide's floor


def test_a_run_not_sharded_must_fit_one_gpu_of_the_box():
    # 33 B on 4-bit weights needs about 23.3 GB: one 24 GB card holds it, one 16 GB does not,
    # however many of them the box has, unless the run is sharded across them.
    assert memory_fit(33.0, "bf16", "qlora", 1, 24.0, sharded=False).fits
    assert not memory_fit(33.0, "bf16", "qlora", 4, 16.0, sharded=False).fits
    assert memory_fit(33.0, "bf16", "qlora", 4, 16.0, sharded=True).fits
    assert memory_fit(7.0, "bf16", "full", 8, 24.0, sharded=False).capacity_gb == 24.0


def test_a_run_converted_to_jobs_gives_a_scenario_the_engine_accepts():
    data = json.loads((V3 / "jobs-lora-4090-vs-a100.json").read_text())
    data["workload"]["jobs"] = [
        {
            "name": "7B adapter fine-tune",
            "reference_gpu_hours": transformer_reference_gpu_hours(7e9, 2e9, "adapter", 312),
            "runs_per_month": 2,
        }
    ]

    result = compare(parse_scenario(data))

    assert result["jobs"][0]["rent_instance_hours_per_run"] == pytest.approx(124.6438746)


def test_the_next_preset_that_fits_is_the_one_of_least_memory_that_holds_the_run():
    full = memory_fit(7.0, "bf16", "full", BUDGET.gpu_count, BUDGET.vram_gb)

    offered = smallest_preset_that_fits(full.needed_gb)

    assert offered is not None and offered.slug == "multi-8x-rtx4090"  # 8 × 24 = 192 GB
    assert memory_fit(7.0, "bf16", "full", offered.gpu_count, offered.vram_gb).fits
    smaller = [p for p in DEFAULT_PRESETS if p.capacity_gb < offered.capacity_gb]
    assert smaller and not any(p.capacity_gb >= full.needed_gb for p in smaller)
    assert smallest_preset_that_fits(12.0).slug == "budget-rtx4060ti"
    assert smallest_preset_that_fits(1e6) is None

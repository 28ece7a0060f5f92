"""The projection against hand-checked figures: the worked examples and the edge cases.

Every expected number below is derived by hand in the test from the
methodology's formulas, not copied from the engine's output.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from costmodel import SteadyWorkload, compare, parse_scenario, project
from costmodel.projection import ProjectionOverflowError

EXAMPLES = Path(__file__).resolve().parent / "examples"
RTOL = 1e-12


def example(name: str) -> dict:
    return json.loads((EXAMPLES / f"{name}.json").read_text())


def scenario(**changes: object) -> dict:
    """The first worked example, with dotted-path changes: scenario(**{"build.capex": 0})."""
    data = example("steady-4090-vs-a100")
    for path, value in changes.items():
        *parents, leaf = path.split(".")
        target = data
        for key in parents:
            target = target[key]
        target[leaf] = value
    return data


def run(data: dict) -> dict:
    return compare(parse_scenario(data))


@pytest.fixture(scope="module")
def steady_result() -> dict:
    return run(example("steady-4090-vs-a100"))


@pytest.fixture(scope="module")
def tidal_result() -> dict:
    return run(example("tidal-4060ti"))


class TestSteady4090VsA100:
    """``examples/steady-4090-vs-a100.json`` by hand.

    busy     = 0.8 × 730 = 584 h; idle = 730 − 584 = 146 h
    energy   = (650 × 584 + 110 × 146) / 1000 × 1.2 = 395 660 / 1000 × 1.2 = 474.792 kWh
             → 474.792 × 0.8 = 379.8336 CNY
    maint    = 25 000 × 0.05 / 12 = 104.1666… CNY
    build    = 379.8336 + 0 + 104.1666… + 0 = 484.000266… CNY per month
    ratio    = 1 × 0.6 / (1 × 1.0) = 0.6 → 584 × 0.6 = 350.4 instance-hours
    rent     = 350.4 × 28 = 9 811.2 compute + 30 fixed = 9 841.2 CNY per month
    diff[m]  = 25 000 − (9 841.2 − 484.000266…) m = 25 000 − 9 357.199733… m
    diff[2]  = 6 285.600533…, diff[3] = −3 071.599200… → break-even 2 + 6 285.6005/9 357.1997
             = 2.67173948…
    (The methodology's text says 474.768 kWh / 484.0811; 650 × 584 + 110 × 146 is
    395 660, not 395 640. Its break-even month, 2.6717, is right either way.)
    """

    busy = 0.8 * 730
    energy = (650 * busy + 110 * (730 - busy)) / 1000 * 1.2 * 0.8
    maintenance = 25_000 * 0.05 / 12
    build_monthly = energy + maintenance
    rent_compute = busy * 0.6 * 28
    rent_monthly = rent_compute + 30

    def test_hand_figures_are_what_the_methodology_describes(self):
        assert self.busy == pytest.approx(584)
        assert self.energy == pytest.approx(474.792 * 0.8) == pytest.approx(379.8336)
        assert self.build_monthly == pytest.approx(484.0002666667)
        assert self.rent_compute == pytest.approx(9811.2)
        assert self.rent_monthly == pytest.approx(9841.2)

    def test_monthly_build_costs_match_the_hand_figures(self, steady_result):
        build = steady_result["build"]
        assert build["monthly"][0] == 25_000
        assert_allclose(build["energy"], [0] + [379.8336] * 36, rtol=RTOL)
        assert_allclose(build["maintenance"], [0] + [25_000 * 0.05 / 12] * 36, rtol=RTOL)
        assert build["hosting"] == [0.0] * 37
        assert build["ops"] == [0.0] * 37
        assert_allclose(build["monthly"][1:], [484.0002666666667] * 36, rtol=RTOL)

    def test_monthly_rent_costs_match_the_hand_figures(self, steady_result):
        rent = steady_result["rent"]
        assert_allclose(rent["compute"], [0] + [9811.2] * 36, rtol=RTOL)
        assert_allclose(rent["fixed"], [0] + [30] * 36, rtol=RTOL)
        assert_allclose(rent["monthly"], [0] + [9841.2] * 36, rtol=RTOL)

    def test_break_even_month_is_2_6717(self, steady_result):
        slope = 9841.2 - (379.8336 + 25_000 * 0.05 / 12)
        by_hand = 2 + (25_000 - 2 * slope) / slope
        assert by_hand == pytest.approx(2.67173948, abs=1e-8)
        assert steady_result["break_even_month"] == pytest.approx(by_hand, rel=1e-12)
        assert round(steady_result["break_even_month"], 4) == 2.6717

    def test_totals_resale_and_savings_match_the_hand_figures(self, steady_result):
        # build 25 000 + 36 × 484.000266… = 42 424.0096; resale 25 000 × 0.7³ = 8 575
        # rent 36 × 9 841.2 = 354 283.2; savings 354 283.2 − (42 424.0096 − 8 575) = 320 434.1904
        assert steady_result["build"]["total"] == pytest.approx(42_424.0096, rel=RTOL)
        assert steady_result["build"]["resale_value"] == pytest.approx(8575, rel=RTOL)
        assert steady_result["build"]["total_net"] == pytest.approx(33_849.0096, rel=RTOL)
        assert steady_result["rent"]["total"] == pytest.approx(354_283.2, rel=RTOL)
        assert steady_result["savings"] == pytest.approx(320_434.1904, rel=RTOL)

    def test_work_and_cost_per_reference_gpu_hour_match_the_hand_figures(self, steady_result):
        # work = 36 × 584 h × 1 GPU × 0.6 = 12 614.4 reference GPU-hours
        assert steady_result["work_reference_gpu_hours"] == pytest.approx(12_614.4, rel=RTOL)
        assert steady_result["build"]["cost_per_reference_gpu_hour"] == pytest.approx(
            33_849.0096 / 12_614.4, rel=RTOL
        )
        # renting: 9 841.2 CNY buys 350.4 instance-hours = 584 × 0.6 reference hours
        assert steady_result["rent"]["cost_per_reference_gpu_hour"] == pytest.approx(
            9841.2 / 350.4, rel=RTOL
        )

    def test_present_values_discount_each_month_by_8_percent_a_year(self, steady_result):
        # f[m] = 1.08^(−m/12); Σ_{m=1..36} f[m] = q (1 − q³⁶) / (1 − q) with q = 1.08^(−1/12)
        q = 1.08 ** (-1 / 12)
        annuity = q * (1 - q**36) / (1 - q)
        build_pv = 25_000 + (379.8336 + 25_000 * 0.05 / 12) * annuity - 8575 * 1.08**-3
        rent_pv = 9841.2 * annuity
        assert steady_result["build"]["present_value"] == pytest.approx(build_pv, rel=1e-12)
        assert steady_result["rent"]["present_value"] == pytest.approx(rent_pv, rel=1e-12)

    def test_break_even_utilization_solves_the_savings_line(self, steady_result):
        # At steady u: energy = 730 (110 + 540 u) / 1000 × 1.2 × 0.8 = 77.088 + 378.432 u;
        # rent = 730 u × 0.6 × 28 + 30 = 12 264 u + 30 per month. Over 36 months:
        # savings(u) = 36 (12 264 u + 30) − (25 000 + 36 (77.088 + 378.432 u + 104.1666…) − 8 575)
        #            = 427 880.448 u − 21 870.168  →  u = 21 870.168 / 427 880.448
        assert steady_result["break_even_utilization"] == pytest.approx(
            21_870.168 / 427_880.448, rel=1e-12
        )
        assert round(steady_result["break_even_utilization"], 6) == 0.051113


class TestTidal4060Ti:
    """``examples/tidal-4060ti.json`` by hand.

    busy    = min(4 × 24, 730) = 96 h
    energy  = (320 × 96 + 60 × 634) / 1000 × 1.0 = 68.76 kWh → × 0.6 = 41.256 CNY
    build   = 41.256 + 7 000 × 0.03 / 12 = 41.256 + 17.5 = 58.756 CNY per month
    rent    = 96 × 0.22 = 21.12 instance-hours × 28 × 0.9^((m−1)/12)
            = 591.36 × g^(m−1) with g = 0.9^(1/12); no fixed fee
    """

    g = 0.9 ** (1 / 12)

    def rent_cumulative(self, m: int) -> float:
        return 591.36 * (1 - self.g**m) / (1 - self.g)

    def test_monthly_costs_match_the_hand_figures(self, tidal_result):
        assert_allclose(tidal_result["build"]["energy"][1:], [41.256] * 24, rtol=RTOL)
        assert_allclose(tidal_result["build"]["monthly"][1:], [58.756] * 24, rtol=RTOL)
        assert_allclose(
            tidal_result["rent"]["compute"][1:],
            [591.36 * self.g ** (m - 1) for m in range(1, 25)],
            rtol=RTOL,
        )
        assert tidal_result["rent"]["compute"][13] == pytest.approx(591.36 * 0.9, rel=RTOL)
        assert tidal_result["rent"]["fixed"] == [0.0] * 25

    def test_totals_and_savings_match_the_hand_figures(self, tidal_result):
        # build 7 000 + 24 × 58.756 = 8 410.144; resale 7 000 × 0.65² = 2 957.5
        # rent Σ_{m=1..24} 591.36 g^(m−1) = 591.36 (1 − 0.9²) / (1 − g)
        rent_total = 591.36 * (1 - 0.81) / (1 - self.g)
        assert tidal_result["build"]["total"] == pytest.approx(8410.144, rel=RTOL)
        assert tidal_result["build"]["resale_value"] == pytest.approx(2957.5, rel=RTOL)
        assert tidal_result["rent"]["total"] == pytest.approx(rent_total, rel=1e-12)
        assert tidal_result["savings"] == pytest.approx(rent_total - (8410.144 - 2957.5), rel=1e-12)
        # No discount rate: present values are the (net) totals.
        assert tidal_result["build"]["present_value"] == pytest.approx(8410.144 - 2957.5, rel=1e-12)
        assert tidal_result["rent"]["present_value"] == pytest.approx(rent_total, rel=1e-12)

    def test_break_even_falls_in_the_fourteenth_month(self, tidal_result):
        diff = [7000 + 58.756 * m - self.rent_cumulative(m) for m in range(25)]
        assert diff[13] > 0 >= diff[14]
        by_hand = 13 + diff[13] / (diff[13] - diff[14])
        assert tidal_result["break_even_month"] == pytest.approx(by_hand, rel=1e-12)
        assert round(tidal_result["break_even_month"], 4) == 13.9955

    def test_work_is_busy_hours_times_reference_throughput(self, tidal_result):
        # 24 × 96 h × 1 × 0.22 = 506.88 reference GPU-hours
        assert tidal_result["work_reference_gpu_hours"] == pytest.approx(506.88, rel=RTOL)
        assert tidal_result["build"]["cost_per_reference_gpu_hour"] == pytest.approx(
            (8410.144 - 2957.5) / 506.88, rel=1e-12
        )

    def test_break_even_utilization_solves_the_savings_line(self, tidal_result):
        # steady u: rent = 730 u × 0.22 × 28 × Σ g^(m−1) = 4 496.8 u × (1 − 0.81) / (1 − g);
        # build net = 7 000 + 24 (730 (60 + 260 u) / 1000 × 0.6 + 17.5) − 2 957.5
        #           = 5 093.22 + 2 733.12 u
        rent_per_u = 4496.8 * 0.19 / (1 - self.g)
        assert tidal_result["break_even_utilization"] == pytest.approx(
            5093.22 / (rent_per_u - 2733.12), rel=1e-12
        )


class TestEdgeCases:
    def test_zero_utilization_does_no_work_and_never_pays_back(self):
        result = run(scenario(**{"workload.utilization": 0.0}))
        assert result["work_reference_gpu_hours"] == 0
        assert result["build"]["cost_per_reference_gpu_hour"] is None
        assert result["rent"]["cost_per_reference_gpu_hour"] is None
        assert result["rent"]["compute"] == [0.0] * 37
        # idle box: 110 W × 730 h / 1000 × 1.2 × 0.8 = 77.088 CNY a month of energy
        assert_allclose(result["build"]["energy"][1:], [77.088] * 36, rtol=RTOL)
        assert result["break_even_month"] is None

    def test_zero_capex_breaks_even_at_month_zero(self):
        result = run(scenario(**{"build.capex": 0}))
        assert result["break_even_month"] == 0
        assert result["build"]["resale_value"] == 0
        assert result["build"]["maintenance"] == [0.0] * 37

    def test_zero_capex_breaks_even_at_once_even_if_building_costs_more_later(self):
        result = run(scenario(**{"build.capex": 0, "rent.hourly_rate": 0, "rent.fixed_monthly": 0}))
        assert result["break_even_month"] == 0
        assert result["savings"] < 0

    def test_tidal_hours_are_clamped_at_730_a_month(self):
        clamped = run(
            scenario(
                workload={"kind": "tidal", "active_days_per_month": 31, "hours_per_active_day": 24}
            )
        )
        full = run(scenario(**{"workload.utilization": 1.0}))
        # 31 × 24 = 744 h > 730 h: the box cannot be busier than the whole month.
        assert clamped["work_reference_gpu_hours"] == pytest.approx(36 * 730 * 0.6, rel=RTOL)
        assert_allclose(clamped["rent"]["compute"], full["rent"]["compute"], rtol=RTOL)
        assert_allclose(clamped["build"]["energy"], full["build"]["energy"], rtol=RTOL)

    def test_tidal_hours_below_the_clamp_are_days_times_hours(self):
        result = run(
            scenario(
                workload={"kind": "tidal", "active_days_per_month": 10, "hours_per_active_day": 8}
            )
        )
        assert result["work_reference_gpu_hours"] == pytest.approx(36 * 80 * 0.6, rel=RTOL)

    def test_a_profile_shorter_than_the_horizon_repeats(self):
        data = scenario(
            horizon_months=7,
            workload={"kind": "profile", "monthly_utilization": [0.1, 0.5, 1.0]},
        )
        result = run(data)
        busy = [0, 73, 365, 730, 73, 365, 730, 73]
        assert_allclose(result["rent"]["compute"], [b * 0.6 * 28 for b in busy], rtol=RTOL)
        energy = [0] + [(650 * b + 110 * (730 - b)) / 1000 * 1.2 * 0.8 for b in busy[1:]]
        assert_allclose(result["build"]["energy"], energy, rtol=RTOL)
        assert result["work_reference_gpu_hours"] == pytest.approx(sum(busy) * 0.6, rel=RTOL)

    def test_a_profile_longer_than_the_horizon_is_cut(self):
        data = scenario(
            horizon_months=2, workload={"kind": "profile", "monthly_utilization": [0.5, 0.25, 1.0]}
        )
        result = run(data)
        assert_allclose(result["rent"]["compute"], [0, 365 * 16.8, 182.5 * 16.8], rtol=RTOL)

    def test_a_one_month_horizon_has_two_entries_per_series(self):
        result = run(scenario(horizon_months=1))
        assert result["months"] == [0, 1]
        for side in ("build", "rent"):
            for name, values in result[side].items():
                if isinstance(values, list):
                    assert len(values) == 2, name
        # resale after one month: 25 000 × 0.7^(1/12)
        assert result["build"]["resale_value"] == pytest.approx(25_000 * 0.7 ** (1 / 12), rel=RTOL)
        assert result["rent"]["total"] == pytest.approx(9841.2, rel=RTOL)
        # diff[1] = 25 000 + 484.0003 − 9 841.2 > 0
        assert result["break_even_month"] is None

    def test_a_240_month_horizon_runs_twenty_years(self):
        result = run(scenario(horizon_months=240))
        assert result["months"] == list(range(241))
        assert len(result["build"]["cumulative"]) == 241
        assert result["build"]["resale_value"] == pytest.approx(25_000 * 0.7**20, rel=RTOL)
        assert result["rent"]["total"] == pytest.approx(240 * 9841.2, rel=RTOL)
        assert result["build"]["total"] == pytest.approx(
            25_000 + 240 * (379.8336 + 25_000 * 0.05 / 12), rel=RTOL
        )

    @pytest.mark.parametrize("change", [0.2, -0.5, 1.0, -0.9])
    def test_cloud_rate_changes_yearly_and_compounds_monthly(self, change):
        result = run(scenario(**{"rent.annual_price_change": change}, horizon_months=36))
        hours = 584 * 0.6
        rate = [c / hours for c in result["rent"]["compute"][1:]]
        # rate[m] = 28 × (1 + change)^((m − 1) / 12): month 1 at list price, month 13 a
        # full year later, month 7 half-way (a geometric, not linear, mean).
        assert rate[0] == pytest.approx(28, rel=RTOL)
        assert rate[6] == pytest.approx(28 * (1 + change) ** 0.5, rel=RTOL)
        assert rate[12] == pytest.approx(28 * (1 + change), rel=RTOL)
        assert rate[24] == pytest.approx(28 * (1 + change) ** 2, rel=RTOL)
        assert_allclose(
            rate, [28 * (1 + change) ** ((m - 1) / 12) for m in range(1, 37)], rtol=RTOL
        )

    def test_rising_cloud_prices_make_renting_dearer(self):
        flat = run(scenario())
        rising = run(scenario(**{"rent.annual_price_change": 0.2}))
        falling = run(scenario(**{"rent.annual_price_change": -0.2}))
        assert falling["rent"]["total"] < flat["rent"]["total"] < rising["rent"]["total"]

    def test_a_scenario_that_never_pays_back_has_no_break_even(self):
        # Cloud at 1 CNY/h: 350.4 + 30 = 380.4 CNY a month, less than the build's 484.0003.
        result = run(scenario(**{"rent.hourly_rate": 1.0}))
        diff = np.subtract(result["build"]["cumulative"], result["rent"]["cumulative"])
        assert (diff > 0).all()
        assert result["break_even_month"] is None
        assert result["savings"] < 0

    def test_break_even_on_a_month_boundary_is_that_whole_month(self):
        # capex 1 000, no running build cost, rent 500 a month: diff = 1 000, 500, 0 → month 2.
        data = scenario(
            **{
                "build.capex": 1000,
                "build.power_load_watts": 0,
                "build.power_idle_watts": 0,
                "build.maintenance_rate_per_year": 0,
                "rent.hourly_rate": 0,
                "rent.fixed_monthly": 500,
            }
        )
        assert run(data)["break_even_month"] == 2.0

    def test_break_even_utilization_is_null_when_savings_do_not_depend_on_it(self):
        # No cloud compute charge and no extra draw under load: utilization changes nothing.
        data = scenario(**{"rent.hourly_rate": 0, "build.power_load_watts": 110})
        assert run(data)["break_even_utilization"] is None

    def test_break_even_utilization_is_null_when_building_wins_even_idle(self):
        data = scenario(**{"build.capex": 0, "rent.fixed_monthly": 10_000})
        result = run(data)
        assert result["savings"] > 0
        assert result["break_even_utilization"] is None

    def test_break_even_utilization_is_null_when_building_loses_even_at_full_load(self):
        result = run(scenario(**{"rent.hourly_rate": 0.5}))
        assert result["break_even_utilization"] is None

    def test_monthly_totals_are_the_sum_of_their_components(self):
        result = run(example("tidal-4060ti"))
        build, rent = result["build"], result["rent"]
        parts = np.add.reduce([build[k] for k in ("energy", "hosting", "maintenance", "ops")])
        assert_allclose(build["monthly"][1:], parts[1:], rtol=RTOL)
        assert_allclose(rent["monthly"], np.add(rent["compute"], rent["fixed"]), rtol=RTOL)
        assert_allclose(build["cumulative"], np.cumsum(build["monthly"]), rtol=RTOL)
        assert_allclose(rent["cumulative"], np.cumsum(rent["monthly"]), rtol=RTOL)

    def test_the_result_echoes_the_scenario_with_defaults_filled_in(self):
        data = example("tidal-4060ti")
        result = run(data)
        assert result["scenario"]["discount_rate_per_year"] == 0
        assert result["scenario"]["build"]["ops_monthly"] == 0
        assert result["scenario"]["build"]["pue"] == 1.0
        assert result["scenario"]["build"]["gpu_count"] == 1
        assert isinstance(result["scenario"]["build"]["gpu_count"], int)
        assert list(result) == [
            "scenario",
            "months",
            "build",
            "rent",
            "break_even_month",
            "break_even_utilization",
            "savings",
            "present_value_savings",
            "work_reference_gpu_hours",
        ]


class TestBatch:
    def test_a_batch_of_mixed_horizons_gives_each_scenario_its_own_length(self):
        datas = [
            scenario(horizon_months=1),
            scenario(
                horizon_months=240, workload={"kind": "profile", "monthly_utilization": [0.3]}
            ),
            example("tidal-4060ti"),
        ]
        scenarios = [parse_scenario(d) for d in datas]
        batch = project(scenarios)
        assert len(batch) == 3
        for i, s in enumerate(scenarios):
            alone = compare(s)
            together = batch.result(i)
            assert together["months"] == list(range(s.horizon_months + 1))
            assert together["break_even_month"] == alone["break_even_month"]
            for side in ("build", "rent"):
                for name, value in alone[side].items():
                    assert_allclose(together[side][name], value, rtol=1e-12)

    def test_results_lists_one_result_per_scenario(self):
        scenarios = [parse_scenario(example("tidal-4060ti")), parse_scenario(scenario())]
        assert [r["savings"] for r in project(scenarios).results()] == [
            compare(s)["savings"] for s in scenarios
        ]

    def test_an_empty_batch_is_refused(self):
        with pytest.raises(ValueError, match="at least one"):
            project([])

    def test_headline_arrays_use_nan_for_null(self):
        scenarios = [
            parse_scenario(scenario(**{"rent.hourly_rate": 1.0})),
            parse_scenario(scenario()),
        ]
        batch = project(scenarios)
        assert np.isnan(batch.break_even_month[0])
        assert batch.break_even_month[1] == pytest.approx(2.6717394853, rel=1e-10)
        assert batch.result(0)["break_even_month"] is None


class TestOverflow:
    def test_inputs_too_large_for_float64_raise_a_projection_overflow_error(self):
        data = scenario(
            **{"build.power_load_watts": 1e200, "build.electricity_price_per_kwh": 1e200}
        )
        with pytest.raises(ProjectionOverflowError) as caught:
            project([parse_scenario(example("tidal-4060ti")), parse_scenario(data)])
        assert caught.value.indices == [1]

    def test_a_gpu_count_too_large_for_float64_raises_a_projection_overflow_error(self):
        fine = parse_scenario(example("tidal-4060ti"))
        huge = parse_scenario(scenario(**{"build.gpu_count": 10**400}))
        with pytest.raises(ProjectionOverflowError) as caught:
            project([fine, huge, fine])
        assert caught.value.indices == [1]

    def test_a_cost_per_gpu_hour_beyond_float64_is_reported_as_overflow(self):
        data = scenario(**{"workload.utilization": 1e-308, "build.gpu_throughput": 0.01})
        with pytest.raises(ProjectionOverflowError) as caught:
            project([parse_scenario(data)])
        assert caught.value.indices == [0]

    def test_an_unvalidated_model_with_text_for_a_number_raises_a_type_error(self):
        # model_construct skips validation; the engine still refuses to guess a number.
        fine = parse_scenario(example("tidal-4060ti"))
        wrong = fine.model_copy(
            update={"rent": fine.rent.model_construct(**{**fine.rent.__dict__, "hourly_rate": "2"})}
        )
        with pytest.raises(TypeError, match="non-number"):
            project([fine, wrong])


def test_the_examples_are_not_modified_by_evaluation():
    data = example("steady-4090-vs-a100")
    before = copy.deepcopy(data)
    run(data)
    assert data == before


def test_a_wide_batch_gives_the_same_figures_as_one_scenario_at_a_time():
    base = parse_scenario(example("steady-4090-vs-a100"))
    scenarios = [
        base.model_copy(
            update={
                "horizon_months": 12 + i % 40,
                "workload": SteadyWorkload(kind="steady", utilization=i / 99),
            }
        )
        for i in range(100)
    ]
    batch = project(scenarios)
    for i in (0, 1, 37, 64, 99):
        together, alone = batch.result(i), compare(scenarios[i])
        # Series add in the same order: equal to the bit. Sums over months (present
        # values, work) may be reassociated by numpy for a wide batch: equal to 1e-12.
        for side in ("build", "rent"):
            for name, value in alone[side].items():
                if isinstance(value, list) or value is None:
                    assert together[side][name] == value, (i, side, name)
                else:
                    assert together[side][name] == pytest.approx(value, rel=1e-12), (i, name)
        for name in (
            "savings",
            "work_reference_gpu_hours",
            "break_even_month",
            "break_even_utilization",
        ):
            if alone[name] is None:
                assert together[name] is None, (i, name)
            else:
                assert together[name] == pytest.approx(alone[name], rel=1e-12), (i, name)


def mixed_scenarios(count: int, seed: int) -> list:
    """Valid scenarios of every workload kind, horizon, price path and discount rate."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        kind = ("steady", "tidal", "profile")[int(rng.integers(3))]
        if kind == "steady":
            workload: dict = {"kind": "steady", "utilization": float(rng.uniform(0, 1))}
        elif kind == "tidal":
            workload = {
                "kind": "tidal",
                "active_days_per_month": float(rng.uniform(0, 31)),
                "hours_per_active_day": float(rng.uniform(1, 24)),
            }
        else:
            table = rng.uniform(0, 1, int(rng.integers(1, 30))).tolist()
            workload = {"kind": "profile", "monthly_utilization": table}
        out.append(
            parse_scenario(
                scenario(
                    **{
                        "horizon_months": int(rng.integers(1, 121)),
                        "discount_rate_per_year": float(rng.uniform(0, 0.2)),
                        "workload": workload,
                        "build.capex": float(rng.uniform(0, 500_000)),
                        "build.gpu_count": int(rng.integers(1, 9)),
                        "rent.hourly_rate": float(rng.uniform(0, 100)),
                        "rent.annual_price_change": float(rng.uniform(-0.3, 0.3)) * (i % 2),
                    }
                )
            )
        )
    return out


def assert_same_result(together: dict, alone: dict, rtol: float = RTOL) -> None:
    for side in ("build", "rent"):
        for name, value in alone[side].items():
            if value is None:
                assert together[side][name] is None, (side, name)
            else:
                assert_allclose(together[side][name], value, rtol=rtol, atol=0, err_msg=name)
    for name in ("savings", "work_reference_gpu_hours", "break_even_month"):
        if alone[name] is None:
            assert together[name] is None, name
        else:
            assert together[name] == pytest.approx(alone[name], rel=rtol), name


def test_a_large_mixed_batch_matches_one_scenario_at_a_time():
    n = 2500
    scenarios = mixed_scenarios(n, seed=7)
    batch = project(scenarios)
    for i in (*range(0, n, 97), n - 1):
        assert_same_result(batch.result(i), compare(scenarios[i]))


def test_monthly_series_hold_exactly_the_numbers_the_batch_added_up():
    scenarios = mixed_scenarios(700, seed=11)
    p = project(scenarios)
    build_cumulative, rent_cumulative = p.build.cumulative, p.rent.cumulative
    rows = np.arange(len(scenarios))
    assert np.array_equal(build_cumulative[rows, p.horizon_months], p.build.total)
    assert np.array_equal(rent_cumulative[rows, p.horizon_months], p.rent.total)
    in_horizon = np.arange(build_cumulative.shape[1]) <= p.horizon_months[:, None]
    running = np.cumsum(p.build.monthly, axis=1)
    assert np.array_equal(running[in_horizon], build_cumulative[in_horizon])
    assert not p.build.monthly[~in_horizon].any()  # every series is 0 past its horizon
    components = p.build.energy + p.build.hosting + p.build.maintenance + p.build.ops
    assert_allclose(components[:, 1:], p.build.monthly[:, 1:], rtol=1e-12)
    assert_allclose(p.rent.compute + p.rent.fixed, p.rent.monthly)


def test_a_later_batch_leaves_an_earlier_projection_unchanged():
    # Big enough for the engine to reuse its scratch arrays between batches.
    first_scenarios = mixed_scenarios(2000, seed=1)
    first = project(first_scenarios)
    before = [first.result(i) for i in (0, 999, 1999)]
    headline = first.savings.copy(), first.break_even_month.copy()
    project(mixed_scenarios(2000, seed=2))
    assert [first.result(i) for i in (0, 999, 1999)] == before
    assert np.array_equal(first.savings, headline[0])
    assert np.array_equal(first.break_even_month, headline[1], equal_nan=True)


def test_batches_in_concurrent_threads_do_not_disturb_each_other():
    from concurrent.futures import ThreadPoolExecutor

    batches = [mixed_scenarios(1500, seed=s) for s in range(4)]
    expected = [project(b).savings for b in batches]
    with ThreadPoolExecutor(max_workers=4) as pool:
        for _ in range(3):
            got = list(pool.map(lambda b: project(b).savings, batches))
            for e, g in zip(expected, got, strict=True):
                assert np.array_equal(e, g)

"""The verdict in words: one sentence per case, every figure the engine's, in both languages."""

import copy
import json
from pathlib import Path

import pytest
from django.utils import translation

from costmodel import compare, parse_scenario
from costmodel.decision import decide
from costmodel.paths import with_path
from costmodel.sensitivity import utilization_sweep
from webapp import formatting
from webapp.formatting import amount, months, shares
from webapp.planner.compared import Compared, Side, compared
from webapp.planner.verdict import how_sure, verdict, what_is_compared

EXAMPLES = Path(__file__).resolve().parents[2] / "costmodel" / "examples"


TIDAL_4060TI = {
    "preset": "budget-rtx4060ti",
    "cloud_offering": "runpod-a100-80gb-community",
    "tariff": "cn-business-average",
    "hosting": "office-deskside",
    "benchmark": "resnet50-fp16",
    "workload": {"kind": "tidal", "active_days_per_month": 4},
    "horizon_months": 36,
    "currency": "CNY",
}
"""The issue's case: the 4060 Ti box vs RunPod's community A100, four busy days a month."""


def example(name: str) -> dict:
    return json.loads((EXAMPLES / f"{name}.json").read_text())


def changed(data: dict, **paths: object) -> dict:
    """A deep copy of ``data`` with each dotted path set (``costmodel.paths.with_path``)."""
    data = copy.deepcopy(data)
    for path, value in paths.items():
        data = with_path(data, path, value)
    return data


def decided(data: dict, language: str = "en"):
    scenario = parse_scenario(data)
    result = compare(scenario)
    decision = decide(scenario, result, utilization_sweep(scenario, 6))
    with translation.override(language):
        return verdict(decision, scenario), decision, result


# The tidal 4060 Ti against a cheap A100: cash never catches up, the resale value tips it.
TIDAL_RESALE = changed(
    example("tidal-4060ti"),
    **{"rent.hourly_rate": 12.0, "build.residual_value_retention_per_year": 0.8},
)
# The worked example against a cheap cloud, over ten years: a pay-back after 51 months.
LATE = changed(example("steady-4090-vs-a100"), **{"rent.hourly_rate": 2.7, "horizon_months": 120})


def test_cash_and_resale_are_reconciled_in_one_sentence_where_they_disagree():
    said, decision, result = decided(TIDAL_RESALE)
    assert result["break_even_month"] is None and result["savings"] > 0
    assert decision.resale_decides
    cash_gap = result["build"]["total"] - result["rent"]["total"]
    with translation.override("en"):
        assert said.headline == (  # it depends on selling the box
            f"Build only if you will sell the box: it saves {amount(result['savings'], 'CNY')} "
            f"over 24 months through its resale value of "
            f"{amount(result['build']['resale_value'], 'CNY')}; in cash building never catches up."
        )
        assert said.cash_and_resale == (
            "In cash alone building never catches up: after 24 months it has cost "
            f"{amount(cash_gap, 'CNY')} more than renting, but selling the box then for its "
            f"resale value of {amount(result['build']['resale_value'], 'CNY')} makes building "
            f"{amount(result['savings'], 'CNY')} cheaper overall."
        )
    assert said.code == "resale_decides"
    assert said.warning is None and said.tone == "warn"
    # no "keep it at least": there is no cash break-even to keep it for
    assert "keep" not in said.conditions[0]


def test_the_reconciliation_reads_in_chinese():
    said, _decision, result = decided(TIDAL_RESALE, "zh-hans")
    with translation.override("zh-hans"):
        savings = amount(result["savings"], "CNY")
        resale = amount(result["build"]["resale_value"], "CNY")
    assert said.headline.startswith(f"只有卖掉机器才值得自建：靠 {resale} 的残值，24 个月内可节省")
    assert said.cash_and_resale.startswith("只看现金，自建始终追不上租用：24 个月后比租用多花 ")
    assert f"按残值 {resale} 卖掉机器，自建总体反而便宜 {savings}。" in said.cash_and_resale


def test_a_pay_back_later_than_three_years_without_a_useful_life_is_a_warning():
    said, decision, result = decided(LATE)
    assert decision.late_payback and result["break_even_month"] > 36
    assert said.tone == "warn"
    with translation.override("en"):
        be = months(result["break_even_month"])
    assert said.warning == (
        f"Late pay-back: building pays for itself in cash only after {be}, beyond the "
        "36 months GPUs commonly stay in service (no useful life was given). Count on these "
        "savings only if the box lasts that long."
    )
    assert f"keep it at least {be}" in said.conditions[0]


def test_a_pay_back_later_than_the_useful_life_is_a_warning():
    said, decision, result = decided(changed(LATE, **{"build.useful_life_months": 48}))
    assert result["break_even_month"] > 48 and decision.late_payback
    with translation.override("en"):
        be = months(result["break_even_month"])
    assert said.warning.startswith(
        f"Late pay-back: building pays for itself in cash only after {be}, later than the "
        "box's useful life of 48 months."
    )
    with translation.override("zh-hans"):
        chinese = verdict(
            decision, parse_scenario(changed(LATE, **{"build.useful_life_months": 48}))
        )
    assert chinese.warning.startswith("回本过晚：")


def test_a_pay_back_within_the_useful_life_is_no_warning():
    said, decision, _result = decided(changed(LATE, **{"build.useful_life_months": 60}))
    assert not decision.late_payback and said.warning is None and said.tone == "good"


def test_the_conditions_name_the_break_even_utilization_this_plan_and_the_80_percent_case():
    data = changed(example("steady-4090-vs-a100"), **{"workload.utilization": 0.3})
    said, decision, result = decided(data)
    threshold, plan = shares(result["break_even_utilization"], 0.3)
    with translation.override("en"):
        keep = months(result["break_even_month"])
        at_80 = amount(decision.reference_savings, "CNY")
    assert said.conditions == [
        f"Build if the box is busy more than {threshold} of the time (this plan: {plan}) and "
        f"you keep it at least {keep}.",
        f"At 80 % busy, building saves {at_80} over 36 months.",
    ]


def test_the_80_percent_case_is_not_repeated_for_a_plan_at_80_percent():
    said, _decision, _result = decided(example("steady-4090-vs-a100"))
    assert len(said.conditions) == 1


def test_a_cloud_cheaper_at_every_utilization_says_rent():
    said, decision, result = decided(
        changed(
            example("steady-4090-vs-a100"),
            **{"rent.hourly_rate": 0.3, "workload.utilization": 0.5},
        )
    )
    assert decision.recommendation == "rent" and result["break_even_utilization"] is None
    assert said.conditions[0] == "Renting is cheaper at any utilization from 0 to 100 %."
    assert said.conditions[1].startswith("At 80 % busy, renting is still cheaper by ")
    assert said.tone == "neutral"


def test_a_commitment_paid_whether_used_or_not_makes_building_win_at_any_utilization():
    said, decision, result = decided(example("v2/commitment-unused-3y"))
    assert result["break_even_utilization"] is None and decision.recommendation == "build"
    with translation.override("en"):
        keep = months(result["break_even_month"])  # 3.5 months, by hand in the methodology
    assert keep == "3.5 months"
    assert said.conditions[0] == (  # what it is: a commitment costs the same used or not
        "Building is cheaper however little or much the box is used: the rent plan's "
        "commitment is paid whether it is used or not, and it alone costs more than building. "
        f"Keep the box at least {keep}."
    )
    with translation.override("zh-hans"):
        said_zh, _decision, _result = decided(example("v2/commitment-unused-3y"), "zh-hans")
        assert (
            "承诺" in said_zh.conditions[0]
            and months(result["break_even_month"]) in (said_zh.conditions[0])
        )


@pytest.mark.parametrize(
    ("first", "second", "shown"),
    [
        (0.18, 0.30, ("18 %", "30 %")),
        (0.13144, 0.13149, ("13.14 %", "13.15 %")),
        (0.131, 0.134, ("13.1 %", "13.4 %")),
        (0.045, 0.3, ("4.5 %", "30.0 %")),
        (0.2, 0.2, ("20.00 %", "20.00 %")),
    ],
)
def test_two_shares_get_just_enough_decimals_to_differ(first, second, shown):
    with translation.override("en"):
        assert shares(first, second) == shown


def test_how_sure_gives_the_share_of_draws_and_the_p10_to_p90_savings():
    from costmodel.operations import parse_uncertainty, uncertainty

    data = example("steady-4090-vs-a100")
    scenario = parse_scenario(data)
    request = {
        "scenario": data,
        "distributions": {"rent.hourly_rate": {"kind": "uniform", "low": 1.0, "high": 60.0}},
        "draws": 2000,
        "seed": 1,
        "measure": "present_value_savings",  # the verdict's, as the app asks (webapp.decided)
    }
    answer = uncertainty(parse_uncertainty(request))
    decision = decide(scenario, compare(scenario), utilization_sweep(scenario, 6), answer)
    with translation.override("en"):
        sure = how_sure(decision, answer, 2000, "CNY")
        share = formatting.share(answer["probability_build_cheaper"])
        p10, p90 = (amount(answer["savings"][p], "CNY") for p in ("p10", "p90"))
    assert sure["code"] == decision.confidence
    assert decision.probability_recommendation_holds == answer["probability_build_cheaper"]
    assert sure["sentence"].startswith(
        f"Building is cheaper in {share} of 2,000 draws of the uncertain inputs."
    )
    assert f"lie between {p10} and {p90}." in sure["sentence"]
    if decision.confidence in ("uncertain", "unlikely"):
        assert sure["tone"] in ("warn", "bad") and "tornado" in sure["sentence"]
    else:
        assert sure["tone"] == "good"


def test_what_is_compared_without_a_catalog_names_the_speeds_and_the_hours():
    _said, decision, _result = decided(example("tidal-4060ti"))
    scenario = parse_scenario(example("tidal-4060ti"))
    blank = Compared(Side(None, None, None), Side(None, None, None), None, None)
    with translation.override("en"):
        lines = what_is_compared(scenario, decision, blank)
    assert lines == [
        "Speed with the reference GPU = 1.00: the box has 1 × GPU at 0.22 each, the cloud "
        "instance 1 × GPU at 1.00 each.",
        # 4 days × 24 h × 24 months = 2 304 box-hours; × 0.22 = 506.88 instance-hours
        "The same work is 2,304 box-hours over 24 months, or 507 instance-hours rented.",
    ]


@pytest.mark.django_db
def test_what_is_compared_names_the_catalog_rows_in_chinese(shipped_catalog):
    from webapp.catalog.models import Benchmark, BuildPreset, CloudOffering, GpuModel
    from webapp.catalog.resolver import resolve_data

    resolution = resolve_data(TIDAL_4060TI)
    scenario = resolution.scenario
    decision = decide(scenario, compare(scenario), utilization_sweep(scenario, 6))
    with translation.override("zh-hans"):
        lines = what_is_compared(scenario, decision, compared(resolution.provenance))
        preset = BuildPreset.objects.get(slug="budget-rtx4060ti").localized_name()
        offering = CloudOffering.objects.get(slug="runpod-a100-80gb-community").localized_name()
        benchmark = Benchmark.objects.get(slug="resnet50-fp16").localized_name()
        a100 = GpuModel.objects.get(slug="a100-80gb-pcie")
        box_gpu = GpuModel.objects.get(slug="rtx-4060-ti-16gb")
    assert preset != BuildPreset.objects.get(slug="budget-rtx4060ti").name  # a Chinese name
    assert lines[0] == f"比较对象：{preset} 对比 {offering}。"
    assert f"基准测试 {benchmark}" in lines[1]
    assert f"以 {a100.localized_name('zh-hans')} = 1.00" in lines[1]
    assert (
        f"显存不同：自建机器每块 GPU {box_gpu.vram_gb} GB，云端每块 {a100.vram_gb} GB" in lines[3]
    )


def test_savings_within_one_percent_are_a_close_call_not_a_recommendation():
    # No discount rate: the verdict's measure, present-value savings, is the cash savings.
    base = changed(example("steady-4090-vs-a100"), **{"discount_rate_per_year": 0.0})
    threshold = compare(parse_scenario(base))["break_even_utilization"]
    said, decision, result = decided(changed(base, **{"workload.utilization": threshold + 0.0002}))
    assert decision.close_call and decision.recommendation == "build"
    with translation.override("en"):
        saved = amount(result["savings"], "CNY")
    assert said.headline == (
        f"A close call: building saves only {saved} over 36 months, less than 1 % of what "
        "either costs."
    )
    assert said.tone == "warn"
    said, decision, result = decided(changed(base, **{"workload.utilization": threshold - 0.0002}))
    assert decision.close_call and decision.recommendation == "rent"
    assert said.headline.startswith("A close call: renting is cheaper by only ")
    chinese, _d, _r = decided(
        changed(base, **{"workload.utilization": threshold - 0.0002}), "zh-hans"
    )
    assert chinese.headline.startswith("难分高下：")


@pytest.mark.django_db
def test_what_is_compared_follows_a_catalog_change_despite_its_cache(shipped_catalog):
    from webapp.catalog.models import BuildPreset
    from webapp.catalog.resolver import resolve_data

    provenance = resolve_data(TIDAL_4060TI).provenance
    with translation.override("en"):
        before = compared(provenance)
        assert compared(provenance) == before
        preset = BuildPreset.objects.get(slug="budget-rtx4060ti")
        preset.name = "Renamed desk-side box"
        preset.save()
        assert compared(provenance).build.name == "Renamed desk-side box" != before.build.name


def uncertain_decision():
    """The worked example with a cloud price drawn between 0.50 and 3.00 an hour: building wins
    at the point figures but in few of the draws."""
    from costmodel.operations import parse_uncertainty, uncertainty

    data = example("steady-4090-vs-a100")
    scenario = parse_scenario(data)
    request = {
        "scenario": data,
        "distributions": {"rent.hourly_rate": {"kind": "uniform", "low": 0.5, "high": 3.0}},
        "draws": 2000,
        "seed": 1,
        "measure": "present_value_savings",  # the verdict's, as the app asks (webapp.decided)
    }
    answer = uncertainty(parse_uncertainty(request))
    result = compare(scenario)
    return scenario, decide(scenario, result, utilization_sweep(scenario, 6), answer), answer


def test_an_uncertain_verdict_names_the_point_figure_and_the_share_and_recommends_neither():
    scenario, decision, answer = uncertain_decision()
    assert decision.recommendation == "build" and decision.verdict == "uncertain"
    with translation.override("en"):
        said = verdict(decision, scenario)
        point = amount(decision.present_value_savings, "CNY")
        share = formatting.share(answer["probability_build_cheaper"])
        median = amount(abs(answer["savings"]["p50"]), "CNY")
    assert said.code == "uncertain" and said.tone == "warn"
    # the example's cost of capital is 8 %: the verdict's figures are present values, said so
    assert scenario.discount_rate_per_year == 0.08
    assert said.headline == (
        f"Too uncertain to call: on these figures building saves {point} in present value (at "
        f"8 % a year) over 36 months, but it comes out cheaper in only {share} of the draws of "
        "the uncertain inputs."
    )
    assert not said.headline.startswith(("Build", "Rent"))
    assert answer["savings"]["p50"] < 0
    assert said.median == f"Median of the draws: renting is cheaper by {median} in present value."
    with translation.override("zh-hans"):
        chinese = verdict(decision, scenario)
    assert chinese.headline.startswith("难以判断：") and chinese.median.startswith("抽样中位数：")


def test_without_the_monte_carlo_the_verdict_has_no_median():
    said, decision, _result = decided(example("steady-4090-vs-a100"))
    assert decision.savings_p50 is None and said.median is None
    assert said.code == "build"


def test_a_late_pay_back_is_its_own_verdict_code_with_its_warning():
    said, decision, _result = decided(LATE)
    assert decision.verdict == "late_payback" and said.code == "late_payback"
    assert said.headline.startswith("Build: it saves") and said.warning.startswith("Late pay-back")


# --- the conditions in the verdict's measure ---------------------------------------------------

# The worked example over five years at a 20 % cost of capital, 80 % busy: in cash building
# pays at a cloud price of 2.5 CNY/h, in present value it does not.
DEAR_CAPITAL = changed(
    example("steady-4090-vs-a100"),
    **{"discount_rate_per_year": 0.2, "horizon_months": 60, "rent.hourly_rate": 2.5},
)


def app_decided(data: dict, language: str = "en"):
    """The verdict as the app decides it (webapp.decided: the page, the files, the store)."""
    from webapp.decided import decided as one_decision

    scenario = parse_scenario(data)
    one = one_decision(scenario)
    with translation.override(language):
        return verdict(one.decision, scenario), one.decision, one.result


def test_at_a_high_cost_of_capital_the_conditions_agree_with_the_verdict():
    said, decision, result = app_decided(DEAR_CAPITAL)
    # in cash building wins above 69.5 % busy, and this plan is 80 % busy ...
    assert result["savings"] > 0 and result["break_even_utilization"] < 0.8
    # ... but the verdict is decided in present value, where renting wins at any use
    assert decision.present_value_savings < 0 and decision.recommendation == "rent"
    assert decision.conditions_in_present_value
    assert decision.break_even_utilization is None and decision.build_when_busier is None
    assert said.conditions == [
        "In present value at 20 % a year, renting is cheaper at any utilization from 0 to 100 %."
    ]
    chinese, _d, _r = app_decided(DEAR_CAPITAL, "zh-hans")
    assert chinese.conditions == [
        "按每年 20 % 折现的现值，利用率在 0 到 100 % 之间，租用都更便宜。"
    ]


@pytest.mark.parametrize("hourly", [2.5, 2.7, 3.0, 3.5, 5.0])
@pytest.mark.parametrize("busy", [0.5, 0.7, 0.9])
def test_the_plan_is_on_the_recommended_side_of_the_threshold_it_is_told(hourly, busy):
    data = changed(DEAR_CAPITAL, **{"rent.hourly_rate": hourly, "workload.utilization": busy})
    _said, decision, _result = app_decided(data)
    threshold = decision.break_even_utilization
    if threshold is None:  # one side wins at any use: the recommended one
        assert (decision.recommendation == "build") == (decision.reference_savings > 0)
        return
    building_side = busy > threshold if decision.build_when_busier else busy < threshold
    assert building_side == (decision.recommendation == "build")


def test_at_a_high_cost_of_capital_the_threshold_and_80_percent_are_said_in_present_value():
    data = changed(DEAR_CAPITAL, **{"rent.hourly_rate": 3.5, "workload.utilization": 0.7})
    said, decision, result = app_decided(data)
    assert decision.recommendation == "build" and decision.build_when_busier
    threshold, plan = shares(decision.break_even_utilization, 0.7)
    assert decision.break_even_utilization > result["break_even_utilization"]  # not the cash one
    with translation.override("en"):
        at_80 = amount(decision.reference_savings, "CNY")
        keep = months(decision.break_even_month)
    assert said.conditions == [
        f"In present value at 20 % a year, build if the box is busy more than {threshold} of "
        f"the time (this plan: {plan}); in cash, keep it at least {keep}.",
        f"At 80 % busy, building saves {at_80} in present value at 20 % a year over 60 months.",
    ]
    # the 80 % figure is the present-value savings of the plan at 80 % busy
    steady = compare(parse_scenario(changed(data, **{"workload.utilization": 0.8})))
    assert decision.reference_savings == pytest.approx(steady["present_value_savings"], rel=1e-9)


def test_without_a_cost_of_capital_the_conditions_are_worded_as_before():
    data = changed(
        example("steady-4090-vs-a100"),
        **{"discount_rate_per_year": 0.0, "rent.hourly_rate": 3.5, "workload.utilization": 0.7},
    )
    said, decision, result = app_decided(data)
    assert not decision.conditions_in_present_value
    assert decision.break_even_utilization == result["break_even_utilization"]
    before, _d, _r = decided(data)  # the cash sweep, as the page asked before
    assert said.conditions == before.conditions
    assert said.conditions[0].startswith("Build if the box is busy more than ")
    assert "present value" not in " ".join(said.conditions)


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", ("In present value at 20 % a year", "Break-even utilization in cash")),
        ("zh-hans", ("按每年 20 % 折现的现值", "按现金计的盈亏平衡利用率")),
    ],
)
def test_the_results_page_says_its_conditions_in_present_value_and_its_figure_in_cash(
    client, language, words
):
    from django.urls import reverse

    from webapp.planner.permalink import encode

    code = encode(parse_scenario(DEAR_CAPITAL))
    page = client.get(reverse("planner:results", args=[code]), HTTP_ACCEPT_LANGUAGE=language)
    assert page.status_code == 200
    html = page.content.decode()
    conditions = html.split('id="verdict-conditions"')[1].split("</p>")[0]
    assert words[0] in conditions
    figure = html.split('id="figure-break-even-utilization"')[0].rsplit("<dt>", 1)[1]
    assert words[1] in figure

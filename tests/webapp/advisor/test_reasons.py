"""The advisor's sentences: one per reason code, translated, with the figures shown once."""

import pytest
from django.utils import translation

from costmodel.sizing import REASON_CODES, AdvisorInput, Reason, advise
from webapp.advisor.reasons import REASON_TEXTS, sentence, significant

JOBS = [
    {"parameters_billion": 0.025, "dataset_gb": 1},
    {"parameters_billion": 0.5, "dataset_gb": 20, "precision": "int8", "nvlink": True},
    {"parameters_billion": 3, "dataset_gb": 200, "multi_gpu": True},
    {"parameters_billion": 20, "dataset_gb": 1},
    {"parameters_billion": 500, "dataset_gb": 1},
]


def test_every_code_the_engine_can_emit_has_exactly_one_sentence():
    assert set(REASON_TEXTS) == REASON_CODES


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_every_sentence_takes_its_reasons_figures(language):
    with translation.override(language):
        for job in JOBS:
            advice = advise(AdvisorInput(**job))
            for reason in advice.reasons + advice.warnings:
                text = sentence(reason)
                assert text != reason.code
                assert "%(" not in text


def test_every_sentence_is_translated_into_chinese():
    def texts(language):
        with translation.override(language):
            return {code: str(text) for code, text in REASON_TEXTS.items()}

    english, chinese = texts("en"), texts("zh-hans")
    assert not [code for code in REASON_TEXTS if chinese[code] == english[code]]


def test_a_sentence_shows_figures_to_three_significant_figures_and_the_tier_by_its_label():
    reason = Reason(code="memory_needs_tier", params={"memory_gb": 22.25, "tier": "multi"})
    with translation.override("en"):
        assert sentence(reason) == (
            "About 22.2 GB of training memory needs at least the multi-GPU tier."
        )
    with translation.override("zh-hans"):
        assert "多卡并行级" in sentence(reason)
        assert "22.2" in sentence(reason)


def test_fractions_are_shown_as_percentages():
    reason = Reason(code="psu_headroom", params={"headroom": 0.3})
    with translation.override("en"):
        assert "at least 30 % above" in sentence(reason)


@pytest.mark.parametrize(
    ("value", "shown"),
    [(22.25, "22.2"), (159.5, "160"), (0.11, "0.11"), (2560.0, "2,560"), (12.0, "12"), (0, "0")],
)
def test_significant_figures(value, shown):
    with translation.override("en"):
        assert significant(value) == shown


def test_an_unknown_code_is_shown_as_the_code_rather_than_failing():
    assert sentence(Reason(code="something_new")) == "something_new"

"""Errors that name the field, and JSON decoding that never escapes as a traceback."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, ValidationError
from strategies import scenarios

from costmodel import (
    FieldError,
    Scenario,
    ScenarioError,
    UnreadableInput,
    field_errors,
    parse_scenario,
    parse_scenario_json,
)
from costmodel.errors import load_json


def decoding_errors(text: str | bytes) -> list[str]:
    with pytest.raises(ScenarioError) as caught:
        load_json(text)
    return [str(e) for e in caught.value.errors]


class TestFieldError:
    def test_it_reads_as_field_colon_message(self):
        assert str(FieldError("build.capex", "must be greater than or equal to 0")) == (
            "build.capex: must be greater than or equal to 0"
        )

    def test_it_serialises_as_a_dict(self):
        assert FieldError("rent", "is required").as_dict() == {
            "field": "rent",
            "message": "is required",
        }

    def test_a_scenario_error_carries_every_problem(self):
        errors = [FieldError("a", "is required"), FieldError("b.c", "must be an object")]
        error = ScenarioError(errors)
        assert error.errors == errors
        assert str(error) == "a: is required; b.c: must be an object"
        assert isinstance(error, ValueError)


class TestParseScenario:
    @pytest.mark.parametrize("data", [[], [1, 2], "scenario", 3, None, True])
    def test_it_rejects_a_document_that_is_not_an_object(self, data):
        with pytest.raises(ScenarioError) as caught:
            parse_scenario(data)
        assert [str(e) for e in caught.value.errors] == ["(scenario): must be a JSON object"]

    def test_it_names_workload_fields_without_the_kind_tag(self):
        data = {"workload": {"kind": "tidal", "active_days_per_month": 40}}
        with pytest.raises(ScenarioError) as caught:
            parse_scenario(data)
        fields = [e.field for e in caught.value.errors]
        assert "workload.active_days_per_month" in fields
        assert not any(f.startswith("workload.tidal") for f in fields)


class TestFieldErrors:
    def test_it_prefixes_paths_when_asked(self):
        class Box(BaseModel):
            model_config = ConfigDict(extra="forbid", strict=True)
            capex: float

        with pytest.raises(ValidationError) as caught:
            Box.model_validate({"capex": "a lot", "colour": "red"})
        assert [str(e) for e in field_errors(caught.value, prefix=("scenario", "build"))] == [
            "scenario.build.capex: must be a valid number",
            "scenario.build.colour: is not a known field",
        ]


class TestLoadJson:
    def test_it_decodes_json_text_and_bytes(self):
        assert load_json('{"a": [1, 2.5]}') == {"a": [1, 2.5]}
        assert load_json('{"名": "值"}'.encode()) == {"名": "值"}

    @pytest.mark.parametrize(
        ("text", "detail"),
        [
            ("", "Expecting value at line 1 column 1"),
            ("{", "Expecting property name enclosed in double quotes at line 1 column 2"),
            ('{"a": 1,}', "line 1 column 9"),
            ("{'a': 1}", "line 1 column 2"),
            ('{"a": 1}\n{"b": 2}', "Extra data at line 2 column 1"),
        ],
    )
    def test_it_reports_malformed_json_with_its_position(self, text, detail):
        [message] = decoding_errors(text)
        assert message.startswith("(input): is not valid JSON: ")
        assert detail in message

    def test_it_reports_text_that_is_not_utf_8(self):
        assert decoding_errors(b'{"name": "\xff\xfe"}') == ["(input): is not UTF-8 text"]

    def test_it_reports_json_nested_too_deeply(self):
        assert decoding_errors("[" * 100_000 + "]" * 100_000) == ["(input): is nested too deeply"]

    def test_it_reports_an_integer_too_long_to_convert(self):
        [message] = decoding_errors('{"capex": ' + "9" * 5000 + "}")
        assert message.startswith("(input): ")

    def test_it_decodes_the_non_standard_nan_literal_for_validation_to_reject(self):
        # Python's json accepts NaN/Infinity; the scenario model then refuses them by field.
        data = load_json('{"horizon_months": NaN}')
        with pytest.raises(ScenarioError) as caught:
            parse_scenario(data)
        assert "horizon_months: must be a valid integer" in [str(e) for e in caught.value.errors]


# --- one-pass JSON validation against decode-then-validate ---------------------


def both_paths(text: str | bytes) -> tuple[object, object]:
    """What pydantic-core's JSON validation and load_json + parse_scenario make of ``text``."""

    def run(function):
        try:
            return function(text)
        except (ValidationError, ScenarioError) as exc:
            return type(exc)

    return run(Scenario.model_validate_json), run(lambda t: parse_scenario(load_json(t)))


def mutations() -> st.SearchStrategy:
    """JSON spellings that one decoder might read differently from the other."""
    return st.sampled_from(
        [
            lambda t: t,
            lambda t: t.replace('"horizon_months": ', '"horizon_months": 1.0E0 * 0 + '),
            lambda t: t.replace('"horizon_months": ', '"horizon_months": ""+'),
            lambda t: t.replace('"currency": ', '"currency": "XXX", "currency": '),
            lambda t: t.replace("}", ', "x": 1}', 1),
            lambda t: t.replace(": 0.0", ": -0.0"),
            lambda t: t.replace(": 1", ": 1e0"),
            lambda t: t.replace(": 1", ": 10000000000000000000000"),
            lambda t: t.replace('"build": {', '"build": {"gpu_count": 2, '),
            lambda t: t.replace(": 0", ": NaN", 1),
            lambda t: t.replace(": 0", ": 1e400", 1),
            lambda t: t.replace('"CNY"', '"\\u0043NY"'),
            lambda t: t.replace('"USD"', '"\\ud800SD"'),
            lambda t: t.replace('"currency"', '"name": "\\u0000", "currency"'),
            lambda t: t.replace("true", "1"),
            lambda t: " \n" + t + "\n ",
            lambda t: t[:-1],
            lambda t: "[" + t + "]",
        ]
    )


@given(scenarios(), mutations(), st.booleans())
@settings(max_examples=400, deadline=None)
def test_one_pass_validation_accepts_exactly_what_decode_then_validate_accepts(
    data, mutate, as_bytes
):
    text = mutate(json.dumps(data))
    fast, slow = both_paths(text.encode("utf-8", "surrogatepass") if as_bytes else text)
    if isinstance(fast, type) or isinstance(slow, type):
        # Refused by one path: refused by both (the errors then come from the slow path).
        assert isinstance(fast, type) and isinstance(slow, type), (text, fast, slow)
    else:
        assert fast == slow
        assert fast.model_dump_json() == slow.model_dump_json()


def test_parse_scenario_json_reports_the_decoders_errors():
    with pytest.raises(UnreadableInput) as caught:
        parse_scenario_json('{"currency": ')
    assert [e.field for e in caught.value.errors] == ["(input)"]
    with pytest.raises(ScenarioError) as caught:
        parse_scenario_json('{"currency": "CNY"}')
    assert not isinstance(caught.value, UnreadableInput)
    assert "horizon_months" in [e.field for e in caught.value.errors]

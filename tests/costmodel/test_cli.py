"""The compare command's logic without Django: read, evaluate, render, write atomically."""

from __future__ import annotations

import csv
import io
import json
import math
import os
from pathlib import Path

import pytest

from costmodel import ScenarioError
from costmodel.cli import evaluate, read_source, render, run_compare, write_atomically
from costmodel.tables import MONTHLY_COLUMNS

EXAMPLE = Path(__file__).resolve().parent / "examples" / "steady-4090-vs-a100.json"


def messages(error: pytest.ExceptionInfo[ScenarioError]) -> list[str]:
    return [str(e) for e in error.value.errors]


class TestReadSource:
    def test_it_reads_a_file(self):
        assert read_source(str(EXAMPLE), io.BytesIO()) == EXAMPLE.read_bytes()

    def test_a_dash_reads_standard_input(self):
        assert read_source("-", io.BytesIO(b'{"a": 1}')) == b'{"a": 1}'

    @pytest.mark.parametrize("content", [b"", b"  \n\t "])
    def test_it_rejects_empty_standard_input(self, content):
        with pytest.raises(ScenarioError) as caught:
            read_source("-", io.BytesIO(content))
        assert messages(caught) == ["(input): standard input is empty"]

    def test_it_rejects_an_empty_file(self, tmp_path):
        path = tmp_path / "empty.json"
        path.write_bytes(b"")
        with pytest.raises(ScenarioError) as caught:
            read_source(str(path), io.BytesIO())
        assert messages(caught) == [f"(input): {str(path)!r} is empty"]

    def test_it_reports_a_missing_file(self, tmp_path):
        path = tmp_path / "missing.json"
        with pytest.raises(ScenarioError) as caught:
            read_source(str(path), io.BytesIO())
        assert messages(caught) == [
            f"(input): cannot read {str(path)!r}: No such file or directory"
        ]

    def test_it_reports_a_directory(self, tmp_path):
        with pytest.raises(ScenarioError) as caught:
            read_source(str(tmp_path), io.BytesIO())
        [message] = messages(caught)
        assert message.startswith(f"(input): cannot read {str(tmp_path)!r}: ")


class TestEvaluate:
    def test_it_evaluates_a_scenario_document(self):
        result = evaluate(EXAMPLE.read_bytes())
        assert round(result["break_even_month"], 4) == 2.6717

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            (b"{", "(input): is not valid JSON"),
            (b"\xff", "(input): is not UTF-8 text"),
            (b"[1, 2]", "(scenario): must be a JSON object"),
            (b'"text"', "(scenario): must be a JSON object"),
            (b"[" * 50_000, "(input): is nested too deeply"),
            (b'{"capex": ' + b"9" * 5000 + b"}", "(input): holds a number too long to read"),
        ],
    )
    def test_it_turns_undecodable_input_into_a_scenario_error(self, text, expected):
        with pytest.raises(ScenarioError) as caught:
            evaluate(text)
        assert messages(caught)[0].startswith(expected)

    def test_it_turns_an_overflowing_projection_into_a_scenario_error(self):
        data = json.loads(EXAMPLE.read_text())
        data["build"]["power_load_watts"] = 1e300
        data["build"]["electricity_price_per_kwh"] = 1e300
        with pytest.raises(ScenarioError) as caught:
            evaluate(json.dumps(data))
        assert messages(caught) == [
            "(scenario): inputs are so extreme that the results are not finite numbers"
        ]

    def test_it_refuses_a_cost_per_gpu_hour_that_overflows(self):
        # Work of 730 h × 1e-308 × 0.01 ≈ 7e-308 reference GPU-hours a month: the
        # cost per hour of it is beyond float64 although every sum is finite.
        data = json.loads(EXAMPLE.read_text())
        data["workload"]["utilization"] = 1e-308
        data["build"]["gpu_throughput"] = 0.01
        with pytest.raises(ScenarioError) as caught:
            evaluate(json.dumps(data))
        assert messages(caught) == [
            "(scenario): inputs are so extreme that the results are not finite numbers"
        ]

    def test_it_turns_an_integer_beyond_float64_into_a_scenario_error(self):
        data = json.loads(EXAMPLE.read_text())
        data["build"]["gpu_count"] = 10**400
        with pytest.raises(ScenarioError) as caught:
            evaluate(json.dumps(data))
        assert messages(caught) == [
            "(scenario): inputs are so extreme that the results are not finite numbers"
        ]


@pytest.fixture(scope="module")
def result() -> dict:
    return evaluate(EXAMPLE.read_bytes())


class TestRender:
    def test_json_keeps_the_methodology_key_order(self, result):
        rendered = json.loads(render(result, "json"))
        assert list(rendered) == list(result)
        assert list(rendered["build"]) == list(result["build"])
        assert rendered == result

    def test_json_writes_null_not_nan(self):
        data = json.loads(EXAMPLE.read_text())
        data["workload"]["utilization"] = 0
        text = render(evaluate(json.dumps(data)), "json")
        assert "NaN" not in text and "Infinity" not in text
        rendered = json.loads(text)
        assert rendered["break_even_month"] is None
        assert rendered["build"]["cost_per_reference_gpu_hour"] is None

    def test_json_keeps_a_chinese_name_readable(self, result):
        named = {**result, "scenario": {**result["scenario"], "name": "单卡 4090"}}
        assert '"name": "单卡 4090"' in render(named, "json")

    def test_json_escapes_text_the_destination_cannot_encode(self, result):
        named = {**result, "scenario": {**result["scenario"], "name": "单卡 4090"}}
        text = render(named, "json", encoding="ascii")
        assert text.isascii()
        assert json.loads(text)["scenario"]["name"] == "单卡 4090"

    def test_json_ends_with_a_newline(self, result):
        assert render(result, "json").endswith("}\n")

    def test_csv_has_a_header_and_a_row_per_month_at_full_precision(self, result):
        rows = list(csv.reader(io.StringIO(render(result, "csv"))))
        assert rows[0] == list(MONTHLY_COLUMNS)
        assert len(rows) == 1 + 37
        energy = [float(row[1]) for row in rows[1:]]
        assert energy == result["build"]["energy"]

    def test_run_compare_reads_evaluates_and_renders(self):
        text = run_compare("-", "csv", io.BytesIO(EXAMPLE.read_bytes()))
        assert text.splitlines()[0] == ",".join(MONTHLY_COLUMNS)


class TestWriteAtomically:
    def test_it_writes_the_text(self, tmp_path):
        path = tmp_path / "out.json"
        write_atomically(str(path), "{}\n")
        assert path.read_text() == "{}\n"
        assert list(tmp_path.iterdir()) == [path]

    def test_it_replaces_an_existing_file(self, tmp_path):
        path = tmp_path / "out.csv"
        path.write_text("old")
        write_atomically(str(path), "new")
        assert path.read_text() == "new"

    def test_it_gives_the_file_ordinary_permissions(self, tmp_path):
        path = tmp_path / "out.json"
        write_atomically(str(path), "{}")
        umask = os.umask(0)
        os.umask(umask)
        assert path.stat().st_mode & 0o777 == 0o666 & ~umask

    def test_it_reports_a_missing_directory(self, tmp_path):
        path = tmp_path / "no" / "out.json"
        with pytest.raises(ScenarioError) as caught:
            write_atomically(str(path), "{}")
        assert messages(caught) == [
            f"--output: cannot write {str(path)!r}: No such file or directory"
        ]

    def test_a_failed_write_leaves_the_old_file_and_no_debris(self, tmp_path):
        path = tmp_path / "out.json"
        path.mkdir()  # a directory in the way: the final rename fails
        with pytest.raises(ScenarioError) as caught:
            write_atomically(str(path), "{}")
        assert messages(caught)[0].startswith("--output: cannot write")
        assert list(tmp_path.iterdir()) == [path]
        assert path.is_dir()


def test_render_of_a_real_result_has_no_non_finite_number():
    text = render(evaluate(EXAMPLE.read_bytes()), "json")
    assert all(math.isfinite(v) for v in json.loads(text)["build"]["cumulative"])

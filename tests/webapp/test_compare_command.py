"""``manage.py compare``: end to end as a user runs it, and every kind of bad input.

The happy paths and one example of each way in (file, standard input, --output)
run as real processes; the full matrix of bad documents runs in-process through
``call_command`` (the same command code, without a second of start-up per case).
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "tests" / "costmodel" / "examples"
STEADY = EXAMPLES / "steady-4090-vs-a100.json"
TIDAL = EXAMPLES / "tidal-4060ti.json"


def manage(*args: str, stdin: bytes = b"", debug: bool = False) -> subprocess.CompletedProcess[str]:
    """Run the command as a process; *debug* runs it as the README shows, with no secret key."""
    env = {k: v for k, v in os.environ.items() if k not in {"DJANGO_SECRET_KEY", "DJANGO_DEBUG"}}
    env.update({"DJANGO_DEBUG": "true"} if debug else {"DJANGO_SECRET_KEY": "test-only-not-secret"})
    process = subprocess.run(
        [sys.executable, "manage.py", "compare", *args],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=60,
        check=False,
    )
    return subprocess.CompletedProcess(
        process.args,
        process.returncode,
        process.stdout.decode("utf-8"),
        process.stderr.decode("utf-8"),
    )


def call(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[str]:
    """Run the command in this process; same shape of answer as :func:`manage`."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    try:
        call_command("compare", *args, stdout=out, stderr=err)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    finally:
        sys.stdin = saved
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def tidal_result() -> dict:
    done = manage(str(TIDAL))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def steady(**changes: object) -> dict:
    data = json.loads(STEADY.read_text())
    for path, value in changes.items():
        *parents, leaf = path.split(".")
        target = data
        for key in parents:
            target = target[key]
        if value is DELETE:
            del target[leaf]
        else:
            target[leaf] = value
    return data


DELETE = object()


class TestGoodInput:
    def test_it_prints_the_result_json_for_a_scenario_file(self):
        done = manage(str(STEADY))
        assert done.returncode == 0, done.stderr
        assert done.stderr == ""
        result = json.loads(done.stdout)
        assert round(result["break_even_month"], 4) == 2.6717
        assert result["scenario"]["name"] == json.loads(STEADY.read_text())["name"]
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

    def test_it_runs_in_debug_without_a_secret_key_as_the_readme_shows(self):
        done = manage(str(STEADY), debug=True)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["break_even_month"] == pytest.approx(2.6717394853656926)

    def test_a_dash_reads_the_scenario_from_standard_input(self, tidal_result):
        from_stdin = manage("-", stdin=TIDAL.read_bytes())
        assert from_stdin.returncode == 0, from_stdin.stderr
        assert json.loads(from_stdin.stdout) == tidal_result

    def test_null_stands_for_missing_figures_never_nan(self):
        done = call("-", stdin=json.dumps(steady(**{"workload.utilization": 0})).encode())
        assert done.returncode == 0, done.stderr
        assert "NaN" not in done.stdout
        result = json.loads(done.stdout)
        assert result["break_even_month"] is None
        assert result["rent"]["cost_per_reference_gpu_hour"] is None

    def test_csv_is_the_monthly_projection_of_the_json_result(self, tidal_result):
        result = tidal_result
        done = manage(str(TIDAL), "--format", "csv")
        assert done.returncode == 0, done.stderr
        rows = list(csv.DictReader(io.StringIO(done.stdout)))
        assert [int(row["month"]) for row in rows] == result["months"]
        for column in rows[0]:
            if column in {"month", "cumulative_difference"}:
                continue
            side, series = column.split("_", 1)
            assert [float(row[column]) for row in rows] == result[side][series], column
        for row, build, rent in zip(
            rows, result["build"]["cumulative"], result["rent"]["cumulative"], strict=True
        ):
            assert float(row["cumulative_difference"]) == build - rent

    def test_output_writes_the_json_to_a_file_instead_of_standard_output(
        self, tmp_path, tidal_result
    ):
        target = tmp_path / "result.json"
        done = manage(str(TIDAL), "--output", str(target))
        assert done.returncode == 0, done.stderr
        assert done.stdout == ""
        assert json.loads(target.read_text()) == tidal_result
        assert sorted(p.name for p in tmp_path.iterdir()) == ["result.json"]

    def test_output_writes_the_csv_to_a_file(self, tmp_path):
        target = tmp_path / "months.csv"
        done = call("-", "--format", "csv", "--output", str(target), stdin=TIDAL.read_bytes())
        assert done.returncode == 0, done.stderr
        assert target.read_text() == call(str(TIDAL), "--format", "csv").stdout
        assert sorted(p.name for p in tmp_path.iterdir()) == ["months.csv"]


# (a description, the scenario document, the exact lines expected on standard error)
BAD_DOCUMENTS = [
    ("malformed JSON", b'{"currency": "CNY",', None),
    ("not UTF-8", b'{"name": "\xff"}', ["(input): is not UTF-8 text"]),
    ("not an object", b"[1, 2, 3]", ["(scenario): must be a JSON object"]),
    ("a bare number", b"42", ["(scenario): must be a JSON object"]),
    ("missing field", steady(**{"rent.hourly_rate": DELETE}), ["rent.hourly_rate: is required"]),
    ("unknown field", steady(**{"build.colour": "red"}), ["build.colour: is not a known field"]),
    (
        "out of bounds",
        steady(**{"build.capex": -1}),
        ["build.capex: must be greater than or equal to 0"],
    ),
    (
        "horizon too long",
        steady(horizon_months=241),
        ["horizon_months: must be less than or equal to 240"],
    ),
    ("NaN", b"NaN-placeholder", ["rent.hourly_rate: must be a finite number"]),
    ("Infinity", b"Infinity-placeholder", ["build.capex: must be a finite number"]),
    ("number as text", steady(horizon_months="31"), ["horizon_months: must be a valid integer"]),
    ("boolean", steady(**{"build.gpu_count": True}), ["build.gpu_count: must be a valid integer"]),
    (
        "float for int",
        steady(**{"rent.gpu_count": 2.0}),
        ["rent.gpu_count: must be a valid integer"],
    ),
    (
        "idle above load",
        steady(**{"build.power_idle_watts": 700}),
        ["build.power_idle_watts: must be less than or equal to power_load_watts"],
    ),
    (
        "bad workload kind",
        steady(workload={"kind": "bursty"}),
        ["workload.kind: must be one of 'steady', 'tidal', 'profile', 'jobs'"],
    ),
    (
        "overflow",
        steady(**{"build.power_load_watts": 1e300, "build.electricity_price_per_kwh": 1e300}),
        ["(scenario): inputs are so extreme that the results are not finite numbers"],
    ),
    (
        "vanishing work",
        steady(**{"workload.utilization": 1e-308, "build.gpu_throughput": 0.01}),
        ["(scenario): inputs are so extreme that the results are not finite numbers"],
    ),
    (
        "integer beyond float64",
        steady(**{"build.gpu_count": 10**400}),
        ["(scenario): inputs are so extreme that the results are not finite numbers"],
    ),
    (
        "several problems",
        steady(**{"build.capex": -1, "rent.hourly_rate": "28", "currency": "yuan"}),
        [
            "currency: must be three upper-case letters (an ISO 4217 code such as CNY or USD)",
            "build.capex: must be greater than or equal to 0",
            "rent.hourly_rate: must be a valid number",
        ],
    ),
]


def document_bytes(document: object) -> bytes:
    if document == b"NaN-placeholder":
        return STEADY.read_text().replace('"hourly_rate": 28', '"hourly_rate": NaN').encode()
    if document == b"Infinity-placeholder":
        return STEADY.read_text().replace('"capex": 25000', '"capex": Infinity').encode()
    if isinstance(document, bytes):
        return document
    return json.dumps(document).encode()


def assert_refused(done: subprocess.CompletedProcess[str], expected: list[str] | None) -> None:
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    if expected is None:
        assert len(lines) == 1
        assert lines[0].startswith("(input): is not valid JSON: ")
    else:
        assert lines == expected


@pytest.mark.parametrize(
    ("label", "document", "expected"), BAD_DOCUMENTS, ids=lambda v: v if isinstance(v, str) else ""
)
def test_it_refuses_bad_input_from_a_file_with_one_line_per_problem(
    tmp_path, label, document, expected
):
    path = tmp_path / "scenario.json"
    path.write_bytes(document_bytes(document))
    assert_refused(call(str(path)), expected)


@pytest.mark.parametrize(
    ("label", "document", "expected"),
    [case for case in BAD_DOCUMENTS if case[0] in {"out of bounds"}],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_a_real_process_refuses_bad_input_with_status_2_and_no_traceback(
    tmp_path, label, document, expected
):
    path = tmp_path / "scenario.json"
    path.write_bytes(document_bytes(document))
    assert_refused(manage(str(path)), expected)


@pytest.mark.parametrize(
    ("label", "document", "expected"),
    [case for case in BAD_DOCUMENTS if case[0] in {"malformed JSON", "NaN", "several problems"}],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_it_refuses_bad_input_from_standard_input(label, document, expected):
    assert_refused(call("-", stdin=document_bytes(document)), expected)


def test_a_real_process_refuses_malformed_standard_input():
    assert_refused(manage("-", stdin=b"{"), None)


class TestBadInvocation:
    def test_empty_standard_input_is_refused(self):
        assert_refused(manage("-", stdin=b""), ["(input): standard input is empty"])
        assert_refused(call("-", stdin=b" \n"), ["(input): standard input is empty"])

    def test_a_missing_file_is_refused(self, tmp_path):
        path = tmp_path / "nope.json"
        assert_refused(
            call(str(path)), [f"(input): cannot read {str(path)!r}: No such file or directory"]
        )

    def test_a_directory_is_refused(self, tmp_path):
        done = call(str(tmp_path))
        assert done.returncode == 2
        assert done.stderr.startswith(f"(input): cannot read {str(tmp_path)!r}: ")
        assert "Traceback" not in done.stderr

    def test_an_unwritable_output_is_refused(self, tmp_path):
        target = tmp_path / "missing-dir" / "out.json"
        assert_refused(
            call(str(STEADY), "--output", str(target)),
            [f"--output: cannot write {str(target)!r}: No such file or directory"],
        )

    def test_bad_input_leaves_an_existing_output_file_untouched(self, tmp_path):
        target = tmp_path / "result.json"
        target.write_text("previous result")
        bad = json.dumps(steady(**{"build.capex": -1})).encode()
        assert_refused(
            call("-", "--output", str(target), stdin=bad),
            ["build.capex: must be greater than or equal to 0"],
        )
        assert target.read_text() == "previous result"
        assert [p.name for p in tmp_path.iterdir()] == ["result.json"]

    def test_an_unknown_format_is_a_usage_error(self):
        with pytest.raises(Exception, match="invalid choice: 'xml'"):
            call_command("compare", str(STEADY), "--format", "xml")

    def test_its_help_describes_the_arguments(self):
        from webapp.planner.management.commands.compare import Command

        text = Command().create_parser("manage.py", "compare").format_help()
        assert "--format {json,csv}" in text
        assert "--output PATH" in text

    def test_a_missing_scenario_argument_is_a_usage_error(self):
        with pytest.raises(Exception, match="the following arguments are required: scenario"):
            call_command("compare")


# --- version 3: jobs workloads ------------------------------------------------------------------

V3 = EXAMPLES / "v3"
V3_EXPECTED = json.loads((V3 / "expected.json").read_text())


@pytest.mark.parametrize("name", sorted(V3_EXPECTED))
def test_it_gives_the_published_figures_of_a_jobs_example(name):
    done = call(str(V3 / name))

    assert done.returncode == 0, done.stderr
    result, expected = json.loads(done.stdout), V3_EXPECTED[name]
    assert result["savings"] == pytest.approx(expected["savings"], rel=1e-9)
    assert result["break_even_month"] == pytest.approx(expected["break_even_month"], rel=1e-9)
    assert result["build"]["present_value"] == pytest.approx(
        expected["build_present_value"], rel=1e-9
    )
    assert [job["build_hours_per_run"] for job in result["jobs"]] == pytest.approx(
        [job["build_hours_per_run"] for job in expected["jobs"]]
    )


def test_a_real_process_refuses_bad_jobs_with_status_2_naming_each_field(tmp_path):
    data = json.loads((V3 / "jobs-lora-4090-vs-a100.json").read_text())
    data["workload"]["jobs"][0]["runs_per_month"] = -2
    data["workload"]["jobs"][1]["reference_gpu_hours"] = 0
    path = tmp_path / "jobs.json"
    path.write_text(json.dumps(data))

    assert_refused(
        manage(str(path)),
        [
            "workload.jobs.0.runs_per_month: must be greater than or equal to 0",
            "workload.jobs.1.reference_gpu_hours: must be greater than 0",
        ],
    )


def test_a_month_above_eight_boxes_exits_2_naming_the_jobs_and_the_month():
    data = json.loads((V3 / "jobs-lora-4090-vs-a100.json").read_text())
    data["workload"]["jobs"] = []
    assert_refused(
        call("-", stdin=json.dumps(data).encode()),
        ["workload.jobs: must have at least 1 item after validation, not 0"],
    )
    data["workload"]["jobs"] = [{"name": "huge", "reference_gpu_hours": 4000, "runs_per_month": 1}]
    assert_refused(
        call("-", stdin=json.dumps(data).encode()),
        ["workload.jobs: month 1 asks for 9.132 times what the box does in 730 hours (at most 8)"],
    )


def test_a_jobs_box_with_a_count_beyond_float64_is_refused_not_a_traceback():
    data = json.loads((V3 / "jobs-lora-4090-vs-a100.json").read_text())
    data["build"]["gpu_count"] = 10**400

    assert_refused(
        call("-", stdin=json.dumps(data).encode()),
        ["(scenario): inputs are so extreme that the results are not finite numbers"],
    )

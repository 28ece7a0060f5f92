"""``manage.py commitment FILE|-``: the published table, and bad input refused with status 2."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "tests" / "costmodel" / "examples"
CASE = next(
    c
    for c in json.loads((EXAMPLES / "v3" / "operations.json").read_text())["commitment"]
    if c["max_instances"] is not None
)


def request() -> dict:
    scenario = json.loads((EXAMPLES / "v3" / CASE["scenario"]).read_text())
    return {"scenario": scenario, "max_instances": CASE["max_instances"]}


def call(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[str]:
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    try:
        call_command("commitment", *args, stdout=out, stderr=err)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    finally:
        sys.stdin = saved
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def assert_published(answer: dict) -> None:
    expected = CASE["expected"]
    assert answer["max_instances"] == expected["max_instances"]
    assert answer["best_committed_instances"] == expected["best_committed_instances"]
    for got, want in zip(answer["rows"], expected["rows"], strict=True):
        for key, value in want.items():
            assert got[key] == pytest.approx(value, rel=1e-9), key


def test_a_real_process_prints_the_published_table_from_a_file(tmp_path):
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request()))
    env = {**os.environ, "DJANGO_SECRET_KEY": "test-only-not-secret"}

    done = subprocess.run(
        [sys.executable, "manage.py", "commitment", str(path)],
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=60,
        check=False,
        text=True,
    )

    assert done.returncode == 0, done.stderr
    assert_published(json.loads(done.stdout))


def test_a_dash_reads_the_request_from_standard_input():
    done = call("-", stdin=json.dumps(request()).encode())

    assert done.returncode == 0, done.stderr
    assert_published(json.loads(done.stdout))


def test_bad_input_exits_2_with_one_line_per_problem():
    data = request()
    data["scenario"]["rent"]["committed_hourly_rate"] = 0
    data["scenario"]["build"]["capex"] = -5

    done = call("-", stdin=json.dumps(data).encode())

    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "scenario.build.capex: must be greater than or equal to 0",
    ]
    del data["scenario"]["build"]["capex"]
    data["scenario"]["build"]["capex"] = 1000
    done = call("-", stdin=json.dumps(data).encode())
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "scenario.rent.committed_hourly_rate: must be greater than 0 to weigh a commitment "
        "(the price of a committed instance-hour)"
    ]


def test_output_writes_the_answer_to_a_file(tmp_path):
    source, target = tmp_path / "request.json", tmp_path / "answer.json"
    source.write_text(json.dumps(request()))

    done = call(str(source), "--output", str(target))

    assert done.returncode == 0
    assert_published(json.loads(target.read_text()))

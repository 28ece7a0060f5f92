"""``manage.py options FILE|-``: the published ranking, and bad input refused with status 2."""

from __future__ import annotations

import copy
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[3]
V4 = ROOT / "tests" / "costmodel" / "examples" / "v4"
NAME = "options-lora-boxes-and-offerings.json"
REQUEST = json.loads((V4 / NAME).read_text())
EXPECTED = json.loads((V4 / "operations.json").read_text())[NAME]


def call(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[str]:
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    try:
        call_command("options", *args, stdout=out, stderr=err)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    finally:
        sys.stdin = saved
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def assert_published(answer: dict) -> None:
    assert [(p["kind"], p.get("build"), p["rent"]) for p in answer["plans"]] == [
        (p["kind"], p.get("build"), p["rent"]) for p in EXPECTED["plans"]
    ]
    for got, want in zip(answer["plans"], EXPECTED["plans"], strict=True):
        for key in ("present_value", "total"):
            assert got[key] == pytest.approx(want[key], rel=1e-6), key
    assert answer["infeasible"] == EXPECTED["infeasible"]
    assert answer["best"]["build"] == EXPECTED["best"]["build"]
    assert answer["present_value_savings"] == pytest.approx(
        EXPECTED["present_value_savings"], rel=1e-6
    )


def test_a_real_process_prints_the_published_ranking_from_a_file(tmp_path):
    path = tmp_path / "request.json"
    path.write_text(json.dumps(REQUEST))
    env = {**os.environ, "DJANGO_SECRET_KEY": "test-only-not-secret"}

    done = subprocess.run(
        [sys.executable, "manage.py", "options", str(path)],
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
    done = call("-", stdin=json.dumps(REQUEST).encode())

    assert done.returncode == 0, done.stderr
    assert_published(json.loads(done.stdout))


def test_bad_input_exits_2_with_one_line_per_problem():
    data = copy.deepcopy(REQUEST)
    data["builds"][2]["name"] = data["builds"][0]["name"]

    done = call("-", stdin=json.dumps(data).encode())

    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "builds.2.name: must be unique: another option of the list has this name"
    ]
    data = copy.deepcopy(REQUEST)
    data["rents"][0]["rent"]["hourly_rate"] = -1
    data["scenario"]["workload"]["jobs"][1]["memory_gb"] = 0
    done = call("-", stdin=json.dumps(data).encode())
    assert done.returncode == 2
    assert [line.split(":")[0] for line in done.stderr.splitlines()] == [
        "scenario.workload.jobs.1.memory_gb",
        "rents.0.rent.hourly_rate",
    ]


def test_output_writes_the_answer_to_a_file(tmp_path):
    source, target = tmp_path / "request.json", tmp_path / "answer.json"
    source.write_text(json.dumps(REQUEST))

    done = call(str(source), "--output", str(target))

    assert done.returncode == 0
    assert_published(json.loads(target.read_text()))

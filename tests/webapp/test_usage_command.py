"""``manage.py usage FORMAT FILE|-``: the API's JSON on standard output, bad input exit 2."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

from numpy.testing import assert_allclose

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "costmodel" / "usage_fixtures"


def manage(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DJANGO_SECRET_KEY": "test-only-not-secret"}
    return subprocess.run(
        [sys.executable, "manage.py", "usage", *args],
        cwd=ROOT,
        input=stdin.decode("latin-1"),
        capture_output=True,
        text=True,
        encoding="latin-1",
        env=env,
        check=False,
        timeout=60,
    )


def test_it_prints_the_months_of_a_sacct_dump():
    done = manage("slurm-sacct", str(FIXTURES / "slurm-sacct.txt"))

    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["months"] == ["2026-09", "2026-10", "2026-11"]
    assert_allclose(answer["gpu_hours"], [124.0, 404.0, 48.0], rtol=1e-12)
    # what was skipped, as data and in the English words the API gives
    assert answer["notices"][:2] == [
        {"code": "job_steps_skipped", "count": 1},
        {"code": "unfinished_jobs_skipped", "count": 1},
    ]
    assert answer["warnings"][:2] == [
        "1 job steps skipped (only whole jobs count; use sacct -X)",
        "1 jobs without a start or an end skipped (still running?)",
    ]


def test_it_prints_the_same_json_as_the_api(client):
    text = (FIXTURES / "dcgm-prometheus.json").read_bytes()
    done = manage("dcgm-prometheus", "-", stdin=text)

    response = client.post(
        "/api/v1/usage",
        json.dumps({"format": "dcgm-prometheus", "content": text.decode()}),
        content_type="application/json",
    )
    assert json.loads(done.stdout) == response.json()


def test_bad_input_exits_2_with_a_message_naming_the_line():
    log = b"2026/11/02 10:00:00, 0, 10\n2026/11/02 09:00:00, 0, 10\n"
    done = manage("nvidia-smi", "-", stdin=log)

    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip() == (
        "content: line 2: timestamp is earlier than the previous sample of log 1 GPU 0; "
        "the log must be in time order"
    )


def test_a_job_in_the_year_9999_exits_2_naming_the_line():
    text = b"JobID|Start|End|AllocTRES\n1|9999-01-01T00:00:00|9999-01-01T01:00:00|gres/gpu=1\n"
    done = manage("slurm-sacct", "-", stdin=text)

    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(
        "content: line 2: Start 9999-01-01T00:00:00 is later than the time of reading ("
    )


def test_a_binary_file_exits_2(tmp_path):
    path = tmp_path / "log.zip"
    path.write_bytes(b"PK\x03\x04\x14\x00\x00\x00")  # a zip archive: binary

    done = manage("nvidia-smi", str(path))

    assert done.returncode == 2
    assert "line 1: is not text" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_empty_file_exits_2(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_bytes(b"")

    done = manage("aws-cur", str(path))

    assert done.returncode == 2
    assert "is empty" in done.stderr


def test_it_reads_a_gzip_file(tmp_path):
    path = tmp_path / "sacct.txt.gz"
    path.write_bytes(gzip.compress((FIXTURES / "slurm-sacct.txt").read_bytes()))

    done = manage("slurm-sacct", str(path))

    assert done.returncode == 0, done.stderr
    # the plain file's figures (test_it_prints_the_months_of_a_sacct_dump)
    assert_allclose(json.loads(done.stdout)["gpu_hours"], [124.0, 404.0, 48.0], rtol=1e-12)


def test_a_damaged_gzip_file_exits_2(tmp_path):
    path = tmp_path / "log.gz"
    path.write_bytes(b"\x1f\x8b\x08\x00\x00\x00\x00\x00")  # a gzip header, nothing after

    done = manage("nvidia-smi", str(path))

    assert done.returncode == 2
    assert "is a gzip archive that cannot be inflated" in done.stderr


def test_columns_name_the_fields_of_a_headerless_export():
    done = manage("slurm-sacct", str(FIXTURES / "xdmod-sacct.log"), "--columns", "xdmod")

    assert done.returncode == 0, done.stderr
    # hand computation in tests/costmodel/test_usage_slurm.py
    assert len(json.loads(done.stdout)["months"]) == 15

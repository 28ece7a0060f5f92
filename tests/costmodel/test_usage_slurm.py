"""Slurm accounting as sites export it: any header order, JobIDRaw, headerless with the field
order given (Open XDMoD's export as a preset), jobs without a GPU counted and reported.

Real sample: ``xdmod-sacct.log`` is Open XDMoD's Slurm shredder test input
(repository ubccr/xdmod, path
tests/artifacts/xdmod/unit/shredder/slurm/input/accounting-logs.log, commit
5c23ac8a3cfef0a4ccf0a35f80f9b310a4d76010), anonymized real jobs in the
``--parsable2 --noheader`` order XDMoD documents (26 fields, AllocTRES the 23rd).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from costmodel.usage import (
    SACCT_PRESETS,
    JobStepsSkipped,
    JobsWithoutGpu,
    UnfinishedJobsSkipped,
    UsageError,
    read_slurm_sacct,
    read_usage,
)

FIXTURES = Path(__file__).resolve().parent / "usage_fixtures"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def error_of(caught: pytest.ExceptionInfo[UsageError]) -> tuple[str, str, str, dict]:
    [problem] = caught.value.errors
    return problem.field, problem.code, problem.message, problem.params


class TestXdmodExport:
    """Hand computation. Four jobs: 4103947 (06-28 02:55:50 → 07-01 02:55:50), 4107166
    (06-28 15:14:49 → 07-01 13:17:53) and 4107219 (06-30 12:04:04 → 07-01 02:04:53), 2015,
    without a GPU; 5692623 with gres/gpu=2 that started and ended at 2016-08-01 07:04:09.

    GPU-hours: 2 GPUs × 0 s = 0 in every month. The accounting observes from the first
    start, 2015-06-28 02:55:50, to the last end, 2016-08-01 07:04:09: 15 months, June 2015
    for 2 d 21 h 4 min 10 s = 69 + 250/3600 h, August 2016 for 7 h 4 min 9 s.
    """

    usage = read_slurm_sacct(fixture("xdmod-sacct.log"), "xdmod")

    def test_the_preset_reads_the_26_fields(self):
        assert len(SACCT_PRESETS["xdmod"]) == 26
        assert SACCT_PRESETS["xdmod"][22] == "alloctres"

    def test_its_gpu_hours_and_observed_hours(self):
        assert self.usage.months[0] == "2015-06"
        assert self.usage.months[-1] == "2016-08"
        assert len(self.usage.months) == 15
        assert self.usage.gpu_hours == [0.0] * 15
        assert_allclose(self.usage.observed_hours[0], 69 + 250 / 3600, rtol=1e-12)
        assert_allclose(self.usage.observed_hours[-1], 7 + 249 / 3600, rtol=1e-12)

    def test_the_jobs_without_a_gpu_are_counted(self):
        assert JobsWithoutGpu(count=3) in self.usage.notices

    def test_the_preset_is_the_same_as_naming_the_fields(self):
        named = read_slurm_sacct(fixture("xdmod-sacct.log"), ",".join(SACCT_PRESETS["xdmod"]))
        assert named == self.usage

    def test_without_the_field_order_it_is_refused_saying_how_to_give_it(self):
        with pytest.raises(UsageError) as caught:
            read_slurm_sacct(fixture("xdmod-sacct.log"))
        field, code, message, params = error_of(caught)
        assert (field, code, params) == ("content", "not_sacct", {"line": 1, "count": 26})
        assert "--columns" in message
        assert "xdmod" in message


# The derived fixture of tests/costmodel/test_usage.py, GPU-hours [124, 404, 48] per month.
FIXTURE_HOURS = [124.0, 404.0, 48.0]


def reordered(header: list[str], order: list[int], extra: str = "") -> str:
    """The fixture's rows with its fields in ``order`` and an ``extra`` field after them."""
    lines = fixture("slurm-sacct.txt").splitlines()
    rows = [line.split("|") for line in lines[1:]]
    head = "|".join([header[i] for i in order] + ([extra] if extra else []))
    body = ["|".join([r[i] for i in order] + (["x"] if extra else [])) for r in rows]
    return "\n".join([head, *body]) + "\n"


@pytest.mark.parametrize("id_name", ["JobID", "JobIDRaw"])
def test_a_header_in_any_order_with_other_fields_gives_the_same_hours(id_name):
    text = reordered([id_name, "Start", "End", "AllocTRES"], [3, 2, 0, 1], extra="State")
    usage = read_slurm_sacct(text)
    assert_allclose(usage.gpu_hours, FIXTURE_HOURS, rtol=1e-12)
    assert usage.notices[:3] == [
        JobStepsSkipped(count=1),
        UnfinishedJobsSkipped(count=1),
        JobsWithoutGpu(count=1),
    ]


def test_headerless_output_reads_in_the_order_given():
    text = reordered(["JobID", "Start", "End", "AllocTRES"], [2, 3, 1, 0])
    headerless = text.split("\n", 1)[1]
    usage = read_usage("slurm-sacct", headerless, columns="End, AllocTRES, Start, JobID")
    assert_allclose(usage.gpu_hours, FIXTURE_HOURS, rtol=1e-12)


def test_the_field_order_missing_a_needed_field_is_refused_on_columns():
    with pytest.raises(UsageError) as caught:
        read_slurm_sacct("1|2026-10-01T00:00:00|x\n", "jobid,start,elapsed")
    field, code, message, params = error_of(caught)
    assert (field, code, params) == ("columns", "columns_missing", {"columns": "end, alloctres"})
    assert message.startswith("has no end, alloctres: name the fields")


def test_a_file_where_no_job_allocated_a_gpu_is_refused():
    text = (
        "JobID|Start|End|AllocTRES\n"
        "1|2026-10-01T00:00:00|2026-10-01T01:00:00|billing=4,cpu=4,mem=16G,node=1\n"
        "2|2026-10-01T00:00:00|2026-10-01T02:00:00|cpu=4,gres/gpu=0\n"
    )
    with pytest.raises(UsageError) as caught:
        read_slurm_sacct(text)
    field, code, message, params = error_of(caught)
    assert (field, code, params) == ("content", "no_gpu_job", {"jobs": 2})
    assert message.startswith("no job in this file allocated a GPU")


def test_jobs_without_a_gpu_still_count_for_the_time_observed():
    # job 1: 4 GPUs for 1 h; job 2 (no GPU) runs until 05:00: observed 00:00-05:00 = 5 h
    text = (
        "JobID|Start|End|AllocTRES\n"
        "1|2026-10-01T00:00:00|2026-10-01T01:00:00|cpu=4,gres/gpu=4\n"
        "2|2026-10-01T00:00:00|2026-10-01T05:00:00|cpu=4\n"
    )
    usage = read_slurm_sacct(text)
    assert_allclose(usage.gpu_hours, [4.0], rtol=1e-12)
    assert_allclose(usage.observed_hours, [5.0], rtol=1e-12)
    assert np.isclose(usage.gpus, 4)
